//! Diagnostics: what is wrong, where it was written, which element of the
//! template it belongs to and which section of the specification it enforces.
//!
//! The element path (`node_templates.db.properties.port`) is kept as a stack
//! of borrowed segments while checking and only rendered when a diagnostic is
//! emitted, so walking a large template costs no string building.

use v4t_source::{Code, Diagnostic, Note, Severity, Span};

use crate::section::Section;

/// The rule table: the finer code of a rule reported with a coarse code
/// (`V4T103`, `V4T107`, `V4T108`) and the section it enforces (TOSCA 2.0,
/// or TOSCA 1.3 for rules only 1.3 has); the innermost matching section
/// wins (`10.2.1` before `10.2`). Rules that share a section with
/// others (`required: false` with a `default`, §9.4) are given their code
/// where they are checked.
const RULES: &[(Code, Section, Code)] = &[
    (
        Code::Definition,
        Section::TypeDerivationRefinement,
        Code::Refinement,
    ),
    (
        Code::Definition,
        Section::RequirementRefinement,
        Code::Refinement,
    ),
    (
        Code::Definition,
        Section::Scalar,
        Code::ScalarTypeDefinition,
    ),
    (
        Code::Definition,
        Section::DataType,
        Code::DataTypeDefinition,
    ),
    (
        Code::Definition,
        Section::SchemaDefinition,
        Code::DataTypeDefinition,
    ),
    (
        Code::Definition,
        Section::ParameterDefinition,
        Code::ParameterDefinition,
    ),
    (
        Code::Definition,
        Section::InterfaceType,
        Code::InterfaceTypeDefinition,
    ),
    (
        Code::Definition,
        Section::OperationDefinition,
        Code::InterfaceTypeDefinition,
    ),
    (
        Code::Definition,
        Section::OperationAssignment,
        Code::ParameterDefinition,
    ),
    (Code::Function, Section::NodeFilter, Code::Condition),
    (
        Code::Function,
        Section::FunctionSyntax,
        Code::FunctionArguments,
    ),
    (
        Code::Function,
        Section::BuiltInFunctions,
        Code::FunctionArguments,
    ),
    (
        Code::Function,
        Section::GraphQueryFunctions,
        Code::ToscaPath,
    ),
    (Code::Function, Section::GetInput, Code::FunctionArguments),
    (Code::Function, Section::ToscaPath, Code::ToscaPath),
    (
        Code::Function,
        Section::FunctionDefinitions,
        Code::UnknownFunction,
    ),
    (
        Code::Function,
        Section::OperationDefinition,
        Code::InterfaceTypeDefinition,
    ),
    (
        Code::Function,
        Section::ImperativeWorkflows,
        Code::Condition,
    ),
    (
        Code::Function,
        Section::SubstitutionMapping,
        Code::Condition,
    ),
    (Code::Function, Section::TriggerDefinition, Code::Condition),
    (
        Code::Function,
        Section::V13Functions,
        Code::FunctionArguments,
    ),
    (
        Code::Function,
        Section::V13PropertyFunctions,
        Code::ToscaPath,
    ),
    (
        Code::Function,
        Section::V13AttributeFunctions,
        Code::ToscaPath,
    ),
    (
        Code::Template,
        Section::RelationshipType,
        Code::RequirementAssignment,
    ),
    (
        Code::Template,
        Section::CapabilityDefinition,
        Code::RequirementAssignment,
    ),
    (
        Code::Template,
        Section::RequirementAssignment,
        Code::RequirementAssignment,
    ),
    (
        Code::Template,
        Section::RequirementCount,
        Code::RequirementCount,
    ),
    (Code::Template, Section::Workflows, Code::Workflow),
    (
        Code::Template,
        Section::Substitution,
        Code::SubstitutionMapping,
    ),
    (
        Code::Template,
        Section::GroupsAndPolicies,
        Code::GroupOrPolicy,
    ),
];

/// The code of the rule that `code` reports for `section` (see the rule
/// table `RULES`); `code` itself where no finer rule is listed.
pub fn rule_code(code: Code, section: Section) -> Code {
    RULES
        .iter()
        .filter(|(coarse, rule, _)| *coarse == code && section.within(*rule))
        .max_by_key(|(_, rule, _)| rule.number().len())
        .map_or(code, |(_, _, fine)| *fine)
}

/// `word` after its indefinite article ("an attribute", "a node").
pub fn with_article(word: &str) -> String {
    let article = if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {word}")
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
    /// (omitted if empty), citing `section` of the specification (if any).
    pub fn report(
        &mut self,
        severity: Severity,
        code: Code,
        section: impl Into<Option<Section>>,
        span: Span,
        path: String,
        message: impl Into<String>,
    ) {
        let mut d = Diagnostic::new(severity, code, message).at(span);
        if !path.is_empty() {
            d.element = Some(path);
        }
        let citation = section.into().map(Section::note);
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
        section: impl Into<Option<Section>>,
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
        section: impl Into<Option<Section>>,
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

    /// Keeps the diagnostics for which `keep` holds.
    pub fn retain(&mut self, keep: impl FnMut(&Diagnostic) -> bool) {
        self.list.retain(keep);
        self.last_cited = false;
    }

    /// The diagnostics in the order they were found, to be amended.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Diagnostic> {
        self.list.iter_mut()
    }

    /// Appends the diagnostics of `other`.
    pub fn extend(&mut self, other: Diagnostics) {
        if !other.list.is_empty() {
            self.last_cited = other.last_cited;
        }
        self.list.extend(other.list);
    }

    /// The diagnostics sorted by source and position (unknown locations
    /// last, in the order they were found), without exact duplicates.
    pub fn into_sorted(mut self) -> Vec<Diagnostic> {
        // A stable sort keeps the discovery order among equal locations.
        self.list.sort_by_key(|d| {
            let s = d.span;
            (
                !s.is_known(),
                s.source,
                s.start,
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
        let at = |offset| Span::at(v4t_yaml::SourceId(0), offset);
        ds.error(
            Code::Template,
            Some(Section::FileKeynames),
            at(5),
            String::new(),
            "later",
        );
        ds.error(
            Code::Template,
            Some(Section::FileKeynames),
            at(2),
            "a.b".to_string(),
            "earlier",
        );
        ds.error(
            Code::Template,
            Some(Section::FileKeynames),
            at(2),
            "a.b".to_string(),
            "earlier",
        );
        ds.error(
            Code::Template,
            Some(Section::V13Types),
            Span::NONE,
            String::new(),
            "nowhere",
        );
        let sorted = ds.into_sorted();
        let messages: Vec<_> = sorted.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["earlier", "later", "nowhere"]);
        assert_eq!(sorted[0].element.as_deref(), Some("a.b"));
        assert_eq!(sorted[0].notes[0].message, "TOSCA 2.0 §6.1");
        assert_eq!(sorted[2].notes[0].message, "TOSCA 1.3 §3.3");
    }

    #[test]
    fn notes_go_before_the_cited_section_and_no_section_cites_nothing() {
        let mut ds = Diagnostics::new();
        let at = Span::at(v4t_yaml::SourceId(0), 0);
        ds.error(
            Code::Template,
            Some(Section::PropertyAssignment),
            at,
            String::new(),
            "cited",
        );
        ds.note("first", None);
        ds.note("second", Some(at));
        ds.error(Code::Template, None, at, String::new(), "uncited");
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
    fn levels_turn_errors_into_warnings_or_silence_them() {
        let at = Span::at(v4t_yaml::SourceId(0), 0);
        let mut ds = Diagnostics::new();
        ds.error(
            Code::OptionalDefault,
            Some(Section::PropertyDefinition),
            at,
            String::new(),
            "default",
        );
        ds.error(
            Code::Refinement,
            Some(Section::TypeDerivationRefinement),
            at,
            String::new(),
            "refined",
        );
        ds.error(
            Code::TypeMismatch,
            Some(Section::BuiltInTypes),
            at,
            String::new(),
            "mismatch",
        );
        ds.error(
            Code::ToscaPath,
            Some(Section::ToscaPath),
            at,
            String::new(),
            "path",
        );
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
        assert_eq!(
            rule_code(Code::Function, Section::GraphQueryFunctions),
            Code::ToscaPath
        );
        assert_eq!(
            rule_code(Code::Function, Section::GetInput),
            Code::FunctionArguments
        );
        assert_eq!(
            rule_code(Code::Function, Section::ComparisonFunctions),
            Code::FunctionArguments
        );
        assert_eq!(
            rule_code(Code::Function, Section::V13AttributeFunctions),
            Code::ToscaPath
        );
        assert_eq!(
            rule_code(Code::Function, Section::V13Concat),
            Code::FunctionArguments
        );
        assert_eq!(
            rule_code(Code::Template, Section::RequirementCount),
            Code::RequirementCount
        );
        assert_eq!(
            rule_code(Code::Template, Section::RequirementMappingRules),
            Code::SubstitutionMapping
        );
        assert_eq!(
            rule_code(Code::Template, Section::NodeTemplate),
            Code::Template
        );
        // No rule for the section.
        assert_eq!(
            rule_code(Code::Function, Section::ParameterMappingAssignment),
            Code::Function
        );
        assert_eq!(
            rule_code(Code::TypeMismatch, Section::BuiltInTypes),
            Code::TypeMismatch
        );
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
