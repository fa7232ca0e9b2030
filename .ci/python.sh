#!/usr/bin/env bash
# The Python package and the CI building blocks, checked by real clients:
#
# * `pip install ./python` into a fresh virtual environment (maturin builds
#   the module from source), then the pytest suite in python/tests: the API,
#   the README's examples, every preset of every bundled example handed to
#   OpenStack tosca-parser and xOpera (`opera validate`) for TOSCA 1.3 and
#   to `v4t validate` for TOSCA 2.0;
# * `--format sarif` of the binary against the official SARIF 2.1.0 schema
#   (sarif-2.1.0-rtm.5.json from the npm package @microsoft/jest-sarif);
# * the GitHub Action's script and the pre-commit hooks (`pre-commit
#   try-repo`).
#
# Tools are cached in ~/.cache/v4t-ci (pip downloads, the tools' virtual
# environments, the schema); the package's own environment is new each run.
# Expects the release binary (target/release/v4t) that .ci/run builds.
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$PWD
cache=${XDG_CACHE_HOME:-$HOME/.cache}/v4t-ci
mkdir -p "$cache"
export PIP_CACHE_DIR=$cache/pip PIP_DISABLE_PIP_VERSION_CHECK=1
v4t_bin=$repo/target/release/v4t
if [[ ! -x $v4t_bin ]]; then
    cargo build --release -p v4t-cli
fi

# The extension crate is not a workspace member: its format and lints here.
cargo fmt --check --manifest-path python/Cargo.toml
CARGO_TARGET_DIR=$repo/target cargo clippy --quiet --manifest-path python/Cargo.toml -- -D warnings

# xOpera in an environment of its own (its pins differ from tosca-parser's);
# its dependencies need Cython < 3 to build on Python 3.11.
opera_env=$cache/opera-env
if [[ ! -x $opera_env/bin/opera ]]; then
    rm -rf "$opera_env"
    python3 -m venv "$opera_env"
    echo 'cython<3' >"$cache/opera-constraints.txt"
    PIP_CONSTRAINT=$cache/opera-constraints.txt "$opera_env/bin/pip" install -q opera
fi

# The official SARIF 2.1.0 schema, as an npm package ships it.
schema=$cache/sarif-2.1.0-rtm.5.json
if [[ ! -s $schema ]]; then
    npm_dir=$(mktemp -d)
    (cd "$npm_dir" && npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 >/dev/null &&
        tar -xzf microsoft-jest-sarif-*.tgz package/lib/schemas/sarif-2.1.0-rtm.5.json)
    mv "$npm_dir/package/lib/schemas/sarif-2.1.0-rtm.5.json" "$schema"
    rm -rf "$npm_dir"
fi

# pre-commit in a cached environment.
tools_env=$cache/tools-env
if [[ ! -x $tools_env/bin/pre-commit ]]; then
    rm -rf "$tools_env"
    python3 -m venv "$tools_env"
    "$tools_env/bin/pip" install -q pre-commit
fi

# The package in a fresh environment. Its build shares the workspace's
# target directory, so the libraries of the release build are reused.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
CARGO_TARGET_DIR=$repo/target "$work/venv/bin/pip" install -q "./python[test]" tosca-parser

status=0
V4T=$v4t_bin SARIF_SCHEMA=$schema OPERA=$opera_env/bin/opera PRE_COMMIT=$tools_env/bin/pre-commit \
    "$work/venv/bin/python" -m pytest -q -p no:cacheprovider python/tests || status=$?
# pytest: 0 all passed, 1 failures, 5 no tests collected (a failure here too).
case $status in
    0) ;;
    5)
        echo "error: pytest collected no tests from python/tests" >&2
        exit 1
        ;;
    *)
        echo "error: the Python tests failed (pytest exit $status)" >&2
        exit 1
        ;;
esac
