//! The definitions version (`tosca_definitions_version`), grouped as the
//! option defaults see it (part 1, 2.3).

use crate::error::{Error, Result};
use v4t_yaml::Node;

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
    pub(crate) fn of(doc: &Node) -> Result<Version> {
        let v = doc.get("tosca_definitions_version");
        v.and_then(Node::as_str)
            .and_then(Version::parse)
            .ok_or_else(|| {
                Error::at(
                    "Unsupported TOSCA definitions version",
                    v.map(|n| n.span).unwrap_or(doc.span),
                )
            })
    }
}
