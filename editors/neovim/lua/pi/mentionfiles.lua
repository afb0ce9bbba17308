--- The workspace's files for `@` completion (pi.mention): listed once (git ls-files, else a
--- glob), then refreshed in the background once older than FILES_TTL seconds, so typing never
--- waits for a big repository's listing.
local M = {}

local FILES_TTL = 5
local FILES_SHOWN = 10

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
  local path_like = require("pi.mention").path_like(query)
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

return M
