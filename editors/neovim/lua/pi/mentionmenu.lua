--- The chat buffer's `@` menu (pi.mention's files and symbols) in insert mode: it opens as you
--- type `@name` (and on <C-x><C-o>), narrows at once as the name grows, and asks again once
--- typing pauses (DEBOUNCE_MS); an older query's answer is dropped. Choosing a row (<C-y>)
--- inserts `@path#Lx-y`. While the menu is up 'completeopt' is "menuone,noinsert" (the first row
--- selected, nothing inserted until chosen); the user's is back when insert mode ends.
local mention = require("pi.mention")

local M = {}

local DEBOUNCE_MS = 150

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
        or (it.kind ~= "File" and mention.rank(name, query)) then
        table.insert(kept, it)
      end
    end
    show(buf, col, query, kept)
  end
  live.timer = live.timer or vim.loop.new_timer()
  live.timer:start(DEBOUNCE_MS, 0, vim.schedule_wrap(function()
    if mine ~= live.gen then return end
    local root = mention.root()
    local files = require("pi.mentionfiles").files(query, root)
    if mention.path_like(query) or (#query < mention.MIN_QUERY and not force) then
      return show(buf, col, query, mention.items(query, files, {}))
    end
    mention.query(query, root, function(symbols)
      if mine ~= live.gen then return end -- a newer query was typed meanwhile
      show(buf, col, query, mention.items(query, files, symbols))
    end)
  end))
end

-- <C-x><C-o>: the omnifunc starts an asynchronous search and lets the menu come with the answer
vim.cmd([[
function! PiMentionOmnifunc(findstart, base) abort
  if a:findstart
    call luaeval('require("pi.mentionmenu").on_change(_A, true)', bufnr('%'))
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
