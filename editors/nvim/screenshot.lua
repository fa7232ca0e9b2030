-- Set-up for docs/editor.png (editors/nvim/screenshot.sh): the v4t server,
-- diagnostics as virtual text, and a hover on `dev_vm` once they arrived.
vim.o.termguicolors = false
vim.o.number = true
vim.o.laststatus = 0
vim.o.shortmess = vim.o.shortmess .. "F"
vim.cmd("syntax on")
vim.diagnostic.config({ virtual_text = true, underline = true, signs = true })
local buf = vim.api.nvim_get_current_buf()
local config = { name = "v4t", cmd = { os.getenv("V4T"), "lsp" }, root_dir = vim.fn.expand("%:p:h") }
local id = vim.lsp.start_client(config)
vim.lsp.buf_attach_client(buf, id)
vim.wait(20000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)
vim.lsp.handlers["textDocument/hover"] = vim.lsp.with(vim.lsp.handlers.hover, { border = "single" })
vim.fn.search("^        dev_vm:")
vim.cmd("normal! 3kzt3j^")
vim.lsp.buf.hover()
