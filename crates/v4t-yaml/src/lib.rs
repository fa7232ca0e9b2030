//! YAML for v4t: an order-preserving document tree in which every node knows
//! where it was written, read with the YAML 1.2 core schema as js-yaml 4 reads
//! it (the reference implementation's parser), and written back deterministically.
//!
//! This crate knows nothing about TOSCA.
//!
//! * [`value`]: the tree ([`Node`], [`Value`], [`Map`]), [`Span`]s (source
//!   ranges) and [`Form`]s (how a scalar was written: `1` or `1.0`, quoted,
//!   tagged).
//! * [`parse`]: text to tree, with js-yaml's scalar resolution (or the YAML
//!   1.2 core schema, [`Schema::Core`], for TOSCA 2.0), anchors, aliases and
//!   merge keys, duplicate-key errors and resource limits.
//! * [`fast`]: the fast path of [`parse`] for common documents.
//! * [`emit`]: tree to text, quoting every string a YAML 1.1 reader would
//!   misread; [`Style::AsWritten`] keeps number kinds as they were written.
//! * [`json`]: JSON renderings used in error messages (`JSON.stringify`).
//! * [`number`]: JavaScript number formatting.
//! * [`timestamp`]: YAML timestamps as JavaScript dates.

pub mod emit;
pub mod fast;
pub mod json;
pub mod number;
pub mod parse;
pub mod timestamp;
pub mod value;

pub use emit::{emit, emit_with, Style};
pub use parse::{parse, parse_with, ParseError, Schema};
pub use value::{deep_equal, Form, Key, Map, Node, SourceId, Span, Tag, Value};
