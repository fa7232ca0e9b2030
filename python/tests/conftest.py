"""Shared fixtures: the repository, its bundled examples and their presets."""

import os
import pathlib

import pytest
import v4t

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def example_dirs():
    """Every bundled example (a directory with a template or a CSAR)."""
    return sorted(p for p in EXAMPLES.iterdir() if p.is_dir())


def template_of(example):
    """The path v4t opens for an example: its template file, or the CSAR."""
    file = example / "template.yaml"
    return file if file.is_file() else example


def variants():
    """(example, preset) for every preset of every bundled example."""
    out = []
    for example in example_dirs():
        report = v4t.analyze(template_of(example))
        for preset in report["presets"]:
            out.append((example.name, preset["name"]))
    return out


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    # The README's examples use paths relative to the repository.
    monkeypatch.chdir(REPO)


def required(name):
    """An environment variable the CI script sets; a test without it fails
    under CI (CI=true) and is skipped elsewhere."""
    value = os.environ.get(name)
    if not value:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is not set (run .ci/python.sh)")
        pytest.skip(f"{name} is not set (run .ci/python.sh)")
    return value
