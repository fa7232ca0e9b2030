//! Names are unique within a namespace (TOSCA 2.0 §6.8.4).
//!
//! A file's root namespace holds its own definitions and those of the
//! files it imports without a namespace (transitively). A repository or
//! function defined in the file and again in such an import is an error.
//! For types the same rule is a warning: the TOSCA 2.0 community suite
//! (`s136a` to `s139a`) redefines imported types and expects the file's
//! own definition to win, which it does (`docs/spec-deviations.md`). Two
//! imports defining one type are ambiguous where it is used
//! ([`crate::types`]).

use crate::section::Section;
use std::collections::{HashSet, VecDeque};

use v4t_source::Code;

use crate::diag::Diagnostics;
use crate::load::{DocId, Grammar, Loaded};
use crate::types::Kind;

/// Reports the names a TOSCA 2.0 file defines that a file it imports into
/// its root namespace defines too.
pub(crate) fn check(loaded: &Loaded, diags: &mut Diagnostics) {
    let mut found = Vec::new();
    for doc in loaded.doc_ids() {
        let d = loaded.doc(doc);
        if d.bundled || d.grammar != Some(Grammar::Tosca2) {
            continue;
        }
        let imported = root_imports(loaded, doc);
        for (section, what) in sections() {
            let Some(defs) = d.root.node().get(section).and_then(|n| n.as_map()) else {
                continue;
            };
            for (key, _) in defs.iter() {
                let other = imported.iter().find_map(|&o| {
                    let map = loaded.doc(o).root.node().get(section)?.as_map()?;
                    map.get_entry(key.name()).map(|(k, _)| (o, k.span()))
                });
                if let Some((o, span)) = other {
                    found.push((
                        section,
                        what.clone(),
                        key.name().to_string(),
                        key.span(),
                        o,
                        span,
                    ));
                }
            }
        }
    }
    for (section, what, name, at, other, span) in found {
        let path = loaded.doc(other).path.clone();
        let message =
            format!("{what} `{name}` is also defined in `{path}`, which this file imports into the same namespace");
        let element = format!("{section}.{name}");
        if matches!(section, "repositories" | "functions") {
            diags.error(
                Code::NamespaceDuplicate,
                Section::Namespaces,
                at,
                element,
                message,
            );
        } else {
            diags.warning(
                Code::ShadowedType,
                Section::Namespaces,
                at,
                element,
                message,
            );
            let note = "names are unique within a namespace; this file's definition is used here";
            diags.note(note, None);
        }
        diags.note(format!("`{name}` is defined in `{path}` here"), Some(span));
    }
}

/// The sections whose names share a namespace, and what they define.
fn sections() -> impl Iterator<Item = (&'static str, String)> {
    let types = Kind::ALL
        .into_iter()
        .map(|k| (k.section(), k.noun().to_string()));
    [
        ("repositories", "repository".to_string()),
        ("functions", "function".to_string()),
    ]
    .into_iter()
    .chain(types)
}

/// The documents `doc` imports into its root namespace, directly or
/// through files imported the same way, in import order (the implicit
/// TOSCA 1.3 normative types are no import definition and are skipped).
fn root_imports(loaded: &Loaded, doc: DocId) -> Vec<DocId> {
    let mut out = Vec::new();
    let mut seen = HashSet::from([doc]);
    let mut queue = VecDeque::from([doc]);
    while let Some(d) = queue.pop_front() {
        for imp in loaded.imports_of(d) {
            if imp.namespace.is_none() && imp.span.is_known() && seen.insert(imp.target) {
                out.push(imp.target);
                queue.push_back(imp.target);
            }
        }
    }
    out
}
