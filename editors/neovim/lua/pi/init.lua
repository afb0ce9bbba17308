--- require("pi").setup({...}): see :help pi and lua/pi/config.lua for the defaults.
local M = {}

--- Configure the plugin (merged over lua/pi/config.lua's defaults), set its autocommands and maps.
---@param opts? pi.SetupOptions
---@return table M this module
function M.setup(opts)
  local config = require("pi.config")
  config.setup(opts)
  require("pi.client").setup_autocmds()
  local vmap = config.options.keymaps.visual
  if vmap then
    vim.keymap.set("x", vmap, ":Pi<CR>", { desc = "pi: ask about the selection", silent = true })
  end
  local group = vim.api.nvim_create_augroup("pi_input", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group, pattern = "markdown",
    callback = function(args)
      if vim.api.nvim_buf_get_name(args.buf):match("pi://chat$") then M.chat_maps(args.buf) end
    end,
  })
  return M
end

--- Chat-buffer maps: the current line (or selection) is sent as steer / follow-up / interrupt;
--- `@` completion of files and symbols (pi.mentionmenu).
---@param buf integer the chat buffer
function M.chat_maps(buf)
  local k = require("pi.config").options.keymaps.input
  local cmds = require("pi.commands")
  local function map(lhs, fn)
    if lhs then vim.keymap.set({ "n", "i" }, lhs, function() fn(vim.api.nvim_get_current_line()) end, { buffer = buf }) end
  end
  map(k.send, function(t) cmds.send(t) end)
  map(k.follow_up, function(t) cmds.send(t, "followUp") end)
  map(k.interrupt, function(t) cmds.send(t, "interrupt") end)
  require("pi.mentionmenu").attach(buf) -- `@` completes files and workspace symbols
end

--- The statusline component: "π 1.2k/128k · 1 waiting · 2 procs" (see :help pi-statusline).
---@return string
M.statusline = function() return require("pi.status").statusline() end

--- The plugin's state (session, queue, pending questions, ...).
---@return pi.State
M.state = function() return require("pi.state") end

return M
