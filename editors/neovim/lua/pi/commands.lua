--- The :Pi* commands (plugin/pi.lua maps each :Pi* user command to the function of this module).
local state = require("pi.state")
local proto = require("pi.protocol")

local M = {}

--- What a :Pi* user command's callback receives (the fields the plugin reads; see
--- :help nvim_create_user_command()).
---@class pi.CommandOpts
---@field args string the text after the command
---@field bang? boolean :Cmd!
---@field range? integer 0 (no range), 1 or 2
---@field line1? integer
---@field line2? integer

local function relpath(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  local root = require("pi.client").current_root or vim.fn.getcwd()
  if name:sub(1, #root + 1) == root .. "/" then return name:sub(#root + 2) end
  return vim.fn.fnamemodify(name, ":.")
end

--- "@path#L10-20" for a :'<,'>Pi range.
---@param o? pi.CommandOpts
---@return string|nil
function M.attachment(o)
  if o and o.range and o.range > 0 and vim.bo.buftype == "" then
    return ("@%s#L%d-%d"):format(relpath(0), o.line1, o.line2)
  end
end

local function with_text(o, fn)
  local text = o.args or ""
  local ref = M.attachment(o)
  if ref then text = (text ~= "" and (text .. " ") or "") .. ref end
  if (o.args or "") == "" then
    pcall(require("pi.client").ensure)  -- the server starts (≈ 0.7 s) while the user types
    -- after :PiRewind (conversation) the restored prompt is where the user types next
    local default = state.restored_text or (ref and (ref .. " ")) or nil
    state.restored_text = nil
    local context = require("pi.context")  -- `/` completes the server's commands
    context.refresh()
    vim.ui.input({ prompt = "pi> ", default = default, completion = context.COMPLETION }, function(input)
      if input and input ~= "" then fn(input) end
    end)
  else
    fn(text)
  end
end

--- Send `text` as a prompt (the server queues it as a steer while a run goes on, or as
--- `deliver_as` says) and open the chat.
---@param text string
---@param deliver_as? "steer"|"followUp"|"interrupt"
function M.send(text, deliver_as)
  local client = require("pi.client")
  client.ensure()
  require("pi.chat").open()
  -- anything but a follow-up reaches the running turn: a waiting permission question is denied
  if deliver_as ~= "followUp" then require("pi.permission").deny_waiting(text) end
  local function lost(why)
    -- never dropped: the next :Pi offers the text again (as after :PiRewind)
    state.restored_text = text
    vim.notify("pi: not sent (" .. why .. "); :Pi offers it again", vim.log.levels.ERROR)
  end
  local function go()
    local params = { text = text, sessionId = state.session, deliverAs = deliver_as }
    proto.request(proto.method.prompt, params, function(err, res)
      if err then
        if deliver_as == "interrupt" then return M.interrupt_fallback(text) end
        return lost(err.message or "prompt failed")
      end
      state.session = res.sessionId or state.session
      if res.delivered and res.delivered ~= "prompt" and res.delivered ~= "interrupt" then
        require("pi.chat").note(("queued as %s: %s"):format(res.delivered, text))
      end
    end)
  end
  -- a server still starting: the prompt waits for it (client.when_ready), shown in the chat
  if not client.when_ready(go, lost) then
    require("pi.chat").note("waiting: will send when the server is ready: " .. text)
  end
end

--- A server without deliverAs "interrupt": abort, then prompt once the run has ended.
---@param text string
function M.interrupt_fallback(text)
  proto.request(proto.method.abort, { sessionId = state.session }, function()
    local function go()
      if state.streaming then return vim.defer_fn(go, 50) end
      M.send(text)
    end
    go()
  end)
end

--- :Pi [text] — a prompt, or the answer to a waiting question.
---@param o pi.CommandOpts
function M.pi(o)
  with_text(o, function(t)
    if require("pi.ask").take_message(t) then return end  -- a question waits: this answers it
    if require("pi.context").builtin(t) then return end  -- /context, /reload, /compact
    M.send(t)
  end)
end
function M.todo() return require("pi.plan").float() end

--- :PiChild [id]: a task child's transcript.
---@param o pi.CommandOpts
function M.child(o) return require("pi.children").open(o.args) end
function M.context() return require("pi.context").show() end
function M.reload() return require("pi.context").reload() end

function M.procs() return require("pi.procs").open() end

--- :PiExport [path] — the session as a self-contained HTML page (path.md: Markdown); prints
--- where it was written (default: the server's temp directory).
---@param o? pi.CommandOpts
function M.export(o)
  local path = o and o.args ~= "" and vim.fn.fnamemodify(o.args, ":p") or nil
  local format = path and path:match("%.md$") and "markdown" or "html"
  proto.request(proto.method.export, { sessionId = state.session, path = path, format = format },
    function(err, res)
      if err or not res then return end
      state.last_export = res.path
      proto.notify_user("session exported: " .. res.path)
    end)
end

--- :PiCompact — summarise the earlier turns now (pi/compact).
function M.compact()
  proto.request(proto.method.compact, { sessionId = state.session }, function(err, res)
    if err or not res then return end
    if res.compacted then
      require("pi.status").warned = false
      proto.notify_user(("compacted: %d → %d tokens"):format(res.tokensBefore or 0, res.tokensAfter or 0))
      require("pi.status").refresh()
    else
      proto.notify_user("nothing to compact yet")
    end
  end)
end
function M.plan_mode() return require("pi.plan").set_mode("plan") end
function M.act() return require("pi.plan").set_mode("act") end
---@param o pi.CommandOpts
function M.answer(o) return require("pi.ask").answer(o) end
--- While idle a follow-up waits in the queue for the next run (pi/followUp), visible in :PiQueue.
---@param o pi.CommandOpts
function M.follow_up(o)
  with_text(o, function(t)
    if state.session and not state.streaming then
      proto.request(proto.method.followUp, { sessionId = state.session, text = t }, function(err)
        if not err then require("pi.chat").note("queued as followUp: " .. t) end
      end)
    else
      M.send(t, "followUp")
    end
  end)
end
--- :PiInterrupt [text] — stop the running turn and send this instead. Always sent as an
--- interrupt: the server knows whether a run goes on (an idle session takes it as a prompt),
--- while `state.streaming` may not yet know of a run the server has just started.
---@param o pi.CommandOpts
function M.interrupt(o) with_text(o, function(t) M.send(t, "interrupt") end) end

function M.abort()
  proto.request(proto.method.abort, { sessionId = state.session })
end

function M.queue() return require("pi.queue").open() end

function M.new()
  proto.request(proto.method.newSession, {}, function(err, res)
    if err then return end
    state.session = res.sessionId
    state.queue = { steering = {}, followUp = {} }
    state.todo = {}
    require("pi.chat").note("new session " .. res.sessionId)
    require("pi.plan").refresh()
  end)
end

function M.attach() require("pi.client").attach() end

function M.sessions()
  proto.request(proto.method.sessions, {}, function(err, res)
    if err or not res then return end
    vim.ui.select(res.sessions or {}, {
      prompt = "pi sessions",
      format_item = function(s)
        return ("%s  %s (%d messages)%s"):format(s.updatedAt or "", s.title or s.sessionId,
          s.messageCount or 0, s.isStreaming and " · running" or "")
      end,
    }, function(s)
      if not s then return end
      proto.request(proto.method.resumeSession, { sessionId = s.sessionId }, function(e, r)
        if e then return end
        state.session = r.sessionId
        state.todo = {}
        require("pi.plan").refresh()
        local chat = require("pi.chat")
        chat.note("resumed " .. (s.title or r.sessionId))
        for _, m in ipairs(r.messages or {}) do
          if m.role == "user" then chat.note("> " .. chat.user_text(m.content), "Title")
          elseif m.role == "custom" then chat.told(m)
          elseif m.role == "assistant" then chat.append("\n" .. chat.text_of(m.content) .. "\n") end
        end
        chat.open()
      end)
    end)
  end)
end

--- :PiChat [split|float] — show or hide the chat.
---@param o? pi.CommandOpts
function M.chat(o) require("pi.chat").toggle(o and o.args ~= "" and o.args or nil) end

function M.model()
  proto.request(proto.method.models, {}, function(err, res)
    if err and not proto.is_missing(err) then vim.notify("pi: " .. err.message, vim.log.levels.ERROR) end
    if err or not res then return end
    vim.ui.select(res.models or {}, {
      prompt = "pi model",
      format_item = function(m)
        return ("%s/%s%s"):format(m.provider, m.id, m.contextWindow and ("  (%dk)"):format(m.contextWindow / 1000) or "")
      end,
    }, function(m)
      if not m then return end
      proto.request(proto.method.setModel, { sessionId = state.session, provider = m.provider, model = m.id }, function(e)
        if not e then require("pi.chat").note("model: " .. m.provider .. "/" .. m.id) end
      end)
    end)
  end)
end

--- One MCP server as a line: name, state, tool count, message.
---@param s table an MCP server of pi/mcp's `servers`
---@return string
function M.mcp_line(s)
  local line = ("%s  %s%s"):format(s.name, s.state, s.state == "ready" and ("  %d tools"):format(s.toolCount or 0) or "")
  if s.message then line = line .. ": " .. s.message end
  return line .. ("  [%s, %s]"):format(s.source or "?", s.target or "")
end

--- :PiMcp — the MCP servers with their state; picking one restarts it.
function M.mcp()
  proto.request(proto.method.mcp, {}, function(err, res)
    if err or not res then return end
    local servers = res.servers or {}
    for _, p in ipairs(res.problems or {}) do vim.notify("pi: " .. p, vim.log.levels.WARN) end
    if #servers == 0 then
      vim.notify("pi: no MCP servers configured (.mcp.json, ~/.config/mcp/mcp.json or settings.mcpServers)")
      return
    end
    vim.ui.select(servers, { prompt = "pi MCP servers (pick one to restart)", format_item = M.mcp_line }, function(s)
      if not s then return end
      proto.request(proto.method.mcp, { op = "restart", name = s.name, sessionId = state.session }, function(e, r)
        if e or not r then return end
        for _, n in ipairs(r.servers or {}) do
          if n.name == s.name then require("pi.chat").note("MCP " .. M.mcp_line(n)) end
        end
      end)
    end)
  end)
end

--- :PiFix [text] — the diagnostics on the cursor line (or the whole file) as an attachment.
---@param o? pi.CommandOpts
function M.fix(o)
  local buf = vim.api.nvim_get_current_buf()
  local lnum = vim.api.nvim_win_get_cursor(0)[1] - 1
  local diags = vim.diagnostic.get(buf, { lnum = lnum })
  if #diags == 0 then diags = vim.diagnostic.get(buf) end
  local items = {}
  for _, d in ipairs(diags) do
    table.insert(items, { range = { start = { line = d.lnum, character = d.col },
      ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col } },
      severity = d.severity, message = d.message, source = d.source })
  end
  local text = (o and o.args ~= "" and o.args) or "Fix these diagnostics."
  local ref = ("@%s#L%d-%d"):format(relpath(buf), lnum + 1, lnum + 1)
  require("pi.client").ensure(buf)
  require("pi.chat").open()
  proto.request(proto.method.prompt, {
    text = text .. " " .. ref, sessionId = state.session,
    attachments = { { diagnostics = { uri = vim.uri_from_bufnr(buf), items = items } } },
  }, function(err, res) if not err then state.session = res.sessionId end end)
end

function M.changes()
  local items = require("pi.review").quickfix()
  if #items > 0 then vim.cmd("copen") end
end

--- The code review's target from :PiReview's arguments: none (the working tree against
--- HEAD), `--base REF` or `--commit SHA`.
---@param args string
---@return table|nil target, string|nil error
function M.review_target(args)
  local words = vim.split(vim.trim(args or ""), "%s+", { trimempty = true })
  if #words == 0 then return { kind = "worktree" } end
  local kind = (words[1] or ""):gsub("^%-%-", "")
  if #words == 2 and (kind == "base" or kind == "commit") then return { kind = kind, ref = words[2] } end
  return nil, ":PiReview takes no argument, --base REF or --commit SHA"
end

--- A finding as a quickfix item (its file under the workspace root).
---@param f table a pi/codeReview finding
---@param root string
---@return table
function M.finding_item(f, root)
  local kinds = { error = "E", warning = "W", info = "I" }
  return {
    filename = root .. "/" .. f.path,
    lnum = f.line,
    end_lnum = f.endLine,
    col = 1,
    type = kinds[f.severity] or "I",
    text = f.title .. ((f.body or "") ~= "" and (": " .. f.body:gsub("\n", " ")) or ""),
  }
end

--- :PiReview [--base REF | --commit SHA] — a code review of the diff: the findings become
--- diagnostics (source "pi review", from the server) and fill the quickfix list.
---@param o? pi.CommandOpts
function M.review(o)
  local target, problem = M.review_target(o and o.args or "")
  if not target then return vim.notify("pi: " .. problem, vim.log.levels.ERROR) end
  require("pi.client").ensure()
  local root = require("pi.client").current_root or vim.fn.getcwd()
  vim.notify("pi: reviewing the changes…")
  proto.request(proto.method.codeReview, { target = target }, function(err, res)
    if err or not res then
      if err and not proto.is_missing(err) then
        vim.notify("pi: review failed: " .. (err.message or "?"), vim.log.levels.ERROR)
      end
      return
    end
    local items = {}
    for _, f in ipairs(res.findings or {}) do table.insert(items, M.finding_item(f, root)) end
    vim.fn.setqflist({}, " ", { title = "pi review", items = items })
    local notes = table.concat(res.notes or {}, " ")
    if #items > 0 then vim.cmd("copen") end
    local skipped = {}
    for _, s in ipairs(res.skipped or {}) do table.insert(skipped, s.path .. " (" .. s.reason .. ")") end
    local msg = ("%d findings"):format(#items)
    if #skipped > 0 then msg = msg .. "; skipped: " .. table.concat(skipped, ", ") end
    if notes ~= "" then msg = msg .. "; " .. notes end
    if res.error then msg = msg .. "; incomplete: " .. res.error end
    vim.notify("pi review: " .. msg, res.error and vim.log.levels.WARN or vim.log.levels.INFO)
  end)
end

function M.rewind()
  proto.request(proto.method.checkpoints, { sessionId = state.session }, function(err, res)
    if err or not res then return end
    vim.ui.select(res.checkpoints or {}, {
      prompt = "Rewind to before",
      format_item = function(c) return ("%s  (%d files)"):format((c.text or ""):match("^[^\n]*"), #(c.files or {})) end,
    }, function(c)
      if not c then return end
      vim.ui.select({ "both", "code", "conversation" }, { prompt = "Restore" }, function(mode)
        if not mode then return end
        proto.request(proto.method.restore, { sessionId = state.session, entryId = c.entryId, mode = mode }, function(e, r)
          if e or not r then return end
          state.restore_id = r.restoreId
          if r.sessionId then state.session = r.sessionId end
          local chat = require("pi.chat")
          chat.note(("rewound (%s): %d files reverted, %d conflicts · :PiRewindUndo re-applies"):format(
            mode, #(r.reverted or {}), #(r.conflicts or {})))
          for _, cf in ipairs(r.conflicts or {}) do chat.note(cf.uri .. ": " .. cf.message, "WarningMsg") end
          local restored = r.text or r.prompt or c.text
          if mode ~= "code" and restored then
            state.restored_text = restored
            chat.note("the prompt is back in :Pi's input: " .. restored:match("^[^\n]*"))
          end
        end)
      end)
    end)
  end)
end

--- :PiRevert — revert one tool call's edits (pi/revertToolCall, docs/protocol.md §9.5): the
--- edit/write card under the cursor in the chat, else a picker; :PiRewindUndo re-applies.
function M.revert()
  local chat = require("pi.chat")
  local id
  if vim.api.nvim_get_current_buf() == chat.buf then
    id = chat.card_at(vim.api.nvim_win_get_cursor(0)[1] - 1)
  end
  local function go(tool_call_id)
    proto.request(proto.method.revertToolCall, { sessionId = state.session, toolCallId = tool_call_id }, function(e, r)
      if e or not r then
        return vim.notify("pi: " .. ((e and e.message) or "revert failed"), vim.log.levels.ERROR)
      end
      state.restore_id = r.restoreId
      chat.note(("reverted that change: %d files, %d conflicts · :PiRewindUndo re-applies"):format(
        #(r.reverted or {}), #(r.conflicts or {})))
      for _, cf in ipairs(r.conflicts or {}) do chat.note(cf.uri .. ": " .. cf.message, "WarningMsg") end
    end)
  end
  if id then return go(id) end
  local cards = chat.edit_cards(state.session)
  if #cards == 0 then return vim.notify("pi: no edit or write in this chat to revert") end
  vim.ui.select(cards, {
    prompt = "Revert the changes of",
    format_item = function(c) return ("%s %s"):format(c.name, c.title or "") end,
  }, function(c) if c then go(c.id) end end)
end

function M.rewind_undo()
  if not state.restore_id then return vim.notify("pi: nothing to re-apply") end
  proto.request(proto.method.undoRestore, { sessionId = state.session, restoreId = state.restore_id }, function(err)
    if not err then require("pi.chat").note("restore undone"); state.restore_id = nil end
  end)
end

---@param o? pi.CommandOpts
function M.approve(o) require("pi.permission").approve(o and o.args or "") end

--- :PiRules — the workspace's "always allow" rules (pi/permissions list); the one picked is
--- revoked (pi/permissions revoke): the next such command asks again.
function M.rules()
  require("pi.client").ensure()
  proto.request(proto.method.permissions, { op = "list" }, function(err, res)
    if err and not proto.is_missing(err) then
      vim.notify("pi: " .. (err.message or (proto.method.permissions .. " failed")), vim.log.levels.ERROR)
    end
    if err or not res then return end
    local rules = res.rules or {}
    if #rules == 0 then return proto.notify_user('no "always allow" rules in this workspace') end
    vim.ui.select(rules, {
      prompt = 'Revoke which "always allow" rule?',
      format_item = function(r)
        return ("%s: %s%s"):format(r.tool, r.pattern, r.createdAt and ("  (%s)"):format(r.createdAt) or "")
      end,
    }, function(r)
      if not r then return end
      proto.request(proto.method.permissions, { op = "revoke", id = r.id }, function(e, done)
        if e then return end
        if done and done.revoked then
          proto.notify_user(("revoked: %s %s (it asks again)"):format(r.tool, r.pattern))
        else
          proto.notify_user(("rule %s %s was already gone"):format(r.tool, r.pattern), vim.log.levels.WARN)
        end
      end)
    end)
  end)
end

return M
