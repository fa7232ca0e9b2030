//! The TOSCA types a file sees (its own, its imports', the profiles'),
//! through `v4t_tosca`'s loader and type system: for hover, go to
//! definition and type-name completion.

use std::path::Path;

use lsp_types::{Location, Position, Range, Uri};
use v4t::{Sources, Value};
use v4t_tosca::load::{DocId, Loaded};
use v4t_tosca::{Kind, TypeId, TypeSystem};
use v4t_yaml::NodeRef;

use crate::overlay::{Buffers, LoaderFactory, Overlay};
use crate::text::{normalize, path_uri, range};

/// A file loaded with everything it imports.
pub(crate) struct Loaded1 {
    pub(crate) sources: Sources,
    pub(crate) loaded: Loaded,
}

/// The file `path` (with text `text`) and its imports. A Variability4TOSCA
/// version is read as the TOSCA version of its base grammar, as the
/// resolver reads the template's types.
pub(crate) fn load(
    path: &Path,
    text: &str,
    buffers: &Buffers,
    loaders: &LoaderFactory,
) -> Option<Loaded1> {
    let mut sources = Sources::new();
    let id = sources.add(path.to_string_lossy(), text);
    let mut root = v4t_yaml::parse_with(text, id, v4t_yaml::Schema::Core).ok()?;
    let service = root.get("service_template").is_some();
    if let Some(v) = root
        .as_map_mut()
        .and_then(|m| m.get_mut("tosca_definitions_version"))
    {
        if v.as_str()
            .is_some_and(|s| s.starts_with("tosca_variability"))
        {
            let base = if service {
                "tosca_2_0"
            } else {
                "tosca_simple_yaml_1_3"
            };
            v.value = Value::String(base.into());
        }
    }
    let dir = path.parent().unwrap_or(Path::new("/"));
    let name = path.file_name()?.to_string_lossy().into_owned();
    let mut loader = Overlay::new(dir, buffers.clone(), loaders);
    let loaded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        v4t_tosca::load::load_tree(&mut sources, &mut loader, &name, root)
    }))
    .ok()?;
    Some(Loaded1 { sources, loaded })
}

impl Loaded1 {
    /// The type named `name` as the file writes it.
    pub(crate) fn resolve(&self, ts: &TypeSystem<'_>, kind: Kind, name: &str) -> Option<TypeId> {
        ts.resolve_type(DocId(0), kind, name).ok()
    }

    /// Where a definition in document `doc` at `span` is, as a location
    /// (`None` in bundled profiles, which are no files).
    pub(crate) fn location(
        &self,
        root: &Path,
        root_uri: &str,
        doc: DocId,
        span: v4t::Span,
    ) -> Option<Location> {
        let d = self.loaded.doc(doc);
        if d.bundled {
            return None;
        }
        let text = self.sources.get(span.source)?.text();
        let uri = if doc == DocId(0) {
            root_uri.to_string()
        } else {
            path_uri(&normalize(&root.parent()?.join(&d.path)))
        };
        Some(Location {
            uri: uri.parse::<Uri>().ok()?,
            range: range(text, span),
        })
    }

    /// The file an import of the root document written at `span` brings.
    pub(crate) fn import_at(&self, root: &Path, span: v4t::Span) -> Option<Location> {
        let edge = self
            .loaded
            .imports_of(DocId(0))
            .find(|i| i.span.start <= span.start && span.end <= i.span.end)?;
        let d = self.loaded.doc(edge.target);
        if d.bundled {
            return None;
        }
        let uri = path_uri(&normalize(&root.parent()?.join(&d.path)));
        Some(Location {
            uri: uri.parse::<Uri>().ok()?,
            range: Range::new(Position::new(0, 0), Position::new(0, 0)),
        })
    }
}

/// A type's derivation chain, description and properties, in Markdown.
pub(crate) fn describe(ts: &TypeSystem<'_>, id: TypeId) -> String {
    let t = ts.get(id);
    let chain: Vec<String> = ts
        .chain(id)
        .map(|c| format!("`{}`", ts.get(c).name))
        .collect();
    let mut out = format!(
        "**{}** `{}`\n\n{}",
        t.kind.noun(),
        t.name,
        chain.join(" → ")
    );
    let description = ts.chain(id).find_map(|c| {
        ts.get(c)
            .def
            .and_then(|d| d.get("description"))
            .and_then(NodeRef::as_str)
    });
    if let Some(d) = description {
        out.push_str(&format!("\n\n{d}"));
    }
    let mut props: Vec<String> = Vec::new();
    for c in ts.chain(id) {
        let Some(defs) = ts
            .get(c)
            .def
            .and_then(|d| d.get("properties"))
            .and_then(NodeRef::as_map)
        else {
            continue;
        };
        for (k, d) in defs.iter() {
            let line = format!(
                "- `{}`: {}",
                k.name(),
                d.get("type").and_then(NodeRef::as_str).unwrap_or("?")
            );
            if !props
                .iter()
                .any(|p| p.starts_with(&format!("- `{}`:", k.name())))
            {
                props.push(line);
            }
        }
    }
    if !props.is_empty() {
        out.push_str(&format!("\n\nproperties:\n{}", props.join("\n")));
    }
    out
}
