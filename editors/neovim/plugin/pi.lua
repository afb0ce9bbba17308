-- pi-lsp for Neovim: commands only; every module loads on first use.
if vim.g.loaded_pi then return end
vim.g.loaded_pi = 1

local function cmd(name, fn_name, opts)
  opts = opts or {}
  vim.api.nvim_create_user_command(name, function(o)
    require("pi.commands")[fn_name](o)
  end, opts)
end

cmd("Pi", "pi", { nargs = "*", range = true, desc = "pi: prompt (steers while a run is active)" })
cmd("PiFollowUp", "follow_up", { nargs = "*", range = true })
cmd("PiInterrupt", "interrupt", { nargs = "*", range = true })
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
cmd("PiRewind", "rewind", {})
cmd("PiRewindUndo", "rewind_undo", {})
cmd("PiRevert", "revert", {})
cmd("PiApprove", "approve", { nargs = "*" })
cmd("PiRules", "rules", { desc = 'pi: list the "always allow" rules, revoke the one picked' })
cmd("PiTodo", "todo", { desc = "pi: the agent's todo list in a float" })
cmd("PiPlan", "plan_mode", { desc = "pi: plan mode (read-only tools)" })
cmd("PiAct", "act", { desc = "pi: act mode; after a plan, the agent carries it out" })
cmd("PiAnswer", "answer", { nargs = "*", bang = true, desc = "pi: answer the agent's question" })
cmd("PiProcs", "procs", { desc = "pi: the session's background processes; pick one to stop it" })
cmd("PiExport", "export", { nargs = "?", complete = "file", desc = "pi: write the session as an HTML page" })
cmd("PiCompact", "compact", { desc = "pi: summarise the earlier turns to free context" })
