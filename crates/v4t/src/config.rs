//! The typed model of how a template is to be processed, read once from the
//! document: its definitions version, its base grammar, every variability
//! option and its type system. Stages receive it (or what they need of it)
//! as a parameter; nothing is communicated by editing the document.
//!
//! Two sets of options exist, as in the reference: the enricher reads the
//! options as written ([`Config::options`]); the enricher's transformer then
//! deletes its own options (11.3) and the resolver adds `bratans_unknown`
//! (the reference's "hotfix": no fallback properties in the resolver graph),
//! so the resolver graph sees [`Config::resolver_options`].

use crate::document;
use crate::error::Result;
use crate::options::{is_enrichment_only, Options};
pub use crate::version::Grammar;
pub(crate) use crate::version::Version;
use v4t_yaml::{Map, Node};

/// How one template is processed.
#[derive(Debug)]
pub(crate) struct Config {
    /// The definitions version.
    pub version: Version,
    /// The base grammar.
    pub grammar: Grammar,
    /// The options as written (what the enricher reads).
    pub options: Options,
    /// `variability.options` as written, for [`Config::resolver_options`].
    written: Map,
}

impl Config {
    /// Reads the configuration of the normalised `doc` of version `version`.
    pub(crate) fn read(doc: &Node, version: Version) -> Result<Config> {
        let written = document::options(doc).cloned().unwrap_or_default();
        let grammar = crate::version::grammar_of(doc);
        Ok(Config {
            version,
            grammar,
            options: Options::for_base(version, grammar, Some(&written))?,
            written,
        })
    }

    /// The options of the resolver graph: those written, less the ones the
    /// enricher's transformer deletes if it ran (`enriched`) and less
    /// `automatic_default_alternatives` (which the first normalisation
    /// deletes), with `bratans_unknown` set.
    pub(crate) fn resolver_options(&self, enriched: bool) -> Result<Options> {
        let mut written = self.written.clone();
        written.remove("automatic_default_alternatives");
        if enriched {
            written.retain(|k, _| !is_enrichment_only(&k.name));
        }
        written.insert("bratans_unknown", Node::bool(true));
        Options::for_base(self.version, self.grammar, Some(&written))
    }
}
