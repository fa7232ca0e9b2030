"""`--format sarif` of `v4t validate`, `resolve` and `test` against the
official SARIF 2.1.0 JSON schema (sarif-2.1.0-rtm.5.json as shipped in the
npm package @microsoft/jest-sarif; .ci/python.sh fetches it and sets
SARIF_SCHEMA, the binary is V4T)."""

import json
import pathlib
import subprocess

import jsonschema
import pytest
import v4t

from conftest import EXAMPLES, REPO, required


@pytest.fixture(scope="module")
def schema():
    return json.loads(pathlib.Path(required("SARIF_SCHEMA")).read_text())


def run(*args, stream="stderr", code=None):
    proc = subprocess.run([required("V4T"), *args], capture_output=True, text=True, cwd=REPO, timeout=300)
    if code is not None:
        assert proc.returncode == code, proc.stderr
    return json.loads(getattr(proc, stream))


def check(log, schema):
    jsonschema.validate(log, schema)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    for result in log["runs"][0]["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    return log["runs"][0]["results"]


def test_validate_results_are_diagnostics_with_regions(schema):
    results = check(run("validate", "--format", "sarif", "examples/web-app-2.0", code=1), schema)
    assert results and all(r["level"] == "error" for r in results)
    first = results[0]
    assert first["ruleId"] == "V4T101"
    region = first["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] >= 1 and region["endColumn"] > region["startColumn"]
    assert first["relatedLocations"][0]["message"]["text"].startswith("TOSCA 2.0")


def valid_file(tmp_path):
    path = tmp_path / "resolved.yaml"
    path.write_text(v4t.resolve_text(EXAMPLES / "web-app-2.0", presets=["prod"]))
    return str(path)


def test_valid_files_have_no_results(schema, tmp_path):
    assert check(run("validate", "--format", "sarif", valid_file(tmp_path), code=0), schema) == []


def test_rules_carry_the_documented_help(schema, tmp_path):
    rules = run("validate", "--format", "sarif", valid_file(tmp_path))["runs"][0]["tool"]["driver"]["rules"]
    # The first table of the document is the code table (a later one maps
    # the old coarse codes to the finer ones and names codes again).
    documented = {}
    for line in (REPO / "docs" / "diagnostics.md").read_text().splitlines():
        if line.startswith("| `V4T"):
            code, text = line.split(" | ", 1)
            documented.setdefault(code, text)
    for rule in rules:
        if rule["id"].startswith("V4T0") or rule["id"].startswith("V4T1"):
            row = documented["| `" + rule["id"] + "`"]
            assert rule["help"]["text"] == row.rstrip(" |")


def test_resolve_errors_and_warnings(schema, tmp_path):
    log = run(
        "resolve", "--format", "sarif", "examples/web-app/template.yaml", "--presets", "nope",
        "-o", str(tmp_path / "out.yaml"), code=1,
    )
    [result] = check(log, schema)
    assert (result["ruleId"], result["level"]) == ("V4T030", "error")


def test_failed_tests_are_results(schema, tmp_path):
    test = tmp_path / "suite" / "wrong"
    test.mkdir(parents=True)
    (test / "template.yaml").write_text((EXAMPLES / "web-app" / "template.yaml").read_text())
    (test / "test.yaml").write_text("presets: [dev]\nerror: this error never comes\n")
    log = run("test", "--format", "sarif", str(tmp_path / "suite"), stream="stdout", code=1)
    [result] = check(log, schema)
    assert result["ruleId"] == "V4T-TEST"
    passing = run("test", "--format", "sarif", "examples/web-app", stream="stdout", code=0)
    assert check(passing, schema) == []
