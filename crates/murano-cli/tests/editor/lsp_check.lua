-- Drives `murano lsp` from a real Neovim (0.7: vim.lsp.start_client and
-- buf_attach_client; there is no vim.lsp.start). The Rust test
-- (tests/editor.rs) passes the program, the workspace, the file and the
-- positions in environment variables and reads the JSON this writes.
local env = vim.env
local out = {}
local function finish()
  local f = assert(io.open(env.LSP_OUT, 'w'))
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd('qa!')
end

local client_id = vim.lsp.start_client({
  cmd = { env.LSP_PROGRAM, 'lsp' },
  root_dir = env.LSP_ROOT,
  on_exit = function(code) out.exit = code end,
})
if not client_id then
  out.error = 'the client did not start'
  finish()
end
vim.cmd('edit ' .. vim.fn.fnameescape(env.LSP_FILE))
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, client_id)
local client = vim.lsp.get_client_by_id(client_id)

local ok = vim.wait(60000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  table.insert(out.diagnostics, { code = d.code, line = d.lnum, severity = d.severity })
end
if not ok then out.error = 'no diagnostics' end

local function at(name)
  return {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = tonumber(env['LSP_' .. name .. '_LINE']), character = tonumber(env['LSP_' .. name .. '_COL']) },
  }
end
local function ask(method, params)
  local response, err = client.request_sync(method, params, 30000, bufnr)
  if not response then return { error = tostring(err) } end
  if response.err then return { error = response.err.message } end
  return response.result
end

local hover = ask('textDocument/hover', at('HOVER'))
out.hover = hover and hover.contents and hover.contents.value or vim.inspect(hover)

local def = ask('textDocument/definition', at('DEFINITION'))
if def and def.uri then
  out.definition = { uri = def.uri, line = def.range.start.line }
elseif def and def[1] then
  out.definition = { uri = def[1].uri, line = def[1].range.start.line }
end

local completion = ask('textDocument/completion', at('COMPLETION'))
out.completion = {}
local items = completion and (completion.items or completion) or {}
for _, item in ipairs(items) do table.insert(out.completion, item.label) end

local params = at('RENAME')
params.newName = env.LSP_NEW_NAME
local rename = ask('textDocument/rename', params)
out.rename = {}
for uri, edits in pairs((rename and rename.changes) or {}) do
  for _, e in ipairs(edits) do
    table.insert(out.rename, { uri = uri, line = e.range.start.line, text = e.newText })
  end
end
finish()
