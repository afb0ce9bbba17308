--- Defaults for require("pi").setup({...}); see :help pi-config.
local M = {}

M.defaults = {
  server = {
    cmd = { "pi-lsp" },      -- how to start the server over stdio
    tcp = nil,               -- "auto": a per-workspace background server that outlives Neovim
                             -- (Neovim 0.10+; :PiAttach); "127.0.0.1:PORT": a running `pi-lsp --tcp`
    idle_timeout = 600,      -- "auto": the background server exits after this many idle seconds
    state_dir = nil,         -- "auto": where servers are recorded (default stdpath("state")/pi)
    restart = true,          -- restart (and re-attach) when the server exits
    max_restarts = 5,
  },
  settings = {},             -- initializationOptions.pi: provider, model, baseUrl, apiKeyEnv, ...
  root_markers = { ".git", "pyproject.toml", "package.json", "Cargo.toml", "go.mod" },
  auto_attach = true,        -- attach file buffers under a root once that root's server runs
  chat = {
    layout = "split",        -- "split" | "float"
    position = "right",      -- split side: "right" | "left" | "below"
    width = 0.4,             -- fraction of the editor (split or float)
    render_ms = 40,          -- redraw batching interval
    tool_output_lines = 3,   -- head/tail lines of a tool's output kept (folded)
  },
  review = { ask_reason = false },
  diagnostics = true,        -- forward diagnostics of files the agent touched (pi/diagnostics)
  keymaps = {
    input = { send = "<C-s>", follow_up = "<C-f>", interrupt = "<C-x>" },
    review = { next = "]h", prev = "[h", keep = "ga", undo = "gr", undo_reason = "gR" },
    permission = { once = "o", session = "s", always = "a", deny = "d" },
    visual = "<leader>pa",   -- send the selection as @path#Lx-y (false: no map)
  },
}

M.options = vim.deepcopy(M.defaults)

function M.setup(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  return M.options
end

return M
