--- pi/lspQuery {method, params} -> {result, positionEncoding}: the agent's lsp tool asks the
--- language servers attached in this Neovim (every client but pi's own), asynchronously: the
--- handler yields while the requests run (never vim.lsp.buf_request_sync, which blocks the UI).
--- A file not loaded is loaded into a hidden buffer and its servers are waited for (LspAttach,
--- at most 5 s). Positions come in UTF-16; each client gets them in its own offset encoding,
--- and the reply names the encoding of the answers it merges.
local M = {}

local OWN = "pi"
local ATTACH_MS = 5000
local METHOD_NOT_FOUND = -32601

---@param code integer
---@param message string
---@return table
local function rpc_error(code, message)
  return vim.lsp.rpc.rpc_response_error(code, message)
end

---@param client table
---@param method string
---@param buf integer|nil
---@return boolean
local function supports(client, method, buf)
  local mt = getmetatable(client)
  if mt ~= nil and type(mt.__index) == "table" and mt.__index.supports_method then
    return client:supports_method(method, buf)
  end
  return client.supports_method(method, { bufnr = buf })
end

---@param buf integer|nil
---@param method string
---@return table[]
local function clients_for(buf, method)
  local out = {}
  local opts = buf and { bufnr = buf } or {}
  for _, c in ipairs(vim.lsp.get_clients(opts)) do
    if c.name ~= OWN and supports(c, method, buf) then table.insert(out, c) end
  end
  return out
end

--- The buffer of `uri`, loaded (hidden) when it was not.
---@param uri string
---@return integer
local function buffer_for(uri)
  local buf = vim.uri_to_bufnr(uri)
  if not vim.api.nvim_buf_is_loaded(buf) then
    vim.fn.bufload(buf)
    vim.bo[buf].buflisted = false
  end
  if vim.bo[buf].filetype == "" then
    local ft = vim.filetype.match({ buf = buf })
    if ft then vim.bo[buf].filetype = ft end -- FileType: vim.lsp.enable()d servers attach
  end
  return buf
end

--- Yield until a server other than pi's attaches to `buf` (or the time is up).
---@param buf integer
---@param method string
local function wait_for_attach(buf, method)
  if #clients_for(buf, method) > 0 then return end
  local co = coroutine.running()
  local done = false
  local function wake()
    if done then return end
    done = true
    vim.schedule(function() coroutine.resume(co) end)
  end
  local id = vim.api.nvim_create_autocmd("LspAttach", {
    buffer = buf,
    callback = function(args)
      local c = vim.lsp.get_client_by_id(args.data.client_id)
      if c and c.name ~= OWN then wake() end
    end,
  })
  local timer = vim.defer_fn(wake, ATTACH_MS)
  coroutine.yield()
  pcall(vim.api.nvim_del_autocmd, id)
  if timer and not timer:is_closing() then timer:close() end
end

--- A UTF-16 position of `buf` in `encoding`.
---@param buf integer
---@param pos table {line, character}
---@param encoding string
---@return table
local function convert(buf, pos, encoding)
  if encoding == "utf-16" or pos == nil then return pos end
  local line = vim.api.nvim_buf_get_lines(buf, pos.line, pos.line + 1, false)[1] or ""
  local ok, byte = pcall(vim.str_byteindex, line, "utf-16", pos.character, false)
  if not ok then byte = vim.str_byteindex(line, pos.character, true) end
  if encoding == "utf-8" then return { line = pos.line, character = byte } end
  local ok32, units = pcall(vim.str_utfindex, line, "utf-32", byte, false)
  return { line = pos.line, character = ok32 and units or byte }
end

--- Ask every client and merge: lists are concatenated, else the first answer counts.
---@param clients table[]
---@param method string
---@param params table
---@param buf integer|nil
---@return any result, string encoding
local function ask_all(clients, method, params, buf)
  local co = coroutine.running()
  local pending = #clients
  local answers = {}
  for _, c in ipairs(clients) do
    local p = params
    local encoding = c.offset_encoding or "utf-16"
    if buf and params.position then
      p = vim.tbl_extend("force", params, { position = convert(buf, params.position, encoding) })
    end
    local ok = pcall(function()
      require("pi.protocol").call(c, "request", method, p, function(err, result)
        table.insert(answers, { err = err, result = result, encoding = encoding })
        pending = pending - 1
        if pending == 0 then vim.schedule(function() coroutine.resume(co) end) end
      end, buf)
    end)
    if not ok then pending = pending - 1 end
  end
  if pending > 0 then coroutine.yield() end
  local merged, first, encoding = {}, nil, nil
  for _, a in ipairs(answers) do
    if a.err == nil and a.result ~= nil and a.result ~= vim.NIL then
      encoding = encoding or a.encoding
      if a.encoding == encoding then
        if vim.islist and vim.islist(a.result) or (not vim.islist and vim.tbl_islist(a.result)) then
          vim.list_extend(merged, a.result)
        elseif first == nil then
          first = a.result
        end
      end
    end
  end
  if first ~= nil then return first, encoding or "utf-16" end
  if #merged > 0 then return merged, encoding or "utf-16" end
  return vim.NIL, "utf-16"
end

--- pi/lspQuery handler (runs as a coroutine where Neovim lets handlers wait).
---@param _ any
---@param params table {method, params}
---@return table|nil result
---@return table|nil err
function M.answer(_, params)
  if not require("pi.permission").can_wait() then
    return nil, rpc_error(METHOD_NOT_FOUND, "this Neovim cannot answer pi/lspQuery")
  end
  local method, p = params.method, params.params or {}
  local uri = (p.textDocument and p.textDocument.uri) or (p.item and p.item.uri)
  local buf = uri and buffer_for(uri) or nil
  if buf then wait_for_attach(buf, method) end
  local clients = clients_for(buf, method)
  if #clients == 0 then
    return nil, rpc_error(METHOD_NOT_FOUND, "no language server here supports " .. method)
  end
  local result, encoding = ask_all(clients, method, p, buf)
  return { result = result, positionEncoding = encoding }
end

return M
