#!/usr/bin/env bash
# The pre-commit hooks of .pre-commit-hooks.yaml:
#
#   hooks/v4t.sh validate FILE...            v4t validate each file
#   hooks/v4t.sh resolve-check [OPTIONS] FILE...
#                                            v4t resolve --validate each file
#                                            (OPTIONS: --presets NAMES,
#                                            --input N=V, --inputs FILE)
#
# The v4t binary: $V4T, else `v4t` on PATH, else built once from this
# repository (cargo; honours CARGO_TARGET_DIR).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
v4t=${V4T:-}
if [[ -z $v4t ]]; then
    if command -v v4t >/dev/null; then
        v4t=v4t
    else
        target=${CARGO_TARGET_DIR:-$here/target}
        v4t=$target/release/v4t
        if [[ ! -x $v4t ]]; then
            cargo build --release --locked --quiet --manifest-path "$here/Cargo.toml" -p v4t-cli >&2
        fi
    fi
fi

mode=$1
shift
# pre-commit passes the hook's args, then the files.
args=()
files=()
while (($#)); do
    case $1 in
        --presets | --input | --inputs)
            args+=("$1" "${2:-}")
            shift
            ;;
        --*) args+=("$1") ;;
        *) files+=("$1") ;;
    esac
    shift
done

status=0
for file in "${files[@]}"; do
    case $mode in
        validate) "$v4t" validate "$file" || status=1 ;;
        resolve-check) "$v4t" resolve --validate --quiet ${args[@]+"${args[@]}"} "$file" >/dev/null || status=1 ;;
        *)
            echo "error: unknown hook mode \"$mode\"" >&2
            exit 2
            ;;
    esac
done
exit "$status"
