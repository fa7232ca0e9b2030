"""Every preset of every bundled example, resolved, is accepted by real TOSCA
tools: TOSCA 1.3 outputs by OpenStack tosca-parser and xOpera (`opera
validate`), TOSCA 2.0 outputs by `v4t.validate`."""

import os
import shutil
import subprocess

import pytest
import v4t

from conftest import EXAMPLES, required, template_of, variants

VARIANTS = variants()


def test_there_are_variants_of_both_grammars():
    versions = {
        v4t.resolve(template_of(EXAMPLES / e), presets=[p])["tosca_definitions_version"]
        for e, p in VARIANTS
    }
    assert "tosca_simple_yaml_1_3" in versions and "tosca_2_0" in versions


def resolved(tmp_path, example, preset):
    """The resolved variant beside a copy of its example (whose files it may
    import), and its version."""
    text = v4t.resolve_text(template_of(EXAMPLES / example), presets=[preset])
    copy = tmp_path / example
    shutil.copytree(EXAMPLES / example, copy)
    path = copy / f"resolved-{preset}.yaml"
    path.write_text(text)
    version = v4t.resolve(template_of(EXAMPLES / example), presets=[preset])["tosca_definitions_version"]
    return path, version


@pytest.mark.parametrize("example,preset", VARIANTS)
def test_tosca_parser_accepts_the_resolved_1_3_templates(tmp_path, example, preset):
    path, version = resolved(tmp_path, example, preset)
    if version != "tosca_simple_yaml_1_3":
        assert [d for d in v4t.validate(path) if d.is_error] == []
        return
    from toscaparser.tosca_template import ToscaTemplate

    template = ToscaTemplate(str(path))
    assert template.nodetemplates


@pytest.mark.parametrize("example,preset", VARIANTS)
def test_opera_accepts_the_resolved_1_3_templates(tmp_path, example, preset):
    path, version = resolved(tmp_path, example, preset)
    if version != "tosca_simple_yaml_1_3":
        pytest.skip("opera reads TOSCA 1.3 only (TOSCA 2.0 outputs: the tosca-parser test validates them with v4t)")
    opera = required("OPERA")
    run = subprocess.run(
        [opera, "validate", path.name],
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert run.returncode == 0, run.stdout + run.stderr
