#!/usr/bin/env bash
# The language server in a real editor: a headless Neovim session
# (editors/nvim/test.lua) starts `target/release/v4t lsp`, opens a template
# with a mistake, waits for the diagnostic at its line, checks a hover and a
# go-to-definition. Installs Debian's neovim only when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvim >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq neovim >/dev/null
fi
[[ -x target/release/v4t ]] || cargo build --release

# `timeout`: a hung editor or server fails the run instead of blocking it.
V4T="$PWD/target/release/v4t" V4T_TEMPLATE="$PWD/examples/web-app/template.yaml" \
    timeout 120 nvim --headless -u NONE -i NONE -n -c "luafile editors/nvim/test.lua"
