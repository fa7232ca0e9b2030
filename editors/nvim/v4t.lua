-- Neovim (0.8 or later): `v4t lsp` for YAML files. Put this in init.lua,
-- or `:luafile editors/nvim/v4t.lua`.
vim.api.nvim_create_autocmd("FileType", {
  pattern = "yaml",
  callback = function(args)
    vim.lsp.start({
      name = "v4t",
      cmd = { "v4t", "lsp" },
      root_dir = vim.fs.dirname(vim.api.nvim_buf_get_name(args.buf)),
    })
  end,
})
