--- server.tcp = "auto": one background `pi-lsp --socket` per workspace root, shared by every
--- Neovim that opens the workspace and outliving them (a run goes on after Neovim quits; a
--- new Neovim finds the server and `:PiAttach` shows the run). The socket is a Unix domain
--- socket of mode 0600 in a 0700 directory: no other user on the machine can connect. Where
--- it lives is recorded in <state_dir>/<key>.json (mode 0600): { root, socket, pid }.
local config = require("pi.config")

local M = {}
local uv = vim.loop

--- Neovim connects to a Unix socket with vim.lsp.rpc.connect(path) from 0.10 on; before
--- that "auto" falls back to a server over stdio (see :checkhealth pi).
---@return boolean
function M.supported()
  return vim.lsp.rpc ~= nil and vim.lsp.rpc.connect ~= nil and vim.fn.has("nvim-0.10") == 1
end

--- The directory of the server records and sockets.
---@return string
function M.dir()
  return config.options.server.state_dir or (vim.fn.stdpath("state") .. "/pi")
end

local function key(root) return vim.fn.sha256(root):sub(1, 16) end

--- The record's path and the socket's path for a workspace root.
---@param root string
---@return string record, string socket, string log
function M.paths(root)
  local base = M.dir() .. "/" .. key(root)
  return base .. ".json", base .. ".sock", base .. ".log"
end

--- The recorded server of this root when it still runs, else nil.
---@param root string
---@return {root: string, socket: string, pid: integer}|nil
function M.find(root)
  local record_path = M.paths(root)
  local f = io.open(record_path, "r")
  if not f then return nil end
  local ok, rec = pcall(vim.json.decode, f:read("*a"))
  f:close()
  if not ok or type(rec) ~= "table" or rec.root ~= root or type(rec.pid) ~= "number" then return nil end
  local alive = pcall(function() assert(uv.kill(rec.pid, 0) == 0) end)
  if not alive or uv.fs_stat(rec.socket) == nil then return nil end
  return rec
end

local function write_private(path, text)
  local fd = assert(uv.fs_open(path, "w", 384)) -- 0600
  uv.fs_write(fd, text, 0)
  uv.fs_close(fd)
  uv.fs_chmod(path, 384)
end

--- Start this root's background server; returns its record once it listens, or nil, reason.
---@param root string
---@return {root: string, socket: string, pid: integer}|nil, string? reason
function M.start(root)
  local record_path, sock, log = M.paths(root)
  os.remove(sock) -- left by a server that died (find() saw none running)
  vim.fn.mkdir(M.dir(), "p", 448) -- 0700
  uv.fs_chmod(M.dir(), 448)
  local opts = config.options.server
  local cmd = vim.deepcopy((require("pi.install").resolve(opts.cmd)))
  vim.list_extend(cmd, { "--socket", sock, "--log-file", log })
  if opts.idle_timeout then vim.list_extend(cmd, { "--idle-timeout", tostring(opts.idle_timeout) }) end
  local exited
  local args = vim.list_slice(cmd, 2)
  -- detached, stdio to /dev/null: it outlives this Neovim and never writes to a closed pipe
  local handle, pid = uv.spawn(cmd[1], { args = args, cwd = root, detached = true, stdio = { nil, nil, nil } },
    function(code) exited = code end)
  if not handle then return nil, "could not start " .. tostring(cmd[1]) .. ": " .. tostring(pid) end
  handle:unref()
  local up = vim.wait(30000, function() return exited ~= nil or uv.fs_stat(sock) ~= nil end, 20)
  if exited ~= nil or not up then
    return nil, ("pi-lsp --socket did not start (exit %s; log: %s)"):format(tostring(exited), log)
  end
  local rec = { root = root, socket = sock, pid = pid }
  write_private(record_path, vim.json.encode(rec))
  return rec
end

--- The socket of this root's server: the running one, or one started now.
---@param root string
---@return string|nil socket, string? reason
function M.ensure(root)
  local rec = M.find(root)
  if rec then return rec.socket end
  local started, reason = M.start(root)
  if not started then return nil, reason end
  return started.socket
end

return M
