--- :PiInstall — a managed pi-lsp in stdpath("data")/pi/venv: made with `uv` when it is on
--- PATH, else `python3 -m venv` + pip; the pi-lsp of the plugin's version (pi.version) goes
--- into it. A marker written last (pi-install.json) says the install finished: a venv
--- without it (stopped half-way) is never used, and the next :PiInstall rebuilds it. With the
--- default server.cmd ({ "pi-lsp" }) the plugin uses this server when it is there, else
--- `pi-lsp` on PATH. Extra package sources come from the tools' own variables
--- (PIP_FIND_LINKS / UV_FIND_LINKS, PIP_INDEX_URL / UV_INDEX_URL).
local M = { job = nil, done = nil }

local MARKER = "pi-install.json"

---@return string
function M.dir() return vim.fn.stdpath("data") .. "/pi/venv" end

local function bin(name) return M.dir() .. "/bin/" .. name end

local function read(path)
  local f = io.open(path)
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

--- The managed server, or nil and why not ("none": nothing installed).
---@return string|nil path, string|nil reason
function M.server()
  if vim.fn.isdirectory(M.dir()) == 0 then return nil, "none" end
  local text = read(M.dir() .. "/" .. MARKER)
  if not text then return nil, "the install did not finish (no " .. MARKER .. "): run :PiInstall again" end
  local ok, rec = pcall(vim.json.decode, text)
  if not ok or type(rec) ~= "table" then return nil, MARKER .. " is damaged: run :PiInstall again" end
  if vim.fn.executable(bin("pi-lsp")) ~= 1 then return nil, bin("pi-lsp") .. " is missing: run :PiInstall again" end
  return bin("pi-lsp"), nil
end

--- The version the managed install recorded.
---@return string|nil
function M.installed_version()
  local ok, rec = pcall(vim.json.decode, read(M.dir() .. "/" .. MARKER) or "")
  return ok and type(rec) == "table" and rec.version or nil
end

--- The command that starts the server: server.cmd as set, or (the default { "pi-lsp" }) the
--- managed install when it is complete, else pi-lsp on PATH.
---@param cmd string[] server.cmd
---@return string[] cmd, string source "server.cmd"|"managed"|"PATH"
function M.resolve(cmd)
  if not (#cmd == 1 and cmd[1] == "pi-lsp") then return cmd, "server.cmd" end
  local exe = M.server()
  if exe then return { exe }, "managed" end
  return cmd, "PATH"
end

local function notify(msg, level)
  vim.schedule(function() vim.notify("pi: " .. msg, level or vim.log.levels.INFO) end)
end

--- Run the steps one after another (each a command list); `finish(ok, err)` at the end.
local function chain(steps, finish)
  local i = 0
  local function next_step()
    i = i + 1
    local step = steps[i]
    if not step then return finish(true) end
    if type(step) == "function" then
      local ok, err = step()
      if not ok then return finish(false, err) end
      return next_step()
    end
    local out = {}
    local function collect(_, data) for _, l in ipairs(data or {}) do if l ~= "" then table.insert(out, l) end end end
    M.job = vim.fn.jobstart(step, {
      on_stdout = collect,
      on_stderr = collect,
      on_exit = function(_, code)
        if code ~= 0 then
          return finish(false, ("`%s` failed (exit %d): %s"):format(table.concat(step, " "), code,
            table.concat(vim.list_slice(out, math.max(1, #out - 2)), " ")))
        end
        next_step()
      end,
    })
    if M.job <= 0 then finish(false, "could not run " .. step[1]) end
  end
  next_step()
end

--- A Python ≥ 3.11 on PATH (python3, then python), or nil and what was found.
---@return string|nil python, string found
function M.python()
  local seen = {}
  for _, name in ipairs({ "python3", "python" }) do
    if vim.fn.executable(name) == 1 then
      local v = vim.fn.system({ name, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])" }):gsub("%s+$", "")
      local major, minor = v:match("^(%d+)%.(%d+)")
      if vim.v.shell_error == 0 and major and (tonumber(major) > 3 or (tonumber(major) == 3 and tonumber(minor) >= 11)) then
        return vim.fn.exepath(name), v
      end
      table.insert(seen, vim.fn.exepath(name) .. " " .. v)
    end
  end
  return nil, #seen > 0 and table.concat(seen, ", ") or "no python3 on PATH"
end

--- Make (or rebuild) the managed venv and install the plugin's pi-lsp into it.
---@param opts? {wait?: boolean, on_done?: fun(ok: boolean, err: string|nil)}
---@return boolean|nil ok with wait: the result
function M.run(opts)
  opts = opts or {}
  local version = require("pi.version").version
  local spec = "pi-lsp==" .. version
  local dir = M.dir()
  local steps = {}
  local uv = vim.fn.executable("uv") == 1
  local python, found
  if not uv then
    python, found = M.python()
    if not python then
      local msg = ("pi-lsp needs Python 3.11 or newer; found %s. Install it (or uv) and run :PiInstall again"):format(found)
      notify(msg, vim.log.levels.ERROR)
      M.done = { ok = false, err = msg }
      if opts.on_done then opts.on_done(false, msg) end
      return false
    end
  end
  table.insert(steps, function()
    if vim.fn.isdirectory(dir) == 1 then vim.fn.delete(dir, "rf") end -- finished or not: rebuilt
    vim.fn.mkdir(vim.fn.fnamemodify(dir, ":h"), "p")
    return true
  end)
  if uv then
    table.insert(steps, { "uv", "venv", "--quiet", "--python", ">=3.11", dir })
    table.insert(steps, { "uv", "pip", "install", "--quiet", "--python", bin("python"), spec })
  else
    table.insert(steps, { python, "-m", "venv", dir })
    table.insert(steps, { bin("python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", spec })
  end
  table.insert(steps, function()
    local out = vim.fn.system({ bin("pi-lsp"), "--version" }):gsub("%s+$", "")
    if vim.v.shell_error ~= 0 or out ~= "pi-lsp " .. version then
      return false, ("%s --version said %q, not %q"):format(bin("pi-lsp"), out, "pi-lsp " .. version)
    end
    local f = io.open(dir .. "/" .. MARKER, "w")
    if not f then return false, "could not write " .. dir .. "/" .. MARKER end
    f:write(vim.json.encode({ version = version, tool = uv and "uv" or "pip" }) .. "\n")
    f:close()
    return true
  end)
  M.done = nil
  notify(("installing %s into %s (%s)…"):format(spec, dir, uv and "uv" or "venv + pip"))
  chain(steps, function(ok, err)
    M.done = { ok = ok, err = err }
    if ok then notify(("installed %s in %s"):format(spec, dir))
    else notify("install failed: " .. tostring(err), vim.log.levels.ERROR) end
    if opts.on_done then opts.on_done(ok, err) end
  end)
  if opts.wait then
    vim.wait(15 * 60 * 1000, function() return M.done ~= nil end, 50)
    return M.done ~= nil and M.done.ok
  end
end

return M
