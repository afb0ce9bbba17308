"""Shared test helpers: the scripted HTTP server, LSP client factories, event recorders."""
