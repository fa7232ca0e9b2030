//! Snapshot tests of `v4t validate`'s rendered diagnostics: every
//! `tests/validate/rules/*.yaml` (or `*/main.yaml`) is validated from that
//! directory and its exit code and standard error are compared with the
//! file beside it, `<case>.out`. A first line `# args: ...` adds arguments
//! (`--warn V4T110`). Most cases come in pairs, `<rule>-valid.yaml` and
//! `<rule>-invalid.yaml`, one rule each.
//!
//! After an intended change: `UPDATE_EXPECT=1 cargo test -p v4t-cli --test
//! validate_rules`, then review the diff of the `.out` files.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{text, v4t_in};
use expect_test::expect_file;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validate/rules")
}

/// The cases: (the path `v4t validate` gets, relative to the cases'
/// directory, the file holding the expected output).
fn cases() -> Vec<(String, PathBuf)> {
    let dir = cases_dir();
    let mut out = Vec::new();
    for entry in fs::read_dir(&dir).expect("tests/validate/rules") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && path.join("main.yaml").is_file() {
            out.push((format!("{name}/main.yaml"), dir.join(format!("{name}.out"))));
        } else if let Some(stem) = name.strip_suffix(".yaml") {
            out.push((name.clone(), dir.join(format!("{stem}.out"))));
        }
    }
    out.sort();
    out
}

#[test]
fn rendered_diagnostics_match_their_snapshots() {
    let dir = cases_dir();
    let cases = cases();
    assert!(cases.len() >= 20, "only {} cases found", cases.len());
    for (case, expected) in cases {
        let text_of_case = fs::read_to_string(dir.join(&case)).unwrap();
        let mut args = vec!["validate".to_string()];
        if let Some(extra) = text_of_case
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# args:"))
        {
            args.extend(extra.split_whitespace().map(str::to_string));
        }
        args.push(case.clone());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = v4t_in(&dir, &args, &[("NO_COLOR", "1")]);
        let actual = format!(
            "exit: {}\n{}",
            out.status
                .code()
                .map_or("signal".to_string(), |c| c.to_string()),
            text(&out.stderr)
        );
        if text_of_case.contains("tosca_simple_yaml_1_") {
            cites_only_tosca_13(&case, &actual);
        }
        expect_file![expected].assert_eq(&actual);
    }
}

/// Every diagnostic of the validator about a TOSCA 1.x file cites a
/// section of TOSCA 1.3, never TOSCA 2.0 (a 1.x file is checked by 1.3's
/// rules).
fn cites_only_tosca_13(case: &str, output: &str) {
    let mut block = String::new();
    for line in output.lines() {
        if line.starts_with("error: ") || line.starts_with("warning: ") {
            block.clear();
        }
        block.push_str(line);
        block.push('\n');
        if line.trim_start().starts_with("= code: V4T1") {
            assert!(
                block.contains("= note: TOSCA 1.3 §") && !block.contains("TOSCA 2.0"),
                "{case}: a diagnostic of a TOSCA 1.x file cites no TOSCA 1.3 section:\n{block}"
            );
        }
    }
}
