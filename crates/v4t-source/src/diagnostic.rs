//! Diagnostics: errors and warnings that explain themselves.
//!
//! A [`Diagnostic`] keeps the message exactly as the reference implementation
//! words it (tests and scripts compare it verbatim) and adds what a reader
//! needs to act on it: a stable [`Code`], the range of the offending node,
//! [`Note`]s with their own locations (why a template cannot be solved, what
//! was meant), and the element it is about.

use std::fmt;

use v4t_yaml::Span;

use crate::Sources;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The run fails.
    #[default]
    Error,
    /// A probable mistake; the result is not affected.
    Warning,
}

impl Severity {
    /// `error` or `warning`, as printed.
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Declares [`Code`] with each code's number and summary in one table, which
/// `docs/diagnostics.md` mirrors (a test compares them).
macro_rules! codes {
    ($($(#[$doc:meta])* $name:ident = $code:literal, $summary:literal;)*) => {
        /// The stable code of a diagnostic (`V4T0xx`). Codes are never reused
        /// for another meaning; `docs/diagnostics.md` lists them all.
        /// `V4T1xx` is reserved for the TOSCA 2.0 validator.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code {
            $($(#[$doc])* $name,)*
        }

        impl Code {
            /// Every code, in table order.
            pub const ALL: &'static [Code] = &[$(Code::$name,)*];

            /// The code as printed (`V4T040`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$name => $code,)*
                }
            }

            /// One line on what the code means (the table's second column).
            pub fn summary(self) -> &'static str {
                match self {
                    $(Code::$name => $summary,)*
                }
            }
        }
    };
}

codes! {
    /// Invalid YAML.
    Yaml = "V4T001", "The text is not valid YAML (syntax, duplicate key, unknown tag or alias) or exceeds a YAML limit (nesting depth, alias expansion).";
    /// Not UTF-8 or too large.
    Encoding = "V4T002", "A template or inputs text is not UTF-8 or is too large.";
    /// A file that cannot be read.
    File = "V4T003", "A file cannot be read: the template, an inputs file or a file the template refers to does not exist, cannot be read or may not be read.";
    /// An output that cannot be written.
    Write = "V4T004", "An output (the result, the decision report) cannot be written.";
    /// Unsupported `tosca_definitions_version`.
    DefinitionsVersion = "V4T010", "The `tosca_definitions_version` is missing or not supported.";
    /// Wrong shape of a section or element.
    InvalidShape = "V4T011", "A section or element has the wrong shape (a list where a map belongs, a missing or surplus key, a value of the wrong kind).";
    /// A name that refers to nothing.
    UndefinedReference = "V4T012", "A name refers to nothing: a node, type, input, expression, element or container that is not defined.";
    /// Duplicate or ambiguous definitions.
    Duplicate = "V4T013", "Definitions are duplicated or ambiguous: two elements of one name, several defaults, a reference that matches more than one element.";
    /// A malformed condition, constraint or logic expression.
    InvalidCondition = "V4T020", "A condition, constraint or logic expression is malformed (unknown operator, wrong operands, too deep).";
    /// A value expression that cannot be evaluated.
    Expression = "V4T021", "A value expression cannot be evaluated (wrong operands, unknown input or expression, cycle, too deep).";
    /// Technology rules that cannot be applied.
    Technology = "V4T022", "Deployment technology rules or technologies cannot be applied.";
    /// An unknown variability preset.
    UnknownPreset = "V4T030", "A variability preset that the template does not define was requested.";
    /// Variability inputs that are not allowed.
    InvalidInput = "V4T031", "Variability inputs violate the template's input constraints or cannot be read.";
    /// No variant satisfies everything.
    Unsatisfiable = "V4T040", "Could not solve: conditions, constraints and input values contradict each other; the notes name the ones involved.";
    /// An optimisation result that is not unique.
    Ambiguous = "V4T041", "The optimisation result is not unique although a uniqueness check was requested.";
    /// A failed consistency or semantic check of the resolved template.
    Inconsistent = "V4T050", "A consistency or semantic check of the resolved template failed (a relation without its target, a node without its type or host, ...).";
    /// The resolved template cannot be written.
    Output = "V4T060", "The resolved template cannot be written (property values, outputs or other elements cannot be transformed).";
    /// A resolved template that is not valid TOSCA (`--validate`).
    InvalidOutput = "V4T061", "The resolved template is not valid TOSCA (`--validate`): the TOSCA validator's first error, located in the output, with where the offending part was written in the variable template.";
    /// A declared variability input that nothing reads (warning).
    UnusedInput = "V4T080", "Warning: a declared variability input is read by no `variability_input` operator.";
    /// A key that neither TOSCA nor Variability4TOSCA knows (warning).
    UnknownKey = "V4T081", "Warning: a key is neither a TOSCA nor a Variability4TOSCA key (probably a typo).";
    /// A requirement that targets its own node (warning).
    SelfReference = "V4T082", "Warning: a requirement targets the node that declares it.";
    /// An unknown or outdated variability option (warning).
    UnknownOption = "V4T083", "Warning: a variability option is unknown or an outdated name (the warning names the current one).";
    /// An assignment to an undeclared variability input (warning).
    UndeclaredInput = "V4T084", "Warning: a preset, an inputs file or `--input` assigns a variability input the template does not declare.";
    /// Element keys where they are data (warning).
    ConditionAsData = "V4T085", "Warning: `conditions` or another element key stands where it is data (a property in map form or without `value`/`expression`, a capability property) and is kept as part of the value.";
    /// Something v4t does not support and ignores (warning).
    Unsupported = "V4T086", "Warning: a feature v4t does not support is ignored (`plugins`; look-around or backreferences in a TOSCA `pattern`, which is then not checked).";
    /// A file beside the template that was skipped (warning).
    SkippedFile = "V4T087", "Warning: an entry of `lib/` was skipped (a symlink leaving the template directory, a dangling symlink, not a regular file).";
    /// A requirement pruned below its `count_range` minimum (warning).
    CountRange = "V4T088", "Warning: pruning leaves a requirement of a present node with fewer relationships than the minimum of its TOSCA 2.0 `count_range` (a TOSCA 2.0 processor adds the missing ones at deployment).";
    /// A failure that the processor does not classify further.
    Internal = "V4T090", "An error the processor does not classify further (the message says what happened).";
    /// A TOSCA import cannot be followed: the file does not exist or leaves the repository, the profile is unknown, or the URL is remote.
    Import = "V4T100", "A TOSCA import cannot be followed: the file does not exist or leaves the repository, the profile is unknown, or the URL is remote.";
    /// A keyname the TOSCA grammar does not define at this place (with the TOSCA 2.
    UnknownKeyname = "V4T101", "A keyname the TOSCA grammar does not define at this place (with the TOSCA 2.0 name where a TOSCA 1.3 keyname was used).";
    /// A mandatory TOSCA keyname is missing (`type` of a template, `node_templates`, `url` of a repository, .
    MissingKeyname = "V4T102", "A mandatory TOSCA keyname is missing (`type` of a template, `node_templates`, `url` of a repository, ...).";
    /// A type or entity definition breaks a rule of its kind: derivation cycles, refinements that do not derive, fixed values, defaults of optional properties, data type, scalar type and schema rules.
    Definition = "V4T103", "A type or entity definition breaks a rule of its kind: derivation cycles, refinements that do not derive, fixed values, defaults of optional properties, data type, scalar type and schema rules.";
    /// A value does not fit its TOSCA data type (no implicit coercion: `1.
    TypeMismatch = "V4T104", "A value does not fit its TOSCA data type (no implicit coercion: `1.0` is no integer, `\"1\"` no number).";
    /// A value does not satisfy a validation clause (of its data type, schema or definition), or a clause cannot apply to its type.
    Validation = "V4T105", "A value does not satisfy a validation clause (of its data type, schema or definition), or a clause cannot apply to its type.";
    /// A required property or input gets no value (none assigned, no default, no fixed value).
    MissingValue = "V4T106", "A required property or input gets no value (none assigned, no default, no fixed value).";
    /// A TOSCA function call is malformed, unknown, has arguments of the wrong number or shape, or a TOSCA path that leads nowhere.
    Function = "V4T107", "A TOSCA function call is malformed, unknown, has arguments of the wrong number or shape, or a TOSCA path that leads nowhere.";
    /// A template does not fit its type or the rest of the service template: requirement targets and counts, capabilities, copies, groups, policies, workflows, substitution mappings.
    Template = "V4T108", "A template does not fit its type or the rest of the service template: requirement targets and counts, capabilities, copies, groups, policies, workflows, substitution mappings.";
    /// A CSAR is malformed: its TOSCA.
    Csar = "V4T109", "A CSAR is malformed: its TOSCA.meta or the choice of its entry file.";
    /// A property or parameter that is not required has a `default`.
    OptionalDefault = "V4T110", "A property or parameter definition with `required: false` has a `default` (TOSCA 2.0 §9.4, §9.8: SHALL NOT; the specification's own examples do it). Part of `V4T103`.";
    /// A refinement breaks TOSCA 2.0's refinement rules.
    Refinement = "V4T111", "A definition in a derived type breaks TOSCA 2.0's refinement rules (§5.1.3): a type that does not derive from the parent's, a required definition made optional, a fixed value refined, a list widened, a `count_range` beyond the parent's, a symbolic capability changed, a mapping remapped. Part of `V4T103`.";
    /// A data type or schema definition breaks a rule of its kind.
    DataTypeDefinition = "V4T112", "A data type or schema definition breaks a rule of its kind (`derived_from` or `properties`, `key_schema` only for maps and derived from `string`, `entry_schema` only for collections, no validation on a complex type's keys). Part of `V4T103`.";
    /// A scalar type definition breaks a rule of its kind.
    ScalarTypeDefinition = "V4T113", "A scalar type definition breaks a rule of its kind (units, prefixes, `canonical_unit`, `data_type`, the abstract `scalar` used directly). Part of `V4T103`.";
    /// An interface type defines what only templates may.
    InterfaceTypeDefinition = "V4T114", "An interface type defines implementations, attribute mappings or `$get_property`/`$get_attribute` calls, which only node and relationship types and templates may (§11.1, §11.4). Part of `V4T103`.";
    /// A parameter definition breaks a rule of its kind.
    ParameterDefinition = "V4T115", "A parameter definition breaks a rule of its kind: `value` on an incoming or `mapping` on an outgoing parameter, both at once, an output mapped twice (§9.8, §11.5). Part of `V4T103`.";
    /// `entry_schema` is missing for a list or map.
    EntrySchema = "V4T116", "A `list` or `map` definition has no `entry_schema` (TOSCA 2.0 §9.3, §9.4: mandatory for collections). Part of `V4T102`.";
    /// A YAML 1.1 boolean word where a keyname takes a boolean.
    Yaml11Boolean = "V4T117", "A plain YAML 1.1 boolean word (`yes`, `no`, `on`, `off`, `y`, `n`) where a keyname such as `required` takes a boolean: a string in YAML 1.2, which TOSCA uses, so the keyname takes no effect (type libraries written for PyYAML have many). Part of `V4T011`.";
    /// A call of an unknown function or one that matches no signature.
    UnknownFunction = "V4T120", "A function call names no built-in function and no `functions` definition in scope, or matches none of its signatures (§10.4). Part of `V4T107`.";
    /// A function call with arguments of the wrong number or shape.
    FunctionArguments = "V4T121", "A function call is malformed (a `$` key beside other keys, nested too deeply) or has arguments of the wrong number, shape or type (§10.1, §10.2; TOSCA 1.3 §4). Part of `V4T107`.";
    /// A TOSCA path or a name after it leads nowhere.
    ToscaPath = "V4T122", "A TOSCA path or the name after it leads nowhere: an unknown template, requirement, capability, property or attribute, a nested name or index into a value that has none (§10.3, §10.2.1; TOSCA 1.3 §4.4, §4.5). Part of `V4T107`.";
    /// A condition clause that is no Boolean expression.
    Condition = "V4T123", "A condition (node filter, workflow filter or precondition, trigger condition) is not a Boolean expression (§8.6, §13.2, §16.5). Part of `V4T107`.";
    /// A requirement assignment does not fit its definition.
    RequirementAssignment = "V4T130", "A requirement assignment does not fit its definition: the target node, capability or relationship is not of the required type, not valid for the source, or not a template (§8.5; TOSCA 1.3 §3.8.2). Part of `V4T108`.";
    /// Requirement assignments exceed or miss their count range.
    RequirementCount = "V4T131", "The assignments of a requirement exceed or fall short of its `count_range` (§8.5.4). Part of `V4T108`.";
    /// Substitution mappings that do not fit the substituted type.
    SubstitutionMapping = "V4T132", "Substitution mappings do not fit the substituted node type or the service template (§15). Part of `V4T108`.";
    /// A workflow that does not fit the service template.
    Workflow = "V4T133", "A workflow does not fit the service template: step targets, activities, operations, inputs (§13). Part of `V4T108`.";
    /// A group or policy that does not fit the service template.
    GroupOrPolicy = "V4T134", "A group's members or a policy's targets are not of the allowed types or not in the service template (§16). Part of `V4T108`.";
    /// A type name that names no type.
    UnknownType = "V4T140", "A type name names no type of its kind in scope (an unknown, misspelt or ambiguous name, or a type of another kind). Part of `V4T012`.";
    /// A TOSCA 1.x non-normative type used where no file defines it (warning).
    NonNormativeType = "V4T141", "Warning: a TOSCA 1.x file uses a type of the Simple Profile's non-normative chapter (1.3 §9: `tosca.capabilities.Container.Docker`, `tosca.nodes.Container.Application.Docker`, `tosca.artifacts.Deployment.Image.Container.Docker`, `...VM.ISO`, `...VM.QCOW2`, `tosca.artifacts.template.Jinja2`, `...Twig`) that no file of the service template defines: processors need not support these types; v4t knows them, as OpenStack tosca-parser does.";
    /// A remote import that was not fetched.
    RemoteImport = "V4T150", "A TOSCA import names a remote URL (`https:`, or a repository with one) that v4t does not fetch and no `--import-map` maps to a folder: what the file imports is unknown, so it is not checked (`v4t validate` exits with 3 when this is its only problem).";
    /// An imported file that is not a TOSCA file.
    BrokenImport = "V4T151", "An imported file is not a TOSCA file (not YAML, empty, no or an unknown `tosca_definitions_version`): its own error is reported in it, and errors of the importing files that may follow from it (unknown names) are not reported.";
    /// A name defined twice in one namespace.
    NamespaceDuplicate = "V4T152", "A repository or function name is defined in a file and again in a file imported into the same namespace (names are unique within a namespace).";
    /// A type a file defines and also imports into the same namespace (warning).
    ShadowedType = "V4T153", "Warning: a type name is defined in a file and again in a file it imports into the same namespace (names are unique within a namespace); the file's own definition is used.";
    /// a TOSCA construct that is deprecated or cannot take effect (capability occurrences, short artifact definitions, a node filter without `select`, an allocation no target can satisfy).
    ToscaNotice = "V4T180", "Warning: a TOSCA construct that is deprecated or cannot take effect (capability occurrences, short artifact definitions, a node filter without `select`, an allocation no target can satisfy).";
}

impl Code {
    /// The coarser code a code refines (`V4T110` is one of the `V4T103`
    /// rules): `--warn V4T103` and `--allow V4T103` apply to it too.
    pub fn refines(self) -> Option<Code> {
        Some(match self {
            Code::OptionalDefault
            | Code::Refinement
            | Code::DataTypeDefinition
            | Code::ScalarTypeDefinition
            | Code::InterfaceTypeDefinition
            | Code::ParameterDefinition => Code::Definition,
            Code::EntrySchema => Code::MissingKeyname,
            Code::Yaml11Boolean => Code::InvalidShape,
            Code::UnknownFunction | Code::FunctionArguments | Code::ToscaPath | Code::Condition => {
                Code::Function
            }
            Code::RequirementAssignment
            | Code::RequirementCount
            | Code::SubstitutionMapping
            | Code::Workflow
            | Code::GroupOrPolicy => Code::Template,
            Code::UnknownType => Code::UndefinedReference,
            _ => return None,
        })
    }

    /// The code written `text` (`V4T110`, case-insensitive).
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(text))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A remark that explains a diagnostic, optionally pointing at a place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// What the note says.
    pub message: String,
    /// Where ([`Span::NONE`] if the note is not about a place).
    pub span: Span,
}

/// An error or warning with everything known about it.
///
/// `message` is the reference implementation's text, unchanged, so that test
/// expectations compare exactly; the rest explains it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The stable code.
    pub code: Code,
    /// The message, exactly as the reference implementation words it.
    pub message: String,
    /// The range of the offending node ([`Span::NONE`] if there is none).
    pub span: Span,
    /// Explanations, in order.
    pub notes: Vec<Note>,
    /// The id of the element the diagnostic is about (`node.web`,
    /// `property.p@0.node.web`) or the document path of the offending part,
    /// where known.
    pub element: Option<String>,
}

impl Diagnostic {
    /// An error with `code` and `message`, without location yet.
    pub fn error(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, message)
    }

    /// A warning with `code` and `message`, without location yet.
    pub fn warning(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, message)
    }

    /// A diagnostic of `severity` with `code` and `message`.
    pub fn new(severity: Severity, code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            span: Span::NONE,
            notes: Vec::new(),
            element: None,
        }
    }

    /// The diagnostic located at `span`.
    pub fn at(mut self, span: Span) -> Diagnostic {
        self.span = span;
        self
    }

    /// Adds a location if the diagnostic has none yet.
    pub fn or_at(mut self, span: Span) -> Diagnostic {
        if !self.span.is_known() {
            self.span = span;
        }
        self
    }

    /// Adds a note (with a location if `span` is a known span).
    pub fn with_note(
        mut self,
        message: impl Into<String>,
        span: impl Into<Option<Span>>,
    ) -> Diagnostic {
        self.notes.push(Note {
            message: message.into(),
            span: span.into().unwrap_or(Span::NONE),
        });
        self
    }

    /// Records the element the diagnostic is about, if none is recorded yet.
    pub fn in_element(mut self, id: &str) -> Diagnostic {
        if self.element.is_none() {
            self.element = Some(id.to_string());
        }
        self
    }

    /// Whether the diagnostic is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// One diagnostic as a JSON object on one line: `severity`, `code`,
    /// `message`; `file`, `line`, `column`, `end_line` and `end_column` (1-based,
    /// the end exclusive) when the location is known; `element` when known;
    /// `notes` (each with `message` and, when it has a location, `file`, `line`
    /// and `column`), names of files as in `sources`.
    pub fn to_json(&self, sources: &Sources) -> String {
        let d = self;
        use v4t_yaml::json::write_json_string as string;
        let mut out = String::from("{\"severity\":");
        string(&mut out, d.severity.word());
        out.push_str(",\"code\":");
        string(&mut out, d.code.as_str());
        out.push_str(",\"message\":");
        string(&mut out, &d.message);
        if let Some(file) = file_of(sources, d.span) {
            out.push_str(",\"file\":");
            string(&mut out, &file.name);
            let s = file.locate(d.span);
            out.push_str(&format!(
                ",\"line\":{},\"column\":{},\"end_line\":{},\"end_column\":{}",
                s.line, s.col, s.end_line, s.end_col
            ));
        }
        if let Some(id) = &d.element {
            out.push_str(",\"element\":");
            string(&mut out, id);
        }
        out.push_str(",\"notes\":[");
        for (i, note) in d.notes.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"message\":");
            string(&mut out, &note.message);
            if let Some(file) = file_of(sources, note.span) {
                out.push_str(",\"file\":");
                string(&mut out, &file.name);
                let at = file.locate(note.span);
                out.push_str(&format!(",\"line\":{},\"column\":{}", at.line, at.col));
            }
            out.push('}');
        }
        out.push_str("]}");
        out
    }
}

/// The source a known span points into.
fn file_of(sources: &Sources, span: Span) -> Option<&crate::SourceFile> {
    span.is_known().then(|| sources.get(span.source)).flatten()
}

impl fmt::Display for Diagnostic {
    /// The message alone (what the reference prints).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::SourceId;

    #[test]
    fn codes_are_unique_and_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            let s = code.as_str();
            assert!(seen.insert(s), "{s} twice");
            assert!(
                s.len() == 6
                    && (s.starts_with("V4T0") || s.starts_with("V4T1"))
                    && s[3..].bytes().all(|b| b.is_ascii_digit()),
                "{s}"
            );
            assert!(!code.summary().is_empty());
        }
        // Table order is numeric order.
        let numbers: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let mut sorted = numbers.clone();
        sorted.sort_unstable();
        assert_eq!(numbers, sorted);
    }

    /// `docs/diagnostics.md` has one row per code with the same summary, and
    /// no row for a code that does not exist.
    #[test]
    fn the_documented_table_matches_the_codes() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/diagnostics.md");
        let doc = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let rows: Vec<(&str, &str)> = doc
            .lines()
            .filter_map(|l| l.strip_prefix("| `V4T"))
            .filter_map(|l| {
                let (number, rest) = l.split_once("` |")?;
                let summary = rest.trim().strip_suffix('|')?.trim();
                Some((number, summary))
            })
            .collect();
        for code in Code::ALL {
            let row = rows
                .iter()
                .find(|(n, _)| format!("V4T{n}") == code.as_str());
            let Some((_, summary)) = row else {
                panic!("{} is not in docs/diagnostics.md", code.as_str());
            };
            assert_eq!(*summary, code.summary(), "{}", code.as_str());
        }
        for (number, _) in &rows {
            let known = Code::ALL
                .iter()
                .any(|c| c.as_str() == format!("V4T{number}"));
            assert!(
                known || number.starts_with('1'),
                "V4T{number} is documented but unknown"
            );
        }
    }

    #[test]
    fn finer_codes_name_the_code_they_refine() {
        for code in Code::ALL {
            if let Some(group) = code.refines() {
                assert!(group.refines().is_none(), "{code}");
                let part = format!("Part of `{group}`.");
                assert!(code.summary().ends_with(&part), "{code}: {part}");
            } else {
                assert!(!code.summary().contains("Part of `"), "{code}");
            }
        }
        assert_eq!(Code::parse("v4t110"), Some(Code::OptionalDefault));
        assert_eq!(Code::parse("V4T999"), None);
    }

    #[test]
    fn builders_fill_every_field() {
        let span = Span::bytes(SourceId(1), 10, 14);
        let d = Diagnostic::error(Code::Unsatisfiable, "Could not solve")
            .with_note("constraint requires node \"db\"", span)
            .with_note("no location", None)
            .in_element("node.db")
            .in_element("node.other")
            .or_at(span);
        assert_eq!(d.to_string(), "Could not solve");
        assert_eq!(d.span, span);
        assert_eq!(d.element.as_deref(), Some("node.db"));
        assert_eq!(d.notes.len(), 2);
        assert_eq!(d.notes[0].span, span);
        assert!(!d.notes[1].span.is_known());
        assert!(d.is_error());
        let w = Diagnostic::warning(Code::UnknownKey, "x")
            .at(span)
            .or_at(Span::NONE);
        assert_eq!((w.severity.word(), w.span), ("warning", span));
        assert_eq!(Code::Unsatisfiable.to_string(), "V4T040");
    }
}
