-- Headless suite for the pi plugin against the real pi-lsp (faux provider).
-- Run one set: PI_TEST_SET=<name> nvim --headless -u NONE -i NONE -n -c 'luafile tests/suite.lua'
-- tests/run.sh runs every set on one Neovim and prints "N passed, N failed".
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local plugin = vim.fn.fnamemodify(here, ":h")
vim.opt.runtimepath:prepend(plugin)
vim.cmd("filetype on")
vim.cmd("runtime plugin/pi.lua")

local set = os.getenv("PI_TEST_SET") or "stream"
local tmp = vim.fn.tempname()
vim.fn.mkdir(tmp .. "/ws/.git", "p")
local root = tmp .. "/ws"
local function write(path, text) local f = io.open(path, "w"); f:write(text); f:close() end
local function read(path) local f = io.open(path); local s = f:read("*a"); f:close(); return s end
write(root .. "/a.py", "def f():\n    return 1\n")
vim.cmd("cd " .. root)

local passed, failed, skipped = 0, 0, 0
local function report(ok, name, why)
  if ok == "skip" then skipped = skipped + 1; print("\nSKIP " .. name .. ": " .. why)
  elseif ok then passed = passed + 1; print("\nPASS " .. name)
  else failed = failed + 1; print("\nFAIL " .. name .. (why and (": " .. why) or "")) end
end
local function finish()
  print(("%d passed, %d failed, %d skipped"):format(passed, failed, skipped))
  vim.cmd(failed == 0 and "qall!" or "cquit 1")
end
local function wait(ms, cond) return vim.wait(ms, cond, 10) end

local events = {}
local function observe()
  local chat = require("pi.chat")
  local orig = chat.on_event
  chat.on_event = function(ev, params) table.insert(events, ev); for _, h in ipairs(_G.PI_HOOKS or {}) do h(ev) end; return orig(ev, params) end
end
_G.PI_HOOKS = {}
local function count(typ, pred)
  local n = 0
  for _, e in ipairs(events) do if e.type == typ and (pred == nil or pred(e)) then n = n + 1 end end
  return n
end
local function agent_ends() return count("agent_end") end

local function text(t) return { content = { { type = "text", text = t } } } end
local function tool(name, args, t)
  local c = {}
  if t then table.insert(c, { type = "text", text = t }) end
  table.insert(c, { type = "toolCall", name = name, arguments = args })
  return { content = c }
end
local EDIT = tool("edit", { path = "a.py", edits = { { oldText = "return 1", newText = "return 2" } } }, "Changing it.")
local SLOW = { delayMs = 15, chunkSize = 3 }
local function slow(t) return vim.tbl_extend("force", text(t), SLOW) end

local function start(responses, settings)
  local script = tmp .. "/script.json"
  write(script, vim.json.encode({ responses = responses }))
  local s = vim.tbl_extend("force", { provider = "faux", fauxScript = script }, settings or {})
  require("pi").setup({ server = { cmd = vim.json.decode(os.getenv("PI_TEST_CMD")) }, settings = s })
  observe()
  vim.cmd("edit " .. root .. "/a.py")
  require("pi.client").ensure(0)
  local ok = wait(30000, function()
    return require("pi.client").ready[root] == true
  end)
  if not ok then report(false, set .. ": server starts"); finish() end
end

local function chat_text() return require("pi.chat").text() end
local function buf_text(b) return table.concat(vim.api.nvim_buf_get_lines(b or 0, 0, -1, false), "\n") end
local sets = {}

function sets.stream()
  start({ EDIT, slow("Done: f returns 2.") })
  local buf = vim.api.nvim_get_current_buf()
  -- a linter of our own: an error on the changed line as soon as the buffer holds the edit
  local lint = vim.api.nvim_create_namespace("pi-test-lint")
  vim.api.nvim_buf_attach(buf, false, { on_lines = function()
    vim.schedule(function()
      if buf_text(buf):find("return 2", 1, true) then
        vim.diagnostic.set(lint, buf, { { lnum = 1, col = 4, end_lnum = 1, end_col = 12,
          severity = vim.diagnostic.severity.ERROR, message = "test-lint: two is wrong" } })
      end
    end)
  end })
  vim.cmd("Pi change it")
  local ok = wait(30000, function() return agent_ends() >= 1 end)
  report(ok, "prompt runs to the end")
  local edit_result
  for _, e in ipairs(events) do
    if e.type == "tool_execution_end" and e.toolName == "edit" then edit_result = vim.json.encode(e.result) end
  end
  report(edit_result ~= nil and edit_result:find("test-lint: two is wrong", 1, true) ~= nil,
    "the edited file's diagnostics are forwarded (pi/diagnostics) into the edit's result", tostring(edit_result))
  wait(1000, function() return chat_text():find("── done", 1, true) ~= nil end)
  local chat = chat_text()
  report(chat:find("> change it", 1, true) ~= nil, "user prompt shown in the chat")
  report(chat:find("Done: f returns 2.", 1, true) ~= nil and require("pi.state").last_message == "Done: f returns 2.",
    "streamed text equals the final message", chat)
  report(chat:find("✓ edit a.py", 1, true) ~= nil, "tool card ✓ edit a.py", chat)
  report(buf_text(buf) == "def f():\n    return 2", "edit applied to the clean buffer")
  report(read(root .. "/a.py") == "def f():\n    return 2\n" and not vim.bo[buf].modified,
    "pi/saveDocuments wrote the buffer")
  vim.api.nvim_set_current_buf(buf)
  vim.cmd("normal! u")
  report(buf_text(buf) == "def f():\n    return 1", "one u undoes the tool call's edit", buf_text(buf))
  report(vim.api.nvim_get_current_win() ~= require("pi.chat").win, "chat never took focus")
end

function sets.modified()
  start({ EDIT, text("Done.") })
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "# mine" })
  vim.cmd("Pi change it")
  report(wait(30000, function() return agent_ends() >= 1 end), "run ends")
  report(buf_text(buf) == "def f():\n    return 2\n# mine", "edit applied to the modified buffer", buf_text(buf))
  report(read(root .. "/a.py") == "def f():\n    return 2\n# mine\n", "saved (pi/saveDocuments)", read(root .. "/a.py"))
  vim.cmd("normal! u")
  report(buf_text(buf) == "def f():\n    return 1\n# mine", "one u undoes only the agent's edit", buf_text(buf))
end

function sets.steer()
  start({ EDIT, slow("Steered: ok.") })
  table.insert(_G.PI_HOOKS, function(ev)
    if ev.type == "tool_execution_start" then vim.cmd("Pi steer now") end
  end)
  vim.cmd("Pi change it")
  report(wait(30000, function() return agent_ends() >= 1 end), "run ends")
  local turn, landed = 0, nil
  for _, e in ipairs(events) do
    if e.type == "turn_start" then turn = turn + 1 end
    if e.type == "message_start" and e.message.role == "user" and require("pi.chat").text_of(e.message.content) == "steer now" then landed = turn end
  end
  report(landed == 2, "steering lands in turn 2", tostring(landed))
  report(chat_text():find("Steered: ok.", 1, true) ~= nil, "the steered reply streams")
  report(count("message_start", function(e) return e.deliveredAs ~= nil end) > 0, "the server sends deliveredAs (§7)")
  report(chat_text():find("> [steer → turn 2] steer now", 1, true) ~= nil, "chat shows where the queued message landed", chat_text())
end

-- Streaming into a chat that already holds answers rewrites only the chat's tail (issue 45): every
-- change Neovim reports for the chat buffer (on_lines: set_lines, set_text, anything else) during
-- the stream starts at or below the line the run began on, and on 0.11 treesitter reparses only
-- the tail's tree, never one that spans the earlier answers (the parse a window's highlighter
-- would run after each flush is run here: headless Neovim does not redraw).
function sets.tail()
  local md = "## Part\n\nSome **bold** text and `code`.\n\n```python\ndef f(x):\n    return x\n```\n\n- one\n- two\n"
  local answer = vim.tbl_extend("force", text(string.rep(md, 6)), { delayMs = 10, chunkSize = 7 })
  start({ text(md), text(md), text(md), answer, vim.tbl_extend("force", text(md), SLOW) })
  for i = 1, 3 do
    vim.cmd("Pi answer " .. i)
    wait(30000, function() return agent_ends() >= i end)
  end
  local chat = require("pi.chat")
  wait(1000, function() return #chat.pending == 0 and chat.timer == nil end)
  local buf = chat.buf
  local tail, streaming, writes, outside, parses, wide = nil, false, 0, {}, 0, {}
  vim.api.nvim_buf_attach(buf, false, { on_lines = function(_, _, _, first, last_old, last_new)
    if not streaming then return end
    writes = writes + 1
    if first < tail then table.insert(outside, ("%d-%d->%d"):format(first, last_old, last_new)) end
  end })
  local parser = vim.treesitter.start ~= nil and vim.treesitter.get_parser(buf, "markdown")
  if parser then
    parser:register_cbs({ on_changedtree = function(_, tree)
      if not streaming then return end
      parses = parses + 1
      local r = tree:included_ranges()[1]
      if r and r[1] < tail then table.insert(wide, r[1]) end
    end })
    local flush = chat.flush
    chat.flush = function()
      flush()
      local n = vim.api.nvim_buf_line_count(buf)
      parser:parse({ math.max(0, n - 10), n })
    end
  end
  table.insert(_G.PI_HOOKS, function(ev)
    if ev.type == "agent_start" then tail = vim.api.nvim_buf_line_count(buf) - 1 end
    if ev.type == "message_update" then streaming = true end
    if ev.type == "agent_end" then streaming = false end
  end)
  vim.cmd("Pi answer 4")
  report(wait(30000, function() return agent_ends() >= 4 end), "the fourth run ends")
  report(chat_text():find(string.rep(md, 6), 1, true) ~= nil, "its answer is in the chat whole", chat_text())
  report(writes > 5 and #outside == 0, "flushes rewrite only the chat's tail",
    ("%d writes, %d above line %s: %s"):format(writes, #outside, tostring(tail), table.concat(outside, " ")))
  local win = chat.win
  local n = vim.api.nvim_buf_line_count(buf)
  report(win and vim.api.nvim_win_get_cursor(win)[1] == n, "the chat's window, showing the end, followed it",
    win and ("cursor %d of %d"):format(vim.api.nvim_win_get_cursor(win)[1], n))
  if win then
    vim.api.nvim_win_set_cursor(win, { 1, 0 })  -- scrolled up to read
    vim.cmd("Pi answer 5")
    report(wait(30000, function() return agent_ends() >= 5 end), "the fifth run ends")
    report(vim.api.nvim_buf_line_count(buf) > n and vim.api.nvim_win_get_cursor(win)[1] == 1,
      "a chat window scrolled up stays where the user put it", ("cursor %d"):format(vim.api.nvim_win_get_cursor(win)[1]))
  end
  if not parser then
    report("skip", "treesitter parses only the tail", "no treesitter highlighting of the chat before Neovim 0.11")
  else
    report(parses > 5 and #wide == 0, "treesitter parses only the tail",
      ("%d parses, %d of a tree from above line %s: %s"):format(parses, #wide, tostring(tail), table.concat(wide, " ")))
  end
end

-- A long, slow answer; fn runs (scheduled) at its first streamed delta.
local function during_long_answer(next_reply, fn)
  start({ vim.tbl_extend("force", text(string.rep("long answer ", 200)), { delayMs = 20, chunkSize = 2 }), next_reply })
  local started = false
  table.insert(_G.PI_HOOKS, function(ev)
    if ev.type == "message_update" and not started then started = true; vim.schedule(fn) end
  end)
end

function sets.interrupt()
  during_long_answer(text("Interrupted: ok."), function() vim.cmd("PiInterrupt do this instead") end)
  vim.cmd("Pi write a lot")
  report(wait(30000, function() return chat_text():find("Interrupted: ok.", 1, true) ~= nil end), "interrupt stops the run and sends the text", chat_text())
  report(chat_text():find("> do this instead", 1, true) ~= nil, "interrupt text shown")
end

function sets.abort()
  -- both requests go out in order on one pipe: the follow-up is queued before the abort
  during_long_answer(text("Later: ok."), function() vim.cmd("PiFollowUp later please"); vim.cmd("PiAbort") end)
  vim.cmd("Pi write a lot")
  report(wait(30000, function() return agent_ends() >= 1 end), "abort ends the run")
  report(chat_text():find("⏹ aborted", 1, true) ~= nil, "aborted shown in the chat")
  local st
  require("pi.protocol").request("pi/state", { sessionId = require("pi.state").session }, function(_, r) st = r end)
  wait(5000, function() return st ~= nil end)
  report(st and (st.pendingFollowUp or 0) == 1, "abort leaves the follow-up queued", vim.inspect(st))
end

function sets.queue()
  start({ text("x") })
  vim.cmd("Pi hello")
  wait(30000, function() return agent_ends() >= 1 end)
  vim.cmd("PiFollowUp first")
  vim.cmd("PiFollowUp second")
  wait(5000, function() return #require("pi.state").queue.followUp == 2 end)
  local qbuf = require("pi.queue").open()
  local lines = vim.api.nvim_buf_get_lines(qbuf, 0, -1, false)
  vim.api.nvim_buf_set_lines(qbuf, 0, -1, false, { (lines[1]:gsub("first", "FIRST")) })
  vim.cmd("write")
  local q = require("pi.state").queue
  report(wait(5000, function() q = require("pi.state").queue; return #q.followUp == 1 and q.followUp[1].text == "FIRST" end),
    "queue buffer edits reach the server", vim.inspect(q))
  -- delete a line (pi/queue remove) and turn "follow" into "steer" (pi/queue promote)
  vim.cmd("PiFollowUp third")
  vim.cmd("PiFollowUp fourth")
  wait(5000, function() return #require("pi.state").queue.followUp == 3 end)
  wait(5000, function() return #vim.api.nvim_buf_get_lines(qbuf, 0, -1, false) == 3 end)
  local kept = {}
  for _, l in ipairs(vim.api.nvim_buf_get_lines(qbuf, 0, -1, false)) do
    if l:find(" third$") then table.insert(kept, (l:gsub("^follow ", "steer ")))
    elseif not l:find(" fourth$") then table.insert(kept, l) end
  end
  vim.api.nvim_buf_set_lines(qbuf, 0, -1, false, kept)
  vim.api.nvim_buf_call(qbuf, function() vim.cmd("write") end)
  local function texts(list) local t = {} for _, m in ipairs(list or {}) do table.insert(t, m.text) end return table.concat(t, ",") end
  report(wait(5000, function()
    q = require("pi.state").queue
    return texts(q.followUp) == "FIRST" and texts(q.steering) == "third"
  end), "a deleted line is removed, follow -> steer promotes it", vim.inspect(q))
  local server
  require("pi.protocol").request("pi/state", { sessionId = require("pi.state").session }, function(_, r) server = r end)
  report(wait(5000, function() return server ~= nil end)
    and server.pendingFollowUp == 1 and server.pendingSteering == 1, "the server's queue agrees", vim.inspect(server))
end

local function messages_of_session()
  local messages
  require("pi.protocol").request("pi/resumeSession", { sessionId = require("pi.state").session },
    function(_, res) messages = res and res.messages end)
  wait(10000, function() return messages ~= nil end)
  return messages or {}
end

local function pending_hunks()
  local n = 0
  for _, hunks in pairs(require("pi.state").review) do n = n + #hunks end
  return n
end

function sets.review()
  start({ EDIT, text("Done."), text("Because you undid it."), EDIT, text("Again."), text("Noted."),
    EDIT, text("Third."), text("Fine.") })
  local chat = require("pi.chat")
  local buf = vim.api.nvim_get_current_buf()
  vim.cmd("Pi change it")
  wait(30000, function() return agent_ends() >= 1 end)
  wait(5000, function() return next(require("pi.state").review) ~= nil end)
  -- gr right after the answer, then the prompt at once (no waiting for the undo to land)
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.cmd("normal gr")
  vim.cmd("Pi did I change anything?")
  report(wait(5000, function() return buf_text(buf) == "def f():\n    return 1" end), "gr undoes the hunk", buf_text(buf))
  wait(30000, function() return agent_ends() >= 2 end)
  local msgs = messages_of_session()
  local last = msgs[#msgs - 2] or {}
  local note = msgs[#msgs - 1] or {}
  report(last.role == "user" and chat.text_of(last.content) == "did I change anything?"
    and note.role == "custom" and chat.text_of(note.content):find("undid", 1, true) ~= nil
    and chat.text_of(note.content):find("a.py lines 2-2", 1, true) ~= nil,
    "undo then prompt at once: the model is told with that prompt", vim.json.encode(msgs))
  local shown = chat_text()
  report(shown:find("· pi was told: you undid a.py line 2 {{{", 1, true) ~= nil
    and shown:find("> did I change anything?\n", 1, true) ~= nil and not shown:find("> %[The user"),
    "the note is a 'pi was told' line, the prompt stays as typed", shown)
  -- the editor's own undo (u) on the agent's change counts as an undo
  vim.cmd("Pi change it again")
  wait(30000, function() return agent_ends() >= 3 end)
  wait(5000, function() return pending_hunks() > 0 end)
  vim.cmd("normal u")
  report(wait(5000, function() return buf_text(buf) == "def f():\n    return 1" and pending_hunks() == 0 end),
    "u on the agent's change clears its hunk", vim.inspect(buf_text(buf)) .. " pending " .. vim.inspect(require("pi.state").review))
  vim.cmd("Pi and now?")
  wait(30000, function() return agent_ends() >= 4 end)
  msgs = messages_of_session()
  note = msgs[#msgs - 1] or {}
  report(note.role == "custom" and chat.text_of(note.content):find("editor's undo", 1, true) ~= nil,
    "u is told to the model", vim.json.encode(note))
  -- with a reason (the reason key asks for one): the note carries it
  vim.cmd("Pi once more")
  wait(30000, function() return agent_ends() >= 5 end)
  wait(5000, function() return pending_hunks() > 0 end)
  vim.ui.input = function(_, cb) cb("keep it returning 1") end
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  require("pi.review").decide("undo", true)
  vim.cmd("Pi why")
  wait(30000, function() return agent_ends() >= 6 end)
  msgs = messages_of_session()
  note = msgs[#msgs - 1] or {}
  report(note.role == "custom" and chat.text_of(note.content):find("keep it returning 1", 1, true) ~= nil,
    "the undo and its reason reach the model with the next prompt", vim.json.encode(note))
  -- a note an older server glued to the user's message: the same line, the words as typed
  local glued = "[The user reviewed your edits and undid these changes; do not make them again unless asked:]\n- b.py lines 7-7: undid"
  chat.on_event({ type = "message_start", message = { role = "user",
    content = { { type = "text", text = glued }, { type = "text", text = "old words" } } } }, {})
  shown = chat_text()
  report(shown:find("· pi was told: b.py lines 7-7: undid {{{", 1, true) ~= nil and shown:find("> old words", 1, true) ~= nil
    and not shown:find("> %[The user"), "an older server's glued note is split off", shown)
end

function sets.rewind()
  start({ EDIT, text("Done.") })
  vim.cmd("Pi change it")
  wait(30000, function() return agent_ends() >= 1 end)
  local picks = { 1, 1 }
  vim.ui.select = function(items, _, cb) cb(items[table.remove(picks, 1)]) end
  local buf = vim.fn.bufnr(root .. "/a.py")
  vim.cmd("PiRewind")
  report(wait(10000, function() return buf_text(buf) == "def f():\n    return 1" end), ":PiRewind restores the code", buf_text(buf))
  -- "both" restored the conversation too: the prompt is the default of the next :Pi input
  local default
  vim.ui.input = function(opts, _) default = opts.default end
  wait(10000, function() return require("pi.state").restored_text ~= nil end)
  vim.cmd("Pi")
  report(default == "change it", ":PiRewind puts the restored prompt in :Pi's input", tostring(default))
end

function sets.revert()
  start({ EDIT, text("Done.") })
  vim.cmd("Pi change it")
  wait(30000, function() return agent_ends() >= 1 end)
  local buf = vim.fn.bufnr(root .. "/a.py")
  local chat = require("pi.chat")
  local win = chat.open()
  vim.api.nvim_set_current_win(win)
  local card = nil
  for id, at in pairs(chat.cards) do card = at end
  vim.api.nvim_win_set_cursor(win, { card + 1, 0 })
  vim.ui.select = function() error("no picker with a card under the cursor") end
  vim.cmd("PiRevert")
  report(wait(10000, function() return buf_text(buf) == "def f():\n    return 1" end), ":PiRevert on the card reverts that tool call", buf_text(buf))
  report(wait(5000, function() return require("pi.state").restore_id ~= nil end), "the revert can be undone")
  vim.cmd("PiRewindUndo")
  report(wait(10000, function() return buf_text(buf) == "def f():\n    return 2" end), ":PiRewindUndo re-applies it", buf_text(buf))
end

function sets.permission()
  start({ tool("bash", { command = "echo hi-from-bash" }), text("Ran it."),
    tool("bash", { command = "echo never-ran" }), text("Not running it.") }, { permissions = { bash = "ask" } })
  if not require("pi.permission").handlers_can_wait() then
    return report("skip", "permission answered without blocking", "this Neovim answers server requests synchronously (modal vim.ui.select fallback)")
  end
  vim.ui.select = function() error("vim.ui.select must not be used") end
  vim.cmd("Pi run it")
  report(wait(30000, function() return #require("pi.state").permissions == 1 end), "question pending in the float")
  -- typing goes on while it waits
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { "# typed while asked" })
  vim.cmd("PiApprove once")
  report(wait(30000, function() return agent_ends() >= 1 end), "run ends after :PiApprove")
  report(chat_text():find("hi-from-bash", 1, true) ~= nil, "the command ran", chat_text())
  -- steering while the question waits denies it (as VS Code does): the instruction is the reason
  vim.cmd("Pi run another")
  report(wait(30000, function() return #require("pi.state").permissions == 1 end), "the second question waits")
  vim.cmd("Pi no, leave it")
  report(wait(5000, function() return #require("pi.state").permissions == 0 end), "steering answers the waiting question")
  report(wait(30000, function() return agent_ends() >= 2 end), "the run goes on to its end")
  local denied
  for _, e in ipairs(events) do
    if e.type == "tool_execution_end" and e.isError then denied = vim.json.encode(e.result) end
  end
  report(denied ~= nil and denied:find("new instruction instead: no, leave it", 1, true) ~= nil,
    "the tool call is denied with the new instruction as the reason", tostring(denied))
end

-- Issue 42: a waiting permission nudges (vim.notify; a desktop notification while unfocused),
-- the statusline counts it and shows the context meter, the 80 % warning, the end of the run,
-- :PiExport.
function sets.nudges()
  start({ tool("bash", { command = "echo nudged" }), text("Ran it.") },
    { permissions = { bash = "ask" }, contextWindow = 256 })
  local status = require("pi.status")
  local notes = {}
  vim.notify = function(msg) table.insert(notes, msg) end
  local function noted(s)
    for _, n in ipairs(notes) do if n:find(s, 1, true) then return true end end
    return false
  end
  vim.api.nvim_exec_autocmds("FocusLost", {})
  local waits = require("pi.permission").handlers_can_wait()
  if not waits then  -- 0.7: the modal fallback picks the first option
    vim.ui.select = function(items, _, cb) cb(items[1]) end
  end
  vim.cmd("Pi run it")
  report(wait(30000, function() return noted("pi: permission needed") end),
    "notify hook called for a waiting permission", table.concat(notes, " | "))
  report(#status.sent > 0 and status.sent[1]:find("\27]777;notify;pi;permission needed", 1, true) == 1,
    "OSC 777 desktop notification while unfocused", vim.inspect(status.sent))
  vim.api.nvim_exec_autocmds("FocusGained", {})
  if waits then
    report(wait(30000, function() return #require("pi.state").permissions == 1 end)
      and status.statusline():find("1 waiting", 1, true) ~= nil, "statusline counts the waiting question", status.statusline())
    vim.cmd("PiApprove once")
  end
  report(wait(30000, function() return agent_ends() >= 1 end), "run ends")
  report(wait(30000, function() return noted("pi: the run is done") end), "notify hook called when the run ends")
  report(wait(30000, function() return status.context ~= nil end)
    and status.statusline():match("^π [%d%.]+k?/256") ~= nil, "statusline shows the context meter", status.statusline())
  report(noted("compaction is near") and noted(":PiCompact"), "warning past 80 % of the window", table.concat(notes, " | "))
  local out = tmp .. "/export.html"
  vim.cmd("PiExport " .. out)
  report(wait(30000, function() return vim.fn.filereadable(out) == 1 end)
    and read(out):find("run it", 1, true) ~= nil and wait(5000, function() return noted("session exported: " .. out) end),
    ":PiExport writes the page", table.concat(notes, " | ") .. " file:" .. tostring(vim.fn.filereadable(out)))
end

-- Issue 42: :PiProcs lists the background process the agent started and stops it.
function sets.procs()
  start({ tool("bash", { command = "sh -c 'echo up; sleep 600'", background = true }), text("Started.") },
    { permissions = { bash = "allow" } })
  local status = require("pi.status")
  vim.cmd("Pi start it")
  report(wait(30000, function() return agent_ends() >= 1 end), "run ends at once (the process runs on)")
  report(wait(30000, function() return status.running == 1 end)
    and status.statusline():find("1 proc", 1, true) ~= nil, "statusline counts the process", status.statusline())
  local shown
  vim.ui.select = function(items, opts, cb)
    shown = opts.format_item(items[1])
    cb(items[1])
  end
  vim.cmd("PiProcs")
  report(wait(30000, function() return status.running == 0 end), ":PiProcs stops the picked process")
  report(shown ~= nil and shown:find("bg1  sh -c 'echo up; sleep 600'  [running", 1, true) == 1, "the list shows id, command, uptime", tostring(shown))
end

-- Issue 42 end to end: "start the dev server, curl it, then stop it". The run never blocks on
-- the server, :PiProcs shows it while it runs, bash_kill stops it, no process remains.
local function procs_with(marker)
  local found = {}
  for _, pid in ipairs(vim.fn.readdir("/proc")) do
    if pid:match("^%d+$") then
      local f = io.open("/proc/" .. pid .. "/cmdline")
      local cmd = f and f:read("*a") or ""
      if f then f:close() end
      local st = io.open("/proc/" .. pid .. "/stat")
      local stat = st and st:read("*a") or ""
      if st then st:close() end
      if cmd:find(marker, 1, true) and not stat:match("%) Z ") then table.insert(found, pid) end
    end
  end
  return found
end
function sets.devserver()
  local marker = "nvim-dev-" .. vim.fn.localtime() .. "-" .. math.random(100000)
  write(root .. "/" .. marker .. ".py", table.concat({
    "import http.server, pathlib",
    "srv = http.server.HTTPServer(('127.0.0.1', 0), http.server.SimpleHTTPRequestHandler)",
    "pathlib.Path('port.txt').write_text(str(srv.server_address[1]))",
    "print('serving', flush=True)",
    "srv.serve_forever()", "" }, "\n"))
  local curl = "until [ -s port.txt ]; do sleep 0.05; done; python3 -c \"import urllib.request; "
    .. "print('status', urllib.request.urlopen('http://127.0.0.1:' + open('port.txt').read() + '/').status)\""
  start({
    tool("bash", { command = "python3 -u " .. marker .. ".py", background = true }),
    tool("bash", { command = curl }),
    tool("bash_output", { id = "bg1" }),
    text("Serving."),
    tool("bash_kill", { id = "bg1" }),
    text("Stopped."),
  }, { permissions = { bash = "allow" } })
  local status = require("pi.status")
  vim.cmd("Pi serve it and curl it")
  report(wait(30000, function() return agent_ends() >= 1 end), "the run ends while the server runs on")
  local function result_of(name)
    local out = {}
    for _, e in ipairs(events) do
      if e.type == "tool_execution_end" and e.toolName == name then
        for _, c in ipairs(e.result.content or {}) do table.insert(out, c.text or "") end
      end
    end
    return table.concat(out, "\n")
  end
  report(result_of("bash"):find("status 200", 1, true) ~= nil, "curl got the page", result_of("bash"))
  report(result_of("bash_output"):find("GET / HTTP/1.1", 1, true) ~= nil, "bash_output shows the request", result_of("bash_output"))
  report(#procs_with(marker) > 0 and wait(30000, function() return status.running == 1 end), "the server runs on")
  local shown
  vim.ui.select = function(items, opts, cb) shown = opts.format_item(items[1]); cb(nil) end
  vim.cmd("PiProcs")
  report(wait(10000, function() return shown ~= nil end)
    and shown:find("bg1  python3 -u " .. marker .. ".py  [running", 1, true) == 1, ":PiProcs shows it running", tostring(shown))
  vim.cmd("Pi stop it")
  report(wait(30000, function() return agent_ends() >= 2 end), "the second run ends")
  report(result_of("bash_kill"):find("killed", 1, true) ~= nil, "bash_kill stopped it", result_of("bash_kill"))
  report(wait(10000, function() return #procs_with(marker) == 0 end), "no process remains", vim.inspect(procs_with(marker)))
  report(wait(10000, function() return status.running == 0 end), "the statusline count drops to 0")
end

-- :PiRules lists the workspace's "always allow" rules and revokes the one picked: the next
-- such command asks again. The rule comes from answering "always" to a real question.
function sets.rules()
  local BASH = tool("bash", { command = "git status" })
  start({ BASH, text("Ran it."), BASH, text("Asked again.") }, { permissions = { bash = "ask" } })
  local notes, asked, listed = {}, 0, nil
  local notify = vim.notify
  vim.notify = function(msg, ...) table.insert(notes, msg); return notify(msg, ...) end
  local function noted(s) for _, m in ipairs(notes) do if m:find(s, 1, true) then return true end end return false end
  -- 0.7 asks through vim.ui.select (answered "always" here); 0.11 through the float + :PiApprove
  vim.ui.select = function(items, _, cb)
    if items[1] and items[1].kind then
      asked = asked + 1
      for _, o in ipairs(items) do if o.kind == "allowAlways" then return cb(o) end end
    end
    listed = items
    for _, r in ipairs(items) do if r.pattern == "git status" then return cb(r) end end
    cb(nil)
  end
  local function answer_always()
    if require("pi.permission").handlers_can_wait() then
      if not wait(30000, function() return #require("pi.state").permissions == 1 end) then return false end
      asked = asked + 1
      vim.cmd("PiApprove always")
    end
    return true
  end
  vim.cmd("PiRules")
  report(wait(10000, function() return noted('no "always allow" rules') end), ":PiRules says when there are none", vim.inspect(notes))
  vim.cmd("Pi run it")
  answer_always()
  report(wait(30000, function() return agent_ends() >= 1 end) and asked == 1, "answered always", tostring(asked))
  vim.cmd("PiRules")
  report(wait(10000, function() return noted("revoked: bash git status") end), ":PiRules revokes the picked rule", vim.inspect(notes))
  report(listed ~= nil and #listed == 1 and listed[1].tool == "bash", ":PiRules lists the rule", vim.inspect(listed))
  local rules
  require("pi.protocol").request("pi/permissions", { op = "list" }, function(_, r) rules = r and r.rules end)
  report(wait(5000, function() return rules ~= nil end) and #rules == 0, "the server keeps no rule", vim.inspect(rules))
  vim.cmd("Pi run it again")
  answer_always()
  report(wait(30000, function() return agent_ends() >= 2 end) and asked == 2, "the same command asks again", tostring(asked))
  vim.notify = notify
end

local function todo(...)
  local items = {}
  for i, st in ipairs({ ... }) do table.insert(items, { id = tostring(i), content = "step " .. i, status = st }) end
  return tool("todo", { todos = items })
end

function sets.plan()
  local QUESTION = { question = "Which style?", options = { { label = "Tabs" }, { label = "Spaces", description = "four" } },
    allowFreeText = true }
  start({ todo("in_progress", "pending"), todo("completed", "in_progress"), tool("ask", QUESTION),
    todo("completed", "completed"), text("All done.") })
  local waits = require("pi.permission").handlers_can_wait()
  if not waits then  -- 0.7 answers server requests synchronously: the picker is the way
    vim.ui.select = function(items, _, cb) cb(items[2]) end
  end
  vim.cmd("Pi work through it")
  if waits then
    report(wait(30000, function() return require("pi.state").question ~= nil end), "question waits in the float")
    report(chat_text():find("## Plan (1/2)", 1, true) ~= nil and chat_text():find("- [~] step 2", 1, true) ~= nil,
      "## Plan block shows the list while the run goes on", chat_text())
    vim.cmd("Pi spaces")  -- a message typed while the question waits answers it
  end
  report(wait(30000, function() return agent_ends() >= 1 end), "run ends after the answer")
  local answered = count("tool_execution_end", function(e)
    return e.toolName == "ask" and not e.isError and require("pi.chat").text_of(e.result.content):find('"Spaces"', 1, true) ~= nil
  end)
  report(answered == 1, "the answer is the ask tool's result", chat_text())
  report(count("todo_update") == 3, "three todo_update events", tostring(count("todo_update")))
  local lines = vim.api.nvim_buf_get_lines(require("pi.chat").ensure_buf(), 0, 4, false)
  report(lines[2] == "## Plan (2/2)" and lines[3] == "- [x] step 1" and lines[4] == "- [x] step 2",
    "## Plan block at the top shows the final state", table.concat(lines, "\n"))
  local win = require("pi.plan").float()
  local fl = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  report(fl[1] == "## Plan (2/2)" and #fl == 3, ":PiTodo float lists the items", table.concat(fl, "\n"))
end

function sets.planmode()
  start({ text("Plan: 1. change f."), text("Carrying out the plan.") })
  vim.cmd("PiPlan")
  report(wait(30000, function() return require("pi.state").mode == "plan" end), ":PiPlan sets plan mode")
  report(wait(5000, function() return chat_text():find("plan mode: read-only", 1, true) ~= nil end),
    "the chat shows the mode", chat_text())
  vim.cmd("Pi make a plan")
  report(wait(30000, function() return agent_ends() >= 1 end), "the planning run ends")
  vim.cmd("PiAct")
  report(wait(30000, function() return agent_ends() >= 2 end), ":PiAct starts the run that carries out the plan")
  report(require("pi.state").mode == "act" and chat_text():find("approved your plan", 1, true) ~= nil
    and chat_text():find("Carrying out the plan.", 1, true) ~= nil, "the follow-up and its answer are in the chat", chat_text())
end

function sets.health()
  vim.env.PI_TEST_SECRET = "s3cr3t-value"
  start({ text("x") }, { apiKeyEnv = "PI_TEST_SECRET" })
  vim.cmd("checkhealth pi")
  local t = buf_text(0)
  report(t:find("found", 1, true) ~= nil and t:find("provider: faux", 1, true) ~= nil, ":checkhealth pi", t)
  report(t:find("PI_TEST_SECRET is set", 1, true) ~= nil and t:find("s3cr3t", 1, true) == nil,
    ":checkhealth pi reports the key variable without its value", t)
  -- Gemini: GEMINI_API_KEY or GOOGLE_API_KEY, as the server reads them
  local settings = require("pi.config").options.settings
  settings.provider, settings.apiKeyEnv = "google", nil
  vim.env.GEMINI_API_KEY, vim.env.GOOGLE_API_KEY = nil, "g00gle-secret-value"
  vim.cmd("bwipeout!")
  vim.cmd("checkhealth pi")
  t = buf_text(0)
  report(t:find("GOOGLE_API_KEY is set", 1, true) ~= nil and t:find("g00gle", 1, true) == nil,
    ":checkhealth pi knows Gemini's key variables", t)
end

function sets.mcp()
  local py = vim.json.decode(os.getenv("PI_TEST_CMD"))[1]
  local time = vim.fn.exepath("mcp-server-time")
  if time == "" then time = vim.fn.fnamemodify(py, ":h") .. "/mcp-server-time" end
  vim.env.XDG_CONFIG_HOME = tmp .. "/config"  -- no user MCP file of the machine's
  start({ tool("mcp__time__convert_time", { source_timezone = "Europe/Berlin", time = "12:00", target_timezone = "Asia/Tokyo" }), text("Tokyo.") },
    { mcpServers = { time = { command = time, eager = true } }, permissions = { mcp = "allow" } })
  local listed, asking = nil, false
  local function poll()  -- one question at a time
    if asking then return end
    asking = true
    require("pi.protocol").request("pi/mcp", {}, function(_, r) listed = r; asking = false end)
  end
  local ready = wait(30000, function()
    if listed and listed.servers and listed.servers[1] and listed.servers[1].state == "ready" then return true end
    poll(); return false
  end)
  report(ready, "the MCP server starts (eager)", vim.inspect(listed))
  local items
  vim.ui.select = function(list, opts, cb) items = vim.tbl_map(opts.format_item, list) end
  vim.cmd("PiMcp")
  report(wait(10000, function() return items ~= nil end) and items[1]:find("time  ready  2 tools", 1, true) ~= nil,
    ":PiMcp lists the servers", vim.inspect(items))
  vim.cmd("Pi what time is it in Tokyo")
  report(wait(30000, function() return agent_ends() >= 1 end), "the run with an MCP call ends")
  report(chat_text():find("MCP time: convert_time", 1, true) ~= nil and chat_text():find("+8.0h", 1, true) ~= nil,
    "the tool card names the server and the tool, with the result", chat_text())
  vim.cmd("checkhealth pi")
  local t = buf_text(0)
  report(t:find("MCP servers", 1, true) ~= nil and t:find("time  ready  2 tools", 1, true) ~= nil,
    ":checkhealth pi lists the MCP server with its state and tools", t)
end

function sets.restart()
  start({ text("First."), text("Second.") })
  vim.cmd("Pi one")
  wait(30000, function() return agent_ends() >= 1 end)
  local c = require("pi.client").get()
  local old = c.id
  local pid = tonumber((vim.fn.system({ "pgrep", "-P", tostring(vim.fn.getpid()), "-f", "pi[-_]lsp" }):match("%d+")))
  vim.loop.kill(pid, 9)
  report(wait(20000, function() return chat_text():find("reconnected to session", 1, true) ~= nil end), "restarts and resumes the session", chat_text())
  local nc = require("pi.client").get()
  report(nc and nc.id ~= old and vim.lsp.buf_is_attached and vim.lsp.buf_is_attached(vim.fn.bufnr(root .. "/a.py"), nc.id) or false, "buffer re-attached")
end

function sets.attach()
  start({ text("Seen.") })
  vim.cmd("1,2Pi explain")
  report(wait(30000, function() return agent_ends() >= 1 end), "run ends")
  report(chat_text():find("> explain @a.py#L1-2", 1, true) ~= nil, ":'<,'>Pi attaches @path#L1-2", chat_text())
  vim.cmd("PiChat")
  report(require("pi.chat").win == nil, ":PiChat toggles the chat window off")
  vim.cmd("PiChat float")
  local w = require("pi.chat").win
  report(w and vim.api.nvim_win_get_config(w).relative == "editor" and vim.api.nvim_get_current_win() ~= w,
    ":PiChat float opens an unfocused float")
end

function sets.model()
  start({ text("x") })
  vim.cmd("Pi hello")
  wait(30000, function() return agent_ends() >= 1 end)
  local picked
  vim.ui.select = function(items, _, cb) picked = items[#items]; cb(picked) end
  vim.cmd("PiModel")
  report(wait(10000, function() return picked ~= nil and chat_text():find("model: " .. picked.provider .. "/" .. picked.id, 1, true) ~= nil end),
    ":PiModel switches the session's model", picked and picked.id)
end

function sets.sessions()
  start({ text("First answer.") })
  vim.cmd("Pi first")
  wait(30000, function() return agent_ends() >= 1 end)
  local first = require("pi.state").session
  vim.cmd("PiNew")
  report(wait(10000, function() return require("pi.state").session ~= first end), ":PiNew starts a new session")
  vim.ui.select = function(items, _, cb)
    for _, s in ipairs(items) do if s.sessionId == first then return cb(s) end end
    cb(nil)
  end
  vim.cmd("PiSessions")
  report(wait(10000, function() return require("pi.state").session == first end), ":PiSessions resumes the picked session")
end

-- A long-running `pi-lsp --tcp` the editor does not own: the run goes on while Neovim is away
-- (its client stopped, its state and chat gone: as after a restart) and the plugin attaches
-- again to the streaming session, replaying what it missed.
function sets.tcp()
  if not (vim.lsp.rpc and vim.lsp.rpc.connect) then
    return report("skip", "attach to a pi-lsp --tcp run that kept going", "this Neovim has no vim.lsp.rpc.connect")
  end
  local answer = vim.trim(string.rep("kept going ", 80))
  local script = tmp .. "/script.json"
  write(script, vim.json.encode({ responses = { vim.tbl_extend("force", text(answer), { delayMs = 25, chunkSize = 4 }) } }))
  local port = 20000 + (vim.fn.getpid() % 30000)
  local cmd = vim.json.decode(os.getenv("PI_TEST_CMD"))
  vim.list_extend(cmd, { "--tcp", "127.0.0.1:" .. port })
  local listening = false
  local job = vim.fn.jobstart(cmd, {
    env = { PI_LSP_DATA_DIR = tmp .. "/data" },
    on_stderr = function(_, lines) for _, l in ipairs(lines) do if l:find("listening on", 1, true) then listening = true end end end,
  })
  if not wait(30000, function() return listening end) then vim.fn.jobstop(job); return report(false, "tcp server listens") end
  require("pi").setup({ server = { tcp = "127.0.0.1:" .. port }, settings = { provider = "faux", fauxScript = script } })
  observe()
  vim.cmd("edit " .. root .. "/a.py")
  local client = require("pi.client")
  client.ensure(0)
  if not wait(30000, function() return client.ready[root] == true end) then vim.fn.jobstop(job); return report(false, "attached over tcp") end
  vim.cmd("Pi talk")
  wait(30000, function() return count("message_update") >= 3 end)
  -- "restart" Neovim: the connection ends, the plugin forgets the session and its chat
  client.stop_all()
  wait(10000, function() return client.clients[root] == nil end)
  local state = require("pi.state")
  local sid = state.session
  state.session, state.seq, state.streaming = nil, {}, false
  local chat = require("pi.chat")
  if chat.buf and vim.api.nvim_buf_is_valid(chat.buf) then vim.api.nvim_buf_set_lines(chat.buf, 0, -1, false, {}) end
  local before = agent_ends()
  client.ensure(0)
  report(wait(30000, function() return agent_ends() > before end), "re-attached to the run that kept going")
  report(state.session == sid, "the streaming session was picked up", tostring(state.session) .. " vs " .. tostring(sid))
  report(wait(5000, function() return chat_text():find(answer, 1, true) ~= nil end), "the whole answer is in the chat (replayed and live)", chat_text())
  vim.fn.jobstop(job)
end

-- server.tcp = "auto" across two Neovim processes (tests/run.sh runs bgstart, then bgattach,
-- sharing $PI_TEST_SHARED): the first starts a run on the workspace's background server and
-- quits while the answer streams; the rest streams while no Neovim runs, then a bash tool waits
-- for a file; the second Neovim :PiAttach-es, creates the file, and the answer completes in its
-- chat exactly once.
local BG = "reattach after a Neovim restart (server.tcp = auto)"
local BG_REPEAT = 80
local function bg_setup()
  local shared = os.getenv("PI_TEST_SHARED")
  local ws = shared .. "/ws"
  vim.fn.mkdir(ws .. "/.git", "p")
  write(ws .. "/a.py", "def f():\n    return 1\n")
  vim.cmd("cd " .. ws)
  local script = shared .. "/script.json"
  local wait_go = ("while [ ! -e %s/GO ]; do sleep 0.05; done; echo released"):format(shared)
  local first = tool("bash", { command = wait_go }, vim.trim(string.rep("kept going ", BG_REPEAT)))
  first = vim.tbl_extend("force", first, { delayMs = 20, chunkSize = 4 })
  write(script, vim.json.encode({ responses = { first, text("All done.") } }))
  require("pi").setup({
    server = { cmd = vim.json.decode(os.getenv("PI_TEST_CMD")), tcp = "auto", state_dir = shared .. "/state", idle_timeout = 120 },
    settings = { provider = "faux", fauxScript = script, permissions = { bash = "allow" } },
  })
  observe()
  vim.cmd("edit " .. ws .. "/a.py")
  return shared, ws
end

function sets.bgstart()
  if not require("pi.background").supported() then
    require("pi").setup({ server = { cmd = vim.json.decode(os.getenv("PI_TEST_CMD")), tcp = "auto" } })
    vim.cmd("checkhealth pi")
    report(buf_text(0):find("keeps pi-lsp over stdio", 1, true) ~= nil, ":checkhealth pi says server.tcp = auto keeps stdio here", buf_text(0))
    return report("skip", BG, "Neovim before 0.10 cannot connect to a socket (stdio)")
  end
  local _, ws = bg_setup()
  local bg, client = require("pi.background"), require("pi.client")
  client.ensure(0)
  local rec = bg.find(ws)
  report(rec ~= nil, "server.tcp = auto starts the workspace's background server and records it")
  if rec == nil then return end
  local record_path = bg.paths(ws)
  report(vim.loop.fs_stat(record_path).mode % 512 == 384, "the record is mode 0600")
  report(vim.loop.fs_stat(rec.socket).mode % 512 == 384, "the socket is mode 0600")
  report(wait(30000, function() return client.ready[ws] == true end), "connected to it")
  vim.cmd("Pi talk")
  report(wait(30000, function() return count("message_update") >= 3 end), "the answer streams")
  -- finish() quits this Neovim mid-answer
end

function sets.bgattach()
  if not require("pi.background").supported() then return report("skip", BG, "Neovim before 0.10 cannot connect to a socket (stdio)") end
  local shared, ws = bg_setup()
  local bg, client, state = require("pi.background"), require("pi.client"), require("pi.state")
  local rec = bg.find(ws)
  report(rec ~= nil, "a new Neovim finds the background server the last one started")
  if rec == nil then return end
  report(client.clients[ws] == nil, "no connection before :PiAttach")
  vim.cmd("PiAttach")
  report(wait(30000, function() return state.session ~= nil and state.hold == nil end), ":PiAttach follows the run that kept going")
  write(shared .. "/GO", "")
  report(wait(30000, function() return agent_ends() >= 1 end), "the run ends in the new Neovim")
  local chat = chat_text()
  local _, n = chat:gsub("kept going", "")
  report(n == BG_REPEAT, "the answer streamed while Neovim was away is in the chat exactly once", n .. " times:\n" .. chat)
  local _, done = chat:gsub("All done%.", "")
  report(done == 1, "the rest streamed live, once", chat)
  vim.loop.kill(rec.pid, "sigterm")
  report(wait(30000, function() return bg.find(ws) == nil end), "the background server ends on SIGTERM")
end

-- :PiReview: a code review of a repository with seeded defects (tests/support/review_repo.py
-- has the same): findings as native diagnostics and in the quickfix list
function sets.codereview()
  local function git(args) return vim.fn.system("git -c user.name=t -c user.email=t@example.invalid -C " .. root .. " " .. args) end
  vim.fn.delete(root .. "/.git", "rf")
  git("init -q -b main")
  write(root .. "/calc.py", "def average(values):\n    if not values:\n        return 0.0\n    return sum(values) / len(values)\n")
  git("add -A"); git("commit -q -m initial")
  write(root .. "/calc.py", "def average(values):\n    total = 0\n    for v in values:\n        total += v\n    return total / len(values)\n\n\ndef read_config(path):\n    f = open(path)\n    return f.read()\n")
  local function finding(line, title, severity)
    return { type = "toolCall", name = "report_finding",
      arguments = { path = "calc.py", line = line, severity = severity, title = title, body = "why" } }
  end
  start({ { content = { finding(5, "Division by zero", "error"), finding(9, "File never closed", "warning") } }, text("Two findings.") })
  local buf = vim.fn.bufadd(root .. "/calc.py"); vim.fn.bufload(buf)
  vim.cmd("PiReview")
  report(wait(30000, function() return #vim.fn.getqflist() == 2 end), ":PiReview fills the quickfix list", vim.inspect(vim.fn.getqflist()))
  local qf = vim.fn.getqflist()
  report(qf[1] and qf[1].lnum == 5 and qf[1].type == "E" and qf[1].text:find("Division by zero", 1, true) ~= nil,
    "the first item is the division on line 5", vim.inspect(qf[1]))
  local function ours()
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do if d.source == "pi review" then table.insert(out, d) end end
    table.sort(out, function(a, b) return a.lnum < b.lnum end)
    return out
  end
  report(wait(10000, function() return #ours() == 2 end), "the findings are native diagnostics (vim.diagnostic.get)", vim.inspect(vim.diagnostic.get(buf)))
  local d = ours()
  report(d[1] and d[1].lnum == 4 and d[1].severity == vim.diagnostic.severity.ERROR and d[1].message == "Division by zero",
    "on the right line, with the title as message", vim.inspect(d[1]))
  report(d[2] and d[2].lnum == 8 and d[2].severity == vim.diagnostic.severity.WARN, "the warning on line 9", vim.inspect(d[2]))
  local target, problem = require("pi.commands").review_target("--commit")
  report(target == nil and problem ~= nil, "bad :PiReview arguments are refused")
end

-- a task child: a line in the chat with its state, its question answered, :PiChild
function sets.subagents()
  local task = tool("task", { description = "look around", prompt = "CHILD-A: look" })
  local child_bash = vim.tbl_extend("force", tool("bash", { command = "echo from-child" }), { when = "CHILD-A" })
  local child_text = vim.tbl_extend("force", text("child found it"), { when = "CHILD-A" })
  start({ task, child_bash, child_text, text("Parent: done.") })
  local asked
  require("pi.permission").ask = function(params)
    asked = params
    return { optionId = "allowOnce" }
  end
  vim.cmd("Pi look with a subagent")
  report(wait(30000, function() return chat_text():find("Parent: done.", 1, true) ~= nil end), "the run ends", chat_text())
  local chat = chat_text()
  report(chat:find("✓ [general] look around — completed · 2 turns", 1, true) ~= nil, "one chat line per child, with its state", chat)
  report(asked ~= nil and asked.title == "[general] Run: echo from-child" and asked.childSessionId ~= nil,
    "the child's question reached Neovim, attributed", vim.inspect(asked))
  local buf = require("pi.children").open()
  local t = buf and buf_text(buf) or ""
  report(t:find("▶ bash echo from-child", 1, true) ~= nil and t:find("child found it", 1, true) ~= nil
    and t:find("── completed", 1, true) ~= nil, ":PiChild shows the child's transcript", t)
  report(vim.api.nvim_buf_get_name(buf or 0):find("pi://child/", 1, true) ~= nil, "in a pi://child/ buffer")
end

-- :Pi without text asks for the prompt: the server starts then, while the user types
function sets.warm()
  local script = tmp .. "/script.json"
  write(script, vim.json.encode({ responses = { text("Hi there.") } }))
  require("pi").setup({ server = { cmd = vim.json.decode(os.getenv("PI_TEST_CMD")) },
    settings = { provider = "faux", fauxScript = script } })
  observe()
  vim.cmd("edit " .. root .. "/a.py")
  local client = require("pi.client")
  report(client.clients[root] == nil, "no server before pi is used")
  local typed
  vim.ui.input = function(_, cb) typed = cb end
  vim.cmd("Pi")
  report(typed ~= nil and client.clients[root] ~= nil, "the server starts when the prompt is asked for")
  report(wait(30000, function() return client.ready[root] == true end), "it is ready while the user types")
  typed("say hi")
  report(wait(30000, function() return agent_ends() >= 1 end), "the typed prompt runs")
  report(wait(5000, function() return chat_text():find("Hi there.", 1, true) ~= nil end), "its answer is in the chat", chat_text())
end

-- the project's context: / completes the server's templates, :PiContext lists the files
function sets.context()
  local agent = tmp .. "/agent"
  vim.fn.mkdir(agent .. "/prompts", "p")
  write(agent .. "/prompts/review.md", "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 with care.\n")
  vim.env.PI_CODING_AGENT_DIR = agent  -- the server inherits it
  write(root .. "/AGENTS.md", "Run make check.\n")
  start({ text("Reviewed.") })
  local ctx = require("pi.context")
  ctx.refresh()
  report(wait(10000, function() return ctx.commands ~= nil end), "pi/commands answers")
  local opts, typed
  vim.ui.input = function(o, cb) opts = o; typed = cb end
  vim.cmd("Pi")
  report(opts ~= nil and opts.completion ~= nil, ":Pi's prompt input has a completion", vim.inspect(opts))
  -- input()'s customlist function, called as input() calls it (0.7's getcompletion() has no customlist)
  local fname = opts and opts.completion and opts.completion:match("^customlist,(.+)$")
  local got = fname and vim.fn[fname]("/re", "/re", 3) or {}
  report(vim.tbl_contains(got, "/review") and vim.tbl_contains(got, "/reload"), "/ completes the templates and the commands in the input", vim.inspect(got))
  local cmdline = vim.fn.getcompletion("Pi /rev", "cmdline")
  report(vim.deep_equal(cmdline, { "/review" }), ":Pi /rev<Tab> completes the template", vim.inspect(cmdline))
  report(#ctx.complete("re", "Pi re") == 0 and #ctx.complete("/re", "Pi fix /re") == 0, "only a first word that starts with /")
  local described = table.concat(ctx.describe_commands(), "\n")
  report(described:find("/review <FILE> — Review a file", 1, true) ~= nil, "each command has its description and argument hint", described)
  typed("/review a.py")
  report(wait(30000, function() return agent_ends() >= 1 end), "the template prompt runs")
  report(chat_text():find("Review a.py with care.", 1, true) ~= nil, "it reached the model expanded", chat_text())
  -- /export typed in the prompt, like the other slash commands: the page, its path printed
  local notes, notify = {}, vim.notify
  vim.notify = function(msg, ...) table.insert(notes, msg); return notify(msg, ...) end
  typed = nil
  vim.cmd("Pi")
  typed("/export page.html")
  local out = root .. "/page.html"
  report(wait(30000, function() return vim.fn.filereadable(out) == 1 end)
    and read(out):find("Reviewed.", 1, true) ~= nil
    and wait(5000, function() return vim.tbl_contains(notes, "pi: session exported: " .. out) end),
    "/export typed in the prompt writes the page and prints its path", table.concat(notes, " | "))
  report(agent_ends() == 1, "/export is not sent to the model")
  vim.notify = notify
  vim.cmd("PiContext")
  local buf
  report(wait(10000, function()
    buf = vim.fn.bufnr("pi://context")
    return buf ~= -1 and buf_text(buf):find("AGENTS.md", 1, true) ~= nil
  end), ":PiContext lists the context files", buf and buf ~= -1 and buf_text(buf) or "")
  local listing = buf_text(buf)
  report(listing:find("/review — Review a file", 1, true) ~= nil and listing:find("nothing needs trust", 1, true) ~= nil,
    ":PiContext lists the templates and the trust status", listing)
  local row
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do if l:find("AGENTS.md", 1, true) then row = i end end
  vim.api.nvim_win_set_cursor(vim.fn.bufwinid(buf), { row, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "x", false)
  report(vim.api.nvim_buf_get_name(0):sub(-9) == "AGENTS.md", "<CR> opens the file", vim.api.nvim_buf_get_name(0))
  write(agent .. "/prompts/fix.md", "Fix $1.\n")
  vim.cmd("PiReload")
  report(wait(10000, function() return vim.tbl_contains(ctx.complete("/f", ""), "/fix") end), ":PiReload picks up a new template")
end

local ok, err = pcall(sets[set])
if not ok then report(false, set, tostring(err)) end
finish()
