--- Review (docs/protocol.md §9): pending hunks as extmarks in the real buffers — the old text as virtual
--- lines, the new text highlighted — with ]h / [h, ga (keep) and gr (undo).
local config = require("pi.config")
local state = require("pi.state")
local proto = require("pi.protocol")

local M = { ns = vim.api.nvim_create_namespace("pi_review"), mapped = {} }

local function hunks_of(buf)
  return state.review[vim.uri_from_bufnr(buf)] or {}
end

local function start_line(h) return h.range and h.range.start and h.range.start.line or 0 end

local function map_keys(buf)
  if M.mapped[buf] then return end
  M.mapped[buf] = true
  local k = config.options.keymaps.review
  local function map(lhs, fn, desc)
    if lhs then vim.keymap.set("n", lhs, fn, { buffer = buf, desc = desc }) end
  end
  map(k.next, function() M.jump(1) end, "pi: next hunk")
  map(k.prev, function() M.jump(-1) end, "pi: previous hunk")
  map(k.keep, function() M.decide("keep") end, "pi: keep hunk")
  map(k.undo, function() M.decide("undo", config.options.review.ask_reason) end, "pi: undo hunk")
  map(k.undo_reason, function() M.decide("undo", true) end, "pi: undo hunk with a reason")
end

--- Draw `buf`'s pending hunks as extmarks.
---@param buf integer
function M.render(buf)
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  local count = vim.api.nvim_buf_line_count(buf)
  for _, h in ipairs(hunks_of(buf)) do
    local s = math.min(start_line(h), count - 1)
    local e = math.min(h.range["end"].line, count)
    local virt = {}
    for _, l in ipairs(vim.split(h.oldText or "", "\n", { plain = true })) do
      if l ~= "" or #virt > 0 then table.insert(virt, { { "- " .. l, "DiffDelete" } }) end
    end
    if #virt > 0 and virt[#virt][1][1] == "- " then table.remove(virt) end
    local opts = { virt_lines = virt, virt_lines_above = true }
    if e > s then opts.end_row = e; opts.hl_group = "DiffAdd"; opts.hl_eol = true end
    pcall(vim.api.nvim_buf_set_extmark, buf, M.ns, s, 0, opts)
  end
end

--- The review's files (pi/review, review_update): every pending hunk, by uri.
---@param files {uri: string, hunks: pi.Hunk[]}[]
function M.update(files)
  local seen = {}
  for uri in pairs(state.review) do seen[uri] = true end
  state.review = {}
  for _, f in ipairs(files) do
    if #(f.hunks or {}) > 0 then state.review[f.uri] = f.hunks end
    seen[f.uri] = true
  end
  for uri in pairs(seen) do
    local buf = vim.uri_to_bufnr(uri)
    if vim.api.nvim_buf_is_loaded(buf) then
      if state.review[uri] then map_keys(buf) end
      M.render(buf)
    end
  end
end

---@param buf integer
---@param row integer 0-based
---@return pi.Hunk|nil
function M.hunk_at(buf, row)
  for _, h in ipairs(hunks_of(buf)) do
    local s, e = start_line(h), h.range["end"].line
    if row >= s and (row < e or row == s) then return h end
  end
end

--- ]h / [h
---@param dir integer 1 or -1
function M.jump(dir)
  local buf = vim.api.nvim_get_current_buf()
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local best
  for _, h in ipairs(hunks_of(buf)) do
    local s = start_line(h)
    if (dir > 0 and s > row and (not best or s < best)) or (dir < 0 and s < row and (not best or s > best)) then best = s end
  end
  if best then vim.api.nvim_win_set_cursor(0, { best + 1, 0 }) end
end

--- pi/reviewDecision for these hunks.
---@param decisions {hunkId: string, decision: "keep"|"undo", reason?: string}[]
---@param cb? pi.ResponseHandler
function M.send(decisions, cb)
  proto.request(proto.method.reviewDecision, { sessionId = state.session, decisions = decisions },
    function(err, res)
      if not err and res and res.conflicts and #res.conflicts > 0 then
        for _, c in ipairs(res.conflicts) do vim.notify("pi: " .. c.message, vim.log.levels.WARN) end
      end
      if cb then cb(err, res) end
    end)
end

--- Keep or undo the hunk under the cursor.
---@param decision "keep"|"undo"
---@param ask_reason? boolean
function M.decide(decision, ask_reason)
  local buf = vim.api.nvim_get_current_buf()
  local h = M.hunk_at(buf, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not h then return vim.notify("pi: no pending hunk here", vim.log.levels.INFO) end
  if decision == "undo" and ask_reason then
    vim.ui.input({ prompt = "Reason for the model (optional): " }, function(reason)
      M.send({ { hunkId = h.id, decision = "undo", reason = (reason ~= "" and reason) or nil } })
    end)
  else
    M.send({ { hunkId = h.id, decision = decision } })
  end
end

--- :PiChanges: every pending hunk in the quickfix list.
---@return table[] quickfix items
function M.quickfix()
  local items = {}
  for uri, hunks in pairs(state.review) do
    for _, h in ipairs(hunks) do
      table.insert(items, { filename = vim.uri_to_fname(uri), lnum = start_line(h) + 1,
        text = (h.newText or ""):match("^[^\n]*") or "" })
    end
  end
  vim.fn.setqflist({}, " ", { title = "pi: changes under review", items = items })
  if #items == 0 then vim.notify("pi: no changes under review") end
  return items
end

return M
