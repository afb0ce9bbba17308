--- Handlers for what the server sends: pi/event, pi/saveDocuments, pi/requestPermission, pi/ask,
--- window/showMessageRequest (never modal when Neovim lets a handler wait).
local state = require("pi.state")
local proto = require("pi.protocol")

local M = {}

--- pi/event {sessionId, seq, event}: held while re-attaching, deduplicated by seq.
---@param _ any
---@param params table
function M.on_event(_, params)
  if type(params) ~= "table" or params.event == nil then return end
  if state.hold then table.insert(state.hold, params) return end -- re-attaching: replay first
  if params.parentSessionId then -- a task child's event: its own transcript (pi.children)
    require("pi.children").on_event(params)
    return
  end
  local sid = params.sessionId
  if sid then
    if params.seq and state.seq[sid] and params.seq <= state.seq[sid] then return end -- replayed twice
    state.seq[sid] = params.seq or state.seq[sid]
    state.session = state.session or sid
    if sid ~= state.session then return end
  end
  local ev = params.event
  if ev.type == "agent_start" then state.streaming = true
  elseif ev.type == "agent_end" then
    state.streaming = false
    require("pi.ask").withdraw()
  elseif ev.type == "turn_start" then state.turn = state.turn + 1
  elseif ev.type == "queue_update" then
    state.queue = { steering = ev.steering or {}, followUp = ev.followUp or {} }
    require("pi.queue").refresh()
  elseif ev.type == "todo_update" or ev.type == "mode_update" then
    require("pi.plan").on_event(ev)
  elseif ev.type == "review_update" then
    require("pi.review").update(ev.files or {})
  elseif ev.type == "resources_update" or ev.type == "resource_notice" then
    require("pi.context").on_event(ev)
  elseif ev.type == "tool_execution_start" and type(ev.args) == "table" and ev.args.path then
    local path = ev.args.path
    if not path:match("^/") then path = (require("pi.client").current_root or vim.fn.getcwd()) .. "/" .. path end
    state.touched[vim.uri_from_fname(path)] = true
  end
  require("pi.status").on_event(ev)
  require("pi.chat").on_event(ev, params)
end

--- pi/saveDocuments {uris} -> {saved}
---@param _ any
---@param params table
---@return {saved: string[]}
function M.save_documents(_, params)
  local saved = {}
  for _, uri in ipairs((params and params.uris) or {}) do
    local buf = vim.uri_to_bufnr(uri)
    if vim.api.nvim_buf_is_loaded(buf) then
      local ok = pcall(vim.api.nvim_buf_call, buf, function() vim.cmd("silent write") end)
      if ok then table.insert(saved, uri) end
    end
  end
  return { saved = saved }
end

---@param _ any
---@param params table RequestPermissionParams
---@return pi.PermissionAnswer|userdata answer or vim.NIL
function M.request_permission(_, params)
  return require("pi.permission").ask(params)
end

---@param err any
---@param params table
---@param ctx table
---@param cfg? table
---@return table|userdata
function M.show_message_request(err, params, ctx, cfg)
  local perm = require("pi.permission")
  if perm.can_wait() then return perm.ask_message(params) end
  return vim.lsp.handlers[proto.lsp.showMessageRequest](err, params, ctx, cfg)
end

local function to_lsp(d)
  return {
    range = { start = { line = d.lnum, character = d.col },
              ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col } },
    severity = d.severity, message = d.message, source = d.source, code = d.code,
  }
end

--- pi/diagnostics for a buffer the agent edited.
---@param buf integer
function M.forward_diagnostics(buf)
  if not buf or not vim.api.nvim_buf_is_valid(buf) then return end
  local uri = vim.uri_from_bufnr(buf)
  if not state.touched[uri] then return end
  local items = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(items, to_lsp(d)) end
  proto.notify(proto.notification.diagnostics, {
    uri = uri, version = (vim.lsp.util.buf_versions or {})[buf], diagnostics = items,
  })
end

--- The handlers given to the client, by method name.
---@return table<string, function>
function M.all()
  return {
    [proto.handled.event] = M.on_event,
    [proto.handled.saveDocuments] = M.save_documents,
    [proto.handled.requestPermission] = M.request_permission,
    [proto.handled.ask] = function(err, params) return require("pi.ask").ask(err, params) end,
    [proto.handled.lspQuery] = function(err, params) return require("pi.lspquery").answer(err, params) end,
    [proto.lsp.showMessageRequest] = M.show_message_request,
  }
end

return M
