"""Every preset of every bundled example, resolved, is accepted by real TOSCA
tools: TOSCA 1.3 outputs by OpenStack tosca-parser and xOpera (`opera
validate`), TOSCA 2.0 outputs by `v4t.validate`."""

import os
import shutil
import subprocess

import v4t
import pytest

from conftest import EXAMPLES, required, template_of, variants


def version_of(example, preset):
    return v4t.resolve(template_of(EXAMPLES / example), presets=[preset])["tosca_definitions_version"]


VARIANTS = [(e, p, version_of(e, p)) for e, p in variants()]
TOSCA_1_3 = [(e, p) for e, p, v in VARIANTS if v == "tosca_simple_yaml_1_3"]
TOSCA_2_0 = [(e, p) for e, p, v in VARIANTS if v == "tosca_2_0"]


def test_every_variant_is_checked_by_a_consumer():
    assert TOSCA_1_3 and TOSCA_2_0
    assert len(TOSCA_1_3) + len(TOSCA_2_0) == len(VARIANTS)


def resolved(tmp_path, example, preset):
    """The resolved variant beside a copy of its example (whose files it may
    import)."""
    text = v4t.resolve_text(template_of(EXAMPLES / example), presets=[preset])
    copy = tmp_path / example
    shutil.copytree(EXAMPLES / example, copy)
    path = copy / f"resolved-{preset}.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("example,preset", TOSCA_1_3)
def test_tosca_parser_accepts_the_resolved_1_3_templates(tmp_path, example, preset):
    from toscaparser.tosca_template import ToscaTemplate

    template = ToscaTemplate(str(resolved(tmp_path, example, preset)))
    assert template.nodetemplates


@pytest.mark.parametrize("example,preset", TOSCA_1_3)
def test_opera_accepts_the_resolved_1_3_templates(tmp_path, example, preset):
    path = resolved(tmp_path, example, preset)
    run = subprocess.run(
        [required("OPERA"), "validate", path.name],
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("example,preset", TOSCA_2_0)
def test_v4t_validate_accepts_the_resolved_2_0_templates(tmp_path, example, preset):
    path = resolved(tmp_path, example, preset)
    assert [str(d) for d in v4t.validate(path) if d.is_error] == []
