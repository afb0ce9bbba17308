-- Typing latency in another buffer while a 10,000-token answer streams into the chat.
-- PI_TEST_CMD='["pi-lsp"]' nvim --headless -u NONE -i NONE -n -c 'luafile bench/typing.lua'
-- A libuv timer feeds a key every 20 ms (nvim_input) and stamps it; the key's mapping, run by
-- Neovim's main loop, records how long the key waited. Prints p50 / p95 / max.
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
vim.opt.runtimepath:prepend(vim.fn.fnamemodify(here, ":h"))
vim.cmd("runtime plugin/pi.lua")
local uv = vim.loop
local tmp = vim.fn.tempname()
vim.fn.mkdir(tmp .. "/.git", "p")
vim.cmd("cd " .. tmp)
local words = {}
for i = 1, 10000 do words[i] = (i % 12 == 0) and "word\n" or "word " end
local answer = table.concat(words)
local script = tmp .. "/script.json"
local f = io.open(script, "w")
f:write(vim.json.encode({ chunkSize = 5, delayMs = 1, responses = { { content = { { type = "text", text = answer } } } } }))
f:close()
local f2 = io.open(tmp .. "/typed.txt", "w"); f2:write("\n"); f2:close()
require("pi").setup({ server = { cmd = vim.json.decode(os.getenv("PI_TEST_CMD") or '["pi-lsp"]') },
  settings = { provider = "faux", fauxScript = script } })
vim.cmd("edit " .. tmp .. "/typed.txt")
require("pi.client").ensure(0)
vim.wait(30000, function() return require("pi.client").ready[tmp] end, 10)

local samples, stamp, done = {}, nil, false
vim.keymap.set("n", "<F2>", function()
  if stamp then table.insert(samples, (uv.hrtime() - stamp) / 1e6); stamp = nil end
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { "x" })  -- a real edit in the typing buffer
end)
local timer = uv.new_timer()
timer:start(20, 20, function()
  if done then return end
  if stamp == nil then stamp = uv.hrtime(); vim.api.nvim_input("<F2>") end
end)
local t0 = uv.hrtime()
vim.cmd("Pi stream")
-- vim.wait would hold typed keys back: return to the main loop and finish from a timer
local check = uv.new_timer()
check:start(100, 100, vim.schedule_wrap(function()
  if done or require("pi.state").last_message == nil or require("pi.state").streaming then return end
  done = true
  timer:stop(); check:stop()
  local secs = (uv.hrtime() - t0) / 1e9
  table.sort(samples)
  local function pct(p) return samples[math.max(1, math.ceil(#samples * p))] or -1 end
  local ok = require("pi.chat").text():find(answer, 1, true) ~= nil
  io.stdout:write(("\n%s  samples=%d  stream=%.1fs  p50=%.1fms  p95=%.1fms  max=%.1fms  chat==answer:%s\n"):format(
    vim.fn.matchstr(vim.fn.execute("version"), "NVIM v[0-9.]*"), #samples, secs, pct(0.5), pct(0.95),
    samples[#samples] or -1, tostring(ok)))
  io.stdout:flush()
  vim.cmd("qall!")
end))
