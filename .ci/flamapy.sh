#!/usr/bin/env bash
# flamapy (PyPI) counts the valid configurations of the variability models
# `v4t analyze --export uvl|dimacs` writes for generated templates, and
# must find as many as `v4t analyze` does. Needs the release binary.
set -euo pipefail
cd "$(dirname "$0")/.."
v4t=${V4T:-$PWD/target/release/v4t}
venv=${FLAMAPY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/v4t-ci/flamapy}
if ! "$venv/bin/python" -c 'import flamapy, pysat' 2>/dev/null; then
    if ! python3 -m venv "$venv" 2>/dev/null; then
        apt-get update -qq && apt-get install -y -qq python3-venv
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install -q flamapy
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" .ci/flamapy_check.py "$v4t" "$work"
