--- pi/* requests: one place that calls the client (0.7 dot API or 0.11 method API) and turns
--- MethodNotFound into a single "this server has no X" notice.
local M = { missing = {} }

local METHOD_NOT_FOUND = -32601

local function call(client, name, ...)
  local mt = getmetatable(client)
  if mt ~= nil and type(mt.__index) == "table" and mt.__index[name] then
    return mt.__index[name](client, ...)
  end
  return client[name](...)
end
M.call = call

function M.notify_user(msg, level)
  vim.schedule(function() vim.notify("pi: " .. msg, level or vim.log.levels.INFO) end)
end

--- request(method, params, cb(err, result)); cb optional. Errors are shown unless cb handles them.
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

function M.notify(method, params)
  local client = require("pi.client").get()
  if client then call(client, "notify", method, params) end
end

function M.is_missing(err)
  return err ~= nil and err.code == METHOD_NOT_FOUND
end

return M
