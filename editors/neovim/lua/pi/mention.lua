--- `@` mentions of workspace symbols in the :Pi prompt (command-line completion): after `@` and
--- two characters, the language servers attached in this Neovim (every client but pi's own) are
--- asked `workspace/symbol`; each match completes to `@path#L{start}-{end}` (its whole range,
--- 1-based), which pi-lsp attaches (docs/protocol.md §10). Command-line completion is
--- synchronous: the answers are awaited at most WAIT_MS, the UI otherwise keeps running.
local M = {}

local OWN = "pi"
local WAIT_MS = 400
local SHOWN = 20

--- The `path#Lx-y` text of a SymbolInformation / WorkspaceSymbol with a range, relative to `root`.
---@param sym table
---@param root string
---@return string|nil
function M.mention_of(sym, root)
  local loc = sym.location or {}
  local r = loc.range
  if not (loc.uri and r) then return nil end
  local path = vim.uri_to_fname(loc.uri)
  if path:sub(1, #root + 1) ~= root .. "/" then return nil end -- outside the workspace
  local rel = path:sub(#root + 2)
  local first = r.start.line + 1
  local last = r["end"].line + 1
  if r["end"].line > r.start.line and r["end"].character == 0 then last = last - 1 end
  if last <= first then return ("%s#L%d"):format(rel, first) end
  return ("%s#L%d-%d"):format(rel, first, last)
end

--- Completion of the :Pi command line: `@name` → the symbols' mentions (else nothing).
---@param arglead string
---@return string[]
function M.complete(arglead)
  local query = arglead:match("^@([%w_]+)$")
  if not query or #query < 2 then return {} end
  local root = require("pi.client").current_root or vim.fn.getcwd()
  local clients = {}
  for _, c in ipairs(vim.lsp.get_clients()) do
    if c.name ~= OWN and c.server_capabilities and c.server_capabilities.workspaceSymbolProvider then
      table.insert(clients, c)
    end
  end
  local found, pending = {}, #clients
  local proto = require("pi.protocol")
  for _, c in ipairs(clients) do
    local ok = pcall(proto.call, c, "request", proto.lsp.workspaceSymbol, { query = query },
      function(err, result)
        if not err and type(result) == "table" then vim.list_extend(found, result) end
        pending = pending - 1
      end)
    if not ok then pending = pending - 1 end
  end
  if pending > 0 then vim.wait(WAIT_MS, function() return pending <= 0 end, 10) end
  local q = query:lower()
  table.sort(found, function(a, b)
    local pa = (a.name or ""):lower():sub(1, #q) == q and 0 or 1
    local pb = (b.name or ""):lower():sub(1, #q) == q and 0 or 1
    if pa ~= pb then return pa < pb end
    return #(a.name or "") < #(b.name or "")
  end)
  local out, seen = {}, {}
  for _, sym in ipairs(found) do
    local m = M.mention_of(sym, root)
    if m and not seen[m] then
      seen[m] = true
      table.insert(out, "@" .. m)
      if #out >= SHOWN then break end
    end
  end
  return out
end

return M
