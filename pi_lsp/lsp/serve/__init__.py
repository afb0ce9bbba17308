"""The entry points that start a server on a connection: stdio and TCP (they import
``server.py``; nothing below them imports them)."""
