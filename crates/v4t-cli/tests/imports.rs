//! `v4t validate` on trees of files that import each other: relative
//! imports above the file's directory and `--root`, imports inside a CSAR,
//! broken imported files, remote imports (not checked, `--import-map`),
//! profiles found on `--profile-path`, and names defined twice in one
//! namespace.
//!
//! Each directory of `tests/imports/` is one case: its files, an `args`
//! file (the arguments after `v4t validate`, one per line, run in the
//! case's directory; `main.yaml` when absent) and `expected.txt`, the exit
//! code and the rendered diagnostics. After an intended change:
//! `UPDATE_EXPECT=1 cargo test -p v4t-cli --test imports`, then review the
//! diff of the expected files.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{text, v4t_in};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/imports");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// What `v4t validate` prints for one case: the exit code, then standard
/// error.
fn run(case: &Path) -> String {
    let args = fs::read_to_string(case.join("args")).unwrap_or_else(|_| "main.yaml".into());
    let mut argv = vec!["validate"];
    argv.extend(args.lines().map(str::trim).filter(|l| !l.is_empty()));
    let out = v4t_in(case, &argv, &[("NO_COLOR", "1")]);
    assert!(
        out.stdout.is_empty(),
        "{}: {}",
        case.display(),
        text(&out.stdout)
    );
    format!(
        "exit: {}\n{}",
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        text(&out.stderr)
    )
}

#[test]
fn every_case_prints_its_expected_diagnostics() {
    let cases = cases();
    assert!(cases.len() >= 15, "only {} cases", cases.len());
    for case in cases {
        let expected = expect_test::ExpectFile {
            path: case.join("expected.txt"),
            position: file!(),
        };
        expected.assert_eq(&run(&case));
    }
}
