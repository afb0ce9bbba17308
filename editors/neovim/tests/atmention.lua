-- Headless check of `@` mentions of symbols in the chat buffer (feature table row 48):
-- jedi-language-server is the user's own server (vim.lsp.config/enable on 0.11,
-- vim.lsp.start_client on 0.7); typing `@load_con` in insert mode in the chat buffer opens the
-- menu with load_config (kind Function, container and path) asked from jedi — which locates it
-- by its name's line, so the mention is widened to the whole function by documentSymbol —
-- beside the files; choosing it inserts @app/config.py#L18-20, and the sent line reaches the
-- server, which attaches those lines. The drive is event-driven: keys are fed to the main
-- loop, a timer checks the menu while insert mode is on; keys typed 40 ms apart make one
-- workspace/symbol request (the 150 ms debounce). Prints PASS/FAIL and "N passed, N failed".
-- env: PI_TEST_CMD (JSON list), PI_TEST_JEDI (the server), PI_TEST_ROOT (a copy of the fixture)
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
vim.opt.runtimepath:prepend(vim.fn.fnamemodify(here, ":h"))
vim.cmd("filetype on")
vim.cmd("runtime plugin/pi.lua")

local root = os.getenv("PI_TEST_ROOT")
vim.cmd("cd " .. root)
local passed, failed = 0, 0
-- io.stdout, not print(): Neovim 0.7's headless print() leaves out the line breaks
local function say(line) io.stdout:write(line .. "\n") end
local function report(ok, name, why)
  if ok then passed = passed + 1; say("PASS " .. name)
  else failed = failed + 1; say("FAIL " .. name .. (why and (": " .. why) or "")) end
end
local function finish()
  say(("%d passed, %d failed"):format(passed, failed))
  vim.cmd(failed == 0 and "qall!" or "cquit 1")
end

local jedi = { cmd = { os.getenv("PI_TEST_JEDI") }, filetypes = { "python" } }
if vim.lsp.config then
  vim.lsp.config("jedi", vim.tbl_extend("force", jedi, { root_markers = { ".git" } }))
  vim.lsp.enable("jedi")
else -- 0.7: start it by hand, attach python buffers
  local id = vim.lsp.start_client(vim.tbl_extend("force", jedi, { name = "jedi", root_dir = root }))
  vim.api.nvim_create_autocmd("FileType", {
    pattern = "python", callback = function(a) vim.lsp.buf_attach_client(a.buf, id) end,
  })
end

local events = {}
local chat = require("pi.chat")
local orig = chat.on_event
chat.on_event = function(ev, params)
  table.insert(events, ev)
  return orig(ev, params)
end

local script = vim.fn.tempname() .. ".json"
local f = io.open(script, "w")
f:write(vim.json.encode({ responses = { { content = { { type = "text", text = "It loads JSON." } } } } }))
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
local get = vim.lsp.get_clients or vim.lsp.get_active_clients
local function jedi_ready()
  for _, c in ipairs(get()) do
    if c.name == "jedi" and c.initialized ~= false and c.server_capabilities
      and c.server_capabilities.workspaceSymbolProvider then return true end
  end
  return false
end
report(vim.wait(20000, jedi_ready, 20), "jedi is attached")


-- the chat buffer, insert mode
local win = chat.open()
vim.api.nvim_set_current_win(win)
local buf = vim.api.nvim_get_current_buf()
report(vim.bo[buf].omnifunc == "PiMentionOmnifunc", "the chat buffer has @ completion")
vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "" })
vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })

local cot = vim.o.completeopt
local deadline = vim.loop.now() + 20000
local seen_items
local asked = {}
local step
local function poll(cond, next_step, what)
  local t = vim.loop.new_timer()
  t:start(20, 20, vim.schedule_wrap(function()
    if cond() then
      t:stop(); t:close(); next_step()
    elseif vim.loop.now() > deadline then
      t:stop(); t:close()
      report(false, what, "timed out; mode " .. vim.fn.mode() .. ", line " .. vim.api.nvim_get_current_line())
      finish()
    end
  end))
end

local function menu()
  local info = vim.fn.complete_info({ "items", "pum_visible" })
  return info.pum_visible == 1 and info.items or nil
end

step = {
  function()
    -- typed one key at a time, as a user does
    vim.api.nvim_feedkeys("A", "n", false)
    vim.api.nvim_feedkeys("Explain @load_con", "t", false)
    poll(function()
      local items = menu()
      if not items then return false end
      for _, it in ipairs(items) do if it.abbr == "load_config" then seen_items = items; return true end end
      return false
    end, step[2], "the menu opens with load_config")
  end,
  function()
    local it, index
    for i, x in ipairs(seen_items) do if x.abbr == "load_config" then it, index = x, i end end
    report(it.word == "@app/config.py#L18-20", "the symbol's whole range is inserted", it.word)
    report(it.kind == "Function" and (it.menu or ""):find("app/config.py", 1, true) ~= nil,
      "the row shows the kind, container and path", vim.inspect(it))
    report(vim.fn.mode() == "i" and vim.o.completeopt == "menuone,noinsert", "typing goes on: nothing inserted yet",
      vim.o.completeopt)
    vim.api.nvim_select_popupmenu_item(index - 1, true, true, {})
    poll(function() return vim.api.nvim_get_current_line():find("#L18", 1, true) ~= nil end, step[3], "the pick is inserted")
  end,
  function()
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Esc>", true, false, true), "n", false)
    poll(function() return vim.fn.mode() == "n" end, step[4], "insert mode ends")
  end,
  function()
    local line = vim.api.nvim_get_current_line()
    report(line == "Explain @app/config.py#L18-20", "the chat line holds the mention", line)
    report(vim.o.completeopt == cot, "'completeopt' is the user's again after insert mode", vim.o.completeopt)
    require("pi.commands").send(line)
    poll(function()
      for _, ev in ipairs(events) do if ev.type == "agent_end" then return true end end
      return false
    end, step[5], "the run ends")
  end,
  function()
    local sent = ""
    for _, ev in ipairs(events) do
      if (ev.type == "message_start" or ev.type == "message_end") and ev.message and ev.message.role == "user" then
        sent = sent .. vim.json.encode(ev.message)
      end
    end
    report(sent:find("def load_config(name: str)", 1, true) ~= nil
      and sent:find("return JsonLoader().load(name)", 1, true) ~= nil
      and sent:find("class JsonLoader", 1, true) == nil,
      "the prompt carries the function's lines (and only those)", sent)
    -- the :Pi command line (synchronous completion, the server warm by now)
    local offered = require("pi.mention").complete("@load_con")
    report(vim.tbl_contains(offered, "@app/config.py#L18-20"), ":Pi @load_con completes to the whole function",
      vim.inspect(offered))
    offered = require("pi.mention").complete("@app/ma")
    report(vim.tbl_contains(offered, "@app/main.py"), ":Pi @app/ma completes the file", vim.inspect(offered))
    step[6]()
  end,
  function()
    -- typed one key every 40 ms (faster than the 150 ms debounce): one workspace/symbol request,
    -- for the whole word, and the menu then offers the class (widened to its lines)
    local proto = require("pi.protocol")
    local call = proto.call
    proto.call = function(client, name, method, params, ...)
      if name == "request" and method == "workspace/symbol" then table.insert(asked, params.query) end
      return call(client, name, method, params, ...)
    end
    vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(0), 0 })
    vim.api.nvim_feedkeys("o", "n", false)
    local keys = vim.split("Why @JsonLoa", "")
    local t = vim.loop.new_timer()
    t:start(40, 40, vim.schedule_wrap(function()
      local k = table.remove(keys, 1)
      if k then return vim.api.nvim_feedkeys(k, "t", false) end
      t:stop(); t:close()
      poll(function()
        for _, it in ipairs(menu() or {}) do if it.abbr == "JsonLoader" then seen_items = it; return true end end
        return false
      end, step[7], "the menu offers JsonLoader")
    end))
  end,
  function()
    report(seen_items.word == "@app/config.py#L11-15" and seen_items.kind == "Class", "the class, with its lines",
      vim.inspect(seen_items))
    -- one (two when a loaded machine stalls a key past the debounce), not one per key
    report(#asked <= 2 and asked[#asked] == "JsonLoa", "one request for the whole word while typing fast",
      vim.inspect(asked))
    finish()
  end,
}
step[1]()
