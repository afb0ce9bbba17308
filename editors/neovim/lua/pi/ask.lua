--- The agent's questions (pi/ask): an unfocused float lists the options, :PiAnswer answers
--- (a number, several with commas, a label, or any other text as a typed answer; :PiAnswer!
--- dismisses it), and a message typed with :Pi while a question waits is its answer. Where
--- a request handler cannot wait (Neovim 0.7) the question is asked with vim.ui.select.
local float = require("pi.float")
local state = require("pi.state")

local M = { win = nil, buf = nil }

local function render()
  local q = state.question
  if not q then return float.close(M) end
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    M.buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(M.buf, "pi://question")
  end
  local lines = { "? " .. q.question }
  for i, o in ipairs(q.options) do
    table.insert(lines, ("  %d. %s%s"):format(i, o.label, o.description and (" — " .. o.description) or ""))
  end
  local how = q.multiSelect and ":PiAnswer 1,2" or ":PiAnswer 1"
  if q.allowFreeText then how = how .. " · :PiAnswer <your text>" end
  table.insert(lines, "  (" .. how .. " · :PiAnswer! dismisses)")
  float.show(M, lines)
end

local function finish(answer)
  local q = state.question
  if not q then return end
  state.question = nil
  render()
  q.resume(answer)
end

--- What the user typed, as an answer: "2", "1,3", a label, or free text.
---@param q pi.Question
---@param text string
---@return pi.Answer
function M.parse(q, text)
  text = vim.trim(text or "")
  local picked = {}
  if text:match("^[%d,%s]+$") then
    for n in text:gmatch("%d+") do
      local o = q.options[tonumber(n)]
      if o then table.insert(picked, o.label) end
    end
    if #picked > 0 then
      if not q.multiSelect then picked = { picked[1] } end
      return { answers = picked }
    end
  end
  for _, o in ipairs(q.options) do
    if o.label:lower() == text:lower() then return { answers = { o.label } } end
  end
  return { answers = {}, text = text }
end

--- The options to pick from, and a "type an answer" item where free text is allowed.
local function choices(q)
  local items = vim.deepcopy(q.options)
  if q.allowFreeText then table.insert(items, { label = "Type an answer…", free = true }) end
  return items
end

--- :PiAnswer [text] — no argument: pick with vim.ui.select; :PiAnswer! dismisses.
---@param o? pi.CommandOpts
function M.answer(o)
  local q = state.question
  if not q then return vim.notify("pi: no question is waiting") end
  if o and o.bang then return finish({ cancelled = true }) end
  local args = o and o.args or ""
  if args ~= "" then return finish(M.parse(q, args)) end
  vim.ui.select(choices(q), { prompt = q.question, format_item = function(it) return it.label end }, function(it)
    if not it then return end
    if it.free then
      vim.ui.input({ prompt = q.question .. " " }, function(t)
        if t and t ~= "" then finish({ answers = {}, text = t }) end
      end)
    else
      finish({ answers = { it.label } })
    end
  end)
end

--- A message typed while a question waits answers it; true when it did.
---@param text string
---@return boolean
function M.take_message(text)
  local q = state.question
  if not q then return false end
  require("pi.chat").note("answered: " .. text)
  finish(M.parse(q, text))
  return true
end

--- The run ended (abort): the server withdrew the question.
function M.withdraw()
  if state.question then finish({ cancelled = true }) end
end

--- Synchronous form for a Neovim whose handlers cannot wait.
local function ask_now(q)
  local answer = { cancelled = true }
  vim.ui.select(choices(q), { prompt = q.question, format_item = function(it) return it.label end }, function(it)
    if not it then return end
    if it.free then
      local t = vim.fn.input(q.question .. " ")
      if t ~= "" then answer = { answers = {}, text = t } end
    else
      answer = { answers = { it.label } }
    end
  end)
  return answer
end

--- pi/ask {sessionId, toolCallId, question, options, allowFreeText, multiSelect}
---   -> {answers, text?} | {cancelled: true}
---@param _ any
---@param params table AskRequestParams
---@return pi.Answer
function M.ask(_, params)
  local q = { question = params.question or "?", options = params.options or {},
    allowFreeText = params.allowFreeText, multiSelect = params.multiSelect,
    toolCallId = params.toolCallId }
  require("pi.chat").note("question: " .. q.question .. "  (:PiAnswer)", "WarningMsg")
  require("pi.status").nudge("question", "the agent asks: " .. q.question)
  if not require("pi.permission").can_wait() then return ask_now(q) end
  if state.question then state.question.resume({ cancelled = true }) end  -- superseded
  local co = coroutine.running()
  q.resume = function(answer) coroutine.resume(co, answer) end
  state.question = q
  local ok, err = pcall(render)
  if not ok then vim.notify("pi: " .. tostring(err), vim.log.levels.ERROR) end
  local answer = coroutine.yield()
  if answer.cancelled then return { cancelled = true } end
  local out = { answers = answer.answers or {} }
  if answer.text and answer.text ~= "" then out.text = answer.text end
  return out
end

return M
