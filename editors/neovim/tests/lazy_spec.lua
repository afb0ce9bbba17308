-- A user's whole init.lua: lazy.nvim plus ONE spec for the plugin, exactly as the README shows
-- it. Then `:Pi explain this file` (which lazy-loads the plugin), the answer streams into the
-- chat, and the agent's edit is reviewed hunk by hunk (`ga` keeps one, `gr` undoes the next).
--
-- env: PI_TEST_LAZY_NVIM  a lazy.nvim checkout
--      PI_TEST_CMD        JSON list: the pi-lsp command
--      PI_TEST_FORM       "dir" (the README's local-checkout spec) or "repo" (the spec for the
--                         repository as lazy.nvim clones it: the plugin is in editors/neovim)
-- Run (this file is the user's init.lua; the checks run once Neovim has started):
--   nvim --headless -i NONE -n -u tests/lazy_spec.lua -c 'lua PI_LAZY_TEST()'
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local plugin_dir = vim.fn.fnamemodify(here, ":h")
local repo_dir = vim.fn.fnamemodify(plugin_dir, ":h:h")
local form = os.getenv("PI_TEST_FORM") or "dir"

local passed, failed = 0, 0
local function report(ok, name, why)
  if ok then passed = passed + 1; print("\nPASS lazy.nvim (" .. form .. "): " .. name)
  else failed = failed + 1; print("\nFAIL lazy.nvim (" .. form .. "): " .. name .. (why and (": " .. why) or "")) end
end
local function finish()
  print(("%d passed, %d failed"):format(passed, failed))
  vim.cmd(failed == 0 and "qall!" or "cquit 1")
end
local function wait(ms, cond) return vim.wait(ms, cond, 10) end
local function write(path, text) local f = assert(io.open(path, "w")); f:write(text); f:close() end

-- a workspace and a scripted model: an edit with two separate hunks, then a streamed answer
local tmp = vim.fn.tempname()
local root = tmp .. "/ws"
vim.fn.mkdir(root .. "/.git", "p")
write(root .. "/a.py", "def f():\n    return 1\n\n\n\ndef g():\n    return 10\n")
local script = tmp .. "/script.json"
write(script, vim.json.encode({ responses = {
  { content = {
    { type = "text", text = "Reading it, then changing both functions." },
    { type = "toolCall", name = "edit", arguments = { path = "a.py", edits = {
      { oldText = "return 1\n", newText = "return 2\n" },
      { oldText = "return 10", newText = "return 20" },
    } } },
  } },
  { content = { { type = "text", text = "This file defines f and g; both now return more." } },
    delayMs = 10, chunkSize = 4 },
} }))
vim.cmd("cd " .. root)

-- ---------------------------------------------------------------- the user's init.lua
vim.opt.rtp:prepend(assert(os.getenv("PI_TEST_LAZY_NVIM"), "PI_TEST_LAZY_NVIM is not set"))
local opts = {
  server = { cmd = vim.json.decode(os.getenv("PI_TEST_CMD") or '["pi-lsp"]') },
  settings = { provider = "faux", fauxScript = script },
}
local spec
if form == "dir" then
  -- README: "Install (lazy.nvim)", a local checkout
  spec = {
    dir = plugin_dir,
    cmd = { "Pi", "PiChat", "PiSessions", "PiAttach", "PiModel", "PiApprove", "PiPlan" },
    keys = { { "<leader>pa", mode = "x" } },
    opts = opts,
  }
else
  -- README: "Install (lazy.nvim)", from the repository (lazy.nvim clones the whole repository;
  -- the plugin is its editors/neovim folder). `dir` stands in for the clone here.
  spec = {
    dir = repo_dir,
    cmd = { "Pi", "PiChat", "PiSessions", "PiAttach", "PiModel", "PiApprove", "PiPlan" },
    keys = { { "<leader>pa", mode = "x" } },
    opts = opts,
    config = function(plugin, o)
      vim.opt.rtp:append(plugin.dir .. "/editors/neovim")
      vim.cmd("runtime plugin/pi.lua")
      require("pi").setup(o)
    end,
  }
end
require("lazy").setup({ spec }, {
  root = tmp .. "/lazy", lockfile = tmp .. "/lazy-lock.json",
  install = { missing = false }, checker = { enabled = false }, change_detection = { enabled = false },
  rocks = { enabled = false },
})
-- ---------------------------------------------------------------- end of init.lua

function _G.PI_LAZY_TEST()
local ok, err = pcall(function()
  report(vim.g.loaded_pi == nil and package.loaded["pi"] == nil, "nothing of the plugin loads at start-up")
  vim.cmd("edit " .. root .. "/a.py")
  local buf = vim.api.nvim_get_current_buf()
  local ends = 0
  vim.cmd("Pi explain this file")
  report(package.loaded["pi"] ~= nil, ":Pi loads the plugin on first use")
  local chat = require("pi.chat")
  local orig = chat.on_event
  local updates = 0
  chat.on_event = function(ev, params)
    if ev.type == "agent_end" then ends = ends + 1 end
    if ev.type == "message_update" then updates = updates + 1 end
    return orig(ev, params)
  end
  report(wait(60000, function() return ends >= 1 end), "the run ends")
  wait(2000, function() return chat.text():find("both now return more.", 1, true) ~= nil end)
  local text = chat.text()
  report(updates >= 2 and text:find("This file defines f and g; both now return more.", 1, true) ~= nil,
    "the answer streamed into the chat", text)
  local lines = function() return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") end
  report(lines():find("return 2", 1, true) and lines():find("return 20", 1, true), "the edit is in the buffer", lines())
  local function pending()
    local n = 0
    for _, hunks in pairs(require("pi.state").review) do n = n + #hunks end
    return n
  end
  report(wait(5000, function() return pending() == 2 end), "two hunks to review", tostring(pending()))
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd("normal ]h")
  vim.cmd("normal ga")
  report(wait(5000, function() return pending() == 1 end), "]h then ga keeps the first hunk", tostring(pending()))
  vim.cmd("normal ]h")
  vim.cmd("normal gr")
  report(wait(5000, function() return pending() == 0 and lines():find("return 10", 1, true) ~= nil end),
    "]h then gr undoes the second hunk", lines())
  report(lines():find("return 2\n", 1, true) ~= nil, "the kept hunk stays", lines())
end)
if not ok then report(false, "no error", tostring(err)) end
finish()
end
