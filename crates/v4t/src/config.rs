//! The typed model of how a template is to be processed, read once from the
//! document: every variability option (the definitions version and the base
//! grammar are [`Version`] and [`Grammar`], read at loading). Stages receive
//! it (or what they need of it) as a parameter; nothing is communicated by
//! editing the document.
//!
//! Two sets of options exist, as in the reference: the enricher reads the
//! options as written ([`Config::options`]); the enricher's transformer then
//! deletes its own options (11.3) and the resolver adds `bratans_unknown`
//! (the reference's "hotfix": no fallback properties in the resolver graph),
//! so the resolver graph sees [`Config::resolver`]. Both are read in one
//! pass from the written map, through two [`View`]s of it.

use crate::document;
use crate::error::Result;
use crate::options::{Options, View};
pub use crate::version::Grammar;
pub(crate) use crate::version::Version;
use v4t_yaml::Node;

/// How one template is processed.
#[derive(Debug)]
pub(crate) struct Config {
    /// The options as written (what the enricher reads).
    pub options: Options,
    /// The options of the resolver graph.
    pub resolver: Options,
}

impl Config {
    /// Reads the configuration of the normalised `doc` of version
    /// `version`; `enriching`: whether the enricher runs (and deletes its
    /// options before the resolver graph is built).
    pub(crate) fn read(doc: &Node, version: Version, enriching: bool) -> Result<Config> {
        let written = document::options(doc);
        let grammar = crate::version::grammar_of(doc);
        let view = View::Resolver {
            enriched: enriching,
        };
        Ok(Config {
            options: Options::read(version, grammar, written, View::Written)?,
            resolver: Options::read(version, grammar, written, view)?,
        })
    }
}
