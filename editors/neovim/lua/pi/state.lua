--- Shared client-side state: current session, last event seq, queue, pending permissions.
--- The record types below are what the modules keep and pass around; wire fields keep the
--- server's camelCase names (docs/protocol.md, docs/protocol.schema.json).

---@class pi.Position
---@field line integer 0-based
---@field character integer

---@class pi.Range
---@field start pi.Position
---@field end pi.Position

--- One message waiting in the run's queue (QueuedItem).
---@class pi.QueuedItem
---@field id string
---@field text string

--- The queue as pi/queue and the queue_update event give it (QueueResult).
---@class pi.Queue
---@field steering pi.QueuedItem[]
---@field followUp pi.QueuedItem[]

--- One pending change under review (pi/review, review_update).
---@class pi.Hunk
---@field id string
---@field toolCallId string
---@field range pi.Range where the new text is now
---@field oldText string
---@field newText string

--- One item of the agent's todo list (pi/state `todo`, todo_update).
---@class pi.TodoItem
---@field id string
---@field content string
---@field status "pending"|"in_progress"|"completed"

--- One option of an agent's question (AskOptionWire).
---@class pi.AskOption
---@field label string
---@field description? string

--- What the user answered to a question (AskResult).
---@class pi.Answer
---@field answers? string[] labels of the options picked
---@field text? string a typed answer
---@field cancelled? boolean

--- The agent's waiting question (pi/ask), shown in a float until :PiAnswer.
---@class pi.Question
---@field question string
---@field options pi.AskOption[]
---@field allowFreeText? boolean
---@field multiSelect? boolean
---@field toolCallId? string
---@field resume? fun(answer: pi.Answer) hands the answer to the waiting request handler

---@alias pi.PermissionKind "allowOnce"|"allowSession"|"allowAlways"|"deny"

--- One option of a permission question (PermissionOption).
---@class pi.PermissionOption
---@field id string
---@field label string
---@field kind pi.PermissionKind

--- The answer to a permission question (RequestPermissionResult).
---@class pi.PermissionAnswer
---@field optionId string
---@field reason? string why the user denied, told to the model

--- A pending permission question: pi/requestPermission ("permission") or
--- window/showMessageRequest ("message"), listed in the permission float until answered.
---@class pi.PermissionQuestion
---@field title string
---@field detail? string
---@field options pi.PermissionOption[]
---@field kind "permission"|"message"
---@field resume? fun(answer: pi.PermissionAnswer|nil) hands the answer to the waiting handler

--- The plugin's state (require("pi.state"), or require("pi").state()).
---@class pi.State
---@field session string|nil the current sessionId
---@field seq table<string, integer> sessionId -> last event seq seen
---@field streaming boolean a run is going on
---@field turn integer the current run's turn
---@field queue pi.Queue
---@field review table<string, pi.Hunk[]> uri -> pending hunks
---@field permissions pi.PermissionQuestion[] pending permission questions, oldest first
---@field touched table<string, boolean> uri -> true for files the agent edited
---@field restore_id string|nil the last restore or revert, for :PiRewindUndo
---@field restored_text string|nil the prompt :PiRewind put back, offered by the next :Pi
---@field last_message string|nil final text of the last assistant message
---@field mode "act"|"plan" the session's mode
---@field todo pi.TodoItem[] the agent's todo list
---@field question pi.Question|nil the agent's waiting question
---@field hold table[]|nil events held while re-attaching (shown after the replay)
---@field last_export string|nil the path :PiExport wrote last

---@type pi.State
local state = {
  session = nil,        -- current sessionId
  seq = {},             -- sessionId -> last seq seen
  streaming = false,
  turn = 0,
  queue = { steering = {}, followUp = {} },
  review = {},          -- uri -> hunks
  permissions = {},     -- pending permission questions
  touched = {},         -- uri -> true (files the agent edited)
  restore_id = nil,
  last_message = nil,   -- final text of the last assistant message
  mode = "act",         -- the session's mode: "act" | "plan"
  todo = {},            -- the agent's todo list: {id, content, status}
  question = nil,       -- the agent's waiting question (pi/ask)
}
return state
