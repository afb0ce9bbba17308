--- The chat buffer "pi://chat": streamed text, folded thinking, tool cards, queue notes, usage.
--- Deltas are collected and written on a timer (config.chat.render_ms); only the tail changes.
local config = require("pi.config")
local state = require("pi.state")
local proto = require("pi.protocol")

local M = { buf = nil, win = nil, pending = {}, timer = nil, cards = {}, card_tools = {}, ns = nil, run_text = {}, run_messages = {} }

local function ns()
  M.ns = M.ns or vim.api.nvim_create_namespace("pi_chat")
  return M.ns
end

--- Treesitter injections in the chat: code blocks in their language, inline Markdown; nothing
--- combined (a combined injection makes every parse scan the whole buffer, not the part shown).
local INJECTIONS = {
  markdown = [[
(fenced_code_block (info_string (language) @injection.language) (code_fence_content) @injection.content)
([(inline) (pipe_table_cell)] @injection.content (#set! injection.language "markdown_inline"))
]],
  markdown_inline = "",
}

--- The chat buffer (made on first use).
---@return integer
function M.ensure_buf()
  if M.buf and vim.api.nvim_buf_is_valid(M.buf) then return M.buf end
  M.buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(M.buf, "pi://chat")
  -- the chat's own injection queries, before the filetype (a FileType autocmd that starts
  -- treesitter then gets this parser): the bundled ones inject HTML as one combined region,
  -- which makes every parse scan the whole chat for injections (O(chat) per flush)
  local has_ts = vim.treesitter and vim.treesitter.start
  if has_ts then pcall(vim.treesitter.get_parser, M.buf, "markdown", { injections = INJECTIONS }) end
  vim.bo[M.buf].filetype = "markdown"
  vim.bo[M.buf].bufhidden = "hide"
  vim.bo[M.buf].swapfile = false
  vim.api.nvim_buf_set_lines(M.buf, 0, -1, false, { "# pi" })
  if has_ts then M.ts_split = pcall(vim.treesitter.start, M.buf, "markdown") and vim.fn.has("nvim-0.11") == 1 end
  return M.buf
end

local TO_END = 4294967295 -- tree-sitter's "to the end of the source" (UINT32_MAX)

--- Treesitter parses the chat as two regions, each its own tree: what earlier runs wrote (settled)
--- and the run being written (the tail). A flush edits the tail's tree only, so parsing costs
--- O(answer), not O(chat) (one tree of the whole chat costs more with every answer in it:
--- docs/performance.md). Called as a run starts; Neovim 0.11 (0.7 has no treesitter highlighting).
local function settle()
  if not M.ts_split then return end
  local buf = M.buf
  local row = vim.api.nvim_buf_line_count(buf) - 1
  if row < 1 then return end
  local ok, parser = pcall(vim.treesitter.get_parser, buf, "markdown")
  if not ok or not parser or not parser.set_included_regions then return end
  local byte = vim.api.nvim_buf_get_offset(buf, row)
  pcall(function()
    parser:set_included_regions({ { { 0, 0, 0, row, 0, byte } }, { { row, 0, byte, TO_END, TO_END, TO_END } } })
    -- both trees now (each incrementally): the highlighter parses only what a window shows, and
    -- a region left without a tree is dropped by Neovim on the next edit
    parser:parse({ 0, 1 })
    parser:parse({ row, row + 1 })
  end)
end

local function set_win_opts(win)
  vim.wo[win].foldmethod = "marker"
  vim.wo[win].foldlevel = 0
  vim.wo[win].wrap = true
  vim.wo[win].number = false
end

--- Whether the chat's window, the user not in it, shows the chat's last line: only then does a
--- write scroll it (a window scrolled up to read stays put, and costs no scrolling per flush).
local function shows_end()
  return M.win ~= nil and vim.api.nvim_win_is_valid(M.win) and M.win ~= vim.api.nvim_get_current_win()
    and vim.fn.line("w$", M.win) >= vim.api.nvim_buf_line_count(M.buf)
end

--- Follow the end of the chat in its window, unless the user is in that window.
---@param was_at_end? boolean what shows_end() said before the write (nil: follow)
local function follow(was_at_end)
  if was_at_end == false then return end
  if M.win and vim.api.nvim_win_is_valid(M.win) and M.win ~= vim.api.nvim_get_current_win() then
    local last = vim.api.nvim_buf_line_count(M.buf)
    pcall(vim.api.nvim_win_set_cursor, M.win, { last, 0 })
  end
end

--- Write the collected deltas now.
function M.flush()
  if #M.pending == 0 then return end
  local text = table.concat(M.pending)
  M.pending = {}
  local buf = M.ensure_buf()
  local at_end = shows_end()
  local last = vim.api.nvim_buf_line_count(buf)
  local tail = vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] or ""
  vim.api.nvim_buf_set_lines(buf, last - 1, last, false, vim.split(tail .. text, "\n", { plain = true }))
  follow(at_end)
end

--- Input first: while the user types (a key in the last TYPING_MS), collected text is written
--- KEY_GAP_MS after a key, once the key is on screen, not on the timer at any moment, so the
--- chat's redraw (its treesitter highlighting is most of a flush's cost) does not land between
--- a key and its screen update, nor compete with the terminal's drawing of it; if no key comes,
--- the timer writes the text once it is TYPING_MS old.
local TYPING_MS = 200
local KEY_GAP_MS = 16
M.last_key = -TYPING_MS -- vim.loop.now() of the last key typed
M.pending_since = 0     -- vim.loop.now() of the oldest text not yet written
local key_timer          -- the write after a key (restarted by each key)

local function on_key()
  M.last_key = vim.loop.now()
  if #M.pending == 0 then return end
  key_timer = key_timer or vim.loop.new_timer()
  key_timer:stop()
  key_timer:start(KEY_GAP_MS, 0, vim.schedule_wrap(function() M.flush() end))
end

local function schedule_flush()
  if M.timer then return end
  M.timer = vim.loop.new_timer()
  M.timer:start(config.options.chat.render_ms, 0, vim.schedule_wrap(function()
    if M.timer then M.timer:close() end
    M.timer = nil
    if #M.pending == 0 then return end
    local now = vim.loop.now()
    if now - M.last_key < TYPING_MS and now - M.pending_since < TYPING_MS then
      schedule_flush() -- typing: the next key writes it (or this timer, once it is old)
      return
    end
    M.flush()
  end))
end

--- Add streamed text to the chat (written on the next render tick).
---@param text string
function M.append(text)
  if #M.pending == 0 then
    M.pending_since = vim.loop.now()
    if not M.on_key_ns then
      M.on_key_ns = vim.api.nvim_create_namespace("pi_chat_keys")
      vim.on_key(on_key, M.on_key_ns)
    end
  end
  table.insert(M.pending, text)
  schedule_flush()
end

--- Starts a new line (flushing first) and returns its 0-based index.
local function line(text, hl)
  M.flush()
  local buf = M.ensure_buf()
  local at_end = shows_end()
  local last = vim.api.nvim_buf_line_count(buf)
  local tail = vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] or ""
  local lines = vim.split(text, "\n", { plain = true })
  local at
  if tail == "" then
    vim.api.nvim_buf_set_lines(buf, last - 1, last, false, lines)
    at = last - 1
  else
    vim.api.nvim_buf_set_lines(buf, last, last, false, lines)
    at = last
  end
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "" })
  if hl then
    for i = 0, #lines - 1 do vim.api.nvim_buf_add_highlight(buf, ns(), hl, at + i, 0, -1) end
  end
  follow(at_end)
  return at
end

--- The one chat line of a task child (pi.children): made at its first update, then replaced.
---@param id string the child's session id
---@param text string
---@param hl? string
function M.child_line(id, text, hl)
  M.child_rows = M.child_rows or {}
  local at = M.child_rows[id]
  if at and M.buf and at < vim.api.nvim_buf_line_count(M.buf) then
    vim.api.nvim_buf_set_lines(M.buf, at, at + 1, false, { text })
    if hl then vim.api.nvim_buf_add_highlight(M.buf, ns(), hl, at, 0, -1) end
  else
    M.child_rows[id] = line(text, hl)
  end
end

--- A muted "· text" line.
---@param text string
---@param hl? string highlight group (default Comment)
function M.note(text, hl) line("· " .. text, hl or "Comment") end

local function text_of(content)
  if type(content) == "string" then return content end
  local parts = {}
  for _, b in ipairs(content or {}) do
    if b.type == "text" then table.insert(parts, b.text) end
  end
  return table.concat(parts)
end
M.text_of = text_of

--- A note pi gave the model (docs/protocol.md §9.1: the review note; role "custom"), not the
--- user's words: one muted line, the full text folded under it.
---@param message table a message of role "custom"
function M.told(message)
  if message.display == false then return end
  local full = text_of(message.content)
  local details = type(message.details) == "table" and message.details or {}
  local summary = details.summary or full:match("^[^\n]*") or tostring(message.customType)
  local body = {}
  for _, l in ipairs(vim.split(full, "\n", { plain = true })) do table.insert(body, "    " .. l) end
  line(("· pi was told: %s {{{\n%s\n    }}}"):format(summary, table.concat(body, "\n")), "Comment")
end

--- The user's own words. An older server joined the review note to the user's message: it is
--- shown as the "pi was told" line instead.
local NOTE_HEAD = "[The user reviewed your edits and undid these changes"
---@param content string|table[] a user message's content
---@return string
function M.user_text(content)
  if type(content) ~= "table" then return text_of(content) end
  local parts = {}
  for _, b in ipairs(content) do
    if b.type == "text" and b.text:sub(1, #NOTE_HEAD) == NOTE_HEAD then
      M.told({ content = b.text, details = { summary = (b.text:match("\n%- ([^\n]*)") or "what you undid") } })
    elseif b.type == "text" then
      table.insert(parts, b.text)
    end
  end
  return table.concat(parts)
end

local function first_line(s, max)
  s = tostring(s or ""):gsub("^%s+", "")
  s = s:match("^[^\n]*") or ""
  if #s > (max or 80) then s = s:sub(1, max or 80) .. "…" end
  return s
end

local function args_summary(name, args)
  if type(args) ~= "table" then return "" end
  local server, tool = tostring(name):match("^mcp__(.-)__(.+)$")
  if server then  -- an MCP tool: "server: tool {args}"
    return ("(MCP %s: %s) %s"):format(server, tool, first_line(vim.json.encode(args), 60))
  end
  return args.path or args.command or args.pattern or first_line(vim.json.encode(args), 60)
end

local function fold_output(text)
  local n = config.options.chat.tool_output_lines
  local lines = vim.split(tostring(text or ""), "\n", { plain = true })
  if #lines <= 1 then return end
  local shown = {}
  if #lines <= 2 * n then shown = lines
  else
    for i = 1, n do table.insert(shown, lines[i]) end
    table.insert(shown, ("… %d lines …"):format(#lines - 2 * n))
    for i = #lines - n + 1, #lines do table.insert(shown, lines[i]) end
  end
  local out = { "    output {{{" }
  for _, l in ipairs(shown) do table.insert(out, "    " .. l) end
  table.insert(out, "    }}}")
  line(table.concat(out, "\n"), "Comment")
end

local function usage_line(messages)
  local u = { input = 0, output = 0, cost = 0 }
  for _, m in ipairs(messages or {}) do
    if m.role == "assistant" and type(m.usage) == "table" then
      u.input = u.input + (m.usage.input or 0)
      u.output = u.output + (m.usage.output or 0)
      local c = m.usage.cost
      u.cost = u.cost + ((type(c) == "table" and c.total) or (type(c) == "number" and c) or 0)
    end
  end
  return ("── done · %d in / %d out · $%.4f ──"):format(u.input, u.output, u.cost)
end

local function context_meter()
  if not state.session then return end
  proto.request(proto.method.state, { sessionId = state.session }, function(err, res)
    if err or not res or not res.contextTokens or not res.contextWindow then return end
    if state.streaming then return end -- a new run began meanwhile: never split its text
    M.note(("context %d%% (%d / %d tokens)"):format(
      math.floor(100 * res.contextTokens / math.max(1, res.contextWindow)), res.contextTokens, res.contextWindow))
  end)
end

--- Render one agent event.
---@param ev table the event (docs/protocol.md §6)
---@param params? table its pi/event params (sessionId, seq)
function M.on_event(ev, params)
  local t = ev.type
  if t == "agent_start" then
    M.flush()
    settle()
    state.turn = 0
    M.run_messages = {}
  elseif t == "message_start" and ev.message and ev.message.role == "user" then
    local tag = ""
    if ev.deliveredAs then tag = ("[%s → turn %d] "):format(ev.deliveredAs, state.turn) end
    line("> " .. tag .. M.user_text(ev.message.content):gsub("\n", "\n> "), "Title")
  elseif t == "message_start" and ev.message and ev.message.role == "custom" then
    M.told(ev.message)
  elseif t == "message_start" and ev.message and ev.message.role == "assistant" then
    M.run_text = {}
    line("")
  elseif t == "message_update" then
    local u = ev.assistantMessageEvent or {}
    if u.type == "text_delta" then
      table.insert(M.run_text, u.delta)
      M.append(u.delta)
    elseif u.type == "thinking_start" then line("▸ thinking {{{", "Comment")
    elseif u.type == "thinking_delta" then M.append(u.delta)
    elseif u.type == "thinking_end" then M.append("\n}}}\n")
    end
  elseif t == "message_end" and ev.message and ev.message.role == "assistant" then
    table.insert(M.run_messages, ev.message) -- for the usage line (agent_end may only carry refs)
    local streamed = false -- compactEvents: the text came with the deltas
    for _, b in ipairs(type(ev.message.content) == "table" and ev.message.content or {}) do
      if b.streamed then streamed = true end
    end
    state.last_message = streamed and table.concat(M.run_text) or text_of(ev.message.content)
    if ev.message.stopReason == "aborted" then line("⏹ aborted", "WarningMsg")
    elseif ev.message.errorMessage then line("✗ error: " .. ev.message.errorMessage, "ErrorMsg") end
  elseif t == "tool_execution_start" then
    M.cards[ev.toolCallId] = line(("▶ %s %s"):format(ev.toolName, args_summary(ev.toolName, ev.args)), "Special")
    M.card_tools[ev.toolCallId] = { name = ev.toolName, session = params and params.sessionId or state.session,
      title = args_summary(ev.toolName, ev.args) }
  elseif t == "tool_execution_end" then
    M.flush()
    local at = M.cards[ev.toolCallId]
    local result = ev.result or {}
    local text = text_of(result.content or result)
    local card = ("%s %s — %s"):format(ev.isError and "✗" or "✓", ev.toolName, first_line(text))
    if at then
      local old = vim.api.nvim_buf_get_lines(M.buf, at, at + 1, false)[1] or ""
      local head = old:gsub("^▶ ", "")
      card = ("%s %s — %s"):format(ev.isError and "✗" or "✓", head, first_line(text))
      vim.api.nvim_buf_set_lines(M.buf, at, at + 1, false, { card })
      vim.api.nvim_buf_add_highlight(M.buf, ns(), ev.isError and "ErrorMsg" or "Special", at, 0, -1)
    else
      line(card, ev.isError and "ErrorMsg" or "Special")
    end
    fold_output(text)
  elseif t == "queue_update" then
    M.flush()
  elseif t == "subagent_update" then
    require("pi.children").on_update(ev)
  elseif t == "compaction_start" then M.note("compacting (" .. tostring(ev.reason) .. ")")
  elseif t == "compaction_end" then
    M.note(("compacted %s → %s tokens"):format(tostring(ev.tokensBefore), tostring(ev.tokensAfter)))
  elseif t == "retry" then M.note(("retry %s: %s"):format(tostring(ev.attempt), tostring(ev.errorMessage)), "WarningMsg")
  elseif t == "agent_end" then
    line(usage_line(ev.messages or M.run_messages), "Comment")
    M.run_messages = {}
    context_meter()
  end
end

--- Show the chat without taking the focus.
---@param layout? "split"|"float" default: config chat.layout
---@return integer win
function M.open(layout)
  local buf = M.ensure_buf()
  if M.win and vim.api.nvim_win_is_valid(M.win) then return M.win end
  local opts = config.options.chat
  layout = layout or opts.layout
  local cur = vim.api.nvim_get_current_win()
  if layout == "float" then
    local w = math.floor(vim.o.columns * opts.width)
    M.win = vim.api.nvim_open_win(buf, false, {
      relative = "editor", row = 1, col = vim.o.columns - w - 2, width = w,
      height = math.max(5, vim.o.lines - 6), border = "rounded", style = "minimal",
    })
  else
    local side = opts.position == "left" and "topleft vsplit" or opts.position == "below" and "botright split" or "botright vsplit"
    vim.cmd(side)
    M.win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(M.win, buf)
    if opts.position ~= "below" then
      vim.api.nvim_win_set_width(M.win, math.floor(vim.o.columns * opts.width))
    end
    vim.api.nvim_set_current_win(cur)  -- never steal focus
  end
  set_win_opts(M.win)
  follow()
  return M.win
end

---@param layout? "split"|"float"
function M.toggle(layout)
  if M.win and vim.api.nvim_win_is_valid(M.win) then
    vim.api.nvim_win_close(M.win, true)
    M.win = nil
  else
    M.open(layout)
  end
end

--- The edit/write tool call whose card is on chat line `row` (0-based), or nil.
---@param row integer
---@return string|nil tool_call_id
function M.card_at(row)
  for id, at in pairs(M.cards) do
    local t = M.card_tools[id]
    if at == row and t and (t.name == "edit" or t.name == "write") then return id end
  end
end

--- The edit/write tool calls of `session` shown in the chat, newest first.
---@param session string|nil
---@return {id: string, line: integer, name: string, title: string}[]
function M.edit_cards(session)
  local out = {}
  for id, at in pairs(M.cards) do
    local t = M.card_tools[id]
    if t and (t.name == "edit" or t.name == "write") and (session == nil or t.session == session) then
      table.insert(out, { id = id, line = at, name = t.name, title = t.title })
    end
  end
  table.sort(out, function(a, b) return a.line > b.line end)
  return out
end

--- The whole chat as text.
---@return string
function M.text()
  M.flush()
  return table.concat(vim.api.nvim_buf_get_lines(M.ensure_buf(), 0, -1, false), "\n")
end

return M
