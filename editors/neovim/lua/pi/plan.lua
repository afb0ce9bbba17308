--- Plan mode and the todo list: a "## Plan" block at the top of the chat buffer (the mode and
--- the agent's checklist), :PiTodo in a float, :PiPlan / :PiAct (pi/setMode).
local state = require("pi.state")
local proto = require("pi.protocol")

local M = { block = 0, win = nil, buf = nil }

local MARKS = { pending = "[ ]", in_progress = "[~]", completed = "[x]" }

--- The plan block's lines (none in act mode with an empty list).
---@return string[]
function M.lines()
  local items = state.todo or {}
  if #items == 0 and state.mode ~= "plan" then return {} end
  local done = 0
  for _, it in ipairs(items) do if it.status == "completed" then done = done + 1 end end
  local head = "## Plan"
  if #items > 0 then head = head .. (" (%d/%d)"):format(done, #items) end
  if state.mode == "plan" then head = head .. " · plan mode: read-only, :PiAct to carry it out" end
  local out = { head }
  for _, it in ipairs(items) do
    table.insert(out, ("- %s %s"):format(MARKS[it.status] or "[ ]", it.content or ""))
  end
  return out
end

--- Rewrite the block under the chat's title line; tool cards below move with it.
function M.render()
  local chat = require("pi.chat")
  local buf = chat.ensure_buf()
  if M.block_buf ~= buf then M.block, M.block_buf = 0, buf end
  chat.flush()
  local lines = M.lines()
  vim.api.nvim_buf_set_lines(buf, 1, 1 + M.block, false, lines)
  local delta = #lines - M.block
  M.block = #lines
  if delta ~= 0 then
    for id, at in pairs(chat.cards) do chat.cards[id] = at + delta end
  end
  if M.win and vim.api.nvim_win_is_valid(M.win) then M.float() end
end

---@param ev table a todo_update or mode_update event
function M.on_event(ev)
  if ev.type == "todo_update" then
    state.todo = ev.items or {}
    M.render()
  elseif ev.type == "mode_update" then
    state.mode = ev.mode
    M.render()
  end
end

--- pi/state (after attaching or resuming): the session's mode and list.
---@param res table|nil a pi/state result
function M.from_state(res)
  if type(res) ~= "table" then return end
  state.mode = res.mode or state.mode
  if type(res.todo) == "table" then state.todo = res.todo end
  M.render()
end

--- Ask the server for the mode and list (pi/state).
function M.refresh()
  if not state.session then return end
  proto.request(proto.method.state, { sessionId = state.session }, function(err, res)
    if not err then M.from_state(res) end
  end)
end

--- :PiTodo — the list in a float (q closes it).
---@return integer win
function M.float()
  local lines = M.lines()
  if #lines == 0 then lines = { "(no todo list yet)" } end
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    M.buf = vim.api.nvim_create_buf(false, true)
    vim.bo[M.buf].filetype = "markdown"
    vim.keymap.set("n", "q", function() M.close() end, { buffer = M.buf, nowait = true })
  end
  return require("pi.float").show(M, lines, 1)
end

--- Close the todo float.
function M.close() require("pi.float").close(M) end

--- :PiPlan / :PiAct — switch the current session's mode (a new session is made if none).
---@param mode "act"|"plan"
function M.set_mode(mode)
  local function go()
    proto.request(proto.method.setMode, { sessionId = state.session, mode = mode }, function(err, res)
      if err then return end
      state.mode = res.mode
      M.render()
      local chat = require("pi.chat")
      chat.open()
      if res.followUp then chat.note("act mode: carrying out the plan")
      else chat.note(mode .. " mode") end
    end)
  end
  require("pi.client").ensure()
  if state.session then return go() end
  proto.request(proto.method.newSession, {}, function(err, res)
    if err then return end
    state.session = res.sessionId
    go()
  end)
end

return M
