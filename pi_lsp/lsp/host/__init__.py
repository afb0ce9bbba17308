"""Agent sessions served to an editor: building them, their event streams, permissions, progress."""
