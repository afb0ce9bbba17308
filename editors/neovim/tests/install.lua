-- :PiInstall as lazy.nvim's build runs it, then :checkhealth pi and a prompt through the
-- managed server (tests/release/test_neovim_install.py runs it in a clean XDG_DATA_HOME).
local plugin, script = os.getenv("PI_PLUGIN"), os.getenv("PI_SCRIPT")
vim.opt.runtimepath:prepend(plugin)
vim.cmd("runtime plugin/pi.lua")
local function report(ok, name, why) print("\n" .. (ok and "PASS " or "FAIL ") .. name .. ((not ok and why) and (": " .. why) or "")) end
local install = require("pi.install")
report(vim.fn.executable("pi-lsp") == 0, "no pi-lsp on PATH")
-- an install that stopped half-way: a venv without its marker
vim.fn.mkdir(install.dir() .. "/bin", "p")
local exe, why = install.server()
report(exe == nil and why:find("did not finish", 1, true) ~= nil, "a half-installed venv is not used", why)
require("pi").setup({ settings = { provider = "faux", fauxScript = script } })
vim.cmd("PiInstall")
vim.wait(900000, function() return install.done ~= nil end, 100)
report(install.done and install.done.ok, ":PiInstall finishes", install.done and install.done.err)
report(install.server() == install.dir() .. "/bin/pi-lsp", "the managed server is used", tostring(install.server()))
report(install.installed_version() == require("pi.version").version, "it is the plugin's version")
vim.cmd("checkhealth pi")
local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
report(health:find("from managed", 1, true) ~= nil and health:find("matches the plugin's", 1, true) ~= nil,
  ":checkhealth pi names the managed server and its matching version", health)
vim.cmd("enew")
vim.cmd("edit " .. vim.fn.getcwd() .. "/a.py")
vim.cmd("Pi say hello")
local ok = vim.wait(60000, function() return require("pi.chat").text():find("Hello from the managed server", 1, true) ~= nil end, 50)
report(ok, "a prompt is answered through it", require("pi.chat").text())
vim.cmd("qall!")
