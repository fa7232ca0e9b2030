-- A headless Neovim session against `v4t lsp` (run by .ci/editor.sh):
--   V4T=target/release/v4t V4T_TEMPLATE=examples/web-app/template.yaml \
--     nvim --headless -u NONE -c "luafile editors/nvim/test.lua"
-- Copies TEMPLATE (the web-app example) with one mistake into a temporary
-- directory, opens it, starts the server with Neovim's built-in client,
-- waits for the diagnostic at the mistake's line, checks a hover and a
-- go-to-definition, and quits with exit code 0, or 1 on any failure.
-- Works with Neovim 0.7 (Debian 12) and later; no plugins.

local v4t, template = os.getenv("V4T"), os.getenv("V4T_TEMPLATE")

local function fail(message)
  io.stderr:write("editor test: FAIL: " .. message .. "\n")
  vim.cmd("cquit 1")
end

local function ok(message)
  io.stdout:write("editor test: ok: " .. message .. "\n")
end

local function run()
  assert(v4t and template, "set V4T (the binary) and V4T_TEMPLATE")
  local text = table.concat(vim.fn.readfile(template), "\n") .. "\n"
  -- The mistake: a misspelled operator in the condition of the shop's
  -- database requirement.
  local broken, n = text:gsub("node: shop_db\n(%s+)conditions: {logic_expression:", "node: shop_db\n%1conditions: {logic_expresion:")
  assert(n == 1, "the example changed: no condition to break")
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local path = dir .. "/template.yaml"
  vim.fn.writefile(vim.split(broken, "\n", { plain = true }), path)

  -- 0-based line of the first line matching `pattern` (after line `from`).
  local lines = vim.split(broken, "\n", { plain = true })
  local function line_of(pattern, from)
    for i = (from or 0) + 1, #lines do
      if lines[i]:find(pattern) then
        return i - 1, lines[i]:find(pattern) - 1
      end
    end
    error("no line matches " .. pattern)
  end

  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  local config = { name = "v4t", cmd = { v4t, "lsp" }, root_dir = dir }
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(config)
  else
    client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(buf, client_id)
  end
  assert(client_id, "the server did not start")

  -- The diagnostic at the mistake's line.
  local want = line_of("logic_expresion")
  local found = vim.wait(30000, function()
    return #vim.diagnostic.get(buf) > 0
  end, 50)
  if not found then
    return fail("no diagnostics within 30 s")
  end
  local d = vim.diagnostic.get(buf)[1]
  if d.lnum ~= want or d.severity ~= vim.diagnostic.severity.ERROR then
    return fail(("diagnostic at line %d (severity %s), expected line %d: %s"):format(d.lnum, d.severity, want, d.message))
  end
  ok(("diagnostic at line %d: %s"):format(d.lnum + 1, d.message:gsub("\n.*", "")))

  local client = vim.lsp.get_client_by_id(client_id)
  local function request(method, line, col)
    local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = col } }
    local response, err = client.request_sync(method, params, 10000, buf)
    if not response or response.err then
      error(method .. " failed: " .. vim.inspect(err or (response and response.err)))
    end
    return response.result
  end

  -- The code action the diagnostic suggests fixes the mistake; the
  -- diagnostics go away.
  local actions = client.request_sync("textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } },
    context = { diagnostics = {} },
  }, 10000, buf)
  local action = actions and actions.result and actions.result[1]
  if not action or not action.edit then
    return fail("no code action: " .. vim.inspect(actions))
  end
  vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
  if not vim.wait(30000, function()
    return #vim.diagnostic.get(buf) == 0
  end, 50) then
    return fail("diagnostics stay after the fix: " .. vim.inspect(vim.diagnostic.get(buf)))
  end
  ok(action.title .. ": the diagnostics are gone")

  -- Hover on a node template: its presence in each preset.
  local l, c = line_of("^        dev_vm:")
  local hover = request("textDocument/hover", l, c + 9)
  local value = hover and hover.contents and hover.contents.value or ""
  if not value:find("preset `prod`: absent", 1, true) then
    return fail("hover on dev_vm: " .. vim.inspect(hover))
  end
  ok("hover on dev_vm: " .. value:gsub("\n", " | "))

  -- Go to definition of a requirement's target.
  local def_line = line_of("^        web_server:")
  l, c = line_of("- host: web_server")
  local result = request("textDocument/definition", l, c + 10)
  local location = result and (result[1] or result)
  if not location or not location.range or location.range.start.line ~= def_line then
    return fail("definition of web_server: " .. vim.inspect(result))
  end
  ok(("definition of web_server: line %d"):format(location.range.start.line + 1))

  vim.lsp.stop_client(client_id)
  vim.fn.delete(dir, "rf")
  vim.cmd("qall!")
end

local success, err = pcall(run)
if not success then
  fail(tostring(err))
end
