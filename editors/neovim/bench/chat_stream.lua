-- The Neovim side of bench/chat_bench.py: a chat that already holds N answers, then streamed
-- answers of C chunks each, fed to the plugin's pi/event handler as the LSP client would
-- (one notification per chunk, on the main loop). Runs in a real TUI (the driver starts it in
-- tmux), so redraw is part of what it measures.
--   PI_BENCH_DIR      where the driver and this script exchange files
--   PI_BENCH_ANSWERS  answers already in the chat (N)
--   PI_BENCH_CHUNKS   text_delta chunks per streamed answer (C)
--   PI_BENCH_CHUNK_MS interval between chunks
--   PI_BENCH_PLUGIN   the plugin's directory (default: this checkout's editors/neovim)
-- Writes DIR/ready once the chat is shown (the cursor in insert mode in a Python buffer),
-- then DIR/stream-<k>.json after each streamed answer. Insert-mode <F5> starts a stream.
-- No text here contains a "q": the driver types "q" and looks for it on the screen.
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
-- PI_BENCH_PLUGIN: another checkout's plugin (a "before" figure in the same run)
vim.opt.runtimepath:prepend(os.getenv("PI_BENCH_PLUGIN") or vim.fn.fnamemodify(here, ":h"))
vim.cmd("syntax on")
vim.cmd("filetype plugin indent on")
vim.cmd("runtime plugin/pi.lua")
local uv = vim.loop
local dir = assert(os.getenv("PI_BENCH_DIR"), "PI_BENCH_DIR")
local answers = tonumber(os.getenv("PI_BENCH_ANSWERS") or "1")
local chunks = tonumber(os.getenv("PI_BENCH_CHUNKS") or "1000")
local chunk_ms = tonumber(os.getenv("PI_BENCH_CHUNK_MS") or "5")

require("pi").setup({ auto_attach = false })
local handlers = require("pi.handlers")
local chat = require("pi.chat")
local state = require("pi.state")

local function write(path, text)
  local f = assert(io.open(path .. ".tmp", "w")); f:write(text); f:close()
  os.rename(path .. ".tmp", path)
end

-- An answer's text as the model streams it: Markdown prose, a list and a Python block.
local WORDS = { "the", "chat", "buffer", "shows", "each", "answer", "as", "it", "streams", "in",
  "small", "pieces", "and", "a", "reader", "follows", "along", "with", "code", "below" }
local function answer_chunks(n, seed)
  local out, w = {}, seed
  local function word() w = w % #WORDS + 1; return WORDS[w] end
  for i = 1, n do
    local k = i % 120
    local piece
    if k == 1 then piece = "\n## Part " .. i .. "\n\n"
    elseif k == 40 then piece = "\n\n- " .. word() .. " `" .. word() .. "`"
    elseif k == 45 or k == 50 then piece = "\n- **" .. word() .. "** " .. word()
    elseif k == 60 then piece = "\n\n```python\ndef " .. word() .. "(x):\n"
    elseif k > 60 and k < 80 then piece = (k % 4 == 0) and ("\n    return x + " .. k) or (" " .. word())
    elseif k == 80 then piece = "\n```\n\n"
    elseif k % 14 == 0 then piece = ".\n"
    else piece = word() .. " " end
    out[i] = piece
  end
  return out
end

local seq = 0
local function event(ev)
  seq = seq + 1
  -- no sessionId: no session is attached, so the usage line asks no server for the context
  handlers.on_event(nil, { seq = seq, event = ev })
end
local function delta(text)
  event({ type = "message_update", assistantMessageEvent = { type = "text_delta", delta = text } })
end
local function assistant(content) return { role = "assistant", content = content, usage = { input = 10, output = 20 } } end

-- One whole answer, as a run ends: the prompt, thinking, a tool card, the text, the usage.
local function run_head(i)
  event({ type = "agent_start" })
  event({ type = "turn_start" })
  event({ type = "message_start", message = { role = "user", content = "explain part " .. i .. " of the module" } })
  event({ type = "message_start", message = assistant({}) })
  event({ type = "message_update", assistantMessageEvent = { type = "thinking_start" } })
  event({ type = "message_update", assistantMessageEvent = { type = "thinking_delta", delta = "look at the file first" } })
  event({ type = "message_update", assistantMessageEvent = { type = "thinking_end" } })
  event({ type = "tool_execution_start", toolCallId = "t" .. i, toolName = "read", args = { path = "mod.py" } })
  local out = {}
  for l = 1, 20 do out[l] = ("def f%d(x): return x + %d"):format(l, l) end
  event({ type = "tool_execution_end", toolCallId = "t" .. i, toolName = "read",
    result = { content = { { type = "text", text = table.concat(out, "\n") } } } })
end
local function run_tail()
  event({ type = "message_end", message = assistant({ { type = "text", text = "", streamed = true } }) })
  event({ type = "turn_end" })
  event({ type = "agent_end", messages = { assistant({}) } })
end

-- the typing buffer and the chat beside it
local py = dir .. "/typed.py"
write(py, "def typed():\n    pass\n")
vim.cmd("edit " .. py)
chat.open("split")
for i = 1, answers do
  run_head(i)
  for _, c in ipairs(answer_chunks(chunks, i)) do delta(c) end
  run_tail()
end
chat.flush()
vim.cmd("normal! G")
vim.cmd("startinsert!")

local function cpu()
  local r = uv.getrusage()
  return r.utime.sec + r.utime.usec / 1e6 + r.stime.sec + r.stime.usec / 1e6
end

-- Where the main loop's time goes while an answer streams: each flush of the chat (the
-- plugin's write) and each screen update (a decoration provider's on_start → on_end spans
-- Neovim's redraw of every window that changed), in milliseconds.
local prof = { flush = {}, redraw = {}, redraw_chat = {} }
local flush = chat.flush
chat.flush = function(...)
  local t = uv.hrtime()
  flush(...)
  table.insert(prof.flush, (uv.hrtime() - t) / 1e6)
end
local redraw_t0, drew_chat
vim.api.nvim_set_decoration_provider(vim.api.nvim_create_namespace("pi_bench"), {
  on_start = function() redraw_t0, drew_chat = uv.hrtime(), false end,
  on_win = function(_, win) if win == chat.win then drew_chat = true end end,
  on_end = function()
    if redraw_t0 then
      table.insert(drew_chat and prof.redraw_chat or prof.redraw, (uv.hrtime() - redraw_t0) / 1e6)
    end
    redraw_t0 = nil
  end,
})
local function summary(xs)
  table.sort(xs)
  local n = #xs
  if n == 0 then return { n = 0 } end
  local sum = 0
  for _, x in ipairs(xs) do sum = sum + x end
  return { n = n, p50_ms = xs[math.ceil(n * 0.5)], p95_ms = xs[math.ceil(n * 0.95)], max_ms = xs[n], total_ms = sum }
end

local streams = 0
local function stream()
  streams = streams + 1
  local k = streams
  local parts = answer_chunks(chunks, 1000 + k)
  local lines0 = vim.api.nvim_buf_line_count(chat.buf)
  run_head(answers + k)
  prof = { flush = {}, redraw = {}, redraw_chat = {} }
  local i, t0, c0 = 0, uv.hrtime(), cpu()
  local timer = uv.new_timer()
  timer:start(chunk_ms, chunk_ms, vim.schedule_wrap(function()
    if i >= #parts then return end
    i = i + 1
    delta(parts[i])
    if i < #parts then return end
    timer:stop(); timer:close()
    -- the last chunk's flush is part of the answer: wait for it, then end the run
    local wait = uv.new_timer()
    wait:start(0, 5, vim.schedule_wrap(function()
      if #chat.pending > 0 or chat.timer then return end
      wait:stop(); wait:close()
      vim.cmd("redraw")
      local secs, used = (uv.hrtime() - t0) / 1e9, cpu() - c0
      run_tail()
      local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
      write(("%s/stream-%d.json"):format(dir, k), vim.json.encode({
        answers_before = answers + k - 1, chunks = #parts, wall_s = secs, cpu_s = used,
        chat_lines_before = lines0, chat_lines = vim.api.nvim_buf_line_count(chat.buf),
        complete = text:find(table.concat(parts), 1, true) ~= nil, streaming = state.streaming,
        nvim = vim.fn.matchstr(vim.fn.execute("version"), "NVIM v[0-9.]*"),
        flush = summary(prof.flush), redraw = summary(prof.redraw), redraw_chat = summary(prof.redraw_chat),
      }))
    end))
  end))
end
vim.keymap.set("i", "<F5>", stream)
vim.keymap.set("i", "<F6>", function() vim.cmd("qall!") end)
write(dir .. "/ready", "1")
