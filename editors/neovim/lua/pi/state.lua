--- Shared client-side state: current session, last event seq, queue, pending permissions.
return {
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
