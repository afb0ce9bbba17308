--- :checkhealth pi
local proto = require("pi.protocol")
local M = {}

local h = vim.health or {}
local start = h.start or h.report_start or vim.fn["health#report_start"]
local ok = h.ok or h.report_ok or vim.fn["health#report_ok"]
local warn = h.warn or h.report_warn or vim.fn["health#report_warn"]
local err = h.error or h.report_error or vim.fn["health#report_error"]
local info = h.info or h.report_info or vim.fn["health#report_info"]

-- provider -> the variables its key is read from, in the server's order (ai/env_keys.py)
local KEY_VARS = {
  openai = { "OPENAI_API_KEY" },
  anthropic = { "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY" },
  google = { "GEMINI_API_KEY", "GOOGLE_API_KEY" },
  openrouter = { "OPENROUTER_API_KEY" },
  groq = { "GROQ_API_KEY" },
}

function M.check()
  local opts = require("pi.config").options
  start("pi-lsp server")
  local auto = opts.server.tcp == "auto"
  if auto then
    local bg = require("pi.background")
    if bg.supported() then
      ok("server.tcp = \"auto\": a background pi-lsp per workspace on a private socket in " .. bg.dir()
        .. " (idle timeout " .. tostring(opts.server.idle_timeout) .. " s); :PiAttach reattaches")
    else
      warn("server.tcp = \"auto\" needs vim.lsp.rpc.connect to a socket (Neovim 0.10+): this Neovim "
        .. "keeps pi-lsp over stdio, so a run ends with Neovim and :PiAttach is unavailable")
    end
  end
  if opts.server.tcp and not auto then
    if vim.lsp.rpc and vim.lsp.rpc.connect then ok("server.tcp = " .. opts.server.tcp)
    else err("server.tcp needs vim.lsp.rpc.connect, which this Neovim lacks") end
  end
  if not opts.server.tcp or auto then
    local install = require("pi.install")
    local want = require("pi.version").version
    local cmd, source = install.resolve(opts.server.cmd)
    local managed, why = install.server()
    if not managed and why ~= "none" then warn("managed server in " .. install.dir() .. ": " .. why) end
    local exe = cmd[1]
    if vim.fn.executable(exe) == 1 then
      local out = vim.fn.system(vim.list_extend(vim.deepcopy(cmd), { "--version" })):gsub("%s+$", "")
      ok(("server found (from %s): %s — %s"):format(source, exe, out))
      if out == "pi-lsp " .. want then ok("its version matches the plugin's (" .. want .. ")")
      else warn(("its version (%s) is not the plugin's (%s): run :PiInstall"):format(out, want)) end
    else
      err(exe .. " not found on $PATH: run :PiInstall (a managed pi-lsp), pip install pi-lsp, or set server.cmd")
    end
  end
  start("provider")
  local provider = opts.settings.provider
  if provider then ok("provider: " .. provider .. (opts.settings.model and (" / " .. opts.settings.model) or ""))
  else warn("no settings.provider (the server's default applies)") end
  if opts.settings.api then info("api: " .. opts.settings.api) end
  local vars = opts.settings.apiKeyEnv and { opts.settings.apiKeyEnv } or KEY_VARS[provider or ""]
  if vars then
    local set
    for _, var in ipairs(vars) do
      if not set and (os.getenv(var) or "") ~= "" then set = var end
    end
    if set then ok(set .. " is set") else warn(table.concat(vars, " or ") .. " is not set") end
  elseif provider then
    info("provider " .. provider .. " needs no key variable")
  end
  start("Neovim features")
  local function feature(cond, yes, no) if cond then ok(yes) else warn(no) end end
  feature(vim.lsp.config ~= nil, "vim.lsp.config: server started with vim.lsp.start",
    "no vim.lsp.config: server started with vim.lsp.start_client")
  feature(vim.lsp.rpc and vim.lsp.rpc.connect, "vim.lsp.rpc.connect: server.tcp works",
    "no vim.lsp.rpc.connect: server.tcp unavailable")
  feature(require("pi.background").supported(),
    "socket connect (0.10+): server.tcp = \"auto\" runs a background server per workspace",
    "no socket connect (before 0.10): server.tcp = \"auto\" keeps pi-lsp over stdio")
  feature(require("pi.permission").handlers_can_wait(),
    "request handlers can wait: permission questions never block typing",
    "request handlers answer synchronously: permission questions use vim.ui.select (modal)")
  feature(vim.treesitter and vim.treesitter.start, "treesitter highlighting of the chat", "no treesitter chat highlighting")
  M.mcp()
  local missing = vim.tbl_keys(proto.missing)
  if #missing > 0 then warn("server lacks: " .. table.concat(missing, ", ")) end
end

--- The running server's MCP servers (pi/mcp), waiting at most 3 s for the answer.
function M.mcp()
  start("MCP servers")
  if require("pi.client").get() == nil then
    info("no pi-lsp server is running: open a file of a project to list its MCP servers")
    return
  end
  local answer
  proto.request(proto.method.mcp, {}, function(e, r) answer = { err = e, res = r } end)
  vim.wait(3000, function() return answer ~= nil end, 10)
  if not answer or answer.err or not answer.res then
    warn("the server did not list its MCP servers" .. (answer and answer.err and (": " .. (answer.err.message or "")) or ""))
    return
  end
  local res = answer.res
  if res.sdkInstalled == false then warn("the MCP library is missing on the server: pip install 'pi-lsp[mcp]'") end
  for _, p in ipairs(res.problems or {}) do warn(p) end
  if #(res.servers or {}) == 0 then info("no MCP servers configured (.mcp.json, ~/.config/mcp/mcp.json or settings.mcpServers)") end
  local line = require("pi.commands").mcp_line
  for _, s in ipairs(res.servers or {}) do
    if s.state == "ready" or s.state == "disabled" or s.state == "stopped" then ok(line(s))
    elseif s.state == "starting" then warn(line(s))
    else err(line(s)) end
  end
end

return M
