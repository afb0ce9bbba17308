--- Starting pi-lsp through Neovim's own LSP client: one server per workspace root, restart and
--- re-attach when it exits, a TCP connection to a long-running `pi-lsp --tcp`, or (server.tcp =
--- "auto") a connection to the workspace's background server (pi.background).
local config = require("pi.config")
local state = require("pi.state")
local proto = require("pi.protocol")

local M = { clients = {}, restarts = {}, stopping = {}, ready = {}, current_root = nil }
--- root -> what waits for that server's initialize answer ({go, lost} each, in order)
M.waiting = {}

local uv = vim.loop

local function exists(path) return uv.fs_stat(path) ~= nil end

--- The workspace root of `path` (nearest directory with a root marker), else the cwd.
---@param path string|nil
---@return string
function M.root_for(path)
  local dir = (path ~= nil and path ~= "") and vim.fn.fnamemodify(path, ":p:h") or vim.fn.getcwd()
  local d = dir
  while d and d ~= "" do
    for _, marker in ipairs(config.options.root_markers) do
      if exists(d .. "/" .. marker) then return d end
    end
    local parent = vim.fn.fnamemodify(d, ":h")
    if parent == d then break end
    d = parent
  end
  return vim.fn.getcwd()
end

local function is_file_buf(buf)
  return vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == ""
    and vim.api.nvim_buf_get_name(buf) ~= "" and not vim.api.nvim_buf_get_name(buf):match("^pi://")
end

--- initializationOptions.pi.clientCapabilities: what this plugin understands.
---@return table<string, boolean|integer>
function M.capabilities()
  return {
    events = true,
    saveDocuments = true,
    requestPermission = true,
    ask = true,
    diagnostics = config.options.diagnostics and true or false,
    compactEvents = true, -- message_end leaves out streamed text; turn_end/agent_end are refs
    subagents = true, -- task children's events under their own ids (pi.children)
    -- the agent's lsp tool asks this Neovim's other language servers (pi.lspquery); a
    -- Neovim whose handlers cannot wait (0.7) leaves it to pi-lsp's own servers
    lspQuery = require("pi.permission").handlers_can_wait(),
    maxUpdatesPerSecond = math.floor(1000 / config.options.chat.render_ms),
  }
end

local function handlers()
  return require("pi.handlers").all()
end

local function parse_tcp(spec)
  local host, port = spec:match("^(.*):(%d+)$")
  return host, tonumber(port)
end

--- Whether the server outlives this Neovim (a connection, not a child over stdio).
---@return boolean
function M.remote()
  local tcp = config.options.server.tcp
  if tcp == "auto" then return require("pi.background").supported() end
  return tcp ~= nil and tcp ~= false
end

--- Start (or connect to) the server of `root`.
---@param root string
---@return integer|nil client_id
function M.start(root)
  local opts = config.options
  local cmd = require("pi.install").resolve(opts.server.cmd)
  if opts.server.tcp == "auto" then
    local bg = require("pi.background")
    if bg.supported() then
      local sock, reason = bg.ensure(root)
      if not sock then
        vim.notify("pi: " .. reason, vim.log.levels.ERROR)
        return nil
      end
      cmd = vim.lsp.rpc.connect(sock)
    end -- before 0.10: the server runs over stdio (said in :checkhealth pi)
  elseif opts.server.tcp then
    if not (vim.lsp.rpc and vim.lsp.rpc.connect) then
      vim.notify("pi: server.tcp needs vim.lsp.rpc.connect (absent in this Neovim)", vim.log.levels.ERROR)
      return nil
    end
    local host, port = parse_tcp(opts.server.tcp)
    cmd = vim.lsp.rpc.connect(host, port)
  end
  -- a server that outlives us streams events as soon as we connect, before on_ready: they
  -- wait until the replay has been shown, else a run's start is lost and its end shown early
  if M.remote() then state.hold = state.hold or {} end
  local pi = vim.tbl_extend("force", {}, opts.settings)
  pi.clientCapabilities = M.capabilities()
  local cfg = {
    name = "pi",
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = { pi = pi },
    handlers = handlers(),
    on_init = function(_, result)
      vim.schedule(function()
        local warning = require("pi.version").check(result)
        if warning then vim.notify("pi: " .. warning, vim.log.levels.WARN) end
        M.on_ready(root)
      end)
    end,
    on_exit = function(code, signal) vim.schedule(function() M.on_exit(root, code, signal) end) end,
  }
  local id
  if vim.lsp.config ~= nil and vim.lsp.start ~= nil then
    id = vim.lsp.start(cfg, { attach = false })   -- 0.11+: no buffer implied
  else
    id = vim.lsp.start_client(cfg)                -- 0.7 - 0.10
  end
  if id == nil then return nil end
  M.clients[root] = id
  M.current_root = root
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if is_file_buf(buf) and M.root_for(vim.api.nvim_buf_get_name(buf)) == root then
      vim.lsp.buf_attach_client(buf, id)
    end
  end
  return id
end

--- The server for this buffer's root (started on demand); attaches the buffer.
---@param buf? integer default: the current buffer
---@return integer|nil client_id
function M.ensure(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local name = is_file_buf(buf) and vim.api.nvim_buf_get_name(buf) or nil
  local root = name and M.root_for(name) or M.current_root or M.root_for(nil)
  local id = M.clients[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then id = M.start(root) end
  if id and name then
    M.current_root = root
    vim.lsp.buf_attach_client(buf, id)
  end
  return id
end

--- The current workspace's client, started on demand (nil when it cannot start).
---@return table|nil client a vim.lsp client
function M.get()
  local id = M.current_root and M.clients[M.current_root]
  local client = id and vim.lsp.get_client_by_id(id)
  if client == nil then
    id = M.ensure()
    client = id and vim.lsp.get_client_by_id(id)
  end
  return client
end

--- Run `go` once the current workspace's server has answered initialize: at once (true) when
--- it has or none is starting, else later (false); `lost(why)` instead if it exits first
--- for good. Prompts given while the server starts go through here, in order.
---@param go fun()
---@param lost fun(why: string)
---@return boolean now
function M.when_ready(go, lost)
  local root = M.current_root
  if root == nil or M.clients[root] == nil or M.ready[root] then
    go()
    return true
  end
  M.waiting[root] = M.waiting[root] or {}
  table.insert(M.waiting[root], { go = go, lost = lost })
  return false
end

--- What waited for `root`'s server: sent (`why` nil) or given back.
---@param root string
---@param why? string
local function flush(root, why)
  local waiting = M.waiting[root] or {}
  M.waiting[root] = nil
  for _, w in ipairs(waiting) do
    if why then w.lost(why) else w.go() end
  end
end

--- After initialize: re-attach to the session we were following (restart / reconnect).
---@param root string
function M.on_ready(root)
  M.ready[root] = true
  local sid = state.session
  if sid == nil then
    flush(root)
    if M.remote() then
      state.hold = state.hold or {} -- live events wait for the replay (no gap, no overlap)
      proto.request(proto.method.sessions, {}, function(err, res)
        for _, s in ipairs((not err and res and res.sessions) or {}) do
          if s.isStreaming then
            state.session = s.sessionId
            M.replay(s.sessionId, 0)
            return
          end
        end
        M.release()
      end)
    end
    return
  end
  state.hold = state.hold or {}
  proto.request(proto.method.resumeSession, { sessionId = sid }, function(err)
    flush(root)  -- after the resume: the prompts go to the session it reopened
    if err then return M.release() end
    require("pi.chat").note("reconnected to session " .. sid)
    M.replay(sid, state.seq[sid] or 0)
    require("pi.plan").refresh()
    proto.request(proto.method.review, { sessionId = sid }, function(e, res)
      if not e and res then require("pi.review").update(res.files or {}) end
    end)
  end)
end

--- Show the events held while re-attaching (after the replay; duplicates drop by seq).
function M.release()
  local held = state.hold
  state.hold = nil
  local handle = require("pi.handlers").on_event
  for _, params in ipairs(held or {}) do handle(nil, params) end
end

--- Show the events of `sid` after seq `after` (pi/replay), then the ones held meanwhile.
---@param sid string
---@param after integer
function M.replay(sid, after)
  proto.request(proto.method.replay, { sessionId = sid, afterSeq = after }, function(err, res)
    local held = state.hold
    state.hold = nil
    local handle = require("pi.handlers").on_event
    for _, params in ipairs((not err and res and res.events) or {}) do handle(nil, params) end
    state.hold = held
    M.release()
  end)
end

--- :PiAttach: connect to this workspace's background server (server.tcp = "auto") or the
--- configured `pi-lsp --tcp`, and follow its streaming session, replaying what was missed.
function M.attach()
  if not M.remote() then
    vim.notify("pi: :PiAttach needs server.tcp (\"auto\" on Neovim 0.10+, or HOST:PORT)", vim.log.levels.WARN)
    return
  end
  local buf = vim.api.nvim_get_current_buf()
  local name = is_file_buf(buf) and vim.api.nvim_buf_get_name(buf) or nil
  local root = name and M.root_for(name) or M.current_root or M.root_for(nil)
  local id = M.clients[root]
  if id ~= nil and vim.lsp.get_client_by_id(id) ~= nil then
    if M.ready[root] then M.on_ready(root) end -- connected already: pick up the session again
    return
  end
  if config.options.server.tcp == "auto" and require("pi.background").find(root) == nil then
    vim.notify("pi: no background pi-lsp runs for " .. root, vim.log.levels.WARN)
    return
  end
  M.ensure(buf)
end

---@param root string
---@param code integer
---@param signal integer
function M.on_exit(root, code, signal)
  if M.clients[root] == nil then return end
  M.clients[root] = nil
  M.ready[root] = nil
  if M.stopping[root] then M.stopping[root] = nil return end
  local n = (M.restarts[root] or 0) + 1
  M.restarts[root] = n
  state.streaming = false
  state.hold = nil
  if not config.options.server.restart or n > config.options.server.max_restarts then
    vim.notify(("pi: server exited (code %s); not restarting"):format(tostring(code)), vim.log.levels.WARN)
    flush(root, ("the server exited with code %s"):format(tostring(code)))
    return
  end
  require("pi.chat").note(("server exited (code %s, signal %s); restarting"):format(tostring(code), tostring(signal)))
  vim.defer_fn(function() M.start(root) end, 300)
end

function M.stop_all()
  for root, id in pairs(M.clients) do
    M.stopping[root] = true
    local c = vim.lsp.get_client_by_id(id)
    if c then proto.call(c, "stop") end
  end
end

function M.setup_autocmds()
  require("pi.status").setup_autocmds()
  local group = vim.api.nvim_create_augroup("pi_client", { clear = true })
  if config.options.auto_attach then
    vim.api.nvim_create_autocmd("BufReadPost", {
      group = group,
      callback = function(args)
        local name = vim.api.nvim_buf_get_name(args.buf)
        local id = M.clients[M.root_for(name)]
        if id and is_file_buf(args.buf) then vim.lsp.buf_attach_client(args.buf, id) end
      end,
    })
  end
  if config.options.diagnostics then
    vim.api.nvim_create_autocmd("DiagnosticChanged", {
      group = group,
      callback = function(args) require("pi.handlers").forward_diagnostics(args.buf) end,
    })
  end
end

return M
