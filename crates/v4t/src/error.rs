//! The one error type of the processor: a [`Diagnostic`] with the reference
//! implementation's exact message, the range of the offending node, a stable
//! code, notes and, where known, the element it is about.

use std::fmt;
use std::ops::{Deref, DerefMut};

use crate::logic::LogicOp;
use v4t_source::{Code, Diagnostic, Note};
use v4t_yaml::Span;

/// A resolution failure: a boxed [`Diagnostic`] (boxed so that the
/// `Result`s of the hot paths stay one word wide on the error side).
///
/// Stages create errors with [`Error::at`] and leave the code to the
/// pipeline, which gives each stage's errors that stage's code
/// ([`Error::or_code`]); sites that know better set it with [`Error::coded`].
///
/// A pass that checks independent things (the shapes of a template, the
/// names of its elements) reports all it finds: the first is the error
/// itself, the others are [`Error::more`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(Box<Inner>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    first: Diagnostic,
    more: Vec<Diagnostic>,
}

impl Error {
    fn wrap(first: Diagnostic) -> Error {
        Error(Box::new(Inner {
            first,
            more: Vec::new(),
        }))
    }

    /// The further independent errors found in the same pass, in the
    /// order found (the error itself comes first).
    pub fn more(&self) -> &[Diagnostic] {
        &self.0.more
    }

    /// The error and then [`Error::more`].
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        std::iter::once(&self.0.first).chain(&self.0.more)
    }

    /// `Ok` without errors, else the first with the others as
    /// [`Error::more`].
    pub(crate) fn all(errors: Vec<Error>) -> Result<()> {
        let mut errors = errors.into_iter();
        match errors.next() {
            None => Ok(()),
            Some(first) => Err(first.with_more(errors)),
        }
    }

    /// Adds `others` (and their further errors) after this error's.
    pub(crate) fn with_more(mut self, others: impl IntoIterator<Item = Error>) -> Error {
        for other in others {
            let Inner { first, more } = *other.0;
            self.0.more.push(first);
            self.0.more.extend(more);
        }
        self
    }
}

/// Results of the processor.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error without location (code [`Code::Internal`] until classified).
    pub fn new(message: impl Into<String>) -> Error {
        Error::wrap(Diagnostic::error(Code::Internal, message))
    }

    /// An error located at `span` (code [`Code::Internal`] until classified).
    pub fn at(message: impl Into<String>, span: Span) -> Error {
        Error::coded(Code::Internal, message, span)
    }

    /// An error with its code, located at `span`.
    pub fn coded(code: Code, message: impl Into<String>, span: Span) -> Error {
        Error::wrap(Diagnostic::error(code, message).at(span))
    }

    /// Records the element the error is about, if none is recorded yet.
    pub fn in_element(mut self, id: impl std::fmt::Display) -> Error {
        if self.0.first.element.is_none() {
            self.0.first.element = Some(id.to_string());
        }
        self
    }

    /// Adds a location if the error has none yet.
    pub fn or_at(mut self, span: Span) -> Error {
        if !self.0.first.span.is_known() {
            self.0.first.span = span;
        }
        self
    }

    /// Sets `code` unless a more specific code is already set (also on
    /// [`Error::more`]).
    pub fn or_code(mut self, code: Code) -> Error {
        let Inner { first, more } = &mut *self.0;
        for d in std::iter::once(first).chain(more) {
            if d.code == Code::Internal {
                d.code = code;
            }
        }
        self
    }

    /// Adds a note (with a location if `span` is known).
    pub fn with_note(mut self, message: impl Into<String>, span: Span) -> Error {
        self.0.first.notes.push(Note {
            message: message.into(),
            span,
        });
        self
    }

    /// The diagnostic (without [`Error::more`]).
    pub fn into_diagnostic(self) -> Diagnostic {
        self.0.first
    }
}

impl Deref for Error {
    type Target = Diagnostic;

    fn deref(&self) -> &Diagnostic {
        &self.0.first
    }
}

impl DerefMut for Error {
    fn deref_mut(&mut self) -> &mut Diagnostic {
        &mut self.0.first
    }
}

impl From<Diagnostic> for Error {
    fn from(diagnostic: Diagnostic) -> Error {
        Error::wrap(diagnostic)
    }
}

impl From<v4t_expr::EvalError> for Error {
    /// A value-expression error (a note names the closest operator to an unknown one).
    fn from(e: v4t_expr::EvalError) -> Error {
        Error::from_eval(e, false)
    }
}

impl Error {
    /// An evaluation error. The reference's message stays as it is (a dump
    /// of the whole expression for an unknown operator); an unknown operator
    /// gets a note at its key with the closest operator. `logic`: the
    /// expression is a condition, where logic operators are allowed too.
    pub(crate) fn from_eval(e: v4t_expr::EvalError, logic: bool) -> Error {
        let error = Error::coded(Code::Expression, e.message, e.span);
        let Some(unknown) = e.unknown_operator else {
            return error;
        };
        let (key, span) = *unknown;
        let is_logic = LogicOp::parse(&key).is_some();
        let note = if is_logic && !logic {
            format!("\"{key}\" is a logic operator, which a value expression cannot use")
        } else {
            // In a condition, logic operators first (ties go to the first).
            let logic_keys = LogicOp::ALL.iter().map(|op| op.key());
            let candidates = logic_keys
                .filter(|_| logic)
                .chain(v4t_expr::operator_names());
            format!(
                "unknown operator \"{key}\"{}",
                crate::suggest::did_you_mean(&key, candidates)
            )
        };
        error.with_note(note, span)
    }
}

impl From<Error> for Diagnostic {
    fn from(error: Error) -> Diagnostic {
        error.into_diagnostic()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.first.message)
    }
}

impl std::error::Error for Error {}

/// `return Err(Error::at(format!(..), span))` in one line.
macro_rules! bail {
    ($span:expr, $($arg:tt)*) => {
        return Err($crate::error::Error::at(format!($($arg)*), $span))
    };
}
pub(crate) use bail;

/// `return Err(..)` about element `$id` of graph `$g`, with the element's
/// span and id attached.
macro_rules! fail_at {
    ($g:expr, $id:expr, $($arg:tt)*) => {
        return Err($crate::error::Error::at(format!($($arg)*), $g.get($id).span)
            .in_element($g.id($id)))
    };
}
pub(crate) use fail_at;

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::SourceId;

    #[test]
    fn errors_stay_one_word_and_keep_specific_codes() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
        let span = Span::bytes(SourceId(0), 3, 4);
        let e = Error::at("m", Span::NONE)
            .or_at(span)
            .or_at(Span::at(SourceId(0), 9))
            .in_element("node.a")
            .or_code(Code::Inconsistent)
            .or_code(Code::Output)
            .with_note("why", span);
        assert_eq!(
            (e.span, e.code, e.element.as_deref()),
            (span, Code::Inconsistent, Some("node.a"))
        );
        assert_eq!(e.notes.len(), 1);
        let coded = Error::coded(Code::Unsatisfiable, "Could not solve", Span::NONE)
            .or_code(Code::Internal);
        assert_eq!(coded.code, Code::Unsatisfiable);
        assert_eq!(coded.to_string(), "Could not solve");
        assert_eq!(Diagnostic::from(coded).message, "Could not solve");
    }

    #[test]
    fn further_errors_follow_the_first_and_take_the_stage_code() {
        assert!(Error::all(Vec::new()).is_ok());
        let e = Error::all(vec![
            Error::at("one", Span::NONE),
            Error::coded(Code::Expression, "two", Span::NONE),
            Error::at("three", Span::NONE).with_more([Error::at("four", Span::NONE)]),
        ])
        .unwrap_err()
        .or_code(Code::InvalidShape);
        let found: Vec<(&str, Code)> = e
            .diagnostics()
            .map(|d| (d.message.as_str(), d.code))
            .collect();
        assert_eq!(
            found,
            vec![
                ("one", Code::InvalidShape),
                ("two", Code::Expression),
                ("three", Code::InvalidShape),
                ("four", Code::InvalidShape),
            ]
        );
        assert_eq!(e.more().len(), 3);
        assert_eq!(e.to_string(), "one");
    }

    /// The error of resolving a one-node template with `conditions` and a
    /// property `p` with `expression`, and the template's sources.
    fn resolve_error(conditions: &str, expression: &str) -> (Error, crate::Sources) {
        let text = format!(
            "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n    a:\n      type: tosca.nodes.Root\n      conditions: {conditions}\n      properties:\n        - p: {{expression: {expression}}}\n"
        );
        let mut sources = crate::Sources::new();
        let id = sources.add("t.yaml", text);
        let options = crate::ResolveOptions::default();
        let e = crate::resolve(&mut sources, id, &mut crate::NoFiles, &options).unwrap_err();
        (e, sources)
    }

    #[test]
    fn unknown_operators_get_a_note_with_the_closest_operator() {
        let notes = |(e, sources): &(Error, crate::Sources)| {
            e.notes
                .iter()
                .map(|n| {
                    let at = sources.locate(n.span).unwrap_or_default();
                    (n.message.clone(), at.line, at.col)
                })
                .collect::<Vec<_>>()
        };
        // The message is the reference's; the note names the key.
        let e = resolve_error("{equals: [1, 1]}", "1");
        assert!(e
            .0
            .message
            .starts_with("Unknown value expression \"{\n    \"equals\""));
        assert_eq!(
            notes(&e),
            [(
                "unknown operator \"equals\"; did you mean \"equal\"?".to_string(),
                6,
                20
            )]
        );
        // In a condition, logic operators come first.
        let e = resolve_error("{andd: [true]}", "1");
        assert_eq!(
            notes(&e)[0].0,
            "unknown operator \"andd\"; did you mean \"and\"?"
        );
        // In a value expression, a logic operator is named as such.
        let e = resolve_error("true", "{and: [true]}");
        assert_eq!(
            notes(&e)[0].0,
            "\"and\" is a logic operator, which a value expression cannot use"
        );
        let e = resolve_error("true", "{concatt: [a, b]}");
        assert_eq!(
            notes(&e)[0].0,
            "unknown operator \"concatt\"; did you mean \"concat\"?"
        );
        let e = resolve_error("true", "{frobnicate: 1}");
        assert_eq!(notes(&e)[0].0, "unknown operator \"frobnicate\"");
    }
}
