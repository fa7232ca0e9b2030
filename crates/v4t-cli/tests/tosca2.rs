//! The TOSCA 2.0 examples (`examples/*` with a `service_template`), as a
//! user runs them: every preset resolves to a `tosca_2_0` template that
//! `v4t validate` accepts, and every example's tests pass with `--validate`
//! (issue 15).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::v4t;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .expect("examples")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("tests").is_dir())
        .collect();
    out.sort();
    out
}

/// The TOSCA 2.0 examples with their template.
fn tosca2_examples() -> Vec<(PathBuf, PathBuf)> {
    examples()
        .into_iter()
        .filter_map(|dir| {
            let template = dir.join("service-template.yaml");
            let text = fs::read_to_string(&template).ok()?;
            text.contains("\nservice_template:")
                .then_some((dir, template))
        })
        .collect()
}

/// Copies a directory tree (a CSAR directory).
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn there_are_three_tosca_2_examples() {
    assert!(tosca2_examples().len() >= 3, "{:?}", tosca2_examples());
}

#[test]
fn every_example_passes_its_tests_with_validate() {
    for dir in examples() {
        let out = v4t(&["test", dir.to_str().unwrap(), "--validate"]);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(0), "{}: {shown}", dir.display());
        assert!(shown.trim_end().ends_with(" 0 failed"), "{shown}");
    }
}

#[test]
fn every_preset_of_the_tosca_2_examples_resolves_to_valid_tosca_2() {
    for (dir, template) in tosca2_examples() {
        let doc = v4t_yaml::parse(
            &fs::read_to_string(&template).unwrap(),
            v4t_yaml::SourceId(0),
        )
        .expect("parses");
        let presets: Vec<String> = doc
            .get("service_template")
            .and_then(|t| t.get("variability"))
            .and_then(|v| v.get("presets"))
            .and_then(|p| p.as_map())
            .map(|m| m.keys().map(str::to_string).collect())
            .unwrap_or_default();
        assert!(!presets.is_empty(), "{}", dir.display());
        // The result beside the template (its imports are the CSAR's files).
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let copy = std::env::temp_dir().join(format!("v4t-tosca2-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&copy);
        copy_tree(&dir, &copy);
        for preset in presets {
            let out_file = copy.join(format!("resolved-{preset}.yaml"));
            let out = v4t(&[
                "resolve",
                copy.join("service-template.yaml").to_str().unwrap(),
                "--presets",
                &preset,
                "-o",
                out_file.to_str().unwrap(),
            ]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name} {preset}: {}",
                text(&out)
            );
            let written = fs::read_to_string(&out_file).unwrap();
            assert!(
                written.starts_with("tosca_definitions_version: tosca_2_0\n"),
                "{name} {preset}: {written}"
            );
            let out = v4t(&["validate", out_file.to_str().unwrap()]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name} {preset}: {}",
                text(&out)
            );
        }
        let _ = fs::remove_dir_all(&copy);
    }
}

/// `--validate` refuses an invalid variant, names where the output and the
/// variable template wrote the mistake, and writes nothing.
#[test]
fn resolve_validate_reports_both_locations_and_writes_nothing() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/monitoring");
    let out_file =
        std::env::temp_dir().join(format!("v4t-tosca2-{}-none.yaml", std::process::id()));
    let _ = fs::remove_file(&out_file);
    let out = v4t(&[
        "resolve",
        dir.join("service-template.yaml").to_str().unwrap(),
        "--input",
        "long_retention=true",
        "--validate",
        "-o",
        out_file.to_str().unwrap(),
    ]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(
        shown.contains("error: The resolved template is not valid TOSCA: unknown unit `days`"),
        "{shown}"
    );
    // The output's location (the output file) and the template's.
    assert!(
        shown.contains(&format!("--> {}:", out_file.display())),
        "{shown}"
    );
    assert!(
        shown.contains("note: written here in the variable template"),
        "{shown}"
    );
    assert!(shown.contains("service-template.yaml:"), "{shown}");
    assert!(shown.contains("= code: V4T061"), "{shown}");
    assert!(!out_file.exists());
    // Without --validate the same variant resolves.
    let out = v4t(&[
        "resolve",
        dir.join("service-template.yaml").to_str().unwrap(),
        "--input",
        "long_retention=true",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// `test --validate` fails a test whose variant is not valid TOSCA, with the
/// output's location and where the variable template wrote the mistake.
#[test]
fn test_validate_reports_both_locations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/monitoring");
    let copy =
        std::env::temp_dir().join(format!("v4t-tosca2-{}-test-validate", std::process::id()));
    let _ = fs::remove_dir_all(&copy);
    copy_tree(&dir, &copy);
    // The test that expects the validation error, made to expect success.
    let test = copy.join("tests/long-retention/test.yaml");
    let config = fs::read_to_string(&test).unwrap();
    let config: String = config
        .lines()
        .filter(|l| !l.starts_with("error:") && !l.starts_with("validate:"))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(&test, config).unwrap();
    let inputs = copy.join("tests/long-retention/inputs.yaml");
    let out = v4t(&[
        "resolve",
        copy.join("service-template.yaml").to_str().unwrap(),
        "--presets",
        "standard",
        "--inputs",
        inputs.to_str().unwrap(),
        "-o",
        copy.join("tests/long-retention/expected.yaml")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // Without validation it passes; with it, it fails.
    let out = v4t(&["test", copy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = v4t(&["test", copy.to_str().unwrap(), "--validate"]);
    let shown = text(&out);
    let _ = fs::remove_dir_all(&copy);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(
        shown.contains(
            "resolution failed: The resolved template is not valid TOSCA: unknown unit `days`"
        ),
        "{shown}"
    );
    assert!(
        shown.contains("service-template.yaml (resolved):"),
        "{shown}"
    );
    assert!(
        shown.contains("note: written here in the variable template (at ")
            && shown.contains("service-template.yaml:"),
        "{shown}"
    );
}
