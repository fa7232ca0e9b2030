//! Sources and diagnostics shared by every v4t processor (the
//! Variability4TOSCA resolver in `v4t`, the TOSCA 2.0 validator in
//! `v4t-tosca`) and rendered by the command line.
//!
//! * [`Sources`] holds every text of one run by [`SourceId`] (the ids the
//!   YAML layer puts into each node's [`Span`]); a [`Loader`] hands the
//!   library the files a template refers to, so the library itself does no
//!   I/O. [`join_import`] resolves an import relative to the importing file.
//! * [`Diagnostic`] is an error or warning: a [`Severity`], a stable
//!   [`Code`] (`V4T0xx`, listed in `docs/diagnostics.md`), the message, the
//!   range it is about, [`Note`]s that explain it and the element it concerns.
//!
//! ```
//! use v4t_source::{Code, Diagnostic, Sources};
//!
//! let mut sources = Sources::new();
//! let id = sources.add("template.yaml", "a: 1\nb: [x\n");
//! let node = v4t_yaml::parse("a: 1\n", id).unwrap();
//! let span = node.get("a").unwrap().span;
//! let d = Diagnostic::error(Code::InvalidShape, "a must be a list")
//!     .at(span)
//!     .with_note("lists are written `a: [1]`", None);
//! assert_eq!(d.code.as_str(), "V4T011");
//! assert_eq!(sources.text_of(d.span), Some("1"));
//! ```
//!
//! This crate knows the Variability4TOSCA diagnostic codes but nothing of how
//! templates are processed.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod diagnostic;
mod sources;

pub use diagnostic::{Code, Diagnostic, Note, Severity};
pub use sources::{
    join_import, within_root, Loader, MemoryFiles, NoFiles, Reread, SourceFile, Sources,
};
pub use v4t_yaml::{SourceId, Span};
