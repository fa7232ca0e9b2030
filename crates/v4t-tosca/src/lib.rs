//! The TOSCA layer of v4t: reads a TOSCA 2.0 (or TOSCA Simple Profile 1.3)
//! file with everything it imports, builds its type system and validates it
//! against the specification. It knows nothing about variability.
//!
//! Pipeline: [`load`] (files, imports, profiles, namespaces) →
//! [`TypeSystem::build`] (types by identity, derivation) → [`validate`]
//! (grammar, definitions, data, functions, templates).

pub mod check;
pub mod csar;
pub mod diag;
pub mod load;
pub mod types;
pub mod value;

pub use check::validate;
pub use diag::Diagnostics;
pub use load::{load, load_source, load_text, DocId, Document, Grammar, Loaded, MemoryFiles};
pub use types::{Builtin, Kind, LookupError, TypeDef, TypeId, TypeSystem};
pub use v4t_source::{Code, Diagnostic, Loader, Severity, Sources};
