//! The reference's conformance suite (`../shared/conformance`), run by
//! `cargo test` as `v4t test` runs it: every case of every group must pass.
//! Skipped, with a message, when the suite is not there (a clone without
//! `../shared`); `.ci/run` also runs it with a pass floor.

use std::path::PathBuf;

use crate::common::{text, v4t};

/// The suite beside the repository.
fn suite() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance");
    dir.is_dir().then_some(dir)
}

/// `N passed, M failed[, K skipped]` of the report's last line.
fn counts(report: &str) -> Option<(usize, usize)> {
    let last = report.lines().last()?;
    let mut words = last.split([' ', ',']).filter(|w| !w.is_empty());
    let passed = words.next()?.parse().ok()?;
    (words.next()? == "passed").then_some(())?;
    let failed = words.next()?.parse().ok()?;
    (words.next()? == "failed").then_some(())?;
    Some((passed, failed))
}

#[test]
fn every_conformance_case_passes() {
    let Some(dir) = suite() else {
        // CI always has ../shared: a missing suite there is a failure.
        assert!(
            std::env::var_os("CI").is_none(),
            "the conformance suite (../shared/conformance) is missing under CI"
        );
        eprintln!("skipped: the conformance suite (../shared/conformance) is not there");
        return;
    };
    let out = v4t(&["test", dir.to_str().unwrap_or_default(), "--summary"]);
    let report = text(&out.stdout);
    let Some((passed, failed)) = counts(&report) else {
        panic!("unexpected report:\n{report}{}", text(&out.stderr));
    };
    assert!(passed > 0, "{report}");
    assert_eq!(failed, 0, "failing conformance cases:\n{report}");
    assert_eq!(out.status.code(), Some(0), "{report}");
}

#[test]
fn report_counts_are_read_from_the_last_line() {
    assert_eq!(
        counts("a: 1/1\n320 passed, 0 failed, 3 skipped\n"),
        Some((320, 0))
    );
    assert_eq!(counts("FAIL x\n2 passed, 1 failed\n"), Some((2, 1)));
    assert_eq!(counts("nothing to see"), None);
}
