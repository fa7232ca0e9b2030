//! The definitions version (`tosca_definitions_version`), grouped as the
//! option defaults see it (part 1, 2.3), and the base grammar the template
//! is written in (TOSCA 1.3 or 2.0, notes §4.2).

use crate::document;
use crate::error::{bail, Error, Result};
use v4t_yaml::{NodeRef, SeqRef, Span};

/// `tosca_definitions_version`, grouped as the option defaults see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    /// `tosca_simple_yaml_1_3`, `tosca_variability_1_0`, `tosca_variability_1_0_rc_1`.
    V1,
    /// `tosca_variability_1_0_rc_2`.
    V2,
    /// `tosca_variability_1_0_rc_3`.
    V3,
    /// `tosca_2_0` (a hybrid: none of the above, with its own defaults).
    Tosca2,
}

impl Version {
    /// The version named `s`, if supported.
    pub(crate) fn parse(s: &str) -> Option<Version> {
        Some(match s {
            "tosca_simple_yaml_1_3" | "tosca_variability_1_0" | "tosca_variability_1_0_rc_1" => {
                Version::V1
            }
            "tosca_variability_1_0_rc_2" => Version::V2,
            "tosca_variability_1_0_rc_3" => Version::V3,
            "tosca_2_0" => Version::Tosca2,
            _ => return None,
        })
    }

    /// The version of `doc` (its `tosca_definitions_version`).
    pub(crate) fn of<'a>(doc: impl Into<NodeRef<'a>>) -> Result<Version> {
        let doc = doc.into();
        let v = doc.get("tosca_definitions_version");
        v.and_then(NodeRef::as_str)
            .and_then(Version::parse)
            .ok_or_else(|| {
                Error::at(
                    "Unsupported TOSCA definitions version",
                    v.map_or(doc.span(), NodeRef::span),
                )
            })
    }
}

pub use v4t_tosca::Grammar;

/// The TOSCA grammar the template is written in, its *base grammar*
/// ([`Grammar`], the TOSCA layer's): what its topology is called and what
/// the output is (notes §4.2).
///
/// * `service_template`: TOSCA 2.0; the output is `tosca_2_0`;
/// * the TOSCA 1.3 topology key: TOSCA 1.3, as the reference reads every
///   template; the output is `tosca_simple_yaml_1_3`;
/// * neither (a file of types): TOSCA 2.0 if the definitions version is
///   `tosca_2_0` or a key only TOSCA 2.0 has is written, else TOSCA 1.3.
///
/// Both keys, a TOSCA 2.0-only key beside the TOSCA 1.3 topology, or a TOSCA
/// 1.3 definitions version with `service_template` are errors when a
/// template is loaded.
pub fn grammar_of<'a>(doc: impl Into<NodeRef<'a>>) -> Grammar {
    let doc = doc.into();
    if document::topology_key(doc) == document::SERVICE_TEMPLATE
        || (document::topology_of(doc).is_none() && tosca20_marker(doc).is_some())
    {
        Grammar::Tosca2
    } else {
        Grammar::Tosca13
    }
}

/// The grammar of `doc`, or the error that its keys contradict each
/// other.
pub(crate) fn detect_grammar<'a>(doc: impl Into<NodeRef<'a>>) -> Result<Grammar> {
    let doc = doc.into();
    let Some(m) = doc.as_map() else {
        return Ok(Grammar::Tosca13);
    };
    let topology = m.get_entry(document::TOPOLOGY);
    let service = m.get_entry(document::SERVICE_TEMPLATE);
    match (topology, service) {
            (Some(_), Some((key, _))) => bail!(
                key.span(),
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
                if let Some(v) = version.and_then(NodeRef::as_str).filter(|v| v.starts_with("tosca_simple_yaml_")) {
                    bail!(
                        key.span(),
                        "\"{}\" is TOSCA 2.0, but the definitions version is \"{v}\" (TOSCA 1.3)",
                        document::SERVICE_TEMPLATE
                    );
                }
                Ok(Grammar::Tosca2)
            }
            (None, None) => Ok(grammar_of(doc)),
        }
}

/// A key of `doc` only TOSCA 2.0 has, as it is shown in messages, and where
/// it is: the definitions version `tosca_2_0` of a document without
/// topology, the keys `profile` and `functions`, and import definitions
/// with `url`, `profile` or `namespace`.
fn tosca20_marker(doc: NodeRef<'_>) -> Option<(String, Span)> {
    let m = doc.as_map()?;
    if document::topology_of(doc).is_none() {
        if let Some(v) = m
            .get("tosca_definitions_version")
            .filter(|v| v.as_str() == Some("tosca_2_0"))
        {
            return Some(("\"tosca_2_0\"".to_string(), v.span()));
        }
    }
    for key in ["profile", "functions"] {
        if let Some((k, _)) = m.get_entry(key) {
            return Some((format!("The key \"{key}\""), k.span()));
        }
    }
    let imports = m
        .get("imports")
        .and_then(NodeRef::as_seq)
        .into_iter()
        .flat_map(SeqRef::iter);
    for import in imports {
        let Some(im) = import.as_map() else { continue };
        for key in ["url", "profile", "namespace"] {
            if let Some((k, _)) = im.get_entry(key) {
                return Some((format!("An import with \"{key}\""), k.span()));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::{parse, SourceId};

    /// The version and the grammar of a document read as a tree and read as
    /// a [`v4t_yaml::Doc`] are the same, errors and their places included.
    #[test]
    fn trees_and_documents_tell_the_same_version_and_grammar() {
        let texts = [
            "tosca_definitions_version: tosca_variability_1_0\ntopology_template: {}\n",
            "tosca_definitions_version: tosca_2_0\nservice_template: {}\n",
            "tosca_definitions_version: tosca_2_0\nnode_types: {}\n",
            "tosca_definitions_version: tosca_simple_yaml_1_3\nservice_template: {}\n",
            "tosca_definitions_version: tosca_variability_1_0\ntopology_template: {}\nservice_template: {}\n",
            "tosca_definitions_version: tosca_variability_1_0\nprofile: x\ntopology_template: {}\n",
            "tosca_definitions_version: tosca_variability_1_0\nimports: [{url: a.yaml}]\ntopology_template: {}\n",
            "imports: [{namespace: n, file: a.yaml}]\n",
            "tosca_definitions_version: 2\n",
            "[a, b]\n",
        ];
        for text in texts {
            let tree = parse(text, SourceId(0)).expect("parses");
            let doc = crate::testing::read_doc(text);
            let read = doc.root();
            let show = |r: &dyn std::fmt::Debug| format!("{r:?}");
            assert_eq!(
                show(&Version::of(&tree)),
                show(&Version::of(read)),
                "{text}"
            );
            assert_eq!(grammar_of(&tree), grammar_of(read), "{text}");
            assert_eq!(
                show(&detect_grammar(&tree)),
                show(&detect_grammar(read)),
                "{text}"
            );
        }
    }
}
