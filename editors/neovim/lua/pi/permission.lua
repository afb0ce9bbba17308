--- Permission questions (pi/requestPermission, §8) and window/showMessageRequest, asked without
--- blocking typing: an unfocused float lists them; :PiApprove or the float's keys answer. Where
--- Neovim cannot let a request handler wait (0.7 answers server requests synchronously), the
--- question falls back to vim.ui.select.
local config = require("pi.config")
local float = require("pi.float")
local state = require("pi.state")

local M = { win = nil, buf = nil }

--- Whether the running code may yield (a request handler in a coroutine).
---@return boolean
function M.can_wait()
  local co, main = coroutine.running()
  return co ~= nil and not main
end

local function kind_key(kind)
  local k = config.options.keymaps.permission
  return ({ allowOnce = k.once, allowSession = k.session, allowAlways = k.always, deny = k.deny })[kind]
end

local function render()
  if #state.permissions == 0 then return float.close(M) end
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    M.buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(M.buf, "pi://permissions")
    for kind, _ in pairs({ allowOnce = 1, allowSession = 1, allowAlways = 1, deny = 1 }) do
      local lhs = kind_key(kind)
      if lhs then
        vim.keymap.set("n", lhs, function() M.answer_kind(kind) end, { buffer = M.buf, nowait = true })
      end
    end
  end
  local lines = {}
  for i, q in ipairs(state.permissions) do
    local title = vim.split(q.title or "", "\n", { plain = true })
    table.insert(lines, ("%d. %s"):format(i, title[1]))
    for j = 2, #title do if title[j] ~= "" then table.insert(lines, "   " .. title[j]) end end
    for _, l in ipairs(vim.split(q.detail or "", "\n", { plain = true })) do table.insert(lines, "   " .. l) end
    local keys = {}
    for _, o in ipairs(q.options) do table.insert(keys, ("[%s] %s"):format(kind_key(o.kind) or "?", o.label)) end
    table.insert(lines, "   " .. table.concat(keys, "  ") .. "   (:PiApprove)")
  end
  float.show(M, lines)
end

local function wait_for(q)
  local co = coroutine.running()
  table.insert(state.permissions, q)
  require("pi.status").nudge("permission", "permission needed: " .. (vim.split(q.title or "", "\n")[1] or ""))
  q.resume = function(answer)
    for i, p in ipairs(state.permissions) do if p == q then table.remove(state.permissions, i) break end end
    render()
    coroutine.resume(co, answer)
  end
  local ok, err = pcall(render)
  if not ok then vim.notify("pi: " .. tostring(err), vim.log.levels.ERROR) end
  return coroutine.yield()
end

--- pi/requestPermission {sessionId, toolCallId, tool, title, detail, options} -> {optionId, reason?}
---@param params table RequestPermissionParams
---@return pi.PermissionAnswer|userdata answer or vim.NIL
function M.ask(params)
  local q = { title = params.title or params.tool or "permission", detail = params.detail,
              options = params.options or {}, kind = "permission" }
  if M.can_wait() then return wait_for(q) end
  require("pi.status").nudge("permission", "permission needed: " .. (vim.split(q.title, "\n")[1] or ""))
  local choice
  vim.ui.select(q.options, { prompt = q.title .. "\n" .. (q.detail or ""),
    format_item = function(o) return o.label end }, function(o) choice = o end)
  if not choice then
    for _, o in ipairs(q.options) do if o.kind == "deny" then return { optionId = o.id } end end
    return vim.NIL
  end
  return { optionId = choice.id }
end

local function message_kinds(actions)
  local opts = {}
  for i, a in ipairs(actions or {}) do
    local t = a.title:lower()
    local kind = t:match("always") and "allowAlways" or (t:match("deny") or t:match("reject")) and "deny"
      or (i == 1 and "allowOnce") or "allowSession"
    table.insert(opts, { id = a.title, label = a.title, kind = kind })
  end
  return opts
end

--- window/showMessageRequest, shown the same way (never modal); answered with {title}.
---@param params table ShowMessageRequestParams
---@return {title: string}|userdata
function M.ask_message(params)
  local q = { title = params.message, options = message_kinds(params.actions), kind = "message" }
  local answer = wait_for(q)
  if answer == nil or answer.optionId == nil then return vim.NIL end
  return { title = answer.optionId }
end

local function pick_option(q, kind)
  for _, o in ipairs(q.options) do if o.kind == kind then return o end end
end

--- Answer the oldest pending question with an option of this kind.
---@param kind pi.PermissionKind
---@param reason? string
function M.answer_kind(kind, reason)
  local q = state.permissions[1]
  if not q then return vim.notify("pi: no pending permission question") end
  local o = pick_option(q, kind)
  if not o then return vim.notify("pi: no '" .. kind .. "' option for this question", vim.log.levels.WARN) end
  if kind == "deny" and reason == nil and q.kind == "permission" then
    vim.ui.input({ prompt = "Reason (optional): " }, function(r)
      q.resume({ optionId = o.id, reason = (r ~= nil and r ~= "") and r or nil })
    end)
    return
  end
  q.resume({ optionId = o.id, reason = reason })
end

--- A new instruction (steering, an interrupt) while permission questions wait denies them, the
--- instruction as the reason the model reads (as the VS Code client does): the model goes on
--- with what the user said instead of the held tool call.
---@param text string
function M.deny_waiting(text)
  for _, q in ipairs(vim.list_slice(state.permissions, 1, #state.permissions)) do
    local o = q.kind == "permission" and q.resume and pick_option(q, "deny")
    if o then q.resume({ optionId = o.id, reason = "The user sent a new instruction instead: " .. text }) end
  end
end

--- :PiApprove [once|session|always|deny [reason]] — no argument: pick with vim.ui.select.
---@param args string
function M.approve(args)
  local word, rest = (args or ""):match("^(%S*)%s*(.*)$")
  local kinds = { once = "allowOnce", session = "allowSession", always = "allowAlways", deny = "deny" }
  if word ~= "" then return M.answer_kind(kinds[word] or word, rest ~= "" and rest or nil) end
  local q = state.permissions[1]
  if not q then return vim.notify("pi: no pending permission question") end
  vim.ui.select(q.options, { prompt = q.title, format_item = function(o) return o.label end }, function(o)
    if o then M.answer_kind(o.kind, o.kind == "deny" and "" or nil) end
  end)
end

--- Whether Neovim runs server-request handlers in a coroutine (0.10+), found by reading its source.
---@return boolean
function M.handlers_can_wait()
  local files = vim.api.nvim_get_runtime_file("lua/vim/lsp/rpc.lua", false)
  if #files == 0 then return false end
  local f = io.open(files[1]); if not f then return false end
  local src = f:read("*a"); f:close()
  return src:find("schedule(coroutine.wrap", 1, true) ~= nil
end

return M
