#!/usr/bin/env bash
# The browser playground (web/): builds it (web/build.sh: the wasm module,
# its bindings, the page) and runs its test in headless Debian chromium.
# Installs what is missing: chromium (apt), the wasm32 target,
# wasm-bindgen-cli (web/build.sh), the npm packages (npm ci).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v npm >/dev/null || missing+=(nodejs npm)
if (( ${#missing[@]} )); then
    apt-get update -qq && apt-get install -y -qq "${missing[@]}"
fi
(cd web && npm ci --no-audit --no-fund)
web/build.sh
npm --prefix web test
