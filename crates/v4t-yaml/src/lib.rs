//! YAML for v4t: an order-preserving document tree in which every node knows
//! where it was written, read with the YAML 1.2 core schema as js-yaml 4 reads
//! it (the reference implementation's parser), and written back deterministically.
//!
//! This crate knows nothing about TOSCA.
//!
//! ```
//! use v4t_yaml::{emit, parse, parse_with, Form, Schema, SourceId};
//!
//! let doc = parse("size: 1.0\nwhen: 2024-01-02\n", SourceId(0)).unwrap();
//! let size = doc.get("size").unwrap();
//! assert_eq!((size.as_f64(), size.form), (Some(1.0), Form::Float));
//! assert_eq!((size.span.start, size.span.end), (6, 9));
//! let at = size.span.locate("size: 1.0\nwhen: 2024-01-02\n");
//! assert_eq!((at.line, at.col, at.end_col), (1, 7, 10));
//! // js-yaml reads dates as timestamps; the YAML 1.2 core schema as strings.
//! assert_eq!(doc.get("when").unwrap().value.kind_name(), "timestamp");
//! let core = parse_with("when: 2024-01-02\n", SourceId(0), Schema::Core).unwrap();
//! assert_eq!(core.get("when").and_then(|n| n.as_str()), Some("2024-01-02"));
//! assert_eq!(emit(&doc), "size: 1\nwhen: 2024-01-02T00:00:00.000Z\n");
//! ```
//!
//! * [`value`]: the tree ([`Node`], [`Value`], [`Map`]) and [`Form`]s (how
//!   a scalar was written: `1` or `1.0`, quoted, tagged).
//! * [`doc`]: a read-only document in one arena ([`Doc`]), and a view
//!   ([`NodeRef`]) that reads it and the owned tree alike.
//! * [`span`]: [`Span`]s (byte ranges into the source) and their lines
//!   and columns ([`Location`], [`LineIndex`]).
//! * [`mod@parse`]: text to tree, with js-yaml's scalar resolution (or the YAML
//!   1.2 core schema, [`Schema::Core`], for TOSCA 2.0), anchors, aliases and
//!   merge keys, duplicate-key errors and resource limits.
//! * [`fast`]: the fast path of [`parse()`] for common documents.
//! * `lenient`: quoted scalars with under-indented continuation lines
//!   (accepted like js-yaml does) on the saphyr path.
//! * [`mod@emit`]: tree to text, quoting every string a YAML 1.1 reader would
//!   misread; [`Style::AsWritten`] keeps number kinds as they were written.
//! * [`hash`]: the seeded hash of every table keyed by template text (the
//!   one hashing policy of v4t).
//! * [`json`]: JSON renderings used in error messages (`JSON.stringify`).
//! * [`number`]: JavaScript number formatting.
//! * [`timestamp`]: YAML timestamps as JavaScript dates.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod doc;
pub mod emit;
pub mod fast;
pub mod hash;
pub mod json;
mod lenient;
pub mod number;
pub mod parse;
mod scalar;
pub mod span;
pub mod timestamp;
pub mod value;

pub use doc::{deep_equal, Doc, KeyRef, MapRef, NodeRef, Root, SeqRef, ValueRef};
pub use emit::{emit, emit_with, Style};
pub use parse::{
    js_yaml_reads_alike, parse, parse_doc_reporting_duplicates, parse_reporting_duplicates,
    parse_with, ParseError, Schema,
};
pub use span::{LineIndex, Location, SourceId, Span};
pub use value::{Form, Key, KeyName, Map, Node, Tag, Value};
