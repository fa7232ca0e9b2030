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
use crate::error::{bail, Result};
use crate::options::{is_enrichment_only, Options};
pub(crate) use crate::version::Version;
use v4t_yaml::{Map, Node, Span};

/// The TOSCA grammar the template is written in, its *base grammar*: what
/// its topology is called and what the output is (notes §4.2).
///
/// * `service_template`: TOSCA 2.0; the output is `tosca_2_0`;
/// * the TOSCA 1.3 topology key ([`document::TOPOLOGY`]): TOSCA 1.3, as the
///   reference reads every template; the output is `tosca_simple_yaml_1_3`;
/// * neither (a file of types): TOSCA 2.0 if the definitions version is
///   `tosca_2_0` or a key only TOSCA 2.0 has is written, else TOSCA 1.3.
///
/// Both keys, a TOSCA 2.0-only key beside the TOSCA 1.3 topology, or a TOSCA
/// 1.3 definitions version with `service_template` are errors
/// ([`Grammar::detect`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grammar {
    /// TOSCA Simple Profile in YAML 1.3.
    Tosca13,
    /// TOSCA 2.0.
    Tosca20,
}

impl Grammar {
    /// The grammar of `doc` (which has passed [`Grammar::detect`]).
    pub fn of(doc: &Node) -> Grammar {
        if document::topology_key(doc) == document::SERVICE_TEMPLATE
            || (document::topology(doc).is_none() && tosca20_marker(doc).is_some())
        {
            Grammar::Tosca20
        } else {
            Grammar::Tosca13
        }
    }

    /// The grammar of `doc`, or the error that its keys contradict each
    /// other.
    pub(crate) fn detect(doc: &Node) -> Result<Grammar> {
        let Some(m) = doc.as_map() else {
            return Ok(Grammar::Tosca13);
        };
        let topology = m.get_entry(document::TOPOLOGY);
        let service = m.get_entry(document::SERVICE_TEMPLATE);
        match (topology, service) {
            (Some(_), Some((key, _))) => bail!(
                key.span,
                "A template has either \"{}\" (TOSCA 1.3) or \"{}\" (TOSCA 2.0), not both",
                document::TOPOLOGY,
                document::SERVICE_TEMPLATE
            ),
            (Some(_), None) => match tosca20_marker(doc) {
                Some((what, span)) => bail!(
                    span,
                    "{what} is TOSCA 2.0, but the template's topology is \"{}\" (TOSCA 1.3): write \"{}\" instead",
                    document::TOPOLOGY,
                    document::SERVICE_TEMPLATE
                ),
                None => Ok(Grammar::Tosca13),
            },
            (None, Some((key, _))) => {
                let version = m.get("tosca_definitions_version");
                if let Some(v) = version.and_then(Node::as_str).filter(|v| v.starts_with("tosca_simple_yaml_")) {
                    bail!(
                        key.span,
                        "\"{}\" is TOSCA 2.0, but the definitions version is \"{v}\" (TOSCA 1.3)",
                        document::SERVICE_TEMPLATE
                    );
                }
                Ok(Grammar::Tosca20)
            }
            (None, None) => Ok(Grammar::of(doc)),
        }
    }
}

/// A key of `doc` only TOSCA 2.0 has, as it is shown in messages, and where
/// it is: the definitions version `tosca_2_0` of a document without
/// topology, the keys `profile` and `functions`, and import definitions
/// with `url`, `profile` or `namespace`.
fn tosca20_marker(doc: &Node) -> Option<(String, Span)> {
    let m = doc.as_map()?;
    if document::topology(doc).is_none() {
        if let Some(v) = m
            .get("tosca_definitions_version")
            .filter(|v| v.as_str() == Some("tosca_2_0"))
        {
            return Some(("\"tosca_2_0\"".to_string(), v.span));
        }
    }
    for key in ["profile", "functions"] {
        if let Some((k, _)) = m.get_entry(key) {
            return Some((format!("The key \"{key}\""), k.span));
        }
    }
    let imports = m
        .get("imports")
        .and_then(Node::as_seq)
        .into_iter()
        .flatten();
    for import in imports {
        let Some(im) = import.as_map() else { continue };
        for key in ["url", "profile", "namespace"] {
            if let Some((k, _)) = im.get_entry(key) {
                return Some((format!("An import with \"{key}\""), k.span));
            }
        }
    }
    None
}

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
        let grammar = Grammar::of(doc);
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
