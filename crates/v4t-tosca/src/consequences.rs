//! Errors that follow from an import that could not be read.
//!
//! When an import fails (a missing or broken file, a remote URL that was
//! not fetched, an unknown profile), what it would define is unknown: every
//! name the importing files take from it is "unknown". Those errors say
//! nothing the import's own error does not, and a file whose only problem
//! is a remote import must not read as invalid. So unknown-name errors in
//! a file whose imports (transitively) include a failed one are dropped,
//! and the import's error says how many.

use std::collections::VecDeque;

use v4t_source::{Code, Diagnostic, Note};
use v4t_yaml::Span;

use crate::diag::Diagnostics;
use crate::load::Loaded;
use crate::types::Kind;

/// Drops the unknown-name errors of documents that import (directly or
/// not) something that could not be read; notes the count on the failed
/// import of the document where it has one.
pub(crate) fn drop_consequences(loaded: &Loaded, diags: &mut Diagnostics) {
    let cause = failed_import_in_scope(loaded);
    if cause.iter().all(Option::is_none) {
        return;
    }
    let mut dropped = vec![0usize; loaded.docs.len()];
    diags.retain(|d| {
        let doc = loaded.doc_of_source(d.span.source);
        match doc.filter(|doc| cause[doc.index()].is_some()) {
            Some(doc) if is_unknown_name(d) => {
                dropped[doc.index()] += 1;
                false
            }
            _ => true,
        }
    });
    for (doc, &n) in dropped.iter().enumerate() {
        let Some(span) = cause[doc].filter(|_| n > 0) else {
            continue;
        };
        let import_error = diags.iter_mut().find(|d| {
            d.span == span
                && matches!(
                    d.code,
                    Code::Import | Code::RemoteImport | Code::BrokenImport
                )
        });
        if let Some(d) = import_error {
            let s = if n == 1 { "" } else { "s" };
            let note = format!(
                "{n} error{s} of this file that may follow from it (unknown names) not reported"
            );
            // Before the section the diagnostic cites, which stays last.
            let at = d.notes.len().saturating_sub(1);
            d.notes.insert(
                at,
                Note {
                    message: note,
                    span: Span::NONE,
                },
            );
        }
    }
}

/// For each document, the first of its import definitions that failed or
/// leads (through imports) to a file that failed or is not a TOSCA file.
fn failed_import_in_scope(loaded: &Loaded) -> Vec<Option<Span>> {
    let mut cause: Vec<Option<Span>> = vec![None; loaded.docs.len()];
    for &(doc, span) in &loaded.failed_imports {
        cause[doc.index()].get_or_insert(span);
    }
    for imp in &loaded.imports {
        let target = loaded.doc(imp.target);
        if target.grammar.is_none() && !target.bundled {
            cause[imp.from.index()].get_or_insert(imp.span);
        }
    }
    // Up the import edges, breadth-first from the documents found so far.
    let mut importers: Vec<Vec<usize>> = vec![Vec::new(); loaded.docs.len()];
    for (i, imp) in loaded.imports.iter().enumerate() {
        importers[imp.target.index()].push(i);
    }
    let mut queue: VecDeque<usize> = (0..cause.len()).filter(|&d| cause[d].is_some()).collect();
    while let Some(d) = queue.pop_front() {
        for &i in &importers[d] {
            let imp = &loaded.imports[i];
            if cause[imp.from.index()].is_none() {
                cause[imp.from.index()] = Some(imp.span);
                queue.push_back(imp.from.index());
            }
        }
    }
    cause
}

/// Whether `d` says that a type or function name is unknown (the messages
/// of [`crate::TypeSystem::lookup_message`] and of unknown functions).
fn is_unknown_name(d: &Diagnostic) -> bool {
    let type_name = matches!(d.code, Code::UnknownType | Code::UndefinedReference)
        && Kind::ALL
            .iter()
            .any(|k| d.message.starts_with(&format!("unknown {} `", k.noun())));
    let function = matches!(d.code, Code::UnknownFunction | Code::Function)
        && d.message.starts_with("unknown function `");
    d.is_error() && (type_name || function)
}
