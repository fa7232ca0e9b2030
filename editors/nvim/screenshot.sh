#!/usr/bin/env bash
# Renders docs/editor.png: Neovim with `v4t lsp` in a tmux pane (a warning
# and a hover), captured as text and drawn by ImageMagick. Needs nvim, tmux
# and ImageMagick (apt-get install neovim tmux imagemagick).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'tmux kill-session -t v4t-shot 2>/dev/null || true; rm -rf "$dir"' EXIT
# A typo that v4t warns about but that still resolves.
sed 's/^        prod_vm:$/        prod_vm:\n            descripton: The production machine./' \
    examples/web-app/template.yaml > "$dir/template.yaml"
tmux new-session -d -s v4t-shot -x 110 -y 24 \
    "V4T=$PWD/target/release/v4t nvim -u NONE -i NONE -n -c 'luafile editors/nvim/screenshot.lua' $dir/template.yaml"
sleep 6
tmux capture-pane -p -t v4t-shot > "$dir/screen.txt"
# One label per line, stacked (the text as arguments: ImageMagick's policy
# may refuse `@file`; `%` is its escape character).
labels=()
while IFS= read -r line; do
    line=${line//%/%%}
    # No-break spaces: a label drops leading blanks.
    labels+=("label:${line// / } ")
done < "$dir/screen.txt"
convert -background '#1e1e1e' -fill '#d4d4d4' -font DejaVu-Sans-Mono -pointsize 14 \
    "${labels[@]}" -gravity west -append -bordercolor '#1e1e1e' -border 12 docs/editor.png
