//! Verification: the resolved template checked by the TOSCA layer
//! (`v4t resolve --validate`), before anything is written.
//!
//! Input: the resolved document, whose nodes carry the spans they had in the
//! variable template (or none, where the resolver made them). Output:
//! `Ok(())` if [`v4t_tosca::validate`] finds no error in the document as it
//! is written out, else its first error, located in the written output, with
//! a note pointing at the same place in the variable template where the
//! offending node comes from it, and the further errors as notes.
//!
//! The output is validated as text (emitted, then read back) so that the
//! locations are those a user sees in the result; imports are read with the
//! template's loader, from the template's directory.

use crate::error::{Error, Result};
use v4t_source::{Code, Diagnostic, Loader, Severity, Sources};
use v4t_yaml::{Node, SourceId, Span, Value};

/// At most this many further errors become notes.
const MORE_ERRORS: usize = 9;

/// Validates `resolved` (the result of resolving `template`), named `name`
/// in diagnostics (default: the template's name with ` (resolved)`).
pub(crate) fn verify(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    resolved: &Node,
    name: Option<&str>,
) -> Result<()> {
    let text = crate::to_yaml(resolved);
    let shown = match name {
        Some(n) => n.to_string(),
        None => {
            let template_name = sources
                .get(template)
                .map_or("template", |f| f.name.as_str());
            format!("{template_name} (resolved)")
        }
    };
    // In the template's place: imports are relative to where it is.
    let path = crate::load::template_path(sources, template);
    let id = sources.add_at(shown, path, text);
    let loaded = v4t_tosca::load_source(sources, loader, id);
    let ts = v4t_tosca::TypeSystem::build(&loaded);
    let mut errors = v4t_tosca::validate(&ts, sources)
        .into_sorted()
        .into_iter()
        .filter(|d| d.severity == Severity::Error);
    let Some(first) = errors.next() else {
        return Ok(());
    };
    // Only on an error: the written document as a tree, to walk.
    let written = loaded.doc(v4t_tosca::Loaded::ENTRY).root.node().to_node();
    let mut error = located(first, &written, resolved);
    for more in errors.by_ref().take(MORE_ERRORS) {
        error = error.with_note(format!("also: {}", more.message), more.span);
    }
    let rest = errors.count();
    if rest > 0 {
        error = error.with_note(format!("and {rest} more errors"), Span::NONE);
    }
    Err(error)
}

/// The error of diagnostic `d` about the written output `written`, with a
/// note at the place in the variable template the offending node of
/// `resolved` (the same document before writing) was written.
fn located(d: Diagnostic, written: &Node, resolved: &Node) -> Error {
    let origin = path_to(written, d.span).and_then(|path| origin(resolved, &path));
    let mut error = Error::from(Diagnostic {
        code: Code::InvalidOutput,
        message: format!("The resolved template is not valid TOSCA: {}", d.message),
        ..d
    });
    if let Some(span) = origin {
        error = error.with_note("written here in the variable template", span);
    }
    error
}

/// One step from a collection to one of its entries.
#[derive(Clone, Copy)]
enum Step {
    Key(usize),
    Index(usize),
    /// The key of the entry the previous step entered.
    ItsKey,
}

/// The steps from `root` to the node (or map key) at `span`.
fn path_to(root: &Node, span: Span) -> Option<Vec<Step>> {
    if !span.is_known() {
        return None;
    }
    let mut stack: Vec<(&Node, Vec<Step>)> = vec![(root, Vec::new())];
    while let Some((n, path)) = stack.pop() {
        if n.span == span {
            return Some(path);
        }
        match &n.value {
            Value::Map(m) => {
                for (i, (k, v)) in m.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(Step::Key(i));
                    if k.span == span {
                        p.push(Step::ItsKey);
                        return Some(p);
                    }
                    stack.push((v, p));
                }
            }
            Value::Seq(items) => {
                for (i, v) in items.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(Step::Index(i));
                    stack.push((v, p));
                }
            }
            _ => {}
        }
    }
    None
}

/// The span, in the variable template, of the node at `path` in
/// `resolved`, or of its nearest ancestor the template wrote.
fn origin(resolved: &Node, path: &[Step]) -> Option<Span> {
    let mut best = resolved.span.is_known().then_some(resolved.span);
    let mut cur = resolved;
    let mut key = Span::NONE;
    for step in path {
        let next = match (step, &cur.value) {
            (Step::Key(i), Value::Map(m)) => m.get_index(*i).map(|(k, v)| {
                key = k.span;
                if k.span.is_known() {
                    best = Some(k.span);
                }
                v
            }),
            (Step::Index(i), Value::Seq(items)) => items.get(*i),
            (Step::ItsKey, _) => return Some(if key.is_known() { key } else { best? }),
            _ => None,
        };
        let Some(next) = next else { break };
        cur = next;
        if cur.span.is_known() {
            best = Some(cur.span);
        }
    }
    best
}
