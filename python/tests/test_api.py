"""The Python API: results, errors, types."""

import pathlib
import threading

import pytest
import yaml
import v4t

from conftest import EXAMPLES

WEB_APP = EXAMPLES / "web-app" / "template.yaml"


def test_resolve_equals_the_expected_output_of_the_example_tests():
    for preset in ("dev", "prod"):
        expected = yaml.safe_load((EXAMPLES / "web-app" / "tests" / preset / "expected.yaml").read_text())
        assert v4t.resolve(WEB_APP, presets=[preset]) == expected


def test_resolve_text_is_the_yaml_of_resolve():
    text = v4t.resolve_text(str(WEB_APP), presets="prod")
    assert yaml.safe_load(text) == v4t.resolve(WEB_APP, presets=("prod",))


def test_inputs_override_presets():
    dev = v4t.resolve(WEB_APP, presets=["dev"])
    overridden = v4t.resolve(WEB_APP, presets=["dev"], inputs={"env": "prod"})
    assert overridden == v4t.resolve(WEB_APP, presets=["prod"])
    assert overridden != dev


def test_csar_directories_resolve():
    result = v4t.resolve(EXAMPLES / "web-app-2.0", presets=["prod"])
    assert result["tosca_definitions_version"] == "tosca_2_0"


def test_unknown_preset_is_a_resolve_error_with_diagnostics():
    with pytest.raises(v4t.ResolveError) as info:
        v4t.resolve(WEB_APP, presets=["no-such-preset"])
    error = info.value
    assert isinstance(error, ValueError)
    assert str(error) == 'Did not find variability preset "no-such-preset"'
    [d] = error.diagnostics
    assert (d.severity, d.code, d.is_error) == ("error", "V4T030", True)
    assert "error[V4T030]" in str(d)


def test_invalid_yaml_is_located(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("tosca_definitions_version: tosca_variability_1_0\nkey: [unclosed\n")
    with pytest.raises(v4t.ResolveError) as info:
        v4t.resolve(bad)
    d = info.value.diagnostics[0]
    assert d.code == "V4T001"
    assert d.file == str(bad)
    assert d.line >= 2 and d.column >= 1
    assert d.end_line >= d.line
    assert isinstance(d.notes, list)


def test_missing_file_is_file_not_found():
    with pytest.raises(FileNotFoundError):
        v4t.resolve("no/such/template.yaml")
    with pytest.raises(FileNotFoundError):
        v4t.validate(pathlib.Path("no/such/file.yaml"))


@pytest.mark.parametrize("presets", [[1], ["dev", None], 5, {"dev": 1}])
def test_presets_that_are_not_strings_are_type_errors(presets):
    with pytest.raises(TypeError, match="preset"):
        v4t.resolve(WEB_APP, presets=presets)


@pytest.mark.parametrize("inputs", [["env"], {"env": object()}, {1: "dev"}, "env=dev"])
def test_inputs_of_the_wrong_type_are_type_errors(inputs):
    with pytest.raises(TypeError):
        v4t.resolve(WEB_APP, inputs=inputs)


def test_not_utf8_and_binary_files_are_resolve_errors(tmp_path):
    bad = tmp_path / "t.yaml"
    bad.write_bytes(b"a: \xff\xfe\n")
    with pytest.raises(v4t.ResolveError) as info:
        v4t.resolve(bad)
    assert info.value.diagnostics[0].code == "V4T002"


def test_a_directory_without_a_template_is_a_resolve_error(tmp_path):
    with pytest.raises(v4t.ResolveError, match="could not read CSAR"):
        v4t.resolve(tmp_path)


def test_validate_lists_diagnostics(tmp_path):
    resolved = tmp_path / "resolved.yaml"
    resolved.write_text(v4t.resolve_text(EXAMPLES / "web-app-2.0", presets=["dev"]))
    assert [d for d in v4t.validate(resolved) if d.is_error] == []
    variable = v4t.validate(EXAMPLES / "web-app-2.0")
    assert variable and all(isinstance(d, v4t.Diagnostic) for d in variable)
    assert any(d.code == "V4T101" and d.line for d in variable)


def test_analyze_and_explain():
    report = v4t.analyze(WEB_APP)
    assert [p["name"] for p in report["presets"]] == ["dev", "prod"]
    why = v4t.explain(WEB_APP, elements=["node.shop"], presets=["prod"])
    assert why["resolves"] is True
    assert [e["id"] for e in why["elements"]] == ["node.shop"]
    failing = v4t.explain(WEB_APP, inputs={"env": "staging"})
    assert failing["resolves"] is False and failing["error"]["code"]


def test_threads_resolve_in_parallel_with_the_same_results():
    expected = v4t.resolve_text(WEB_APP, presets=["prod"])
    results = []

    def work():
        results.append(v4t.resolve_text(WEB_APP, presets=["prod"]))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4
