//! Fuzz target: `v4t validate`'s pipeline (load with imports, type system,
//! checks, diagnostics with notes and "did you mean" suggestions) on
//! arbitrary text. The input is split at lines `#file NAME` into several
//! files of one in-memory repository (the first part is `main.yaml`), so
//! imports, namespaces, profiles and cycles are explored too.
//!
//! Checked besides "no panic, no hang": the diagnostics are the same on a
//! second run (deterministic output); each cites at most one section, as
//! its last note; a repository of TOSCA 1.3 files is never cited TOSCA 2.0.
#![no_main]

use libfuzzer_sys::fuzz_target;
use v4t_source::{Diagnostic, Sources};
use v4t_tosca::{Grammar, MemoryFiles, TypeSystem};

/// The sorted diagnostics of validating the repository, and whether all of
/// its documents are TOSCA 1.3 files.
fn validate(files: &MemoryFiles) -> (Vec<Diagnostic>, bool) {
    let mut files = files.clone();
    let mut sources = Sources::new();
    let loaded = v4t_tosca::load(&mut sources, &mut files, "main.yaml");
    let all_13 = loaded
        .docs
        .iter()
        .all(|d| d.grammar == Some(Grammar::Tosca13));
    let ts = TypeSystem::build(&loaded);
    (v4t_tosca::validate(&ts, &sources).into_sorted(), all_13)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut files = MemoryFiles::new();
    let mut name = "main.yaml".to_string();
    let mut part = String::new();
    for line in text.split_inclusive('\n') {
        match line.strip_prefix("#file ") {
            Some(next) => {
                files = files.with(&name, &part);
                name = next.trim().to_string();
                part.clear();
            }
            None => part.push_str(line),
        }
    }
    files = files.with(&name, &part);
    let (diagnostics, all_13) = validate(&files);
    for d in &diagnostics {
        let cites = |m: &str| m.starts_with("TOSCA 2.0 §") || m.starts_with("TOSCA 1.3 §");
        let citations = d.notes.iter().filter(|n| cites(&n.message)).count();
        assert!(citations <= 1, "several citations: {d:?}");
        if citations == 1 {
            assert!(
                d.notes.last().is_some_and(|n| cites(&n.message)),
                "citation not last: {d:?}"
            );
        }
        if all_13 {
            let cited_20 = d.notes.iter().any(|n| n.message.starts_with("TOSCA 2.0"));
            assert!(!cited_20, "TOSCA 2.0 cited to TOSCA 1.3 files: {d:?}");
        }
    }
    let (again, _) = validate(&files);
    assert_eq!(diagnostics, again, "validation is not deterministic");
});
