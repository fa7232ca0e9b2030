#!/usr/bin/env bash
# Compares what two builds of v4t write, byte for byte: every conformance
# case and example test (`v4t test --emit`), every command's output on the
# bundled examples, and the benchmark families. Used before and after a
# refactoring that must not change any output (issue 23).
#
#   scripts/same-output.sh BEFORE/v4t AFTER/v4t [V4T_BENCH]
#
# V4T_BENCH (default: target/release/v4t-bench) generates the families.
# Exit 0 when every output is identical; otherwise the differing files are
# listed and the exit code is 1.
set -uo pipefail
before=$(realpath "$1")
after=$(realpath "$2")
bench=$(realpath "${3:-target/release/v4t-bench}")
repo=$(cd "$(dirname "$0")/.." && pwd)
shared="$repo/../shared"
if [ ! -x "$bench" ]; then
  # Without the generator the family outputs would be missing on both sides.
  echo "error: $bench is missing (cargo build --release -p v4t-bench)" >&2; exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One build's outputs below $work/NAME.
collect() {
  local v4t=$1 out=$work/$2
  mkdir -p "$out"
  if [ -d "$shared/conformance" ]; then
    "$v4t" test "$shared/conformance" -q --emit "$out/conformance" >/dev/null
  elif [ -n "${CI:-}" ]; then
    echo "error: $shared/conformance is missing" >&2; exit 2
  fi
  for ex in "$repo"/examples/*/; do
    name=$(basename "$ex")
    "$v4t" test "$ex" -q --emit "$out/examples-test/$name" >/dev/null
    t="$ex/template.yaml"
    for cmd in "explain --format json" "analyze --format json" "analyze --validate --format json" "graph --format dot" "graph --format svg" "enrich"; do
      key=$(echo "$cmd" | tr ' -' '__')
      # shellcheck disable=SC2086
      "$v4t" $cmd "$t" >"$out/$name.$key" 2>&1; echo "exit $?" >>"$out/$name.$key"
    done
    "$v4t" validate "$t" >"$out/$name.validate" 2>&1; echo "exit $?" >>"$out/$name.validate"
  done
  # A flat TOSCA 2.0 file: many nodes reading one input, artifacts, hosts.
  flat=$work/flat-500.yaml
  [ -f "$flat" ] || "$bench" generate-tosca --size 500 --out "$flat" >/dev/null
  "$v4t" resolve "$flat" -o "$out/flat-500.yaml" >"$out/flat-500.log" 2>&1
  echo "exit $?" >>"$out/flat-500.log"
  for family in "1 10" "1 1000" "1 10000" "2 10" "2 100" "2 1000" "3 500"; do
    set -- $family
    dir=$work/gen-$1-$2
    [ -d "$dir" ] || "$bench" generate --family "$1" --size "$2" --out "$dir" >/dev/null
    "$v4t" resolve "$dir/template.yaml" --inputs "$dir/inputs.yaml" -o "$out/family-$1-$2.yaml" \
      >"$out/family-$1-$2.log" 2>&1; echo "exit $?" >>"$out/family-$1-$2.log"
    if [ "$2" -le 1000 ]; then
      "$v4t" analyze "$dir/template.yaml" --format json >"$out/family-$1-$2.analyze" 2>&1
      echo "exit $?" >>"$out/family-$1-$2.analyze"
    fi
    if [ "$2" -le 100 ]; then
      # Every topology resolved and validated (family 2 n = 1,000: a minute).
      "$v4t" analyze "$dir/template.yaml" --validate --format json >"$out/family-$1-$2.validated" 2>&1
      echo "exit $?" >>"$out/family-$1-$2.validated"
    fi
  done
}

collect "$before" before
collect "$after" after
if diff -rq "$work/before" "$work/after"; then
  echo "same output: $(find "$work/after" -type f | wc -l) files"
else
  exit 1
fi
