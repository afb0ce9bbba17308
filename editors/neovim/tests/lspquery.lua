-- Headless check of pi/lspQuery (the agent's lsp tool answered by Neovim's other language
-- servers): jedi-language-server is enabled with vim.lsp.config/enable as the user's server;
-- the scripted model asks references of load_config in app/config.py (a file not open: loaded
-- into a hidden buffer, jedi waited for), then renames it. pi-lsp has no lspServers of its own,
-- so only this Neovim can answer. Prints PASS/FAIL lines and "N passed, N failed".
-- env: PI_TEST_CMD (JSON list), PI_TEST_JEDI (the server), PI_TEST_ROOT (a copy of the fixture)
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
vim.opt.runtimepath:prepend(vim.fn.fnamemodify(here, ":h"))
vim.cmd("filetype on")
vim.cmd("runtime plugin/pi.lua")

local root = os.getenv("PI_TEST_ROOT")
vim.cmd("cd " .. root)
local passed, failed = 0, 0
local function report(ok, name, why)
  if ok then passed = passed + 1; print("\nPASS " .. name)
  else failed = failed + 1; print("\nFAIL " .. name .. (why and (": " .. why) or "")) end
end
local function finish()
  print(("\n%d passed, %d failed"):format(passed, failed))
  vim.cmd(failed == 0 and "qall!" or "cquit 1")
end

vim.lsp.config("jedi", { cmd = { os.getenv("PI_TEST_JEDI") }, filetypes = { "python" }, root_markers = { ".git" } })
vim.lsp.enable("jedi")

local ends = {}
local chat = require("pi.chat")
local orig = chat.on_event
chat.on_event = function(ev, params)
  if ev.type == "tool_execution_end" then table.insert(ends, ev) end
  return orig(ev, params)
end
local agent_done = false
local orig2 = chat.on_event
chat.on_event = function(ev, params)
  if ev.type == "agent_end" then agent_done = true end
  return orig2(ev, params)
end

local where = { path = "app/config.py", line = 18, symbol = "load_config" }
local function call(args) return { content = { { type = "toolCall", name = "lsp", arguments = args } } } end
local script = vim.fn.tempname() .. ".json"
local f = io.open(script, "w")
f:write(vim.json.encode({ responses = {
  call(vim.tbl_extend("force", { operation = "references" }, where)),
  call(vim.tbl_extend("force", { operation = "rename", newName = "read_config" }, where)),
  { content = { { type = "text", text = "Done." } } },
} }))
f:close()
require("pi").setup({
  server = { cmd = vim.json.decode(os.getenv("PI_TEST_CMD")) },
  settings = { provider = "faux", fauxScript = script },
})
vim.cmd("edit " .. root .. "/app/main.py")
require("pi.client").ensure(0)
if not vim.wait(30000, function() return require("pi.client").ready[root] == true end, 10) then
  report(false, "server starts"); finish()
end
local main_buf = vim.api.nvim_get_current_buf()
vim.wait(15000, function()
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = main_buf })) do if c.name == "jedi" then return true end end
  return false
end, 20)
vim.cmd("Pi who calls load_config? rename it to read_config")
report(vim.wait(60000, function() return agent_done end, 20), "the run ends")

local function text_of(ev)
  local out = {}
  for _, b in ipairs((ev.result or {}).content or {}) do table.insert(out, b.text or "") end
  return table.concat(out)
end
local refs = ends[1] and text_of(ends[1]) or ""
report(refs:find('app/main.py:5:16  settings = load_config("main")', 1, true) ~= nil,
  "references come from the editor's jedi, with the unopened file loaded", refs)
local rename = ends[2] and text_of(ends[2]) or ""
report(rename:find("4 occurrences in 2 files", 1, true) ~= nil, "the rename is applied", rename)
local main_text = table.concat(vim.api.nvim_buf_get_lines(main_buf, 0, -1, false), "\n")
local _, uses = main_text:gsub("read_config", "")
report(uses == 3, "the open buffer has the new name", main_text)
local offered = require("pi.mention").complete("@JsonLoa")
-- jedi's workspace/symbol locates a class by its name's line: its documentSymbol widens it
report(vim.tbl_contains(offered, "@app/config.py#L11-15"), "@JsonLoa completes to the class's lines",
  vim.inspect(offered))
local cmdline = vim.fn.getcompletion("Pi @JsonLoa", "cmdline")
report(vim.tbl_contains(cmdline, "@app/config.py#L11-15"), ":Pi completes @ symbols", vim.inspect(cmdline))
local hidden = vim.fn.bufnr(root .. "/app/config.py")
report(hidden > 0 and vim.api.nvim_buf_is_loaded(hidden) and vim.fn.bufwinnr(hidden) == -1,
  "config.py was loaded without being shown")
finish()
