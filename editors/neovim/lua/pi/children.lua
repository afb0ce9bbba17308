--- The agent's `task` children (docs/subagents.md): one line per child in the chat with its
--- state and progress, updated in place; `:PiChild [id]` opens a child's transcript buffer
--- "pi://child/<id>", which grows while the child runs.
local M = { children = {}, order = {} }

local function child(id)
  local c = M.children[id]
  if not c then
    c = { id = id, agent = "?", description = "", state = "running", lines = {}, progress = "", text = "" }
    M.children[id] = c
    table.insert(M.order, id)
  end
  return c
end

local function usage_text(u)
  if type(u) ~= "table" then return "" end
  return (" · %d turns · %d/%d tokens · $%.4f"):format(u.turns or 0, u.input or 0, u.output or 0, u.cost or 0)
end

--- The chat line of a child: "⧉ [agent] description — state · progress".
local function render(c)
  local mark = ({ completed = "✓", failed = "✗", cancelled = "⏹", queued = "…" })[c.state] or "⧉"
  local tail = c.state == "running" and c.progress ~= "" and (" · " .. c.progress) or usage_text(c.usage)
  return ("%s [%s] %s — %s%s"):format(mark, c.agent, c.description, c.state, tail)
end

local function refresh_line(c)
  require("pi.chat").child_line(c.id, render(c), c.state == "failed" and "ErrorMsg" or "Special")
end

local function buf_append(c, lines)
  for _, l in ipairs(lines) do table.insert(c.lines, l) end
  if c.buf and vim.api.nvim_buf_is_valid(c.buf) then
    vim.bo[c.buf].modifiable = true
    vim.api.nvim_buf_set_lines(c.buf, -1, -1, false, lines)
    vim.bo[c.buf].modifiable = false
  end
end

local function flush_text(c)
  if c.text ~= "" then
    buf_append(c, vim.split(c.text, "\n", { plain = true }))
    c.text = ""
  end
end

--- The parent's `subagent_update` (announce, then one terminal state).
---@param ev table
function M.on_update(ev)
  local c = child(ev.childSessionId)
  c.agent, c.description, c.state = ev.agent or c.agent, ev.description or c.description, ev.state or c.state
  c.usage = ev.usage or c.usage
  c.tool_call = ev.toolCallId
  if c.state ~= "running" and c.state ~= "queued" then
    flush_text(c)
    buf_append(c, { "", ("── %s%s"):format(c.state, usage_text(c.usage)) })
  end
  refresh_line(c)
end

--- One event of a child (`pi/event` with `parentSessionId`).
---@param params table
function M.on_event(params)
  local c = child(params.sessionId)
  local ev = params.event or {}
  local t = ev.type
  if t == "message_update" then
    local u = ev.assistantMessageEvent or {}
    if u.type == "text_delta" then c.text = c.text .. (u.delta or "") end
  elseif t == "message_end" and ev.message and ev.message.role == "assistant" then
    flush_text(c)
    if ev.message.errorMessage then buf_append(c, { "✗ error: " .. ev.message.errorMessage }) end
  elseif t == "tool_execution_start" then
    flush_text(c)
    local args = type(ev.args) == "table" and (ev.args.path or ev.args.command or ev.args.pattern) or nil
    c.progress = ev.toolName .. (args and (" " .. tostring(args)) or "")
    buf_append(c, { "▶ " .. c.progress })
    refresh_line(c)
  elseif t == "tool_execution_end" then
    local result = ev.result or {}
    local text = require("pi.chat").text_of(result.content or {})
    buf_append(c, { ("%s %s — %s"):format(ev.isError and "✗" or "✓", ev.toolName, (text:match("[^\n]*") or "")) })
  elseif t == "turn_start" then
    c.turn = (c.turn or 0) + 1
  end
end

--- `:PiChild [id]`: the child's transcript (without an id: the latest child).
---@param id? string
---@return integer|nil buf
function M.open(id)
  id = (id and id ~= "") and id or M.order[#M.order]
  local c = id and M.children[id]
  if not c then
    vim.notify("pi: no subagent" .. (id and (" " .. id) or " yet"), vim.log.levels.WARN)
    return nil
  end
  if not (c.buf and vim.api.nvim_buf_is_valid(c.buf)) then
    c.buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(c.buf, "pi://child/" .. c.id)
    vim.bo[c.buf].filetype = "markdown"
    vim.bo[c.buf].bufhidden = "hide"
    local head = { ("# [%s] %s"):format(c.agent, c.description), "" }
    vim.api.nvim_buf_set_lines(c.buf, 0, -1, false, vim.list_extend(head, vim.deepcopy(c.lines)))
    vim.bo[c.buf].modifiable = false
  end
  flush_text(c)
  vim.cmd("botright split")
  vim.api.nvim_win_set_buf(0, c.buf)
  return c.buf
end

--- Ids for `:PiChild <Tab>`.
function M.complete()
  return vim.deepcopy(M.order)
end

return M
