//! The definitions a type inherits, found by name instead of by merging
//! its ancestors' definitions.
//!
//! A type's own property and attribute definitions are checked against
//! its ancestors' of the same name. Merging every ancestor's definitions
//! for each type (`defs::collect_section`) costs the length of the chain
//! per type: a chain of n derived types, each adding a property, took
//! time with the square of n. Here each name of a section knows the types
//! whose own definitions name it, and a depth-first walk of the derivation
//! forest tells in constant time which of them are ancestors.

use std::cell::OnceCell;

use v4t_yaml::hash::SeededMap;
use v4t_yaml::NodeRef;

use super::defs::{DefNode, Param};
use crate::types::{TypeId, TypeSystem};

/// The sections looked up by name ([`Inherited::defs`]).
const SECTIONS: [&str; 2] = ["properties", "attributes"];

/// Where the definitions of each name are ([`Inherited::new`]).
pub(crate) struct Inherited<'a> {
    /// Per type: its place in a depth-first walk of the derivation forest
    /// (first visit, last descendant's visit) and its depth; `None` where
    /// the chain of parents has a cycle (it reaches no root).
    walk: Vec<Option<(u32, u32, u32)>>,
    /// Per section (index into [`SECTIONS`]) and name: the definitions of
    /// it in types' own sections, with their types, in the order of the
    /// type system and, within a type, as written.
    defined: SeededMap<(usize, &'a str), Vec<(TypeId, DefNode<'a>)>>,
}

impl<'a> Inherited<'a> {
    pub(crate) fn new(ts: &TypeSystem<'a>) -> Inherited<'a> {
        let n = ts.types.len();
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for (i, t) in ts.types.iter().enumerate() {
            match t.parent {
                Some(p) => children[p.index()].push(i as u32),
                None => roots.push(i as u32),
            }
        }
        let mut walk = vec![None; n];
        let mut clock = 0u32;
        // (type, depth, next child to visit)
        let mut stack: Vec<(u32, u32, usize)> = Vec::new();
        for root in roots {
            stack.push((root, 0, 0));
            walk[root as usize] = Some((clock, clock, 0));
            clock += 1;
            while let Some(top) = stack.last_mut() {
                let (t, depth, next) = *top;
                if let Some(&child) = children[t as usize].get(next) {
                    top.2 += 1;
                    walk[child as usize] = Some((clock, clock, depth + 1));
                    clock += 1;
                    stack.push((child, depth + 1, 0));
                } else {
                    stack.pop();
                    if let Some(place) = walk[t as usize].as_mut() {
                        place.1 = clock - 1;
                    }
                }
            }
        }
        let mut defined: SeededMap<(usize, &'a str), Vec<(TypeId, DefNode<'a>)>> =
            SeededMap::default();
        for (i, t) in ts.types.iter().enumerate() {
            let (Some(def), Some(doc)) = (t.def, t.doc) else {
                continue;
            };
            for (s, section) in SECTIONS.iter().enumerate() {
                let Some(map) = def.get(section).and_then(NodeRef::as_map) else {
                    continue;
                };
                for (k, node) in map.iter() {
                    (defined.entry((s, k.name())).or_default())
                        .push((TypeId(i as u32), DefNode { node, doc }));
                }
            }
        }
        Inherited { walk, defined }
    }

    /// What merging the own `section` of `parent` and its ancestors gives
    /// (`defs::collect_section`), for the names of `own` only; `None` if
    /// `parent`'s chain has a cycle or `section` is not looked up by name
    /// (the caller merges the chain then).
    pub(crate) fn defs(
        &self,
        parent: TypeId,
        section: &str,
        own: NodeRef<'a>,
    ) -> Option<Vec<(&'a str, Param<'a>)>> {
        let s = SECTIONS.iter().position(|&x| x == section)?;
        let (enter, exit, _) = (*self.walk.get(parent.index())?)?;
        let mut out = Vec::new();
        for (k, _) in own.as_map().into_iter().flat_map(|m| m.iter()) {
            let name = k.name();
            let Some(found) = self.defined.get(&(s, name)) else {
                continue;
            };
            // Those of `parent` and its ancestors, root-most first (each
            // depth one type; stable, so a type's own order stays).
            let mut ancestors: Vec<(u32, DefNode<'a>)> = (found.iter())
                .filter_map(|&(t, def)| {
                    let (e, x, depth) = self.walk.get(t.index()).copied().flatten()?;
                    (e <= enter && exit <= x).then_some((depth, def))
                })
                .collect();
            ancestors.sort_by_key(|&(depth, _)| depth);
            // A name written twice is found first where it is written first.
            if !ancestors.is_empty() {
                let defs = ancestors.into_iter().map(|(_, def)| def).collect();
                out.push((name, Param { defs }));
            }
        }
        Some(out)
    }
}

/// The definitions of a type's parent and its ancestors, root-most first,
/// merged only when a check needs them all.
pub(crate) struct ParentChain<'t, 'a> {
    ts: &'t TypeSystem<'a>,
    parent: Option<TypeId>,
    chain: OnceCell<Vec<DefNode<'a>>>,
}

impl<'t, 'a> ParentChain<'t, 'a> {
    pub(crate) fn new(ts: &'t TypeSystem<'a>, parent: Option<TypeId>) -> ParentChain<'t, 'a> {
        ParentChain {
            ts,
            parent,
            chain: OnceCell::new(),
        }
    }

    /// The parent of the type.
    pub(crate) fn parent(&self) -> Option<TypeId> {
        self.parent
    }

    /// The definition nodes, root-most first.
    pub(crate) fn get(&self) -> &[DefNode<'a>] {
        self.chain.get_or_init(|| match self.parent {
            Some(p) => super::defs::chain_defs(self.ts, p),
            None => Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use v4t_source::Sources;

    use super::super::defs::{chain_defs, collect_section};
    use super::{Inherited, SECTIONS};
    use crate::load::load;
    use crate::types::TypeSystem;
    use crate::MemoryFiles;

    /// xorshift: random type forests without a dependency.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// Random node types (some deriving from a built-in one, some in
    /// cycles, some in an imported file, names repeated along chains):
    /// for each type's own sections, the definitions by name equal the
    /// merge of the parent's chain, in the same order and documents.
    #[test]
    fn definitions_by_name_equal_the_merged_chain() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut compared = 0;
        for _ in 0..60 {
            let n = 2 + next(&mut state) % 14;
            let mut files = [String::new(), String::new()];
            for i in 0..n {
                let parent = match next(&mut state) % 5 {
                    0 => "tosca.nodes.Root".to_string(),
                    _ => format!("t{}", next(&mut state) % n),
                };
                let mut sections = String::new();
                for section in SECTIONS {
                    let names: Vec<String> = (0..next(&mut state) % 3)
                        .map(|_| format!("p{}: {{type: string}}", next(&mut state) % 4))
                        .collect();
                    if !names.is_empty() {
                        sections.push_str(&format!(", {section}: {{{}}}", names.join(", ")));
                    }
                }
                let file = &mut files[usize::from(next(&mut state).is_multiple_of(4))];
                file.push_str(&format!("  t{i}: {{derived_from: {parent}{sections}}}\n"));
            }
            let head = "tosca_definitions_version: tosca_simple_yaml_1_3\n";
            let main = format!("{head}imports: [other.yaml]\nnode_types:\n{}", files[0]);
            let other = format!("{head}node_types:\n{}", files[1]);
            let mut repo = MemoryFiles::new()
                .with("main.yaml", &main)
                .with("other.yaml", &other);
            let mut sources = Sources::new();
            let loaded = load(&mut sources, &mut repo, "main.yaml");
            let ts = TypeSystem::build(&loaded);
            let inherited = Inherited::new(&ts);
            for t in &ts.types {
                let (Some(parent), Some(def)) = (t.parent, t.def) else {
                    continue;
                };
                for section in SECTIONS {
                    let Some(own) = def.get(section) else {
                        continue;
                    };
                    let merged = collect_section(&chain_defs(&ts, parent), section);
                    let Some(got) = inherited.defs(parent, section, own) else {
                        // A cycle: the caller merges the chain.
                        continue;
                    };
                    for (name, _) in own.as_map().into_iter().flat_map(|m| m.iter()) {
                        let name = name.name();
                        let want = merged.iter().find(|(n, _)| *n == name);
                        let found = got.iter().find(|(n, _)| *n == name);
                        let key = |p: &super::Param| -> Vec<_> {
                            p.defs.iter().map(|d| (d.node.span(), d.doc)).collect()
                        };
                        assert_eq!(want.map(|(_, p)| key(p)), found.map(|(_, p)| key(p)));
                        compared += usize::from(want.is_some());
                    }
                }
            }
        }
        assert!(compared > 200, "only {compared} inherited names compared");
    }
}
