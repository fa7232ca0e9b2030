//! The single error type of value-expression evaluation.
//!
//! The reference implementation reports failures as plain messages; tests and
//! users compare them verbatim, so the message is kept exactly and the location
//! of the offending expression node travels beside it for diagnostics.

use std::fmt;

use v4t_yaml::Span;

/// An evaluation failure: the reference's exact message and the location of the
/// offending expression node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    /// The message, exactly as the reference implementation words it.
    pub message: String,
    /// Where the offending expression (or argument) was written; may be [`Span::NONE`].
    pub span: Span,
    /// For an unknown operator: the key that is none, and where (boxed: the
    /// error travels through every evaluation result).
    pub unknown_operator: Option<Box<(String, Span)>>,
}

impl EvalError {
    /// An error with `message` located at `span`.
    pub fn new(message: impl Into<String>, span: Span) -> EvalError {
        EvalError {
            message: message.into(),
            span,
            unknown_operator: None,
        }
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}

/// Shorthand for evaluation results.
pub type Result<T> = std::result::Result<T, EvalError>;
