-- luacheck over the plugin (`luacheck lua` from editors/neovim; tests/editors/test_luacheck.py
-- runs it and fails CI on any warning).
std = 'luajit' -- Neovim embeds LuaJIT (Lua 5.1 + LuaJIT extensions)
-- `vim` is Neovim's API table; the plugin sets fields on it (vim.b[...], vim.bo, vim.wo, ...),
-- which luacheck would report as mutating a global, so it is a writable global here.
globals = { 'vim' }
-- 140, not 120: the plugin writes short guards as one-line `if ... then ... end` and keeps
-- user-facing messages on one line so they can be grepped; 140 still flags runaway lines.
max_line_length = 140
