--- `@` mentions of files and workspace symbols (feature table row 48), in the chat buffer's
--- insert mode (M.attach: the menu opens as you type `@name`, <C-x><C-o> opens it too) and on
--- the :Pi command line (M.complete). Symbols come from the language servers attached in this
--- Neovim (every client but pi's own), asked `workspace/symbol` asynchronously (never
--- buf_request_sync); a symbol a server locates by its name only (jedi, pyright) is widened to
--- its whole range with `textDocument/documentSymbol`. Choosing one inserts `@path#L{start}-{end}`
--- (1-based), which pi-lsp attaches (docs/protocol.md §10). Only lines are read from the
--- servers' ranges, and a line number is the same in every position encoding (a range ending at
--- character 0 is too), so no client's offset_encoding needs converting here.
local M = {}

local OWN = "pi"
local WAIT_MS = 1000       -- :Pi command-line completion is synchronous: wait at most this
local ANSWER_MS = 1500     -- the menu shows what came by then; later answers update it
local LATE_MS = 15000      -- an answer later than this is dropped
local DEBOUNCE_MS = 150    -- insert mode: ask once typing pauses
local SHOWN = 20
local FILES_SHOWN = 10
local MIN_QUERY = 2

--- LSP's SymbolKind names (1-based).
M.KINDS = {
  "File", "Module", "Namespace", "Package", "Class", "Method", "Property", "Field", "Constructor",
  "Enum", "Interface", "Function", "Variable", "Constant", "String", "Number", "Boolean", "Array",
  "Object", "Key", "Null", "EnumMember", "Struct", "Event", "Operator", "TypeParameter",
}

---@param opts? table
---@return table[]
local function get_clients(opts)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients -- 0.7 - 0.9: get_active_clients
  return get(opts or {})
end

--- The language servers to ask: every client but pi's own whose server has `capability`.
---@param capability string e.g. "workspaceSymbolProvider"
---@return table[]
function M.clients(capability)
  local out = {}
  for _, c in ipairs(get_clients()) do
    local caps = c.server_capabilities or c.resolved_capabilities or {}
    if c.name ~= OWN and caps[capability] then table.insert(out, c) end
  end
  return out
end

--- How well `name` matches `query` (lower is better, nil: no match): exact, prefix (case kept
--- before case ignored), substring, then the query's characters in order.
---@param name string
---@param query string
---@return integer|nil
function M.rank(name, query)
  local n, q = name:lower(), query:lower()
  if name == query then return 0 end
  if n == q then return 1 end
  if name:sub(1, #query) == query then return 2 end
  if n:sub(1, #q) == q then return 3 end
  if n:find(q, 1, true) then return 4 end
  local i = 1
  for ch in n:gmatch(".") do
    if ch == q:sub(i, i) then i = i + 1 end
  end
  return i > #q and 5 or nil
end

--- `query` names a path (`src/`, `a.py`): files only.
---@param query string
---@return boolean
function M.path_like(query)
  return query:find("[/.]") ~= nil
end

--- The workspace-relative path of `uri`, nil outside `root`.
---@param uri string
---@param root string
---@return string|nil
local function relative(uri, root)
  local path = vim.uri_to_fname(uri)
  if path:sub(1, #root + 1) ~= root .. "/" then return nil end
  return path:sub(#root + 2)
end

--- The `path#Lx-y` text of a SymbolInformation / WorkspaceSymbol with a range, relative to `root`
--- (`range` overrides the symbol's own).
---@param sym table
---@param root string
---@param range? table
---@return string|nil
function M.mention_of(sym, root, range)
  local loc = sym.location or {}
  local r = range or loc.range
  if not (loc.uri and r) then return nil end
  local rel = relative(loc.uri, root)
  if not rel then return nil end -- outside the workspace
  local first = r.start.line + 1
  local last = r["end"].line + 1
  if r["end"].line > r.start.line and r["end"].character == 0 then last = last - 1 end
  if last <= first then return ("%s#L%d"):format(rel, first) end
  return ("%s#L%d-%d"):format(rel, first, last)
end

--- The whole range of the symbol `name` whose name is on `line`, from a documentSymbol answer
--- (DocumentSymbol trees or flat SymbolInformation); nil when it has none.
---@param outline table|nil
---@param name string
---@param line integer 0-based
---@return table|nil
function M.whole_range(outline, name, line)
  local best
  local function visit(nodes)
    for _, n in ipairs(nodes or {}) do
      local r = n.range or (n.location and n.location.range)
      local sel = n.selectionRange or r
      if r and sel and n.name == name and sel.start.line <= line and line <= sel["end"].line then best = r end
      if type(n.children) == "table" then visit(n.children) end
    end
  end
  if type(outline) == "table" then visit(outline) end
  return best
end

---@param client table
---@param method string
---@param params table
---@param handler fun(err: any, result: any)
---@return boolean sent
local function request(client, method, params, handler)
  return pcall(require("pi.protocol").call, client, "request", method, params, function(err, result)
    handler(err, result)
  end)
end

--- Calls `fn` when `pending` answers are in; after `ms` it is called with what is there, and
--- again once the late answers are in (within LATE_MS): a slow server (jedi's first query
--- indexes the project) adds its rows to the menu instead of being lost.
---@param ms integer
---@param fn fun()
---@return fun() tick one answer arrived
---@return fun(n: integer) arm start the clock for `n` answers
local function gather(ms, fn)
  local finished, early, pending = false, false, 0
  local function tick()
    pending = pending - 1
    if pending <= 0 and not finished then
      finished = true
      fn()
    end
  end
  local function arm(n)
    pending = n
    if n <= 0 then
      finished = true
      return fn()
    end
    vim.defer_fn(function()
      if finished or early then return end
      early = true
      fn()
    end, ms)
    vim.defer_fn(function() finished = true end, LATE_MS)
  end
  return tick, arm
end

--- Ask every other language server `workspace/symbol` for `query` (asynchronously) and call
--- `done(choices)`, best first: {mention = "path#Lx-y", name, kind, container, path} — again
--- with more rows when a slow server answers late (never with fewer: an older list that comes
--- after a newer one is dropped). Name-only locations are widened with
--- textDocument/documentSymbol (same client).
---@param query string
---@param root string
---@param done fun(choices: table[])
function M.query(query, root, done)
  local clients = M.clients("workspaceSymbolProvider")
  local found = {}
  local asked, delivered = 0, 0
  local tick, arm
  tick, arm = gather(ANSWER_MS, function()
    asked = asked + 1
    local mine = asked
    local ranked = {}
    for _, f in ipairs(found) do
      local rel = f.sym.location and f.sym.location.uri and relative(f.sym.location.uri, root)
      local rank = type(f.sym.name) == "string" and M.rank(f.sym.name, query)
      if rel and rank and f.sym.location.range then
        table.insert(ranked, { sym = f.sym, client = f.client, rel = rel, rank = rank })
      end
    end
    table.sort(ranked, function(a, b)
      if a.rank ~= b.rank then return a.rank < b.rank end
      if #a.sym.name ~= #b.sym.name then return #a.sym.name < #b.sym.name end
      return a.rel < b.rel
    end)
    local top, seen = {}, {}
    for _, r in ipairs(ranked) do
      local key = r.rel .. "#" .. r.sym.location.range.start.line .. "#" .. r.sym.name
      if not seen[key] then
        seen[key] = true
        table.insert(top, r)
        if #top >= SHOWN then break end
      end
    end
    M.widen(top, root, function(choices)
      if mine < delivered then return end
      delivered = mine
      done(choices)
    end)
  end)
  local sent = 0
  for _, c in ipairs(clients) do
    local ok = request(c, require("pi.protocol").lsp.workspaceSymbol, { query = query }, function(err, result)
      if not err and type(result) == "table" then
        for _, s in ipairs(result) do table.insert(found, { sym = s, client = c }) end
      end
      vim.schedule(tick)
    end)
    if ok then sent = sent + 1 end
  end
  arm(sent)
end

--- The choices of `top`, name-only ranges widened by one documentSymbol request per file.
---@param top table[] {sym, client, rel}
---@param root string
---@param done fun(choices: table[])
function M.widen(top, root, done)
  local outlines = {} -- client id .. uri -> {items waiting}
  local order = {}
  for _, t in ipairs(top) do
    local r = t.sym.location.range
    local caps = t.client.server_capabilities or t.client.resolved_capabilities or {}
    if r.start.line == r["end"].line and caps.documentSymbolProvider then
      local key = t.client.id .. " " .. t.sym.location.uri
      if not outlines[key] then
        outlines[key] = { client = t.client, uri = t.sym.location.uri, items = {} }
        table.insert(order, key)
      end
      table.insert(outlines[key].items, t)
    end
  end
  local tick, arm = gather(ANSWER_MS, function()
    local out, seen = {}, {}
    for _, t in ipairs(top) do
      local m = M.mention_of(t.sym, root, t.range)
      if m and not seen[m] then
        seen[m] = true
        table.insert(out, {
          mention = m, name = t.sym.name, kind = M.KINDS[t.sym.kind] or "Symbol",
          container = t.sym.containerName, path = t.rel,
        })
      end
    end
    done(out)
  end)
  local sent = 0
  for _, key in ipairs(order) do
    local o = outlines[key]
    local ok = request(o.client, require("pi.protocol").lsp.documentSymbol, { textDocument = { uri = o.uri } }, function(err, result)
      if not err then
        for _, t in ipairs(o.items) do
          t.range = M.whole_range(result, t.sym.name, t.sym.location.range.start.line)
        end
      end
      vim.schedule(tick)
    end)
    if ok then sent = sent + 1 end
  end
  arm(sent)
end

-- the files of a root: listed once (git ls-files, else a glob), then refreshed in the background
-- when older than FILES_TTL seconds, so typing never waits for a big repository's listing
local FILES_TTL = 5
local file_cache = {}

---@param root string
---@return boolean
local function in_git(root)
  return vim.fn.isdirectory(root .. "/.git") == 1 and vim.fn.executable("git") == 1
end

local GIT_FILES = { "ls-files", "--cached", "--others", "--exclude-standard" }

---@param root string
---@return string[]
local function glob_files(root)
  local files = {}
  for _, p in ipairs(vim.fn.globpath(root, "**/*", false, true)) do
    if #files >= 20000 then break end
    local rel = p:sub(#root + 2)
    if vim.fn.isdirectory(p) == 0 and not rel:find("^%.git/") and not rel:find("node_modules/", 1, true) then
      table.insert(files, rel)
    end
  end
  return files
end

---@param root string
---@return string[]
local function all_files(root)
  local c = file_cache[root]
  if c and os.time() - c.at >= FILES_TTL and not c.refreshing and in_git(root) then
    c.refreshing = true
    local cmd = vim.list_extend({ "git", "-C", root }, GIT_FILES)
    local ok = pcall(vim.fn.jobstart, cmd, {
      stdout_buffered = true,
      on_stdout = function(_, data)
        if data and #data > 0 then
          if data[#data] == "" then table.remove(data) end
          file_cache[root] = { at = os.time(), files = data }
        end
      end,
      on_exit = function() c.refreshing = false end,
    })
    if not ok then c.refreshing = false end
  end
  if c and (in_git(root) or os.time() - c.at < FILES_TTL) then return c.files end
  local files
  if in_git(root) then
    files = vim.fn.systemlist(vim.list_extend({ "git", "-C", root }, GIT_FILES))
    if vim.v.shell_error ~= 0 then files = nil end
  end
  files = files or glob_files(root)
  file_cache[root] = { at = os.time(), files = files }
  return files
end

--- The files matching `query`: a path by substring, a name by its file name; files whose name
--- starts with the query first, then shorter paths. Each {path, strong}.
---@param query string
---@param root string
---@return table[]
function M.files(query, root)
  local q = query:lower()
  local path_like = M.path_like(query)
  local out = {}
  for _, rel in ipairs(all_files(root)) do
    local base = (rel:match("[^/]+$") or rel):lower()
    local hay = path_like and rel:lower() or base
    if q == "" or hay:find(q, 1, true) then
      table.insert(out, { path = rel, strong = base:sub(1, #q) == q })
    end
  end
  table.sort(out, function(a, b)
    if a.strong ~= b.strong then return a.strong end
    if #a.path ~= #b.path then return #a.path < #b.path end
    return a.path < b.path
  end)
  while #out > FILES_SHOWN do table.remove(out) end
  return out
end

--- Complete-items (:help complete-items) of files and symbols, in the menu's order: a path lists
--- files only; a name lists files whose name starts with it, then symbols, then other files.
---@param query string
---@param files table[] M.files()
---@param symbols table[] M.query()'s choices
---@return table[]
function M.items(query, files, symbols)
  local function file(f) return { word = "@" .. f.path, abbr = f.path, kind = "File", equal = 1, dup = 1 } end
  local out = {}
  for _, f in ipairs(files) do if f.strong or M.path_like(query) then table.insert(out, file(f)) end end
  if not M.path_like(query) then
    for _, s in ipairs(symbols) do
      local menu = s.container and s.container ~= "" and (s.container .. " · " .. s.path) or s.path
      table.insert(out, {
        word = "@" .. s.mention, abbr = s.name, kind = s.kind, menu = menu, equal = 1, dup = 1,
        info = s.mention, user_data = { pi_symbol = s.mention },
      })
    end
    for _, f in ipairs(files) do if not f.strong then table.insert(out, file(f)) end end
  end
  return out
end

local function root_now()
  return require("pi.client").current_root or vim.fn.getcwd()
end

--- Completion of the :Pi command line: `@name` → the symbols' mentions, `@path` → files.
---@param arglead string
---@return string[]
function M.complete(arglead)
  local query = arglead:match("^@(%S*)$")
  if not query then return {} end
  local root = root_now()
  local out = {}
  if M.path_like(query) then
    for _, f in ipairs(M.files(query, root)) do table.insert(out, "@" .. f.path) end
    return out
  end
  if #query < MIN_QUERY then return {} end
  local choices
  M.query(query, root, function(c) choices = c end)
  vim.wait(WAIT_MS, function() return choices ~= nil end, 10)
  for _, c in ipairs(choices or {}) do table.insert(out, "@" .. c.mention) end
  return out
end

-- insert mode ------------------------------------------------------------------------------

local live = { gen = 0, timer = nil, saved_cot = nil, query = nil, items = {} }

--- The `@query` before the cursor: its 1-based start column and the query, or nil.
---@param before string the line up to the cursor
---@return integer|nil col
---@return string|nil query
function M.query_at(before)
  local at, q = before:match("()@([^%s@]*)$")
  if not at then return nil end
  if at > 1 and not before:sub(at - 1, at - 1):match("%s") then return nil end
  return at, q
end

local function restore_cot()
  if live.saved_cot then
    vim.o.completeopt = live.saved_cot
    live.saved_cot = nil
  end
end

--- The menu at `col` with `items`, when the buffer, mode and typed query are still the ones asked for.
local function show(buf, col, query, items)
  if vim.api.nvim_get_current_buf() ~= buf or vim.fn.mode() ~= "i" then return end
  local cur = vim.api.nvim_win_get_cursor(0)[2]
  local at, q = M.query_at(vim.api.nvim_get_current_line():sub(1, cur))
  if at ~= col or q ~= query then return end
  live.items, live.query = items, query
  if #items == 0 then
    if vim.fn.pumvisible() == 1 then vim.fn.complete(col, {}) end
    return
  end
  -- the first row selected, nothing inserted until it is chosen (<C-y>): typing goes on
  if not live.saved_cot then live.saved_cot = vim.o.completeopt end
  vim.o.completeopt = "menuone,noinsert"
  vim.fn.complete(col, items)
end

--- The text changed in `buf`'s insert mode: narrow the menu at once (rows of the query being
--- extended that still match), then ask again once typing pauses; answers of older queries
--- are dropped.
---@param buf integer
---@param force? boolean <C-x><C-o>: even for a short query
function M.on_change(buf, force)
  live.gen = live.gen + 1
  local mine = live.gen
  if live.timer then live.timer:stop() end
  local cur = vim.api.nvim_win_get_cursor(0)[2]
  local col, query = M.query_at(vim.api.nvim_get_current_line():sub(1, cur))
  if not col or (#query < 1 and not force) then
    live.items, live.query = {}, nil
    return
  end
  if live.query and query:sub(1, #live.query) == live.query and #live.items > 0 then
    local kept = {}
    for _, it in ipairs(live.items) do
      local name = it.kind == "File" and it.abbr:match("[^/]+$") or it.abbr
      if (it.kind == "File" and (it.abbr:lower():find(query:lower(), 1, true)))
        or (it.kind ~= "File" and M.rank(name, query)) then
        table.insert(kept, it)
      end
    end
    show(buf, col, query, kept)
  end
  live.timer = live.timer or vim.loop.new_timer()
  live.timer:start(DEBOUNCE_MS, 0, vim.schedule_wrap(function()
    if mine ~= live.gen then return end
    local root = root_now()
    local files = M.files(query, root)
    if M.path_like(query) or (#query < MIN_QUERY and not force) then
      return show(buf, col, query, M.items(query, files, {}))
    end
    M.query(query, root, function(symbols)
      if mine ~= live.gen then return end -- a newer query was typed meanwhile
      show(buf, col, query, M.items(query, files, symbols))
    end)
  end))
end

-- <C-x><C-o>: the omnifunc starts an asynchronous search and lets the menu come with the answer
vim.cmd([[
function! PiMentionOmnifunc(findstart, base) abort
  if a:findstart
    call luaeval('require("pi.mention").on_change(_A, true)', bufnr('%'))
    return -3
  endif
  return []
endfunction
]])

--- `@` completion in `buf` (the chat buffer): as you type `@name`, and with <C-x><C-o>.
---@param buf integer
function M.attach(buf)
  if vim.b[buf].pi_mention then return end
  vim.b[buf].pi_mention = true
  vim.bo[buf].omnifunc = "PiMentionOmnifunc"
  local group = vim.api.nvim_create_augroup("pi_mention_" .. buf, { clear = true })
  vim.api.nvim_create_autocmd({ "TextChangedI", "TextChangedP" }, {
    group = group, buffer = buf, callback = function() M.on_change(buf) end,
  })
  vim.api.nvim_create_autocmd({ "InsertLeave", "BufLeave" }, {
    group = group, buffer = buf,
    callback = function()
      live.gen = live.gen + 1
      live.items, live.query = {}, nil
      restore_cot() -- 'completeopt' is global: the user's again once insert mode ends
    end,
  })
end

return M
