//! Diagnostics of one open file, as the command line reports them: `v4t
//! resolve` (with the default inputs) for a variable service template,
//! every preset resolved on its own, and `v4t validate` for plain TOSCA;
//! each diagnostic published for the file it points into, and the "did
//! you mean" suggestions they carry as fixes for code actions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Range, Uri,
};
use v4t::{Diagnostic, ResolveOptions, Severity, SourceId, Sources, Span};

use crate::model::{Model, Target};
use crate::overlay::{Buffers, LoaderFactory, Overlay};
use crate::text::{normalize, path_uri, range};

/// What a file is, told from its text without parsing it (a half-typed
/// buffer is still a template).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavour {
    /// A Variability4TOSCA template (a `variability` section, or a
    /// `tosca_variability_*` version): resolved.
    Variable,
    /// Plain TOSCA: validated.
    Tosca,
}

impl Flavour {
    /// The flavour of `text`, `None` for YAML that is no TOSCA file.
    pub(crate) fn of(text: &str) -> Option<Flavour> {
        let mut tosca = false;
        let mut variable = false;
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("tosca_definitions_version:") {
                tosca = true;
                variable |= rest
                    .trim()
                    .trim_matches(['"', '\''])
                    .starts_with("tosca_variability");
            }
            variable |= line.trim_start() == "variability:"
                || line.trim_start().starts_with("variability: ");
        }
        match (tosca, variable) {
            (false, _) => None,
            (true, true) => Some(Flavour::Variable),
            (true, false) => Some(Flavour::Tosca),
        }
    }
}

/// A "did you mean" suggestion a diagnostic carries, as an edit.
#[derive(Clone, Debug)]
pub(crate) struct Fix {
    /// The range to replace.
    pub(crate) range: Range,
    /// The replacement.
    pub(crate) text: String,
    /// The diagnostic it repairs.
    pub(crate) diagnostic: lsp_types::Diagnostic,
}

/// The diagnostics of one analysis, by file URI, and the fixes in the
/// analysed file.
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    pub(crate) files: BTreeMap<String, Vec<lsp_types::Diagnostic>>,
    pub(crate) fixes: Vec<(String, Fix)>,
}

/// One file to analyse.
pub(crate) struct Subject<'a> {
    /// Its URI, as the client named it.
    pub(crate) uri: &'a str,
    /// Its path.
    pub(crate) path: &'a Path,
    /// Its text.
    pub(crate) text: &'a str,
}

/// Diagnostics of `subject` with the default inputs (or validation).
pub(crate) fn analyze(
    subject: &Subject<'_>,
    buffers: &Buffers,
    loaders: &LoaderFactory,
) -> Analysis {
    let mut out = Analysis::default();
    out.files.insert(subject.uri.to_string(), Vec::new());
    let Some(flavour) = Flavour::of(subject.text) else {
        return out;
    };
    let dir = subject.path.parent().unwrap_or(Path::new("/"));
    let mut sources = Sources::new();
    let diagnostics = guarded(|| match flavour {
        Flavour::Variable => {
            let id = sources.add(display(subject.path), subject.text);
            resolve(
                &mut sources,
                id,
                &mut Overlay::new(dir, buffers.clone(), loaders),
                Vec::new(),
            )
            .err()
            .unwrap_or_default()
        }
        Flavour::Tosca => {
            let name = subject
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut loader = Overlay::new(dir, buffers.clone(), loaders);
            let loaded = v4t_tosca::load(&mut sources, &mut loader, &name);
            let ts = v4t_tosca::TypeSystem::build(&loaded);
            v4t_tosca::validate(&ts, &sources).into_sorted()
        }
    });
    let at = Locator {
        subject,
        dir,
        sources: &sources,
    };
    for d in diagnostics {
        at.publish(&d, &mut out);
    }
    out
}

/// Diagnostics for every preset of `subject` that does not resolve, at the
/// preset's name, unless the default inputs fail the same way (`known`:
/// the messages of the errors already reported).
pub(crate) fn presets(
    subject: &Subject<'_>,
    buffers: &Buffers,
    loaders: &LoaderFactory,
    known: &[String],
) -> Vec<lsp_types::Diagnostic> {
    if Flavour::of(subject.text) != Some(Flavour::Variable) {
        return Vec::new();
    }
    let Ok(tree) = v4t_yaml::parse(subject.text, SourceId(0)) else {
        return Vec::new();
    };
    let model = Model::of(&tree, subject.text);
    let dir = subject.path.parent().unwrap_or(Path::new("/"));
    let mut out = Vec::new();
    for preset in model
        .occurrences
        .iter()
        .filter(|o| o.is_definition() && o.target == Target::Preset)
    {
        let mut sources = Sources::new();
        let errors = guarded(|| {
            let id = sources.add(display(subject.path), subject.text);
            let mut loader = Overlay::new(dir, buffers.clone(), loaders);
            resolve(&mut sources, id, &mut loader, vec![preset.name.clone()])
                .err()
                .unwrap_or_default()
        });
        let Some(first) = errors.into_iter().find(Diagnostic::is_error) else {
            continue;
        };
        if known.iter().any(|m| m.starts_with(&first.message)) {
            continue;
        }
        let at = Locator {
            subject,
            dir,
            sources: &sources,
        };
        let mut related: Vec<_> = at.related(&first);
        if let Some(location) = at.location(first.span) {
            related.insert(
                0,
                DiagnosticRelatedInformation {
                    location,
                    message: first.message.clone(),
                },
            );
        }
        out.push(lsp_types::Diagnostic {
            range: range(subject.text, preset.span),
            severity: Some(DiagnosticSeverity::ERROR),
            code: Some(NumberOrString::String(first.code.as_str().into())),
            source: Some("v4t".into()),
            message: format!(
                "preset \"{}\" does not resolve: {}",
                preset.name, first.message
            ),
            related_information: Some(related),
            ..Default::default()
        });
    }
    out
}

/// Resolves; the errors and warnings, or the warnings alone on success
/// (as `Err`, to share the caller's path).
fn resolve(
    sources: &mut Sources,
    id: SourceId,
    loader: &mut Overlay,
    presets: Vec<String>,
) -> Result<(), Vec<Diagnostic>> {
    let options = ResolveOptions {
        presets,
        report: false,
        ..ResolveOptions::default()
    };
    let mut warnings = Vec::new();
    let result = v4t::resolve_with_warnings(sources, id, loader, &options, &mut warnings);
    if let Err(e) = result {
        warnings.extend(e.diagnostics().cloned());
    }
    Err(warnings)
}

/// Runs `f`, turning a panic (a bug, never expected) into a diagnostic
/// instead of taking the server down.
fn guarded(f: impl FnOnce() -> Vec<Diagnostic>) -> Vec<Diagnostic> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        vec![Diagnostic::error(
            v4t::Code::Internal,
            format!("internal error: {what}"),
        )]
    })
}

fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Maps spans of one analysis to files.
struct Locator<'a> {
    subject: &'a Subject<'a>,
    dir: &'a Path,
    sources: &'a Sources,
}

impl Locator<'_> {
    /// The URI and text of the file a span points into (`None` for texts
    /// that are no file, such as the bundled profiles).
    fn file(&self, source: SourceId) -> Option<(String, &str)> {
        let file = self.sources.get(source)?;
        match &file.path {
            None => Some((self.subject.uri.to_string(), file.text())),
            Some(p) if p.starts_with('<') => None,
            Some(p) => {
                let path: PathBuf = normalize(&self.dir.join(p));
                if path == self.subject.path {
                    return Some((self.subject.uri.to_string(), file.text()));
                }
                Some((path_uri(&path), file.text()))
            }
        }
    }

    fn location(&self, span: Span) -> Option<Location> {
        if !span.is_known() {
            return None;
        }
        let (uri, text) = self.file(span.source)?;
        Some(Location {
            uri: uri.parse::<Uri>().ok()?,
            range: range(text, span),
        })
    }

    fn related(&self, d: &Diagnostic) -> Vec<DiagnosticRelatedInformation> {
        d.notes
            .iter()
            .filter_map(|n| {
                Some(DiagnosticRelatedInformation {
                    location: self.location(n.span)?,
                    message: n.message.clone(),
                })
            })
            .collect()
    }

    /// Adds `d` to the file it points into (the analysed file if it points
    /// nowhere), with its fix if it suggests one.
    fn publish(&self, d: &Diagnostic, out: &mut Analysis) {
        let (uri, text) = (d.span.is_known())
            .then(|| self.file(d.span.source))
            .flatten()
            .unwrap_or((self.subject.uri.to_string(), self.subject.text));
        let where_ = if d.span.is_known() && self.file(d.span.source).is_some() {
            range(text, d.span)
        } else {
            Range::default()
        };
        let mut message = d.message.clone();
        // Notes that point nowhere (or into no file) are part of the text.
        for n in &d.notes {
            if self.location(n.span).is_none() {
                message.push_str(&format!("\nnote: {}", n.message));
            }
        }
        let diagnostic = lsp_types::Diagnostic {
            range: where_,
            severity: Some(match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
            }),
            code: Some(NumberOrString::String(d.code.as_str().into())),
            source: Some("v4t".into()),
            message,
            related_information: Some(self.related(d)).filter(|r| !r.is_empty()),
            ..Default::default()
        };
        if let Some(fix) = self.fix(d, &diagnostic) {
            out.fixes.push(fix);
        }
        out.files.entry(uri).or_default().push(diagnostic);
    }

    /// The edit a "did you mean" of `d` (in its message or a note) suggests:
    /// the name at the note's location, else at the diagnostic's, replaced
    /// by the suggestion (quotes kept).
    fn fix(&self, d: &Diagnostic, shown: &lsp_types::Diagnostic) -> Option<(String, Fix)> {
        let (suggestion, span) = std::iter::once((d.message.as_str(), d.span))
            .chain(
                d.notes
                    .iter()
                    .map(|n| (n.message.as_str(), n.span.or(d.span))),
            )
            .find_map(|(m, s)| Some((suggested(m)?, s)))?;
        let (uri, text) = self.file(span.source)?;
        let written = self.sources.text_of(span)?;
        let inner = written.trim_matches(['"', '\'']);
        if inner.is_empty()
            || inner.contains(|c: char| c.is_whitespace() || c == ':' || c == '{' || c == '[')
        {
            return None;
        }
        let quote = written.len() - written.trim_start_matches(['"', '\'']).len();
        let mut r = range(text, span);
        r.start.character += quote as u32;
        r.end.character = r.start.character + inner.encode_utf16().count() as u32;
        Some((
            uri,
            Fix {
                range: r,
                text: suggestion.to_string(),
                diagnostic: shown.clone(),
            },
        ))
    }
}

/// The name in `did you mean "x"?`.
fn suggested(message: &str) -> Option<&str> {
    let start = message.find("did you mean \"")? + "did you mean \"".len();
    let len = message[start..].find('"')?;
    Some(&message[start..start + len]).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flavours() {
        assert_eq!(Flavour::of("a: 1\n"), None);
        assert_eq!(
            Flavour::of("tosca_definitions_version: tosca_2_0\n"),
            Some(Flavour::Tosca)
        );
        assert_eq!(
            Flavour::of("tosca_definitions_version: tosca_variability_1_0\n"),
            Some(Flavour::Variable)
        );
        assert_eq!(
            Flavour::of(
                "tosca_definitions_version: tosca_2_0\nservice_template:\n  variability:\n"
            ),
            Some(Flavour::Variable)
        );
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            suggested("unknown operator \"equals\"; did you mean \"equal\"?"),
            Some("equal")
        );
        assert_eq!(suggested("no suggestion"), None);
    }
}
