-- pi-lsp for Neovim: commands only; every module loads on first use.
if vim.g.loaded_pi then return end
vim.g.loaded_pi = 1

local function cmd(name, fn_name, opts)
  opts = opts or {}
  vim.api.nvim_create_user_command(name, function(o)
    require("pi.commands")[fn_name](o)
  end, opts)
end

-- `/` completes the server's commands (prompt templates, skills): pi/context.lua; `@` a
-- workspace symbol from Neovim's other language servers: pi/mention.lua
local function slash(lead, line)
  if lead:sub(1, 1) == "@" then return require("pi.mention").complete(lead) end
  return require("pi.context").complete(lead, line)
end
cmd("Pi", "pi", { nargs = "*", range = true, complete = slash, desc = "pi: prompt (steers while a run is active)" })
cmd("PiFollowUp", "follow_up", { nargs = "*", range = true, complete = slash })
cmd("PiInterrupt", "interrupt", { nargs = "*", range = true, complete = slash })
cmd("PiAbort", "abort", {})
cmd("PiQueue", "queue", {})
cmd("PiNew", "new", {})
cmd("PiSessions", "sessions", {})
cmd("PiAttach", "attach", { desc = "pi: reattach to the workspace's background server and its running session" })
cmd("PiChat", "chat", { nargs = "?" })
cmd("PiModel", "model", {})
cmd("PiMcp", "mcp", {})
cmd("PiFix", "fix", { nargs = "*" })
cmd("PiChanges", "changes", {})
cmd("PiReview", "review", { nargs = "*", desc = "pi: code review of the diff (--base REF | --commit SHA); findings in the quickfix list" })
cmd("PiRewind", "rewind", {})
cmd("PiRewindUndo", "rewind_undo", {})
cmd("PiRevert", "revert", {})
cmd("PiApprove", "approve", { nargs = "*" })
cmd("PiRules", "rules", { desc = 'pi: list the "always allow" rules, revoke the one picked' })
cmd("PiContext", "context", { desc = "pi: the context files, skills and templates loaded; <CR> opens one" })
cmd("PiReload", "reload", { desc = "pi: load the context files, skills and templates again" })
cmd("PiTodo", "todo", { desc = "pi: the agent's todo list in a float" })
cmd("PiPlan", "plan_mode", { desc = "pi: plan mode (read-only tools)" })
cmd("PiAct", "act", { desc = "pi: act mode; after a plan, the agent carries it out" })
cmd("PiChild", "child", { nargs = "?", complete = function() return require("pi.children").complete() end,
  desc = "pi: a subagent's transcript (default: the latest)" })
-- :PiInstall — pi-lsp in stdpath("data")/pi/venv (pi.install), e.g. lazy.nvim's build = ":PiInstall"
vim.api.nvim_create_user_command("PiInstall", function() require("pi.install").run() end,
  { desc = "pi: install the plugin's pi-lsp into a managed venv (uv, or venv + pip)" })
cmd("PiAnswer", "answer", { nargs = "*", bang = true, desc = "pi: answer the agent's question" })
cmd("PiProcs", "procs", { desc = "pi: the session's background processes; pick one to stop it" })
cmd("PiExport", "export", { nargs = "?", complete = "file", desc = "pi: write the session as an HTML page" })
cmd("PiCompact", "compact", { desc = "pi: summarise the earlier turns to free context" })
