--- :PiQueue — the queue as an editable buffer. One line per message: "steer #ID text" or
--- "follow #ID text". Delete a line to remove it, edit its text, change "follow" to "steer" to
--- send it now; a line without #ID is added. :w sends the ops (pi/queue); queue_update redraws.
local state = require("pi.state")
local proto = require("pi.protocol")

local M = { buf = nil, snapshot = {} }

local function lines()
  local out, snap = {}, {}
  for _, m in ipairs(state.queue.steering or {}) do
    table.insert(out, ("steer #%s %s"):format(m.id, m.text)); snap[m.id] = { kind = "steer", text = m.text }
  end
  for _, m in ipairs(state.queue.followUp or {}) do
    table.insert(out, ("follow #%s %s"):format(m.id, m.text)); snap[m.id] = { kind = "follow", text = m.text }
  end
  return out, snap
end

--- Redraw the queue buffer (unless it has unsaved edits).
function M.refresh()
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then return end
  if vim.bo[M.buf].modified then return end  -- never overwrite the user's unsaved edits
  local out, snap = lines()
  M.snapshot = snap
  vim.api.nvim_buf_set_lines(M.buf, 0, -1, false, out)
  vim.bo[M.buf].modified = false
end

--- The queue buffer's lines as operations against the snapshot shown.
---@param buffer_lines string[]
---@return table[] ops {op = "edit"|"promote"|"remove", id, text?} or {add = method, text}
function M.ops(buffer_lines)
  local ops, seen = {}, {}
  for _, l in ipairs(buffer_lines) do
    local kind, id, text = l:match("^(%a+)%s+#(%S+)%s?(.*)$")
    if id and M.snapshot[id] then
      seen[id] = true
      local old = M.snapshot[id]
      if text ~= old.text then table.insert(ops, { op = "edit", id = id, text = text }) end
      if kind == "steer" and old.kind == "follow" then table.insert(ops, { op = "promote", id = id }) end
    elseif l:match("%S") then
      local k, t = l:match("^(%a+)%s+(.*)$")
      if k == "steer" then table.insert(ops, { add = proto.method.steer, text = t })
      else table.insert(ops, { add = proto.method.followUp, text = (k == "follow" and t) or l }) end
    end
  end
  for id in pairs(M.snapshot) do
    if not seen[id] then table.insert(ops, 1, { op = "remove", id = id }) end
  end
  return ops
end

--- :w in the queue buffer: send its operations.
function M.write()
  local ops = M.ops(vim.api.nvim_buf_get_lines(M.buf, 0, -1, false))
  vim.bo[M.buf].modified = false
  for _, o in ipairs(ops) do
    if o.add then
      proto.request(o.add, { sessionId = state.session, text = o.text })
    else
      proto.request(proto.method.queue, vim.tbl_extend("force", { sessionId = state.session }, o), function(err, res)
        if err then
          if not proto.is_missing(err) then vim.notify("pi: " .. err.message, vim.log.levels.ERROR) end
          return
        end
        if res then state.queue = res; M.refresh() end
      end)
    end
  end
  M.refresh()
end

---@return integer buf
function M.open()
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    M.buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(M.buf, "pi://queue")
    vim.bo[M.buf].buftype = "acwrite"
    vim.bo[M.buf].bufhidden = "hide"
    vim.api.nvim_create_autocmd("BufWriteCmd", { buffer = M.buf, callback = function() M.write() end })
  end
  vim.cmd("botright split")
  vim.api.nvim_win_set_buf(0, M.buf)
  vim.api.nvim_win_set_height(0, 6)
  vim.bo[M.buf].modified = false
  M.refresh()
  return M.buf
end

return M
