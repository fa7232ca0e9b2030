//! Diagnostics: what is wrong, where it was written, which element of the
//! template it belongs to and which section of the specification it enforces.
//!
//! The element path (`node_templates.db.properties.port`) is kept as a stack
//! of borrowed segments while checking and only rendered when a diagnostic is
//! emitted, so walking a large template costs no string building.

use v4t_source::{Code, Diagnostic, Note, Severity, Span};

/// The note that names the section of the specification a rule comes
/// from: `TOSCA 2.0 §9.5`, or `TOSCA 1.3 §3.6.10` for sections written
/// `1.3 3.6.10`; `None` for the empty section (nothing to cite).
pub fn section_note(section: &str) -> Option<String> {
    if section.is_empty() {
        return None;
    }
    Some(match section.strip_prefix("1.3 ") {
        Some(s) => format!("TOSCA 1.3 §{s}"),
        None => format!("TOSCA 2.0 §{section}"),
    })
}

/// The section to cite for a rule of TOSCA 2.0 `section` in a file of the
/// grammar the file uses: the section itself in a TOSCA 2.0 file; in a
/// TOSCA 1.3 file the section of TOSCA Simple Profile in YAML 1.3 with the
/// same rule (`1.3 3.6.10`), or `""` where 1.3 has no such section (a rule
/// new in 2.0): a file is never told about a grammar it does not use.
/// Sections already written for 1.3 stay as they are.
pub fn cited(section: &'static str, v13: bool) -> &'static str {
    if !v13 || section.starts_with("1.3 ") {
        return section;
    }
    SECTIONS_13
        .iter()
        .find(|(s20, _)| *s20 == section)
        .map_or("", |(_, s13)| s13)
}

/// TOSCA 2.0 sections and their TOSCA 1.3 counterparts (TOSCA Simple
/// Profile in YAML 1.3: §3.3 the built-in types, §3.6 reusable definitions,
/// §3.7 type definitions, §3.8 template definitions, §3.9 the topology
/// template, §3.10 the service template file, §4 functions). Where the
/// counterpart is not one subsection, its chapter is cited.
const SECTIONS_13: &[(&str, &str)] = &[
    ("5.3.1", "1.3 3.6.2"),
    ("5.3.2", "1.3 3.6.1"),
    ("6.1", "1.3 3.10"),
    ("6.2", "1.3 3.10"),
    ("6.3", "1.3 3.10"),
    ("6.4.1", "1.3 3.7.1"),
    ("6.4.2", "1.3 3.7.1"),
    ("6.5", "1.3 3.6.6"),
    ("6.8.1", "1.3 3.6.8"),
    ("6.8.2", "1.3 3.6.8"),
    ("6.8.2.2", "1.3 3.6.8"),
    ("6.9.1", "1.3 3.9"),
    ("6.9.2", "1.3 3.9"),
    ("6.9.3", "1.3 3.9"),
    ("6.9.5", "1.3 3.9"),
    ("6.9.8", "1.3 3.9"),
    ("7.1", "1.3 3.7.9"),
    ("7.2", "1.3 3.8.3"),
    ("7.2.1", "1.3 3.8.3"),
    ("7.3", "1.3 3.7.10"),
    ("7.4", "1.3 3.8.4"),
    ("8.1", "1.3 3.7.7"),
    ("8.2", "1.3 3.7.2"),
    ("8.3", "1.3 3.8.1"),
    ("8.4", "1.3 3.7.3"),
    ("8.4.1", "1.3 3.7.3"),
    ("8.5", "1.3 3.8.2"),
    ("8.5.1", "1.3 3.8.2"),
    ("8.5.2", "1.3 3.8.2"),
    ("8.6", "1.3 3.6.5"),
    ("9.1", "1.3 3.3"),
    ("9.1.2.1", "1.3 3.3.1"),
    ("9.1.2.2", "1.3 3.3.6"),
    ("9.1.2.3", "1.3 3.3.2"),
    ("9.1.3.1", "1.3 3.3.4"),
    ("9.1.3.2", "1.3 3.3.5"),
    ("9.2", "1.3 3.7.6"),
    ("9.3", "1.3 3.6.9"),
    ("9.4", "1.3 3.6.10"),
    ("9.5", "1.3 3.6.11"),
    ("9.6", "1.3 3.6.12"),
    ("9.7", "1.3 3.6.13"),
    ("9.8", "1.3 3.6.14"),
    ("9.11", "1.3 3.6.3"),
    ("10.2", "1.3 4"),
    ("10.2.1", "1.3 4"),
    ("10.2.1.1", "1.3 4"),
    ("11.1", "1.3 3.7.5"),
    ("11.2", "1.3 3.6"),
    ("11.3", "1.3 3.6"),
    ("11.4", "1.3 3.6.16"),
    ("11.5", "1.3 3.6"),
    ("11.8", "1.3 3.6.15"),
    ("12.1", "1.3 3.7.4"),
    ("12.2", "1.3 3.6.7"),
    ("13.2", "1.3 3.8"),
    ("13.2.1", "1.3 3.8"),
    ("13.2.2", "1.3 3.8"),
    ("13.2.3", "1.3 3.8"),
    ("13.2.3.2", "1.3 3.8"),
    ("13.2.3.3", "1.3 3.8"),
    ("13.2.3.4", "1.3 3.8"),
    ("15.1", "1.3 3.8"),
    ("15.2", "1.3 3.8"),
    ("15.3", "1.3 3.8"),
    ("15.4", "1.3 3.8"),
    ("15.5", "1.3 3.8"),
    ("15.6", "1.3 3.8"),
    ("16.1", "1.3 3.7.11"),
    ("16.2", "1.3 3.8.5"),
    ("16.3", "1.3 3.7.12"),
    ("16.4", "1.3 3.8.6"),
    ("16.5", "1.3 3.6"),
];

/// The rule table: the finer code of a rule reported with a coarse code
/// (`V4T103`, `V4T107`, `V4T108`) and the TOSCA 2.0 section it enforces
/// (or the TOSCA 1.3 section, written `1.3 4.5`); the longest matching
/// section wins (`10.2.1` before `10.2`). Rules that share a section with
/// others (`required: false` with a `default`, §9.4) are given their code
/// where they are checked.
const RULES: &[(Code, &str, Code)] = &[
    (Code::Definition, "5.1.3", Code::Refinement),
    (Code::Definition, "8.4.1", Code::Refinement),
    (Code::Definition, "9.1.2.2", Code::ScalarTypeDefinition),
    (Code::Definition, "9.2", Code::DataTypeDefinition),
    (Code::Definition, "9.3", Code::DataTypeDefinition),
    (Code::Definition, "9.8", Code::ParameterDefinition),
    (Code::Definition, "11.1", Code::InterfaceTypeDefinition),
    (Code::Definition, "11.4", Code::InterfaceTypeDefinition),
    (Code::Definition, "11.5", Code::ParameterDefinition),
    (Code::Function, "8.6", Code::Condition),
    (Code::Function, "10.1", Code::FunctionArguments),
    (Code::Function, "10.2", Code::FunctionArguments),
    (Code::Function, "10.2.1", Code::ToscaPath),
    (Code::Function, "10.2.1.1", Code::FunctionArguments),
    (Code::Function, "10.3", Code::ToscaPath),
    (Code::Function, "10.4", Code::UnknownFunction),
    (Code::Function, "11.4", Code::InterfaceTypeDefinition),
    (Code::Function, "13.2", Code::Condition),
    (Code::Function, "15.1", Code::Condition),
    (Code::Function, "16.5", Code::Condition),
    (Code::Function, "1.3 4", Code::FunctionArguments),
    (Code::Function, "1.3 4.5", Code::ToscaPath),
    (Code::Template, "7.3", Code::RequirementAssignment),
    (Code::Template, "8.2", Code::RequirementAssignment),
    (Code::Template, "8.5", Code::RequirementAssignment),
    (Code::Template, "8.5.4", Code::RequirementCount),
    (Code::Template, "13", Code::Workflow),
    (Code::Template, "15", Code::SubstitutionMapping),
    (Code::Template, "16", Code::GroupOrPolicy),
];

/// The code of the rule that `code` reports for `section` (see the rule
/// table `RULES`); `code` itself where no finer rule is listed.
pub fn rule_code(code: Code, section: &str) -> Code {
    let within = |rule: &str| {
        section == rule
            || section
                .strip_prefix(rule)
                .is_some_and(|rest| rest.starts_with('.'))
    };
    RULES
        .iter()
        .filter(|(coarse, rule, _)| *coarse == code && within(rule))
        .max_by_key(|(_, rule, _)| rule.len())
        .map_or(code, |(_, _, fine)| *fine)
}

/// The name among `candidates` that `name` most likely misspells (at most
/// a third of its letters edited), for a "did you mean" note; `None` if
/// none is that close or several are equally close.
pub fn suggest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    // One edit in three letters, at most three; names under three letters
    // are too short to tell a misspelling from another name.
    let limit = (name.chars().count() / 3).min(3);
    if limit == 0 || name.len() > MAX_SUGGESTED_LEN {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    let mut tie = false;
    for c in candidates {
        if c == name || c.len() > MAX_SUGGESTED_LEN {
            continue;
        }
        let d = edit_distance(name, c, limit);
        match best {
            _ if d > limit => {}
            Some((bd, b)) if d == bd && b != c => tie = true,
            Some((bd, _)) if d >= bd => {}
            _ => {
                best = Some((d, c));
                tie = false;
            }
        }
    }
    best.filter(|_| !tie).map(|(_, c)| c)
}

/// Names longer than this are not compared (the comparison is quadratic).
const MAX_SUGGESTED_LEN: usize = 100;

/// "did you mean" suggestions within a budget of name comparisons, so
/// that a hostile file with many unknown names among many candidates
/// cannot make validation quadratic: once the budget is spent, there are no
/// more suggestions.
#[derive(Clone, Debug)]
pub struct Suggestions {
    budget: usize,
}

impl Default for Suggestions {
    fn default() -> Suggestions {
        Suggestions { budget: 1_000_000 }
    }
}

impl Suggestions {
    /// [`suggest`] among `candidates`, if the budget still allows comparing
    /// `name` with all of them.
    pub fn suggest<'c>(&mut self, name: &str, candidates: &'c [String]) -> Option<&'c str> {
        self.suggest_str(
            name,
            &candidates.iter().map(String::as_str).collect::<Vec<_>>(),
        )
    }

    /// [`Suggestions::suggest`] among borrowed names.
    pub fn suggest_str<'c>(&mut self, name: &str, candidates: &[&'c str]) -> Option<&'c str> {
        self.budget = self.budget.checked_sub(candidates.len())?;
        suggest(name, candidates.iter().copied())
    }
}

/// The Damerau-Levenshtein distance (adjacent transpositions count one) of
/// two names, ignoring case differences of a letter; anything over `limit`
/// is reported as `limit + 1`.
fn edit_distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    // Rows of the distance matrix: two back, the previous, the current.
    let mut older: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(older[j - 2] + 1);
            }
        }
        if cur.iter().min().is_some_and(|&m| m > limit) {
            return limit + 1;
        }
        older = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()].min(limit + 1)
}

/// One step of an element path.
#[derive(Clone, Copy, Debug)]
pub enum Seg<'a> {
    /// A mapping key.
    Key(&'a str),
    /// A sequence index.
    Index(usize),
}

/// The element path of the node being checked, as a stack of borrowed segments.
#[derive(Clone, Debug, Default)]
pub struct ElementPath<'a> {
    segs: Vec<Seg<'a>>,
}

impl<'a> ElementPath<'a> {
    /// Enters the value of mapping key `key`.
    pub fn push(&mut self, key: &'a str) {
        self.segs.push(Seg::Key(key));
    }

    /// Enters sequence item `i`.
    pub fn push_index(&mut self, i: usize) {
        self.segs.push(Seg::Index(i));
    }

    /// Leaves the innermost segment.
    pub fn pop(&mut self) {
        self.segs.pop();
    }

    /// The number of segments (a depth [`ElementPath::truncate`] restores).
    pub fn len(&self) -> usize {
        self.segs.len()
    }

    /// Whether the path is the document root.
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// Drops segments down to `len` (restores a saved depth).
    pub fn truncate(&mut self, len: usize) {
        self.segs.truncate(len);
    }

    /// Renders the path: keys joined with `.`, indices as `[i]`; keys that
    /// contain `.` are quoted so the path stays unambiguous.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for seg in &self.segs {
            match seg {
                Seg::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    if k.contains('.') || k.contains('[') {
                        out.push('"');
                        out.push_str(k);
                        out.push('"');
                    } else {
                        out.push_str(k);
                    }
                }
                Seg::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        out
    }
}

/// What a user asked to make of a rule (`--warn CODE`, `--allow CODE`, or
/// the same in `v4t.toml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Report its errors as warnings.
    Warn,
    /// Report nothing.
    Allow,
}

/// The severities a user configured, by code: a code's own setting, else
/// the setting of the coarser code it refines ([`Code::refines`]: `--warn
/// V4T103` covers `V4T110`). Settings made later override earlier ones
/// (`v4t.toml` first, then the command line). Default severities are the
/// specification's: without settings nothing changes.
#[derive(Clone, Debug, Default)]
pub struct Levels {
    settings: Vec<(Code, Level, String)>,
}

impl Levels {
    /// No settings.
    pub fn new() -> Levels {
        Levels::default()
    }

    /// Sets `code` to `level`; `origin` (`--warn V4T110`, `v4t.toml`) is
    /// named in a note on each diagnostic the setting turns into a warning.
    pub fn set(&mut self, code: Code, level: Level, origin: impl Into<String>) {
        self.settings.retain(|(c, ..)| *c != code);
        self.settings.push((code, level, origin.into()));
    }

    /// Whether nothing is configured.
    pub fn is_empty(&self) -> bool {
        self.settings.is_empty()
    }

    fn level_of(&self, code: Code) -> Option<&(Code, Level, String)> {
        let own = self.settings.iter().find(|(c, ..)| *c == code);
        own.or_else(|| {
            let group = code.refines()?;
            self.settings.iter().find(|(c, ..)| *c == group)
        })
    }

    /// The diagnostics with the configured severities: errors of `Warn`
    /// codes as warnings (with a note saying why), `Allow` codes dropped.
    pub fn apply(&self, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        if self.is_empty() {
            return diagnostics;
        }
        diagnostics
            .into_iter()
            .filter_map(|mut d| match self.level_of(d.code) {
                None => Some(d),
                Some((_, Level::Allow, _)) => None,
                Some((_, Level::Warn, origin)) => {
                    if d.severity == Severity::Error {
                        d.severity = Severity::Warning;
                        // Before the cited section, which stays last.
                        let cited = d
                            .notes
                            .last()
                            .is_some_and(|n| n.message.starts_with("TOSCA "));
                        let at = d.notes.len() - usize::from(cited);
                        let message =
                            format!("an error of TOSCA, reported as a warning by {origin}");
                        d.notes.insert(
                            at,
                            Note {
                                message,
                                span: Span::NONE,
                            },
                        );
                    }
                    Some(d)
                }
            })
            .collect()
    }
}

/// Collects diagnostics; [`Diagnostics::into_sorted`] gives them
/// deduplicated and in a deterministic order.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
    /// Whether the last diagnostic ends with the section it cites (notes
    /// added later go before it).
    last_cited: bool,
}

impl Diagnostics {
    /// No diagnostics yet.
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Adds a diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        self.list.push(d);
        self.last_cited = false;
    }

    /// A finding of `severity` at `span`, about the element at `path`
    /// (omitted if empty), citing `section` of the specification (nothing
    /// if it is empty).
    pub fn report(
        &mut self,
        severity: Severity,
        code: Code,
        section: &str,
        span: Span,
        path: String,
        message: impl Into<String>,
    ) {
        let mut d = Diagnostic::new(severity, code, message).at(span);
        if !path.is_empty() {
            d.element = Some(path);
        }
        let citation = section_note(section);
        let cited = citation.is_some();
        if let Some(c) = citation {
            d = d.with_note(c, None);
        }
        self.push(d);
        self.last_cited = cited;
    }

    /// Adds a note to the last diagnostic (before the section it cites):
    /// what to do, what was meant, where something is defined.
    pub fn note(&mut self, message: impl Into<String>, span: Option<Span>) {
        let Some(d) = self.list.last_mut() else {
            return;
        };
        let note = Note {
            message: message.into(),
            span: span.unwrap_or(Span::NONE),
        };
        let at = d.notes.len() - usize::from(self.last_cited);
        d.notes.insert(at, note);
    }

    /// An error finding (see [`Diagnostics::report`]).
    pub fn error(
        &mut self,
        code: Code,
        section: &str,
        span: Span,
        path: String,
        message: impl Into<String>,
    ) {
        self.report(Severity::Error, code, section, span, path, message);
    }

    /// A warning finding (see [`Diagnostics::report`]).
    pub fn warning(
        &mut self,
        code: Code,
        section: &str,
        span: Span,
        path: String,
        message: impl Into<String>,
    ) {
        self.report(Severity::Warning, code, section, span, path, message);
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.list.iter().any(Diagnostic::is_error)
    }

    /// How many diagnostics there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Drops the diagnostics found after the first `len` (a tentative check).
    pub fn truncate(&mut self, len: usize) {
        if len < self.list.len() {
            self.list.truncate(len);
            self.last_cited = false;
        }
    }

    /// The diagnostics in the order they were found.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter()
    }

    /// Appends the diagnostics of `other`.
    pub fn extend(&mut self, other: Diagnostics) {
        if !other.list.is_empty() {
            self.last_cited = other.last_cited;
        }
        self.list.extend(other.list);
    }

    /// The diagnostics sorted by source, line and column (unknown locations
    /// last, in the order they were found), without exact duplicates.
    pub fn into_sorted(mut self) -> Vec<Diagnostic> {
        // A stable sort keeps the discovery order among equal locations.
        self.list.sort_by_key(|d| {
            let s = d.span;
            (
                !s.is_known(),
                s.source,
                s.line,
                s.col,
                d.severity == Severity::Warning,
            )
        });
        self.list.dedup_by(|a, b| a == b);
        self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_keys_indices_and_quote_dotted_keys() {
        let mut p = ElementPath::default();
        p.push("service_template");
        p.push("node_templates");
        p.push("db");
        p.push("requirements");
        p.push_index(2);
        p.push("Endpoint.Database");
        assert_eq!(
            p.render(),
            "service_template.node_templates.db.requirements[2].\"Endpoint.Database\""
        );
        p.truncate(3);
        assert_eq!(p.render(), "service_template.node_templates.db");
    }

    #[test]
    fn diagnostics_sort_by_location_and_drop_duplicates() {
        let mut ds = Diagnostics::new();
        let at = |line| Span::new(v4t_yaml::SourceId(0), line, 1);
        ds.error(Code::Template, "1", at(5), String::new(), "later");
        ds.error(Code::Template, "1", at(2), "a.b".to_string(), "earlier");
        ds.error(Code::Template, "1", at(2), "a.b".to_string(), "earlier");
        ds.error(
            Code::Template,
            "1.3 3.1",
            Span::NONE,
            String::new(),
            "nowhere",
        );
        let sorted = ds.into_sorted();
        let messages: Vec<_> = sorted.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["earlier", "later", "nowhere"]);
        assert_eq!(sorted[0].element.as_deref(), Some("a.b"));
        assert_eq!(sorted[0].notes[0].message, "TOSCA 2.0 §1");
        assert_eq!(sorted[2].notes[0].message, "TOSCA 1.3 §3.1");
    }

    #[test]
    fn notes_go_before_the_cited_section_and_no_section_cites_nothing() {
        let mut ds = Diagnostics::new();
        let at = Span::new(v4t_yaml::SourceId(0), 1, 1);
        ds.error(Code::Template, "9.5", at, String::new(), "cited");
        ds.note("first", None);
        ds.note("second", Some(at));
        ds.error(Code::Template, "", at, String::new(), "uncited");
        ds.note("only", None);
        let notes: Vec<Vec<&str>> = ds
            .iter()
            .map(|d| d.notes.iter().map(|n| n.message.as_str()).collect())
            .collect();
        assert_eq!(
            notes,
            [vec!["first", "second", "TOSCA 2.0 §9.5"], vec!["only"]]
        );
    }

    #[test]
    fn sections_are_cited_in_the_grammar_of_the_file() {
        assert_eq!(cited("9.4", false), "9.4");
        assert_eq!(cited("9.4", true), "1.3 3.6.10");
        assert_eq!(cited("7.2", true), "1.3 3.8.3");
        // New in TOSCA 2.0: nothing to cite in a 1.3 file.
        assert_eq!(cited("10.4", true), "");
        assert_eq!(cited("8.5.4", true), "");
        assert_eq!(cited("1.3 3.6.16", true), "1.3 3.6.16");
        assert_eq!(
            section_note(cited("9.4", true)).unwrap(),
            "TOSCA 1.3 §3.6.10"
        );
        assert_eq!(section_note(""), None);
        // Every 1.3 counterpart is written as one.
        assert!(SECTIONS_13
            .iter()
            .all(|(_, s13)| s13.starts_with("1.3 3.") || *s13 == "1.3 4"));
    }

    #[test]
    fn levels_turn_errors_into_warnings_or_silence_them() {
        let at = Span::new(v4t_yaml::SourceId(0), 1, 1);
        let mut ds = Diagnostics::new();
        ds.error(Code::OptionalDefault, "9.4", at, String::new(), "default");
        ds.error(Code::Refinement, "5.1.3", at, String::new(), "refined");
        ds.error(Code::TypeMismatch, "9.1", at, String::new(), "mismatch");
        ds.error(Code::ToscaPath, "10.3", at, String::new(), "path");
        let all = ds.into_sorted();
        let mut levels = Levels::new();
        assert_eq!(levels.apply(all.clone()), all);
        levels.set(Code::Definition, Level::Warn, "v4t.toml");
        levels.set(Code::OptionalDefault, Level::Warn, "v4t.toml");
        levels.set(Code::OptionalDefault, Level::Allow, "--allow V4T110");
        levels.set(Code::ToscaPath, Level::Warn, "--warn V4T122");
        let out = levels.apply(all);
        let seen: Vec<(&str, Severity)> = out
            .iter()
            .map(|d| (d.message.as_str(), d.severity))
            .collect();
        assert_eq!(
            seen,
            [
                ("refined", Severity::Warning),
                ("mismatch", Severity::Error),
                ("path", Severity::Warning)
            ]
        );
        assert_eq!(
            out[2].notes[0].message,
            "an error of TOSCA, reported as a warning by --warn V4T122"
        );
    }

    #[test]
    fn rules_refine_coarse_codes_by_their_section() {
        assert_eq!(rule_code(Code::Function, "10.2.1"), Code::ToscaPath);
        assert_eq!(
            rule_code(Code::Function, "10.2.1.1"),
            Code::FunctionArguments
        );
        assert_eq!(
            rule_code(Code::Function, "10.2.2.2"),
            Code::FunctionArguments
        );
        assert_eq!(rule_code(Code::Function, "1.3 4.5"), Code::ToscaPath);
        assert_eq!(
            rule_code(Code::Function, "1.3 4.3.1"),
            Code::FunctionArguments
        );
        assert_eq!(rule_code(Code::Template, "8.5.4"), Code::RequirementCount);
        assert_eq!(
            rule_code(Code::Template, "15.5.4"),
            Code::SubstitutionMapping
        );
        assert_eq!(rule_code(Code::Template, "7.2"), Code::Template);
        // `10.20` is not within `10.2`.
        assert_eq!(rule_code(Code::Function, "10.20"), Code::Function);
        assert_eq!(rule_code(Code::TypeMismatch, "9.1"), Code::TypeMismatch);
        // Every finer code refines the code it is listed for.
        assert!(RULES
            .iter()
            .all(|(coarse, _, fine)| fine.refines() == Some(*coarse)
                || (*coarse == Code::Function && *fine == Code::InterfaceTypeDefinition)));
    }

    #[test]
    fn suggestions_are_close_unique_and_not_for_short_names() {
        let names = ["port", "ports", "protocol", "secure", "Server", "Serve"];
        assert_eq!(suggest("prot", names), Some("port")); // a transposition
        assert_eq!(suggest("cat", ["bat", "cap"]), None); // a tie
        assert_eq!(suggest("cat", ["bat", "bat"]), Some("bat"));
        assert_eq!(suggest("protocl", names), Some("protocol"));
        assert_eq!(suggest("secrue", names), Some("secure"));
        assert_eq!(suggest("server", ["Server"]), Some("Server")); // case only
        assert_eq!(suggest("Serverx", names), Some("Server"));
        assert_eq!(suggest("xyz", names), None);
        assert_eq!(suggest("p", names), None); // too short to tell
        assert_eq!(suggest("colour", ["port"]), None);
        assert_eq!(edit_distance("kitten", "sitting", 5), 3);
        assert_eq!(edit_distance("kitten", "sitting", 1), 2);
        let long = "x".repeat(MAX_SUGGESTED_LEN + 1);
        assert_eq!(suggest(&long, [long.as_str()]), None);
    }

    #[test]
    fn suggestions_stop_when_their_budget_is_spent() {
        let names: Vec<String> = (0..1000).map(|i| format!("name{i:04}")).collect();
        let mut budget = Suggestions { budget: 2500 };
        assert_eq!(budget.suggest("name0007x", &names), Some("name0007"));
        assert_eq!(budget.suggest("name0008x", &names), Some("name0008"));
        assert_eq!(budget.suggest("name0009x", &names), None);
        assert_eq!(budget.suggest_str("porx", &["port"]), Some("port"));
    }
}
