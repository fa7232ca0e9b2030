#!/usr/bin/env bash
# Builds the playground into web/dist/: v4t-wasm for wasm32-unknown-unknown
# (release), its JavaScript bindings (wasm-bindgen-cli of exactly the
# wasm-bindgen version in Cargo.lock, installed when missing) and the page
# (npm + Vite). No wasm-opt: binaryen's -Oz saved nothing after gzip
# (815 KB against 810 KB) and broke the module's function table.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)

version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' "$root/Cargo.lock")
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
if [[ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $version" ]]; then
    cargo install wasm-bindgen-cli --version "$version"
fi

# No debug information in the module (the workspace's release profile keeps some).
CARGO_PROFILE_RELEASE_DEBUG=0 \
    cargo build --manifest-path "$root/Cargo.toml" -p v4t-wasm --release --target wasm32-unknown-unknown
rm -rf src/pkg
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section --out-dir src/pkg \
    "$root/target/wasm32-unknown-unknown/release/v4t_wasm.wasm"

[[ -d node_modules ]] || npm ci --no-audit --no-fund
npx vite build --logLevel warn
wasm=$(ls dist/assets/*.wasm)
echo "wasm: $(stat -c %s "$wasm") bytes, $(gzip -9 -c "$wasm" | wc -c) gzipped"
