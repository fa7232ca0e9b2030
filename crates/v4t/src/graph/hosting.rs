//! Which requirements are hosting relations (part 1, 4.3; notes §3).
//!
//! A relation hosts if its requirement is named like a hosting requirement
//! (`host`, `*_host`, `host_*`: the reference's rule), or if its
//! relationship type is one of the hosting relationship types or derives
//! from one. Which types those are:
//!
//! 1. the option `hosting_relationship_types` (type names as the template
//!    writes them, matched by type identity);
//! 2. without it, on a TOSCA 1.3 base, `tosca.relationships.HostedOn`;
//! 3. without it, on a TOSCA 2.0 base (which defines no normative types):
//!    every relationship type whose own or inherited
//!    `metadata.relationship_kind` is `containment` (any case), `HostedOn`
//!    of the Simple Profile (`org.oasis-open.simple:2.0`) and `ContainedBy`
//!    of the community core profile (`community.tosca.core`).

use crate::error::{Error, Result};
use crate::options::Options;
use crate::types::{Collection, TypeSystem};
use crate::version::Grammar;
use v4t_tosca::TypeId;
use v4t_yaml::hash::SeededSet;
use v4t_yaml::NodeRef;

/// The profiles whose types TOSCA 2.0 hosting knows by name, with the type.
const WELL_KNOWN: [(&str, &str); 3] = [
    ("org.oasis-open.simple:2.0", "HostedOn"),
    ("org.oasis-open.tosca.simple:2.0", "HostedOn"),
    ("community.tosca.core", "ContainedBy"),
];

/// The hosting relationship types of one template.
#[derive(Debug, Default)]
pub(crate) struct Hosting {
    /// Hosting types (with their derivations).
    types: Vec<TypeId>,
    /// Names that host although no type of the name is defined (TOSCA 1.3
    /// templates without the type's definition).
    names: Vec<String>,
    /// Rule 3: `metadata.relationship_kind: containment`.
    containment: bool,
    /// The local names (and their last `.` segments, the TOSCA 1.3 short
    /// names) of every relationship type that hosts: a name without
    /// namespace that is none of them does not host, found without
    /// resolving it (templates name thousands of relationship types).
    hosting_names: SeededSet<String>,
}

impl Hosting {
    /// The hosting types of a template with `options` and `types`.
    pub(crate) fn new(
        options: &Options,
        types: &TypeSystem<'_>,
        grammar: Grammar,
    ) -> Result<Hosting> {
        let mut h = Hosting::default();
        if let Some(list) = &options.hosting_relationship_types {
            for n in list {
                let name = n.as_str().unwrap_or_default();
                match types.resolve(Collection::Relationship, name) {
                    Some(t) => h.types.push(t),
                    None => {
                        return Err(Error::at(
                            format!("Hosting relationship type \"{name}\" is not defined"),
                            n.span,
                        ))
                    }
                }
            }
        } else {
            match grammar {
                Grammar::Tosca13 => {
                    let name = "tosca.relationships.HostedOn";
                    h.types
                        .extend(types.resolve(Collection::Relationship, name));
                    h.names.push(name.to_string());
                }
                Grammar::Tosca2 => {
                    h.containment = true;
                    h.types = types
                        .all(Collection::Relationship)
                        .filter(|&t| {
                            let (owner, name) = types.identity(t);
                            WELL_KNOWN
                                .iter()
                                .any(|(p, n)| *n == name && owner.starts_with(p))
                        })
                        .collect();
                }
            }
        }
        h.hosting_names = types
            .all(Collection::Relationship)
            .filter(|&t| h.hosts(types, t))
            .flat_map(|t| {
                let name = types.name(t);
                let last = name.rsplit_once('.').map(|(_, l)| l);
                std::iter::once(name).chain(last)
            })
            .chain(h.names.iter().map(String::as_str))
            .map(str::to_string)
            .collect();
        Ok(h)
    }

    /// Whether relationship type `name` (as the template writes it) hosts.
    pub(crate) fn is_hosting_type(&self, types: &TypeSystem<'_>, name: &str) -> bool {
        if !name.contains(':') && !self.hosting_names.contains(name) {
            return false;
        }
        let Some(t) = types.resolve(Collection::Relationship, name) else {
            return self.names.iter().any(|n| n == name);
        };
        self.hosts(types, t)
    }

    /// Whether relationship type `t` hosts.
    fn hosts(&self, types: &TypeSystem<'_>, t: TypeId) -> bool {
        let mut chain = types.chain_of(t);
        chain.any(|x| self.types.contains(&x) || (self.containment && is_containment(types, x)))
    }
}

/// Whether a type's own `metadata.relationship_kind` is `containment`.
fn is_containment(types: &TypeSystem<'_>, t: TypeId) -> bool {
    types
        .definition(t)
        .and_then(|d| d.get("metadata"))
        .and_then(|m| m.get("relationship_kind"))
        .and_then(NodeRef::as_str)
        .is_some_and(|k| k.eq_ignore_ascii_case("containment"))
}
