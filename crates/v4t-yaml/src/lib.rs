//! YAML for v4t: an order-preserving document tree in which every node knows
//! where it was written, read with the YAML 1.2 core schema as js-yaml 4 reads
//! it (the reference implementation's parser), and written back deterministically.
//!
//! This crate knows nothing about TOSCA.
//!
//! * [`value`]: the tree ([`Node`], [`Value`], [`Map`]) and [`Span`]s.
//! * [`parse`]: text to tree, with js-yaml's scalar resolution, anchors,
//!   aliases and merge keys, duplicate-key errors and resource limits.
//! * [`fast`]: the fast path of [`parse`] for common documents.
//! * [`emit`]: tree to text, quoting every string a YAML 1.1 reader would misread.
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

pub use emit::emit;
pub use parse::{parse, ParseError};
pub use value::{deep_equal, Key, Map, Node, SourceId, Span, Value};
