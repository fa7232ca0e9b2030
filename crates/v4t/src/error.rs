//! The one error type of the processor: the reference implementation's exact
//! message plus, where the input has one, the location of the offending node.

use std::fmt;
use v4t_yaml::Span;

/// A resolution failure. `message` is the reference implementation's text,
/// unchanged, so that test expectations compare exactly; `span` points at the
/// YAML node that caused it ([`Span::NONE`] if there is none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub message: String,
    pub span: Span,
    /// The id of the element the error is about (`node.web`,
    /// `property.p@0.node.web`, ...), where the stage knows it.
    pub element: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            span: Span::NONE,
            element: None,
        }
    }

    pub fn at(message: impl Into<String>, span: Span) -> Error {
        Error {
            message: message.into(),
            span,
            element: None,
        }
    }

    /// Records the element the error is about, if none is recorded yet.
    pub fn in_element(mut self, id: &str) -> Error {
        if self.element.is_none() {
            self.element = Some(id.to_string());
        }
        self
    }

    /// Adds a location if the error has none yet.
    pub fn or_at(mut self, span: Span) -> Error {
        if !self.span.is_known() {
            self.span = span;
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
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
