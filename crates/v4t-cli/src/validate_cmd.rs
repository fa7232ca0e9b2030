//! `v4t validate`: checks a TOSCA 2.0 (or 1.3) file, CSAR directory or
//! CSAR archive with everything it imports, and prints the diagnostics.

use std::collections::VecDeque;
use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use v4t::{Loader, Sources};
use v4t_tosca::{Diagnostic, Repository, Severity as TSeverity};

use crate::diagnostics::{self, catch_panic, Format, Reporter, Severity};
use crate::fs_loader::FsLoader;
use crate::{EXIT_FAILURE, EXIT_OK, EXIT_USAGE};

/// Arguments of `v4t validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// A TOSCA file, a CSAR directory (with `TOSCA.meta` or one YAML file at
    /// its root) or a CSAR zip archive.
    #[arg(value_name = "FILE|DIR|CSAR")]
    pub path: PathBuf,

    /// How diagnostics are printed on standard error: `text` (rustc-style,
    /// with the element path and the specification section as notes) or
    /// `json` (one object per line with `severity`, `code`, `message`,
    /// `file`, `line`, `column`, `path` and `section`).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// At most this many files are listed when looking for profiles.
const MAX_LISTED: usize = 20_000;

/// Runs `v4t validate`; returns the exit code.
pub fn run(args: &ValidateArgs) -> u8 {
    let reporter = Reporter {
        format: args.format,
        color: std::io::stderr().is_terminal(),
    };
    let path = &args.path;
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            reporter.error(&format!("cannot read \"{}\": {e}", path.display()));
            return EXIT_USAGE;
        }
    };
    let (mut repo, entry, base) = if meta.is_dir() {
        let mut repo = FsRepository::new(path);
        match v4t_tosca::csar::entry_of(&mut repo) {
            Ok(entry) => (repo, entry, path.to_path_buf()),
            Err(message) => {
                reporter.error(&format!(
                    "\"{}\" is not a valid CSAR: {message}",
                    path.display()
                ));
                return EXIT_FAILURE;
            }
        }
    } else if is_zip(path) {
        reporter.error(&format!(
            "\"{}\" is a zip archive: unpack it and validate the directory",
            path.display()
        ));
        return EXIT_USAGE;
    } else {
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (FsRepository::new(&dir), name, dir)
    };
    let outcome = catch_panic(move || {
        let loaded = v4t_tosca::load(&mut repo, &entry);
        let ts = v4t_tosca::TypeSystem::build(&loaded);
        let diags = v4t_tosca::validate(&ts).into_sorted();
        let mut sources = Sources::new();
        for doc in &loaded.docs {
            let name = if doc.bundled {
                doc.path.clone()
            } else {
                base.join(&doc.path).display().to_string()
            };
            sources.add(name, doc.text.clone());
        }
        (sources, diags)
    });
    let (sources, diags) = match outcome {
        Ok(r) => r,
        Err(panic) => {
            reporter.error(&format!("internal error: {panic}"));
            return EXIT_FAILURE;
        }
    };
    let mut errors = 0usize;
    for d in &diags {
        if d.is_error() {
            errors += 1;
        }
        eprint!("{}", format_diagnostic(&reporter, &sources, d));
    }
    if errors == 0 {
        EXIT_OK
    } else {
        if reporter.format == Format::Text {
            let s = if errors == 1 { "" } else { "s" };
            eprintln!(
                "{errors} error{s}: \"{}\" is not valid TOSCA",
                args.path.display()
            );
        }
        EXIT_FAILURE
    }
}

/// One diagnostic as text (with the element path and section as a note)
/// or as a JSON line.
fn format_diagnostic(reporter: &Reporter, sources: &Sources, d: &Diagnostic) -> String {
    let severity = match d.severity {
        TSeverity::Error => Severity::Error,
        TSeverity::Warning => Severity::Warning,
    };
    match reporter.format {
        Format::Text => {
            let mut out =
                diagnostics::render_as(sources, severity, &d.message, d.span, reporter.color);
            if !out.ends_with('\n') {
                out.push('\n');
            }
            let at = if d.path.is_empty() {
                String::new()
            } else {
                format!("in {}; ", d.path)
            };
            out.push_str(&format!("  = note: {at}{}\n", section_name(d.section)));
            out
        }
        Format::Json => {
            let line = diagnostics::json(sources, severity, &d.message, d.span, None);
            let mut extra = String::new();
            extra.push_str(",\"code\":");
            v4t_yaml::json::write_json_string(&mut extra, d.code);
            if !d.path.is_empty() {
                extra.push_str(",\"path\":");
                v4t_yaml::json::write_json_string(&mut extra, &d.path);
            }
            extra.push_str(",\"section\":");
            v4t_yaml::json::write_json_string(&mut extra, &section_name(d.section));
            let trimmed = line.trim_end().trim_end_matches('}');
            format!("{trimmed}{extra}}}\n")
        }
    }
}

/// `TOSCA 2.0 §9.5`, or `TOSCA 1.3 §3.6.10` for sections marked `1.3 `.
fn section_name(section: &str) -> String {
    match section.strip_prefix("1.3 ") {
        Some(s) => format!("TOSCA 1.3 §{s}"),
        None => format!("TOSCA 2.0 §{section}"),
    }
}

/// Whether a file is a zip archive (by its first bytes).
fn is_zip(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    use std::io::Read;
    fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"PK\x03\x04")
}

/// A directory as a TOSCA repository: reads are confined to it (through
/// [`FsLoader`]), listing walks it (sorted, no hidden entries, no symlinked
/// directories, bounded).
struct FsRepository {
    dir: PathBuf,
    loader: FsLoader,
}

impl FsRepository {
    fn new(dir: &Path) -> FsRepository {
        FsRepository {
            dir: dir.to_path_buf(),
            loader: FsLoader::new(dir),
        }
    }
}

impl Repository for FsRepository {
    fn read(&mut self, path: &str) -> Result<Option<String>, String> {
        self.loader.read(path)
    }

    fn list(&mut self) -> Vec<String> {
        let mut files = Vec::new();
        let mut queue = VecDeque::from([String::new()]);
        while let Some(rel) = queue.pop_front() {
            let Ok(entries) = fs::read_dir(self.dir.join(&rel)) else {
                continue;
            };
            let mut entries: Vec<_> = entries
                .filter_map(|e| e.ok())
                .filter_map(|e| Some((e.file_name().into_string().ok()?, e)))
                .filter(|(name, _)| !name.starts_with('.'))
                .collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (name, entry) in entries {
                let child = if rel.is_empty() {
                    name
                } else {
                    format!("{rel}/{name}")
                };
                let Ok(file_type) = entry.file_type() else {
                    continue;
                };
                if file_type.is_dir() {
                    if child.matches('/').count() < 16 {
                        queue.push_back(child);
                    }
                } else if file_type.is_file() || file_type.is_symlink() {
                    files.push(child);
                    if files.len() >= MAX_LISTED {
                        return files;
                    }
                }
            }
        }
        files.sort();
        files
    }
}
