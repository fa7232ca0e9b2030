//! `v4t lsp`: a language server for TOSCA and Variability4TOSCA files over
//! the Language Server Protocol 3.17 (standard input and output), on
//! rust-analyzer's synchronous `lsp-server` and `lsp-types`.
//!
//! This crate is the protocol layer: only it knows LSP and JSON. What it
//! says comes from the library's public API: diagnostics from
//! `v4t::resolve_with_warnings` (variable service templates, with the
//! default inputs and every preset) and `v4t_tosca::validate` (plain
//! TOSCA), presence from `v4t::explain`, types from `v4t_tosca`'s type
//! system, keynames from `v4t::keynames`, operators from
//! `v4t::operator_names`. Files that are not open are read through the
//! caller's [`Loader`](v4t::Loader) (the command line's file system
//! loader); open buffers override them.
//!
//! Threads: the main loop answers requests in order on the current text
//! (hover, definition, references, completion, code actions, symbols,
//! folding); diagnostics run on a worker thread, debounced, and a change
//! makes the work in flight stale (its results are dropped).

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod check;
mod complete;
mod features;
mod model;
mod overlay;
mod server;
mod text;
mod types;
mod worker;

pub use overlay::LoaderFactory;
pub use server::{run, serve_stdio};
