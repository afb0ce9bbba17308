--- An unfocused float at the editor's right edge, sized to its lines: the question (ask.lua),
--- permission (permission.lua) and todo (plan.lua) floats. `owner` holds the float's `buf`
--- (made by the caller, with its name, filetype and keys) and its `win` (made or moved here).
local M = {}

--- Show `lines` in `owner.buf`, in `owner.win` at `row` (nil: just above the command line).
--- The window is opened without focus: typing goes on. Returns it.
---@param owner {buf: integer, win: integer|nil}
---@param lines string[]
---@param row? integer
---@return integer win
function M.show(owner, lines, row)
  vim.api.nvim_buf_set_lines(owner.buf, 0, -1, false, lines)
  local width = 20
  for _, l in ipairs(lines) do width = math.max(width, vim.fn.strdisplaywidth(l)) end
  width = math.min(width + 2, vim.o.columns - 4)
  local cfg = { relative = "editor", row = row or (vim.o.lines - #lines - 4), col = vim.o.columns - width - 2,
    width = width, height = #lines, style = "minimal", border = "rounded", focusable = true }
  if owner.win and vim.api.nvim_win_is_valid(owner.win) then
    vim.api.nvim_win_set_config(owner.win, cfg)
  else
    owner.win = vim.api.nvim_open_win(owner.buf, false, cfg)
  end
  return owner.win
end

---@param owner {buf: integer|nil, win: integer|nil}
function M.close(owner)
  if owner.win and vim.api.nvim_win_is_valid(owner.win) then vim.api.nvim_win_close(owner.win, true) end
  owner.win = nil
end

return M
