--- The plugin's version (one version for pi-lsp, the VS Code extension and this plugin: the
--- source is pi_lsp/__init__.py; tests/test_version.py checks they agree) and the pi protocol
--- version the plugin needs from the server.
local M = {
  version = "0.1.0",
  --- capabilities.experimental.pi.protocolVersion the plugin is written against
  protocol = 3,
}

--- A warning when the server's initialize answer says it is older than the plugin needs.
---@param result table|nil the initialize result
---@return string|nil
function M.check(result)
  local caps = result and result.capabilities or {}
  local pi = caps.experimental and caps.experimental.pi or nil
  local have = pi and pi.protocolVersion or 1
  if type(have) ~= "number" or have >= M.protocol then return nil end
  local info = result and result.serverInfo or {}
  return ("the server (pi-lsp %s) speaks pi protocol v%d; this plugin (%s) needs v%d: "
    .. "update it (:PiInstall)"):format(info.version or "?", have, M.version, M.protocol)
end

return M
