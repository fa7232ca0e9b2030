//! The integration tests of the `v4t` binary, as one test binary (one
//! link instead of one per file; ripgrep's `tests/tests.rs` layout).
//! `common` holds the helpers; every other module is one area.

mod analyze;
mod cli;
mod commands;
mod common;
mod conformance;
mod explain;
mod graph;
mod hostile;
mod hostile_files;
mod imports;
mod lsp;
mod paths;
mod project;
mod readme;
mod snapshots;
mod tosca2;
mod validate;
mod validate_rules;
