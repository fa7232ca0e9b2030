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
use v4t_yaml::NodeRef;

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
    pub(crate) fn read<'a>(
        doc: impl Into<NodeRef<'a>>,
        version: Version,
        enriching: bool,
    ) -> Result<Config> {
        let doc = doc.into();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{doc, read_doc};

    /// The configuration of `text` read as a tree and read as a
    /// [`v4t_yaml::Doc`]: the same options, or the same error at the same place.
    fn both(text: &str, version: Version) -> String {
        let (tree, read_as_doc) = (doc(text), read_doc(text));
        let read = |doc: NodeRef<'_>| match Config::read(doc, version, true) {
            Ok(c) => format!("{c:?}"),
            Err(e) => format!("{} at {:?}", e.message, e.span.locate(text).start()),
        };
        let (from_tree, from_doc) = (read((&tree).into()), read(read_as_doc.root()));
        assert_eq!(from_tree, from_doc, "{text}");
        from_tree
    }

    #[test]
    fn documents_and_trees_give_the_same_configuration() {
        let options = |o: &str| format!("topology_template:\n  variability:\n    options: {o}\n");
        for (o, error) in [
            ("{}", None),
            ("{mode: strict, node_pruning: false, checks: true}", None),
            (
                "{hosting_relationship_types: [a, b], optimization_topology: max}",
                None,
            ),
            (
                "{hosting_relationship_types: a, enrich_technologies: false}",
                None,
            ),
            (
                "{mode: bogus}",
                Some("Pruning mode \"bogus\" unknown at (3, 21)"),
            ),
            (
                "{pruning: 'yes'}",
                Some("Element \"\"yes\"\" is not a boolean at (3, 24)"),
            ),
            (
                "{hosting_relationship_types: [a, 1]}",
                Some("is not a string at (3, 47)"),
            ),
            (
                "{hosting_relationship_types: {a: 1}}",
                Some("is not an array at (3, 43)"),
            ),
            (
                "{optimization_topology: up}",
                Some("must be a boolean, \"min\", or \"max\" at (3, 38)"),
            ),
            (
                "{optimization_technologies_mode: x}",
                Some("or \"weight-count\" at (3, 47)"),
            ),
            (
                "{node_default_condition_mode: 7}",
                Some("is not a string at (3, 44)"),
            ),
        ] {
            let read = both(&options(o), Version::V3);
            match error {
                None => assert!(read.starts_with("Config"), "{o}: {read}"),
                Some(e) => assert!(read.ends_with(e), "{o}: {read}"),
            }
        }
        // TOSCA 2.0's defaults and the absence of options.
        both(
            "tosca_definitions_version: tosca_2_0\nservice_template: {}\n",
            Version::Tosca2,
        );
        both("topology_template: {}\n", Version::V1);
    }
}
