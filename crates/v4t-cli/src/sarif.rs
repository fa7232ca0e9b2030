//! SARIF 2.1.0 (`--format sarif` of `validate`, `resolve` and `test`): the
//! Static Analysis Results Interchange Format that code-scanning services
//! and editors read. One result per diagnostic: `ruleId` its code, `level`,
//! `message`, the range as a `physicalLocation` and the notes as
//! `relatedLocations`; the driver lists every code as a rule with the
//! summary `docs/diagnostics.md` documents ([`Code::summary`], kept equal
//! to the documented table by a test of `v4t-source`).

use v4t::{Code, Diagnostic, Severity, Sources, Span};
use v4t_yaml::{Map, Node};

/// The rule of a failed variability test (`v4t test`), which has messages
/// but no diagnostic code.
pub const TEST_FAILED: &str = "V4T-TEST";

/// The location of a known span: file and 1-based range (end column
/// exclusive, as SARIF's `endColumn`).
fn physical_location(sources: &Sources, span: Span) -> Option<Node> {
    let file = span
        .is_known()
        .then(|| sources.get(span.source))
        .flatten()?;
    let mut region = Map::new();
    let span = file.locate(span);
    if span.line >= 1 {
        region.insert("startLine", number(span.line));
        region.insert("startColumn", number(span.col.max(1)));
        if span.end_line >= span.line {
            region.insert("endLine", number(span.end_line));
            if span.end_line > span.line || span.end_col > span.col {
                region.insert("endColumn", number(span.end_col));
            }
        }
    }
    let mut location = Map::new();
    location.insert("artifactLocation", artifact(&file.name));
    if !region.is_empty() {
        location.insert("region", Node::map(region));
    }
    Some(Node::map(location))
}

/// `{"uri": ...}` for a file name as diagnostics show it.
fn artifact(name: &str) -> Node {
    Node::single("uri", Node::string(uri(name)))
}

/// A file name as a URI reference: absolute paths as `file://` URIs,
/// relative ones relative; characters a URI may not hold percent-encoded.
pub fn uri(name: &str) -> String {
    let mut out = String::new();
    if name.starts_with('/') {
        out.push_str("file://");
    }
    for byte in name.bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&byte);
        if keep {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn number(n: u32) -> Node {
    Node::number(f64::from(n))
}

fn text(message: &str) -> Node {
    Node::single("text", Node::string(message))
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// One SARIF result for a diagnostic.
pub fn result(sources: &Sources, d: &Diagnostic) -> Node {
    let mut m = Map::new();
    m.insert("ruleId", Node::string(d.code.as_str()));
    if let Some(index) = Code::ALL.iter().position(|c| *c == d.code) {
        m.insert("ruleIndex", Node::number(index as f64));
    }
    m.insert("level", Node::string(level(d.severity)));
    m.insert("message", text(&d.message));
    if let Some(location) = physical_location(sources, d.span) {
        let located = Node::single("physicalLocation", location);
        m.insert("locations", Node::seq(vec![located]));
    }
    if !d.notes.is_empty() {
        let related = d
            .notes
            .iter()
            .enumerate()
            .map(|(i, note)| {
                let mut r = Map::new();
                r.insert("id", Node::number(i as f64));
                if let Some(location) = physical_location(sources, note.span) {
                    r.insert("physicalLocation", location);
                }
                r.insert("message", text(&note.message));
                Node::map(r)
            })
            .collect();
        m.insert("relatedLocations", Node::seq(related));
    }
    if let Some(element) = &d.element {
        m.insert(
            "properties",
            Node::single("element", Node::string(element.as_str())),
        );
    }
    Node::map(m)
}

/// The result of a failed test: its messages, located at its directory.
pub fn test_failure(dir: &str, messages: &[String]) -> Node {
    let mut m = Map::new();
    m.insert("ruleId", Node::string(TEST_FAILED));
    m.insert("ruleIndex", Node::number(Code::ALL.len() as f64));
    m.insert("level", Node::string("error"));
    let message = format!("test {dir} failed\n{}", messages.join("\n"));
    m.insert("message", text(message.trim_end()));
    let location = Node::single("artifactLocation", artifact(dir));
    let located = Node::single("physicalLocation", location);
    m.insert("locations", Node::seq(vec![located]));
    Node::map(m)
}

/// A rule: id, descriptions and help, default level.
fn rule(id: &str, summary: &str, default_level: &str) -> Node {
    let mut m = Map::new();
    m.insert("id", Node::string(id));
    m.insert("shortDescription", text(summary));
    m.insert("fullDescription", text(summary));
    m.insert("help", text(summary));
    m.insert(
        "defaultConfiguration",
        Node::single("level", Node::string(default_level)),
    );
    Node::map(m)
}

/// The SARIF log of one run of v4t with `results` (pretty JSON, a final
/// newline): every code as a rule (indices as [`Code::ALL`]), then the
/// rule of failed tests.
pub fn log(results: Vec<Node>) -> String {
    let mut rules: Vec<Node> = Code::ALL
        .iter()
        .map(|c| rule(c.as_str(), c.summary(), "error"))
        .collect();
    rules.push(rule(
        TEST_FAILED,
        "A variability test failed: the resolved template or the error differs from the expected one.",
        "error",
    ));
    let mut driver = Map::new();
    driver.insert("name", Node::string("v4t"));
    driver.insert("version", Node::string(env!("CARGO_PKG_VERSION")));
    driver.insert("semanticVersion", Node::string(env!("CARGO_PKG_VERSION")));
    driver.insert("rules", Node::seq(rules));
    let mut run = Map::new();
    run.insert("tool", Node::single("driver", Node::map(driver)));
    run.insert("columnKind", Node::string("unicodeCodePoints"));
    run.insert("results", Node::seq(results));
    let mut doc = Map::new();
    doc.insert(
        "$schema",
        Node::string("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"),
    );
    doc.insert("version", Node::string("2.1.0"));
    doc.insert("runs", Node::seq(vec![Node::map(run)]));
    let mut json = v4t_yaml::json::to_json_pretty(&Node::map(doc));
    json.push('\n');
    json
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diagnostic_is_one_result_with_its_range_and_notes() {
        let mut sources = Sources::new();
        let id = sources.add("dir/my template.yaml", "a: 1\nb: 2\n");
        let d = Diagnostic::warning(Code::UnknownKey, "unknown key")
            .at(sources.span(id, (1, 4), (1, 5)))
            .in_element("node.a")
            .with_note("see here", sources.span(id, (2, 1), (2, 1)))
            .with_note("plain", None);
        let json = v4t_yaml::json::to_json(&result(&sources, &d));
        expect_test::expect![[r#"{"ruleId":"V4T081","ruleIndex":19,"level":"warning","message":{"text":"unknown key"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"dir/my%20template.yaml"},"region":{"startLine":1,"startColumn":4,"endLine":1,"endColumn":5}}}],"relatedLocations":[{"id":0,"physicalLocation":{"artifactLocation":{"uri":"dir/my%20template.yaml"},"region":{"startLine":2,"startColumn":1,"endLine":2}},"message":{"text":"see here"}},{"id":1,"message":{"text":"plain"}}],"properties":{"element":"node.a"}}"#]].assert_eq(&json);
    }

    #[test]
    fn the_log_lists_every_code_as_a_rule() {
        let log = log(Vec::new());
        for code in Code::ALL {
            assert!(
                log.contains(&format!("\"id\": \"{}\"", code.as_str())),
                "{code:?}"
            );
            assert!(log.contains(&v4t_yaml::json::to_json(&Node::string(code.summary()))));
        }
        assert!(log.contains("\"version\": \"2.1.0\""));
        assert!(log.contains(TEST_FAILED));
    }

    #[test]
    fn absolute_paths_are_file_uris() {
        assert_eq!(uri("/tmp/a b.yaml"), "file:///tmp/a%20b.yaml");
        assert_eq!(uri("x.csar!/t.yaml"), "x.csar!/t.yaml");
        assert_eq!(uri("é"), "%C3%A9");
    }
}
