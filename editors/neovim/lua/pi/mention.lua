--- `@` mentions of files and workspace symbols (feature table row 48): the symbols, the menu's
--- rows and the :Pi command line's completion (M.complete); the chat buffer's insert-mode menu
--- is pi.mentionmenu, the file listing pi.mentionfiles. Symbols come from the language servers
--- attached in this Neovim (every client but pi's own), asked `workspace/symbol` asynchronously (never
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
local SHOWN = 20
M.MIN_QUERY = 2

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

--- Sends each of `asks` ({client, method, params, on_result}; an error answer skips its
--- on_result) and arms `gather`'s clock with the number sent; each answer ticks it.
---@param asks table[]
---@param tick fun()
---@param arm fun(n: integer)
local function send_all(asks, tick, arm)
  local sent = 0
  for _, a in ipairs(asks) do
    local ok = request(a.client, a.method, a.params, function(err, result)
      if not err then a.on_result(result) end
      vim.schedule(tick)
    end)
    if ok then sent = sent + 1 end
  end
  arm(sent)
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
  local asks = {}
  for _, c in ipairs(clients) do
    table.insert(asks, { client = c, method = require("pi.protocol").lsp.workspaceSymbol, params = { query = query },
      on_result = function(result)
        if type(result) == "table" then
          for _, s in ipairs(result) do table.insert(found, { sym = s, client = c }) end
        end
      end })
  end
  send_all(asks, tick, arm)
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
  local asks = {}
  for _, key in ipairs(order) do
    local o = outlines[key]
    table.insert(asks, { client = o.client, method = require("pi.protocol").lsp.documentSymbol,
      params = { textDocument = { uri = o.uri } },
      on_result = function(result)
        for _, t in ipairs(o.items) do
          t.range = M.whole_range(result, t.sym.name, t.sym.location.range.start.line)
        end
      end })
  end
  send_all(asks, tick, arm)
end

--- Complete-items (:help complete-items) of files and symbols, in the menu's order: a path lists
--- files only; a name lists files whose name starts with it, then symbols, then other files.
---@param query string
---@param files table[] pi.mentionfiles.files()
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

--- The workspace root mentions are relative to.
---@return string
function M.root()
  return require("pi.client").current_root or vim.fn.getcwd()
end

--- Completion of the :Pi command line: `@name` → the symbols' mentions, `@path` → files.
---@param arglead string
---@return string[]
function M.complete(arglead)
  local query = arglead:match("^@(%S*)$")
  if not query then return {} end
  local root = M.root()
  local out = {}
  if M.path_like(query) then
    for _, f in ipairs(require("pi.mentionfiles").files(query, root)) do table.insert(out, "@" .. f.path) end
    return out
  end
  if #query < M.MIN_QUERY then return {} end
  local choices
  M.query(query, root, function(c) choices = c end)
  vim.wait(WAIT_MS, function() return choices ~= nil end, 10)
  for _, c in ipairs(choices or {}) do table.insert(out, "@" .. c.mention) end
  return out
end

return M
