//! The TOSCA layer of v4t: reads a TOSCA 2.0 (or TOSCA Simple Profile 1.3)
//! file with everything it imports, builds its type system and validates it
//! against the specification. It knows nothing about variability.
//!
//! Pipeline: [`load()`] (files, imports, profiles, namespaces) →
//! [`TypeSystem::build`] (types by identity, derivation) → [`validate`]
//! (grammar, definitions, data, functions, templates).
//!
//! ```
//! use v4t_tosca::{Kind, Loaded, MemoryFiles, Sources, TypeSystem};
//!
//! let mut files = MemoryFiles::new()
//!     .with("types.yaml", "tosca_definitions_version: tosca_2_0\nnode_types:\n  Server: {}\n")
//!     .with(
//!         "main.yaml",
//!         "tosca_definitions_version: tosca_2_0
//! imports:
//!   - url: types.yaml
//!     namespace: t
//! node_types:
//!   Web: {derived_from: t:Server}
//! service_template:
//!   node_templates:
//!     web: {type: Web, properties: {port: 80}}
//! ",
//!     );
//! let mut sources = Sources::new();
//! let loaded = v4t_tosca::load(&mut sources, &mut files, "main.yaml");
//! let ts = TypeSystem::build(&loaded);
//!
//! // Types by identity, names resolved as the file wrote them.
//! let web = ts.resolve_type(Loaded::ENTRY, Kind::Node, "Web").unwrap();
//! let server = ts.resolve_type(Loaded::ENTRY, Kind::Node, "t:Server").unwrap();
//! assert!(ts.is_a(web, server));
//! assert_eq!(ts.identity(server), ("types.yaml".to_string(), "Server"));
//!
//! // Validation: `port` is not a property of `Web`.
//! let diagnostics = v4t_tosca::validate(&ts, &sources).into_sorted();
//! assert_eq!(diagnostics.len(), 1);
//! assert_eq!(diagnostics[0].message, "`port` is not a defined property");
//! assert_eq!(
//!     diagnostics[0].element.as_deref(),
//!     Some("service_template.node_templates.web.properties")
//! );
//! ```
//!
//! Documents, types and names borrow from the [`Loaded`] documents; every
//! walk over imports and derivation chains is iterative and bounded, so
//! hostile input (import cycles, self-derived types, deep chains, deeply
//! nested values and calls) ends with a diagnostic, never a hang or a
//! stack overflow.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod check;
mod consequences;
pub mod csar;
pub mod diag;
mod grammar;
pub mod keynames;
pub mod load;
mod locate;
mod namespaces;
pub mod section;
pub mod types;
pub mod value;

pub use diag::{Diagnostics, Level, Levels};
pub use keynames::{is_keyname, keynames, Entity, Keyname};
pub use load::{
    load, load_source, load_text, load_tree, load_with, DocId, Document, Elsewhere, Folder,
    Grammar, Loaded,
};
pub use section::Section;
pub use types::{Builtin, Kind, LookupError, TypeDef, TypeId, TypeSystem};
pub use v4t_source::{Code, Diagnostic, Loader, MemoryFiles, Severity, Sources};

/// Validates every document of a load ([`check::validate`]) and that names
/// are unique within each namespace, without the errors that only follow
/// from an import that could not be read (unknown names where an import
/// failed: the import's error says how many).
pub fn validate(ts: &TypeSystem<'_>, sources: &Sources) -> Diagnostics {
    let mut diagnostics = check::validate(ts, sources);
    namespaces::check(ts.loaded, &mut diagnostics);
    consequences::drop_consequences(ts.loaded, &mut diagnostics);
    diagnostics
}
