#!/usr/bin/env bash
# The steps of the v4t GitHub Action (action.yml), callable anywhere:
#
#   INPUT_COMMAND=test|validate|analyze INPUT_PATHS="a b" \
#   INPUT_SARIF=v4t.sarif INPUT_JUNIT=v4t-junit.xml .github/action/run.sh
#
# Runs the command on every path (whitespace-separated), prints its output,
# writes one SARIF 2.1.0 log with the results of every path (validate:
# the diagnostics; test: the failed tests; analyze writes none) and one
# JUnit XML report (test: the
# tests; validate and analyze: one test case per path). The v4t binary is
# $V4T, else `v4t` on PATH. Exits 1 if any path fails, 2 on a usage error.
set -uo pipefail

command=${INPUT_COMMAND:-validate}
sarif=${INPUT_SARIF:-v4t.sarif}
junit=${INPUT_JUNIT:-v4t-junit.xml}
v4t=${V4T:-v4t}
read -r -a paths <<<"${INPUT_PATHS:-.}"

case $command in
    test | validate | analyze) ;;
    *)
        echo "error: command must be test, validate or analyze, not \"$command\"" >&2
        exit 2
        ;;
esac
if ! command -v "$v4t" >/dev/null; then
    echo "error: no v4t binary (set V4T or put v4t on PATH)" >&2
    exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

xml_escape() {
    sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' "$1" | tr -d '\000-\010\013\014\016-\037'
}

status=0
cases=()
failures=0
i=0
for path in "${paths[@]}"; do
    i=$((i + 1))
    echo "::group::v4t $command $path"
    rc=0
    case $command in
        test)
            "$v4t" test "$path" --junit "$work/$i.xml" >"$work/$i.out" 2>&1 || rc=$?
            "$v4t" test "$path" --format sarif >"$work/$i.sarif" 2>/dev/null
            ;;
        validate)
            "$v4t" validate "$path" --format sarif 2>"$work/$i.sarif" || rc=$?
            "$v4t" validate "$path" >"$work/$i.out" 2>&1
            ;;
        analyze)
            "$v4t" analyze "$path" >"$work/$i.out" 2>&1 || rc=$?
            ;;
    esac
    cat "$work/$i.out"
    echo "::endgroup::"
    if ((rc >= 2)); then
        echo "error: v4t $command $path: usage error (exit $rc)" >&2
        status=2
    elif ((rc == 1)) && ((status == 0)); then
        status=1
    fi
    if [[ $command != test ]]; then
        ((rc != 0)) && failures=$((failures + 1))
        name=$(printf '%s' "$path" | xml_escape /dev/stdin)
        if ((rc == 0)); then
            cases+=("    <testcase classname=\"v4t.$command\" name=\"$name\"/>")
        else
            cases+=("    <testcase classname=\"v4t.$command\" name=\"$name\"><failure message=\"v4t $command failed (exit $rc)\">$(xml_escape "$work/$i.out")</failure></testcase>")
        fi
    fi
done

# One SARIF log: the runs of every path merged into the first one's run
# (code scanning wants one run per tool).
python3 - "$sarif" "$work"/*.sarif <<'PY'
import json, sys
out, logs = sys.argv[1], []
for name in sys.argv[2:]:
    try:
        with open(name) as f:
            logs.append(json.load(f))
    except (OSError, ValueError):
        pass
if not logs:
    sys.exit(0)
merged = logs[0]
for log in logs[1:]:
    merged["runs"][0]["results"].extend(log["runs"][0]["results"])
with open(out, "w") as f:
    json.dump(merged, f, indent=2)
    f.write("\n")
PY

if [[ $command == test ]]; then
    # The suites of every path in one document.
    {
        echo '<?xml version="1.0" encoding="UTF-8"?>'
        echo '<testsuites>'
        for f in "$work"/*.xml; do
            [[ -f $f ]] && sed -e '/^<?xml/d' -e '/^<\/\?testsuites/d' "$f"
        done
        echo '</testsuites>'
    } >"$junit"
else
    {
        echo '<?xml version="1.0" encoding="UTF-8"?>'
        echo '<testsuites>'
        echo "  <testsuite name=\"v4t $command\" tests=\"${#cases[@]}\" failures=\"$failures\">"
        printf '%s\n' "${cases[@]}"
        echo '  </testsuite>'
        echo '</testsuites>'
    } >"$junit"
fi
exit "$status"
