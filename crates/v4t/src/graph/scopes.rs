//! Each element's set of mutually exclusive alternatives (9.5): what the
//! enricher's default-alternative and bratan conditions name, and what a
//! drawing marks as alternatives.

use super::{ElementId, Graph, IdList, Kind};
use v4t_yaml::hash::{SeededMap, Seen, SCANNED};

/// The list an element's alternatives are taken from (9.5): its
/// container's list of its kind (or the graph's), and whether only the
/// members of its own name count.
fn scope_list(g: &Graph, id: ElementId) -> Option<(&[ElementId], bool)> {
    let e = g.get(id);
    let container = e.container().map(|c| (c, g.get(c)));
    Some(match (e.kind, container) {
        (Kind::Relation, Some((_, c))) => (c.outgoing(), true),
        (Kind::Property, Some((c, _))) => (g.siblings(c, id), true),
        (Kind::Artifact, Some((_, c))) => (c.artifacts(), true),
        (Kind::Type, Some((_, c))) => (c.types(), false),
        (Kind::Technology, Some((_, c))) => (c.technologies(), false),
        (Kind::Input, _) => (g.inputs(), true),
        (Kind::Output, _) => (g.outputs(), true),
        _ => return None,
    })
}

/// Every element's set of mutually exclusive alternatives (9.5), in list
/// order, the element among them: the members of its [`scope_list`] (of its
/// own name, where names count). A short list is scanned when asked; a long
/// one is grouped by name once, when the scopes are made: a scan of the list
/// for each of its elements was quadratic in its length (a node with
/// thousands of properties).
pub(crate) struct Scopes {
    /// The members of the scopes of long lists, scope after scope.
    members: Vec<ElementId>,
    /// By element of a long list: where its scope is in `members` (start,
    /// length). Empty in most templates.
    grouped: SeededMap<ElementId, (u32, u32)>,
}

impl Scopes {
    pub(crate) fn new(g: &Graph) -> Scopes {
        let mut scopes = Scopes {
            members: Vec::new(),
            grouped: SeededMap::default(),
        };
        for e in g.elements() {
            for list in [
                e.outgoing(),
                e.properties(),
                e.attributes(),
                e.artifacts(),
                e.types(),
                e.technologies(),
            ] {
                if list.len() > SCANNED {
                    scopes.group(g, list);
                }
            }
        }
        for list in [g.inputs(), g.outputs()] {
            if list.len() > SCANNED {
                scopes.group(g, list);
            }
        }
        scopes
    }

    /// Groups a long list by name (or whole, where names do not count), for
    /// the members whose scope it is.
    fn group(&mut self, g: &Graph, list: &[ElementId]) {
        let own = |x: ElementId| scope_list(g, x).filter(|(l, _)| std::ptr::eq(*l, list));
        let Some((_, by_name)) = list.iter().find_map(|&x| own(x)) else {
            return;
        };
        let groups = if by_name {
            let mut by_name: Seen<'_, Vec<ElementId>> = Seen::new();
            for &x in list {
                by_name.push(g.name(x), x);
            }
            by_name.into_values()
        } else {
            vec![list.to_vec()]
        };
        for group in groups {
            let at = (self.members.len() as u32, group.len() as u32);
            for &x in &group {
                if own(x).is_some() {
                    self.grouped.insert(x, at);
                }
            }
            self.members.extend(group);
        }
    }

    /// The alternatives of `id`, `id` among them (none for an element that
    /// has no list of alternatives).
    pub(crate) fn members<'s>(&'s self, g: &'s Graph, id: ElementId) -> Scope<'s> {
        if let Some(&(start, len)) = self.grouped.get(&id) {
            let list = &self.members[start as usize..][..len as usize];
            return Scope {
                g,
                list,
                name: None,
            };
        }
        match scope_list(g, id) {
            Some((list, by_name)) => Scope {
                g,
                list,
                name: by_name.then(|| g.name(id)),
            },
            None => Scope {
                g,
                list: &[],
                name: None,
            },
        }
    }

    /// The alternatives of `id` but `id`.
    pub(crate) fn without(&self, g: &Graph, id: ElementId) -> IdList {
        self.members(g, id).filter(|&x| x != id).collect()
    }
}

/// The members of a scope: the elements of `list`, those named `name` if
/// it is given.
#[derive(Clone)]
pub(crate) struct Scope<'s> {
    g: &'s Graph,
    list: &'s [ElementId],
    name: Option<&'s str>,
}

impl Iterator for Scope<'_> {
    type Item = ElementId;

    fn next(&mut self) -> Option<ElementId> {
        while let Some((&x, rest)) = self.list.split_first() {
            self.list = rest;
            if self.name.is_none_or(|name| self.g.name(x) == name) {
                return Some(x);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The alternatives of `id` by a scan of its [`scope_list`] (what
    /// [`Scopes::members`] gives).
    fn scan_scope(g: &Graph, id: ElementId) -> Vec<ElementId> {
        let Some((list, by_name)) = scope_list(g, id) else {
            return Vec::new();
        };
        let name = g.name(id);
        list.iter()
            .copied()
            .filter(|&x| !by_name || g.name(x) == name)
            .collect()
    }

    /// A template whose lists of every kind have `n` entries, their names
    /// repeated apart.
    fn lists_of(n: usize) -> String {
        let list = |f: &dyn Fn(usize) -> String| {
            (0..n)
                .map(|k| format!("\n        - {}", f(k)))
                .collect::<String>()
        };
        let inputs = list(&|k| format!("i{}: {{type: string, conditions: false}}", k % 7));
        let types = list(&|k| format!("t{k}: {{conditions: false}}"));
        let properties = list(&|k| format!("p{}: {{value: {k}, conditions: false}}", k % 6));
        let requirements = list(&|k| format!("r{}: {{node: b, conditions: false}}", k % 5));
        let artifacts =
            list(&|k| format!("f{}: {{type: x, file: f{k}, conditions: false}}", k % 4));
        let technologies = list(&|k| {
            let name = ["ansible", "terraform"][k % 2];
            format!("{name}: {{conditions: false}}")
        });
        let outputs = list(&|k| format!("o{}: {{value: {k}, conditions: false}}", k % 3));
        format!(
            "tosca_definitions_version: tosca_variability_1_0
topology_template:
  inputs:{inputs}
  node_templates:
    a:
      type:{types}
      properties:{properties}
      requirements:{requirements}
      artifacts:{artifacts}
      technology:{technologies}
    b: {{type: t}}
  outputs:{outputs}
"
        )
    }

    /// Every element's scope, whether grouped once (long lists) or scanned
    /// (short ones), is what a scan of its list finds, in the same order
    /// (alternatives written apart included): on templates with long and
    /// short lists of every kind and on random ones (their resolver graphs:
    /// technologies and fallback properties included).
    #[test]
    fn scopes_are_what_a_scan_of_the_list_finds() {
        let mut templates = vec![
            lists_of(24),
            lists_of(5),
            crate::testing::ALL_ELEMENTS.to_string(),
        ];
        let mut rng = crate::testing::Rng::new(19);
        for round in 0..30 {
            templates.push(match round % 3 {
                0 => crate::testing::random_template(&mut rng, 3, &['b'], 6, true),
                1 => crate::testing::random_template(&mut rng, 3, &['b', 's'], 5, false),
                _ => crate::testing::random_tosca2_template(&mut rng, 3, 5),
            });
        }
        let (mut graphs, mut shared) = (0, 0);
        let mut grouped_kinds = Vec::new();
        for (i, text) in templates.iter().enumerate() {
            let mut sources = v4t_source::Sources::new();
            let prepared = crate::testing::prepare(&mut sources, text);
            if i < 2 {
                assert!(prepared.is_ok(), "{text}");
            }
            let Ok(prepared) = prepared else {
                continue;
            };
            let g = &prepared.graph;
            let scopes = Scopes::new(g);
            graphs += 1;
            for x in g.ordered() {
                let members: Vec<ElementId> = scopes.members(g, x).collect();
                assert_eq!(members, scan_scope(g, x), "{}", g.id(x));
                shared += usize::from(members.len() > 1);
                if scopes.grouped.contains_key(&x) && !grouped_kinds.contains(&g.get(x).kind) {
                    grouped_kinds.push(g.get(x).kind);
                }
                // A relation's scope is its source's (what a drawing marks).
                if g.get(x).kind == Kind::Relation {
                    assert_eq!(g.get(x).container(), g.get(x).source(), "{}", g.id(x));
                }
                let without = scopes.without(g, x);
                assert_eq!(
                    without.len() + usize::from(members.contains(&x)),
                    members.len()
                );
            }
        }
        assert!(
            graphs >= 25,
            "{graphs} of {} templates prepared",
            templates.len()
        );
        assert!(shared >= 200, "{shared} elements with alternatives");
        // The long lists of every kind were grouped.
        grouped_kinds.sort_by_key(|k| *k as u8);
        let want = [
            Kind::Relation,
            Kind::Property,
            Kind::Artifact,
            Kind::Type,
            Kind::Technology,
            Kind::Input,
            Kind::Output,
        ];
        for kind in want {
            assert!(
                grouped_kinds.contains(&kind),
                "{kind:?} not grouped: {grouped_kinds:?}"
            );
        }
    }
}
