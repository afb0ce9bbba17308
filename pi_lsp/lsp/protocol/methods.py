"""The ``pi/*`` method and ``pi.*`` command names (public API), with no heavy imports.

Re-exported by ``protocol`` (which adds the params/result models); kept separate so the
start-up path (``stdio``) can name the commands before pygls and pydantic are loaded.
"""

from __future__ import annotations

# client -> server requests
PROMPT = "pi/prompt"
STEER = "pi/steer"
FOLLOW_UP = "pi/followUp"
ABORT = "pi/abort"
NEW_SESSION = "pi/newSession"
SESSIONS = "pi/sessions"
RESUME_SESSION = "pi/resumeSession"
STATE = "pi/state"
REPLAY = "pi/replay"
FORK_SESSION = "pi/forkSession"
COMPACT = "pi/compact"
REVIEW = "pi/review"
REVIEW_DECISION = "pi/reviewDecision"
CHECKPOINTS = "pi/checkpoints"
RESTORE = "pi/restore"
UNDO_RESTORE = "pi/undoRestore"
REVERT_TOOL_CALL = "pi/revertToolCall"
QUEUE = "pi/queue"
MODELS = "pi/models"
SET_MODEL = "pi/setModel"
PERMISSIONS = "pi/permissions"
SET_MODE = "pi/setMode"
MCP = "pi/mcp"
CODE_REVIEW = "pi/codeReview"
DISMISS_FINDING = "pi/dismissFinding"
COMMANDS_LIST = "pi/commands"
CONTEXT = "pi/context"
RELOAD = "pi/reload"
PROCESSES = "pi/processes"
EXPORT = "pi/export"
REQUESTS = (
    PROMPT,
    STEER,
    FOLLOW_UP,
    ABORT,
    NEW_SESSION,
    SESSIONS,
    RESUME_SESSION,
    STATE,
    REPLAY,
    FORK_SESSION,
    COMPACT,
    QUEUE,
    MODELS,
    SET_MODEL,
    PERMISSIONS,
    SET_MODE,
    MCP,
    COMMANDS_LIST,
    CONTEXT,
    RELOAD,
    PROCESSES,
    EXPORT,
    REVIEW,
    REVIEW_DECISION,
    CHECKPOINTS,
    RESTORE,
    UNDO_RESTORE,
    REVERT_TOOL_CALL,
    CODE_REVIEW,
    DISMISS_FINDING,
)
# server -> client
EVENT = "pi/event"
SAVE_DOCUMENTS = "pi/saveDocuments"
DIAGNOSTICS = "pi/diagnostics"
REQUEST_PERMISSION = "pi/requestPermission"
ASK = "pi/ask"
LSP_QUERY = "pi/lspQuery"
# workspace/executeCommand commands (arguments: one object, the request's params)
CMD_PROMPT = "pi.prompt"
CMD_STEER = "pi.steer"
CMD_FOLLOW_UP = "pi.followUp"
CMD_ABORT = "pi.abort"
CMD_NEW_SESSION = "pi.newSession"
CMD_CODE_REVIEW = "pi.codeReview"
CMD_DISMISS_FINDING = "pi.dismissFinding"
COMMANDS = (
    CMD_PROMPT,
    CMD_STEER,
    CMD_FOLLOW_UP,
    CMD_ABORT,
    CMD_NEW_SESSION,
    CMD_CODE_REVIEW,
    CMD_DISMISS_FINDING,
)
CODE_ACTION_KINDS = ("quickfix",)
