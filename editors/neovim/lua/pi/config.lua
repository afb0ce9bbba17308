--- Defaults for require("pi").setup({...}); see :help pi-config.

---@class pi.ServerOptions
---@field cmd string[] how to start the server over stdio
---@field tcp nil|false|string "auto" (a background server per workspace, 0.10+) or "HOST:PORT"
---@field idle_timeout integer|nil "auto": seconds an idle background server lives
---@field state_dir string|nil "auto": where servers are recorded
---@field restart boolean restart (and re-attach) when the server exits
---@field max_restarts integer

---@class pi.ChatOptions
---@field layout "split"|"float"
---@field position "right"|"left"|"below"
---@field width number fraction of the editor
---@field render_ms integer redraw batching interval
---@field tool_output_lines integer head/tail lines of a tool's output kept (folded)

---@class pi.ReviewOptions
---@field ask_reason boolean gr asks for a reason told to the model

---@class pi.InputKeymaps
---@field send string|false
---@field follow_up string|false
---@field interrupt string|false

---@class pi.ReviewKeymaps
---@field next string|false
---@field prev string|false
---@field keep string|false
---@field undo string|false
---@field undo_reason string|false

---@class pi.PermissionKeymaps
---@field once string|false
---@field session string|false
---@field always string|false
---@field deny string|false

---@class pi.NotifyOptions
---@field permission boolean vim.notify (+ desktop when unfocused) when a permission question waits
---@field question boolean the same for the agent's question (pi/ask)
---@field done boolean the same when a run ends
---@field desktop "auto"|"osc777"|"osc9"|false the desktop notification while Neovim is unfocused
---@field context_warning number|false warn once the context passes this share of the window

---@class pi.Keymaps
---@field input pi.InputKeymaps chat-buffer maps
---@field review pi.ReviewKeymaps maps in buffers with hunks under review
---@field permission pi.PermissionKeymaps maps in the permission float
---@field visual string|false send the selection as @path#Lx-y

--- The plugin's options: M.defaults merged with what setup() was given.
---@class pi.Options
---@field server pi.ServerOptions
---@field settings table<string, any> initializationOptions.pi (provider, model, baseUrl, ...)
---@field root_markers string[]
---@field auto_attach boolean
---@field chat pi.ChatOptions
---@field review pi.ReviewOptions
---@field diagnostics boolean
---@field notify pi.NotifyOptions
---@field keymaps pi.Keymaps

--- What setup() takes: any part of pi.Options (merged deeply over the defaults).
---@alias pi.SetupOptions table

local M = {}

---@type pi.Options
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
  notify = {                 -- nudges (:help pi-notify)
    permission = true,       -- a permission question waits
    question = true,         -- the agent asks a question
    done = true,             -- a run ended
    desktop = "auto",        -- while unfocused: "osc777" | "osc9" | "auto" | false
    context_warning = 0.8,   -- warn once the context passes 80 % of the window (false: never)
  },
  keymaps = {
    input = { send = "<C-s>", follow_up = "<C-f>", interrupt = "<C-x>" },
    review = { next = "]h", prev = "[h", keep = "ga", undo = "gr", undo_reason = "gR" },
    permission = { once = "o", session = "s", always = "a", deny = "d" },
    visual = "<leader>pa",   -- send the selection as @path#Lx-y (false: no map)
  },
}

---@type pi.Options
M.options = vim.deepcopy(M.defaults)

--- Merge `opts` over the defaults into M.options.
---@param opts? pi.SetupOptions
---@return pi.Options
function M.setup(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  return M.options
end

return M
