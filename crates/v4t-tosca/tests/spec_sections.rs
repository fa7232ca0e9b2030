//! Every TOSCA 2.0 section the validator cites is a heading of the
//! specification (`../shared/spec/tosca-2.0-csd07.md`), with its number
//! and title: a heading in the text or an entry of its table of contents
//! (the conversion to Markdown lost a few headings, such as 9.1.1.4, that
//! the table of contents keeps). The repository has no text of TOSCA
//! Simple Profile in YAML 1.3, so its sections are not checked here.

use std::path::PathBuf;

use v4t_tosca::{Grammar, Section};

fn spec() -> Option<String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/spec/tosca-2.0-csd07.md");
    std::fs::read_to_string(path).ok()
}

/// `number title` of a heading line (`### 9.4 Property Definition`) or of
/// a table-of-contents entry (`- [10.2.1.1 \\$get\\_input](#)`), with the
/// Markdown escapes and code marks removed.
fn heading(line: &str) -> Option<String> {
    let t = line.trim_start();
    let text = if let Some(h) = t.strip_prefix('#') {
        h.trim_start_matches('#').trim()
    } else {
        t.strip_prefix("- [")?.strip_suffix("](#)")?
    };
    let text: String = text.chars().filter(|c| !matches!(c, '\\' | '`')).collect();
    Some(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[test]
fn every_cited_tosca_2_section_is_a_heading_of_the_specification() {
    let Some(text) = spec() else {
        // CI always has ../shared: a missing specification there is a failure.
        assert!(
            std::env::var_os("CI").is_none(),
            "the specification (../shared/spec/tosca-2.0-csd07.md) is missing under CI"
        );
        eprintln!("skipped: the specification (../shared/spec) is not there");
        return;
    };
    let headings: Vec<String> = text.lines().filter_map(heading).collect();
    let missing: Vec<String> = Section::ALL
        .iter()
        .filter(|s| s.grammar() == Grammar::Tosca2)
        .map(|s| format!("{} {}", s.number(), s.title()))
        .filter(|h| !headings.contains(h))
        .collect();
    assert!(
        missing.is_empty(),
        "sections that are no heading of TOSCA 2.0: {missing:?}"
    );
    assert!(headings.len() > 300, "{} headings", headings.len());
}

#[test]
fn headings_are_read_from_lines_and_table_of_contents() {
    assert_eq!(
        heading("### 9.4 Property Definition").as_deref(),
        Some("9.4 Property Definition")
    );
    assert_eq!(
        heading("      - [10.2.1.1 \\\\$get\\\\_input](#)").as_deref(),
        Some("10.2.1.1 $get_input")
    );
    assert_eq!(heading("plain text"), None);
}
