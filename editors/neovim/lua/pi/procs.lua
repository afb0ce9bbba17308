--- :PiProcs — the session's background processes (dev servers, watchers the agent started):
--- command, uptime, last line; pick one to stop it (pi/processes).
local proto = require("pi.protocol")
local state = require("pi.state")

local M = { last = {} }

---@param seconds number
---@return string
function M.uptime(seconds)
  local s = math.floor(seconds or 0)
  if s < 60 then return s .. "s" end
  if s < 3600 then return ("%dm%02ds"):format(math.floor(s / 60), s % 60) end
  return ("%dh%02dm"):format(math.floor(s / 3600), math.floor(s / 60) % 60)
end

--- One line of the list.
---@param p table ProcessInfo
---@return string
function M.line(p)
  local st = p.running and ("running " .. M.uptime(p.uptime))
    or (p.exitCode and ("ended (%d)"):format(p.exitCode) or "ended")
  local last = (p.lastLines or {})[#(p.lastLines or {})] or ""
  return ("%s  %s  [%s]  %s"):format(p.id, p.command, st, last)
end

--- processes_update: remember the list (the statusline counts it).
---@param processes table[]
function M.on_update(processes) M.last = processes end

--- :PiProcs — list; the process picked is stopped (after a confirmation).
function M.open()
  proto.request(proto.method.processes, { sessionId = state.session }, function(err, res)
    if err then return end
    local list = (res and res.processes) or {}
    M.last = list
    if #list == 0 then return proto.notify_user("no background processes in this session") end
    vim.ui.select(list, { prompt = "pi background processes (pick a running one to stop it)",
      format_item = M.line }, function(p)
      if not p then return end
      if not p.running then return proto.notify_user(M.line(p)) end
      M.kill(p.id)
    end)
  end)
end

--- Stop process `id` (its whole process group).
---@param id string
---@param cb? fun(list: table[]|nil)
function M.kill(id, cb)
  proto.request(proto.method.processes, { sessionId = state.session, op = "kill", id = id }, function(err, res)
    if not err then
      M.last = (res and res.processes) or {}
      proto.notify_user("stopped " .. id)
    end
    if cb then cb(res and res.processes) end
  end)
end

return M
