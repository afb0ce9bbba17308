"""The editor's side of the agent's work: buffers, edits as LSP edits, positions, review
hunks, attachments."""
