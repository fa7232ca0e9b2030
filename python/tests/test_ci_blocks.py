"""The CI building blocks: the GitHub Action's script (.github/action/run.sh,
the steps action.yml runs) and the pre-commit hooks (.pre-commit-hooks.yaml,
through `pre-commit try-repo` for real)."""

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

import jsonschema
import pytest
import v4t
import yaml

from conftest import EXAMPLES, REPO, required


def action(tmp_path, command, *paths):
    env = {
        **os.environ,
        "V4T": required("V4T"),
        "INPUT_COMMAND": command,
        "INPUT_PATHS": " ".join(str(p) for p in paths),
        "INPUT_SARIF": str(tmp_path / "out.sarif"),
        "INPUT_JUNIT": str(tmp_path / "junit.xml"),
    }
    run = subprocess.run(
        [str(REPO / ".github" / "action" / "run.sh")], env=env, capture_output=True, text=True, timeout=600
    )
    return run


def resolved_2_0(tmp_path):
    path = tmp_path / "resolved.yaml"
    path.write_text(v4t.resolve_text(EXAMPLES / "web-app-2.0", presets=["dev"]))
    return path


def test_the_action_runs_the_script_with_its_inputs():
    steps = yaml.safe_load((REPO / "action.yml").read_text())["runs"]["steps"]
    script = [s for s in steps if "run.sh" in s.get("run", "")]
    assert script and script[0]["env"]["INPUT_COMMAND"] == "${{ inputs.command }}"
    assert any("upload-sarif" in s.get("uses", "") for s in steps)


def test_action_validate_writes_sarif_and_junit(tmp_path):
    run = action(tmp_path, "validate", resolved_2_0(tmp_path), EXAMPLES / "web-app-2.0")
    assert run.returncode == 1, run.stdout + run.stderr
    log = json.loads((tmp_path / "out.sarif").read_text())
    jsonschema.validate(log, json.loads(open(required("SARIF_SCHEMA")).read()))
    assert log["runs"][0]["results"], "the variable template's errors"
    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == 2
    assert cases[0].find("failure") is None and cases[1].find("failure") is not None


def test_action_test_and_analyze(tmp_path):
    run = action(tmp_path, "test", EXAMPLES / "web-app", EXAMPLES / "monitoring")
    assert run.returncode == 0, run.stdout + run.stderr
    root = ET.parse(tmp_path / "junit.xml").getroot()
    assert len(list(root.iter("testcase"))) >= 6
    assert json.loads((tmp_path / "out.sarif").read_text())["runs"][0]["results"] == []
    run = action(tmp_path, "analyze", EXAMPLES / "web-app" / "template.yaml")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "configurations" in run.stdout


def test_action_refuses_unknown_commands(tmp_path):
    assert action(tmp_path, "deploy", EXAMPLES).returncode == 2


@pytest.fixture
def project(tmp_path):
    """A git repository with a valid and an invalid TOSCA file and a
    variable template."""
    project = tmp_path / "project"
    project.mkdir()
    resolved_2_0(project)
    (project / "broken.yaml").write_text("tosca_definitions_version: tosca_2_0\nnode_types: [not, a, map]\n")
    shutil.copy(EXAMPLES / "web-app" / "template.yaml", project / "variable.yaml")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    return project


def try_repo(project, hook, *files, args=()):
    pre_commit = required("PRE_COMMIT")
    config = None
    command = [pre_commit, "try-repo", str(REPO), hook, "--files", *files]
    env = {**os.environ, "V4T": required("V4T"), "PRE_COMMIT_HOME": str(project.parent / "pre-commit-home")}
    if args:
        # try-repo takes no hook args: a config of our own with them.
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
        config = project.parent / "config.yaml"
        config.write_text(
            yaml.safe_dump({"repos": [{"repo": str(REPO), "rev": head, "hooks": [{"id": hook, "args": list(args)}]}]})
        )
        command = [pre_commit, "run", "--config", str(config), hook, "--files", *files]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=600)


def test_pre_commit_validate_hook(project):
    ok = try_repo(project, "v4t-validate", "resolved.yaml")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = try_repo(project, "v4t-validate", "resolved.yaml", "broken.yaml")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "V4T011" in bad.stdout


def test_pre_commit_resolve_check_hook(project):
    ok = try_repo(project, "v4t-resolve-check", "variable.yaml", args=["--presets", "prod"])
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = try_repo(project, "v4t-resolve-check", "variable.yaml", args=["--presets", "nope"])
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "nope" in bad.stdout
