--- The statusline component (context meter, what waits for the user, background processes)
--- and the nudges: vim.notify when a permission or question waits or a run ends, plus an
--- OSC 777 / OSC 9 desktop notification while Neovim is not focused (FocusLost), and a warning
--- when the context passes config.notify.context_warning (80 %). See :help pi-statusline.
local config = require("pi.config")
local state = require("pi.state")

local M = {
  focused = true,          -- FocusGained / FocusLost (a terminal that reports focus)
  context = nil,           -- { tokens = n, window = n } from pi/state
  warned = false,          -- the 80 % warning was given (again once it drops below)
  running = 0,             -- live background processes (processes_update)
  sent = {},               -- desktop notifications written (tests read it)
}

--- "1.2k" / "128k" / "950".
---@param n integer
---@return string
function M.short(n)
  if n >= 1000000 then return ("%.1fM"):format(n / 1000000):gsub("%.0M", "M") end
  if n >= 10000 then return ("%dk"):format(math.floor(n / 1000 + 0.5)) end
  if n >= 1000 then return ("%.1fk"):format(n / 1000):gsub("%.0k", "k") end
  return tostring(n)
end

--- How many things wait for the user: permission questions and the agent's question.
---@return integer
function M.waiting()
  return #state.permissions + (state.question and 1 or 0)
end

--- The statusline component: "π 1.2k/128k · 1 waiting · 2 procs" (empty before a session).
--- Add it with `set statusline+=%{v:lua.require'pi'.statusline()}`, or as a lualine component.
---@return string
function M.statusline()
  local parts = {}
  if M.context then
    table.insert(parts, ("%s/%s"):format(M.short(M.context.tokens), M.short(M.context.window)))
  end
  local n = M.waiting()
  if n > 0 then table.insert(parts, ("%d waiting"):format(n)) end
  if M.running > 0 then table.insert(parts, ("%d proc%s"):format(M.running, M.running == 1 and "" or "s")) end
  if #parts == 0 then return "" end
  return "π " .. table.concat(parts, " · ")
end

--- The terminal escape for a desktop notification (nil: off).
---@param title string
---@param body string
---@return string|nil
function M.osc(title, body)
  local kind = config.options.notify.desktop
  if kind == false then return nil end
  if kind == "auto" then
    local prog = os.getenv("TERM_PROGRAM") or ""
    kind = (prog == "iTerm.app" or prog == "WezTerm" or prog == "ghostty") and "osc9" or "osc777"
  end
  local clean = function(s) return (s:gsub("[%c;]", " ")) end
  if kind == "osc9" then return ("\27]9;%s: %s\7"):format(clean(title), clean(body)) end
  return ("\27]777;notify;%s;%s\7"):format(clean(title), clean(body))
end

--- Write an escape sequence to the terminal Neovim runs in.
---@param seq string
function M.write_terminal(seq)
  table.insert(M.sent, seq)
  if not pcall(vim.api.nvim_chan_send, 2, seq) then pcall(io.stderr.write, io.stderr, seq) end
end

--- A nudge: vim.notify, and a desktop notification while Neovim is not focused.
---@param what "permission"|"question"|"done"
---@param text string
function M.nudge(what, text)
  local on = config.options.notify[what]
  if on == false then return end
  vim.schedule(function()
    vim.notify("pi: " .. text, what == "done" and vim.log.levels.INFO or vim.log.levels.WARN)
    if not M.focused then
      local seq = M.osc("pi", text)
      if seq then M.write_terminal(seq) end
    end
    pcall(vim.cmd, "redrawstatus")
  end)
end

--- Ask the server for the context figure (pi/state), then warn past the threshold.
function M.refresh()
  if not state.session then return end
  local proto = require("pi.protocol")
  proto.request(proto.method.state, { sessionId = state.session }, function(err, res)
    if err or not res or not res.contextTokens or not res.contextWindow then return end
    M.context = { tokens = res.contextTokens, window = res.contextWindow }
    M.check_context()
    pcall(vim.cmd, "redrawstatus")
  end)
end

--- The warning once the context passes config.notify.context_warning of the window.
function M.check_context()
  local c = M.context
  local limit = config.options.notify.context_warning
  if not c or not limit or c.window <= 0 then return end
  local share = c.tokens / c.window
  if share < limit then M.warned = false return end
  if M.warned then return end
  M.warned = true
  vim.notify(("pi: context %d%% full (%s of %s tokens): compaction is near. :PiCompact (or /compact) "
    .. "summarises the earlier turns now, keeping the recent ones; otherwise pi compacts by itself "
    .. "when the context is full."):format(math.floor(100 * share), M.short(c.tokens), M.short(c.window)),
    vim.log.levels.WARN)
end

--- Events of the current session (handlers.on_event).
---@param ev table
function M.on_event(ev)
  if ev.type == "agent_end" then
    local last = ev.messages and ev.messages[#ev.messages]
    local failed = type(last) == "table" and last.stopReason == "error"
    M.nudge("done", failed and "the run failed" or "the run is done")
    M.refresh()
  elseif ev.type == "compaction_end" then
    M.warned = false
    M.refresh()
  elseif ev.type == "processes_update" then
    local n = 0
    for _, p in ipairs(ev.processes or {}) do if p.running then n = n + 1 end end
    M.running = n
    require("pi.procs").on_update(ev.processes or {})
    pcall(vim.cmd, "redrawstatus")
  end
end

--- FocusGained / FocusLost autocommands (client.setup_autocmds calls this).
function M.setup_autocmds()
  local group = vim.api.nvim_create_augroup("pi_focus", { clear = true })
  vim.api.nvim_create_autocmd("FocusLost", { group = group, callback = function() M.focused = false end })
  vim.api.nvim_create_autocmd("FocusGained", { group = group, callback = function() M.focused = true end })
end

return M
