--- The wire, in one module: every method name the plugin sends or handles (no "pi/…" string
--- appears in any other module; tests/editors/test_neovim_protocol.py checks that, and that each
--- name is one the server registers or sends), and the one place that calls the client (0.7 dot
--- API or 0.11 method API) and turns MethodNotFound into a single "this server has no X" notice.
--- The params and results are described in docs/protocol.md and docs/protocol.schema.json.
local M = {
  ---@type table<string, boolean> method -> true once the server answered MethodNotFound
  missing = {},
}

--- Client → server requests (the server's pi_lsp/lsp/protocol/methods.py REQUESTS), keyed by the
--- name after "pi/": `proto.request(proto.method.prompt, params, cb)`.
---@enum pi.RequestMethod
M.method = {
  prompt = "pi/prompt",
  steer = "pi/steer",
  followUp = "pi/followUp",
  abort = "pi/abort",
  newSession = "pi/newSession",
  sessions = "pi/sessions",
  resumeSession = "pi/resumeSession",
  state = "pi/state",
  replay = "pi/replay",
  queue = "pi/queue",
  models = "pi/models",
  setModel = "pi/setModel",
  setMode = "pi/setMode",
  permissions = "pi/permissions",
  mcp = "pi/mcp",
  review = "pi/review",
  reviewDecision = "pi/reviewDecision",
  checkpoints = "pi/checkpoints",
  restore = "pi/restore",
  undoRestore = "pi/undoRestore",
  revertToolCall = "pi/revertToolCall",
  codeReview = "pi/codeReview",
  dismissFinding = "pi/dismissFinding",
  compact = "pi/compact",
  commands = "pi/commands",
  context = "pi/context",
  reload = "pi/reload",
  processes = "pi/processes",
  export = "pi/export",
}

--- Client → server notifications.
---@enum pi.NotificationMethod
M.notification = {
  diagnostics = "pi/diagnostics",
}

--- Server → client notifications and requests the plugin handles (pi.handlers.all()).
---@enum pi.HandledMethod
M.handled = {
  event = "pi/event",
  saveDocuments = "pi/saveDocuments",
  requestPermission = "pi/requestPermission",
  ask = "pi/ask",
  lspQuery = "pi/lspQuery",
}

--- Standard LSP methods the plugin handles itself, or asks the other language servers
--- (pi.mention's @ symbols).
---@enum pi.LspMethod
M.lsp = {
  showMessageRequest = "window/showMessageRequest",
  workspaceSymbol = "workspace/symbol",
  documentSymbol = "textDocument/documentSymbol",
}


local METHOD_NOT_FOUND = -32601

--- A JSON-RPC error as Neovim's client passes it to a response handler.
---@class pi.RpcError
---@field code? integer
---@field message? string
---@field data? any

--- A response handler: `err` or `result` is nil.
---@alias pi.ResponseHandler fun(err: pi.RpcError|nil, result: any)

--- Call `name` on an LSP client: `client:name(...)` (0.11 methods) or `client.name(...)` (0.7).
---@param client table a vim.lsp client
---@param name string "request", "notify", "stop", ...
---@param ... any
---@return any
local function call(client, name, ...)
  local mt = getmetatable(client)
  if mt ~= nil and type(mt.__index) == "table" and mt.__index[name] then
    return mt.__index[name](client, ...)
  end
  return client[name](...)
end
M.call = call

--- vim.notify("pi: " .. msg) on the main loop.
---@param msg string
---@param level? integer a vim.log.levels value (default INFO)
function M.notify_user(msg, level)
  vim.schedule(function() vim.notify("pi: " .. msg, level or vim.log.levels.INFO) end)
end

--- Send a request to the current workspace's server (started on demand). Errors are shown
--- unless `cb` handles them; a MethodNotFound is shown once per method.
---@param method pi.RequestMethod
---@param params? table
---@param cb? pi.ResponseHandler
---@return boolean sent false when no server is running
function M.request(method, params, cb)
  local client = require("pi.client").get()
  if client == nil then
    M.notify_user("no pi-lsp server is running (open a file in a project)", vim.log.levels.WARN)
    if cb then cb({ message = "not running" }, nil) end
    return false
  end
  if params == nil or next(params) == nil then params = vim.empty_dict() end  -- {} is not []
  call(client, "request", method, params, function(err, result)
    if err and err.code == METHOD_NOT_FOUND then
      if not M.missing[method] then
        M.missing[method] = true
        M.notify_user("this pi-lsp has no " .. method .. " (update the server)", vim.log.levels.WARN)
      end
    elseif err and not cb then
      M.notify_user(method .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    if cb then cb(err, result) end
  end)
  return true
end

--- Send a notification to the current workspace's server, if one runs.
---@param method pi.NotificationMethod
---@param params table
function M.notify(method, params)
  local client = require("pi.client").get()
  if client then call(client, "notify", method, params) end
end

--- Whether `err` says the server has no such method (an older server).
---@param err pi.RpcError|nil
---@return boolean
function M.is_missing(err)
  return err ~= nil and err.code == METHOD_NOT_FOUND
end

return M
