--- The project's context (docs/context.md): the server's slash commands (`pi/commands`: its
--- own, the prompt templates, the skills as `skill:NAME`) completed after `/` in :Pi's prompt
--- input and on the :Pi command line; `:PiContext` lists what the session loaded (context files,
--- system prompt files, skills, templates, trust, diagnostics; <CR> opens the file under the
--- cursor); `:PiReload` loads them again (`pi/reload`). A typed `/context`, `/reload` or
--- `/compact` runs here; any other `/name` is sent and the server expands it.
local state = require("pi.state")
local proto = require("pi.protocol")

local M = {
  ---@type table[]|nil the last `pi/commands` answer's commands ({name, description, argumentHint?, source, path?})
  commands = nil,
  ---@type {buf: integer|nil, paths: table<integer, string>}
  view = { buf = nil, paths = {} },
}

-- input()'s completion needs a Vim function name: this one asks M.complete
vim.cmd([[
function! PiCompleteCommand(lead, line, pos) abort
  return luaeval('require("pi.context").complete(_A[1], _A[2])', [a:lead, a:line])
endfunction
]])
M.COMPLETION = "customlist,PiCompleteCommand"

local function params() return state.session and { sessionId = state.session } or {} end

--- Ask the server for its commands again (async); `cb` runs after.
---@param cb? fun()
function M.refresh(cb)
  local sent = proto.request(proto.method.commands, params(), function(err, res)
    if not err and type(res) == "table" and type(res.commands) == "table" then M.commands = res.commands end
    if cb then cb() end
  end)
  if not sent and cb then cb() end
end

--- The commands now: the cache, else asked synchronously (at most 2 s).
---@return table[]
local function commands()
  if M.commands then return M.commands end
  local client = require("pi.client").get()
  if client == nil then return {} end
  local p = params()
  if next(p) == nil then p = vim.empty_dict() end
  local ok, res = pcall(proto.call, client, "request_sync", proto.method.commands, p, 2000, 0)
  if ok and type(res) == "table" and type(res.result) == "table" then M.commands = res.result.commands end
  return M.commands or {}
end

--- Completion of a command name: `lead` is the word being typed; only the first word of the
--- prompt (input(): the whole line so far; :Pi: the first argument) and only after `/`.
---@param lead string
---@param line string
---@return string[]
function M.complete(lead, line)
  local before = line:sub(1, #line - #lead)
  if lead:sub(1, 1) ~= "/" or lead:find("%s") then return {} end
  if before ~= "" and not before:match("^%s*%S+%s+$") then return {} end  -- :Pi /x, or input()'s /x
  local out = {}
  for _, c in ipairs(commands()) do
    local name = "/" .. c.name
    if name:sub(1, #lead) == lead then table.insert(out, name) end
  end
  return out
end

--- One line per command, for a picker or :help: "/review <FILE> — Review a change".
---@return string[]
function M.describe_commands()
  local out = {}
  for _, c in ipairs(commands()) do
    local hint = (type(c.argumentHint) == "string" and c.argumentHint ~= "") and (" <" .. c.argumentHint .. ">") or ""
    table.insert(out, ("/%s%s — %s"):format(c.name, hint, c.description or ""))
  end
  return out
end

--- A typed `/context`, `/reload`, `/compact` or `/export [path]`: run here (true), never
--- sent to the model.
---@param text string
---@return boolean
function M.builtin(text)
  local path = text:match("^/export%s+(.-)%s*$")
  if path then require("pi.commands").export({ args = path }) return true end
  local name = text:match("^/(%a+)%s*$")
  if name == "export" then require("pi.commands").export({ args = "" }) return true end
  if name == "context" then M.show() return true end
  if name == "reload" then M.reload() return true end
  if name == "compact" then
    proto.request(proto.method.compact, params(), function(err, res)
      if err then return end
      require("pi.chat").note(res and res.compacted and "compacted" or "nothing to compact yet")
    end)
    return true
  end
  return false
end

--- The lines of the :PiContext buffer for a `pi/context` answer, and the file of each line.
---@param c table
---@return string[] lines
---@return table<integer, string> paths line number -> file
function M.render(c)
  local lines, paths = {}, {}
  local function add(text, path)
    table.insert(lines, text)
    if path then paths[#lines] = path end
  end
  local trust = c.trust or {}
  local status = ({ trusted = "trusted", untrusted = "not trusted (its own files were not loaded)",
    ["not-needed"] = "nothing needs trust" })[trust.status] or tostring(trust.status)
  add("pi context for " .. tostring(c.cwd) .. "   project: " .. status)
  add("")
  add("Context files")
  for _, f in ipairs(c.contextFiles or {}) do
    add(("  %s  (%s, %d bytes%s)"):format(f.path, f.scope, f.bytes or 0, f.truncated and ", truncated" or ""), f.path)
  end
  local prompts = {}
  if type(c.systemPrompt) == "table" then table.insert(prompts, c.systemPrompt) end
  for _, p in ipairs(c.appendSystemPrompt or {}) do table.insert(prompts, p) end
  if #prompts > 0 then
    add("System prompt")
    for _, p in ipairs(prompts) do
      if type(p.path) == "string" then add("  " .. p.path, p.path) else add("  (given text)") end
    end
  end
  add("Skills")
  for _, s in ipairs(c.skills or {}) do add(("  %s — %s  %s"):format(s.name, s.description, s.path), s.path) end
  add("Prompt templates")
  for _, t in ipairs(c.templates or {}) do add(("  /%s — %s  %s"):format(t.name, t.description, t.path), t.path) end
  if trust.ignoredPaths and #trust.ignoredPaths > 0 then
    add("Not loaded (project not trusted)")
    for _, p in ipairs(trust.ignoredPaths) do add("  " .. p, p) end
  end
  if c.diagnostics and #c.diagnostics > 0 then
    add("Diagnostics")
    for _, d in ipairs(c.diagnostics) do
      local path = type(d.path) == "string" and d.path or nil
      add(("  %s: %s%s"):format(d.type, d.message, path and ("  " .. path) or ""), path)
    end
  end
  return lines, paths
end

local function show_result(c)
  local view = M.view
  if not (view.buf and vim.api.nvim_buf_is_valid(view.buf)) then
    view.buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(view.buf, "pi://context")
    vim.bo[view.buf].bufhidden = "hide"
    vim.keymap.set("n", "<CR>", function() M.open_at(vim.api.nvim_win_get_cursor(0)[1]) end,
      { buffer = view.buf, desc = "pi: open this file" })
    vim.keymap.set("n", "q", "<cmd>close<cr>", { buffer = view.buf })
  end
  local lines, paths = M.render(c)
  view.paths = paths
  vim.bo[view.buf].modifiable = true
  vim.api.nvim_buf_set_lines(view.buf, 0, -1, false, lines)
  vim.bo[view.buf].modifiable = false
  local win = vim.fn.bufwinid(view.buf)
  if win == -1 then
    vim.cmd("botright " .. math.min(#lines, 20) .. "split")
    vim.api.nvim_win_set_buf(0, view.buf)
  else
    vim.api.nvim_set_current_win(win)
  end
end

--- Open the file listed on line `row` of the :PiContext buffer.
---@param row integer
function M.open_at(row)
  local path = M.view.paths[row]
  if not path then return end
  vim.cmd("wincmd p")
  vim.cmd("edit " .. vim.fn.fnameescape(path))
end

--- :PiContext — what the current session loaded.
function M.show()
  require("pi.client").ensure()
  proto.request(proto.method.context, params(), function(err, res)
    if err or type(res) ~= "table" then return end
    vim.schedule(function() show_result(res) end)
  end)
end

--- :PiReload — load the context files, skills and templates again.
function M.reload()
  require("pi.client").ensure()
  proto.request(proto.method.reload, params(), function(err, res)
    if err or type(res) ~= "table" then return end
    M.refresh()
    vim.schedule(function()
      vim.notify(("pi: reloaded: %d context files, %d skills, %d templates"):format(
        #(res.contextFiles or {}), #(res.skills or {}), #(res.templates or {})))
      if M.view.buf and vim.fn.bufwinid(M.view.buf) ~= -1 then show_result(res) end
    end)
  end)
end

--- pi/event `resources_update` (the session's resources were loaded again) and
--- `resource_notice` (an unknown /name, too few arguments).
---@param ev table
function M.on_event(ev)
  if ev.type == "resources_update" then
    M.refresh()
  elseif ev.type == "resource_notice" and type(ev.message) == "string" then
    proto.notify_user(ev.message, vim.log.levels.WARN)
  end
end

return M
