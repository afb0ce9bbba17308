"""The editor's side of the agent's work: buffers, edits as LSP edits, review hunks,
attachments."""
