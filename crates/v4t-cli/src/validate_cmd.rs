//! `v4t validate`: checks a TOSCA 2.0 (or 1.3) file, CSAR directory or
//! CSAR archive with everything it imports, and prints the diagnostics.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use v4t::{Code, Loader, Sources};
use v4t_tosca::{Level, Levels};

use crate::csar::{Archive, ArchiveLoader};
use crate::diagnostics::{catch_panic, ColorChoice, Format, Reporter};
use crate::fs_loader::{AnyLoader, FsLoader};
use crate::{EXIT_FAILURE, EXIT_OK, EXIT_USAGE};

/// Arguments of `v4t validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// A TOSCA file, a CSAR directory, a zipped CSAR (`.csar`/`.zip`) or a
    /// tarball (`.tar`, `.tar.gz`, `.tgz`): its entry is `Entry-Definitions`
    /// of `TOSCA.meta` (at the root or in `TOSCA-Metadata/`), else its only
    /// YAML file at the root (TOSCA 2.0 §17.3: no default names, unlike the
    /// commands that resolve).
    #[arg(value_name = "FILE|DIR|CSAR")]
    pub path: PathBuf,

    /// How diagnostics are printed on standard error: `text` (rustc-style;
    /// the element path and the specification section as notes) or `json`
    /// (one object per line with `severity`, `code`, `message`, the location,
    /// `element` (the element path) and `notes` (the section)).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Print errors only, no warnings.
    #[arg(long, short)]
    pub quiet: bool,

    /// Report the errors of rule CODE as warnings (`V4T110`, or a coarser
    /// code such as `V4T103` for all its rules; see docs/diagnostics.md).
    /// Repeatable, or comma-separated. Overrides `v4t.toml`.
    #[arg(long = "warn", value_name = "CODE", value_delimiter = ',')]
    pub warn: Vec<String>,

    /// Report nothing of rule CODE (as `--warn`).
    #[arg(long = "allow", value_name = "CODE", value_delimiter = ',')]
    pub allow: Vec<String>,
}

/// The severities configured for this run: the `[validate]` table of the
/// nearest `v4t.toml` above the validated path, then `--warn` and
/// `--allow`; an error message for unknown codes and unreadable files.
fn levels(args: &ValidateArgs, is_dir: bool) -> Result<Levels, String> {
    let mut levels = Levels::new();
    let start = if is_dir {
        args.path.clone()
    } else {
        let parent = args.path.parent().unwrap_or(Path::new(""));
        if parent.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            parent.to_path_buf()
        }
    };
    if let Some(file) = crate::validate_config::find(&start) {
        let shown = shown_path(&file);
        let text =
            fs::read_to_string(&file).map_err(|e| format!("cannot read \"{shown}\": {e}"))?;
        let config =
            crate::validate_config::parse(&text).map_err(|e| format!("\"{shown}\", {e}"))?;
        let origin = format!("`{shown}`");
        for (codes, level) in [(&config.warn, Level::Warn), (&config.allow, Level::Allow)] {
            for code in codes {
                let code = Code::parse(code)
                    .ok_or_else(|| format!("\"{shown}\": unknown code `{code}`"))?;
                levels.set(code, level, origin.clone());
            }
        }
    }
    for (codes, level, flag) in [
        (&args.warn, Level::Warn, "--warn"),
        (&args.allow, Level::Allow, "--allow"),
    ] {
        for text in codes {
            let code = Code::parse(text.trim()).ok_or_else(|| {
                format!("{flag}: unknown code `{text}` (see docs/diagnostics.md)")
            })?;
            levels.set(code, level, format!("`{flag} {code}`"));
        }
    }
    Ok(levels)
}

/// A path as shown in notes: relative to the current directory where it
/// lies below it.
fn shown_path(path: &Path) -> String {
    let cwd = std::env::current_dir().and_then(fs::canonicalize);
    match cwd
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
    {
        Some(rel) => rel.display().to_string(),
        None => path.display().to_string(),
    }
}

/// Runs `v4t validate`; returns the exit code.
pub fn run(args: &ValidateArgs, color: ColorChoice) -> u8 {
    let reporter = Reporter::to_stderr(args.format, color, args.quiet);
    let path = &args.path;
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            reporter.error(
                Code::File,
                &format!("cannot read \"{}\": {e}", path.display()),
            );
            return EXIT_USAGE;
        }
    };
    let levels = match levels(args, meta.is_dir()) {
        Ok(l) => l,
        Err(message) => {
            reporter.error(Code::File, &message);
            return EXIT_USAGE;
        }
    };
    // The repository (a directory or an archive), its entry file, and the
    // directory diagnostics name files relative to.
    let fs_loader = |dir: &Path| {
        FsLoader::new(dir).map(AnyLoader::Fs).map_err(|e| {
            reporter.error(Code::File, &e);
            EXIT_USAGE
        })
    };
    let root = if meta.is_dir() {
        match fs_loader(path) {
            Ok(loader) => Some(loader),
            Err(code) => return code,
        }
    } else if is_archive(path) {
        let archive = crate::files::read_bytes(path, crate::files::MAX_INPUT_BYTES)
            .and_then(|bytes| Archive::read(&bytes));
        match archive {
            Ok(a) => Some(AnyLoader::Archive(ArchiveLoader::for_directory(
                Arc::new(a),
                "",
            ))),
            // Unreadable or refused (an entry leaving the root, a link, a
            // zip bomb): a usage error, as in every command.
            Err(message) => {
                reporter.error(
                    Code::Csar,
                    &format!("cannot read the CSAR \"{}\": {message}", path.display()),
                );
                return EXIT_USAGE;
            }
        }
    } else {
        None
    };
    let (mut loader, entry, shown) = if let Some(mut root) = root {
        // A TOSCA processor: TOSCA.meta, else the single root YAML file.
        match v4t_tosca::csar::entry_of(&mut root) {
            Ok(entry) => (root, entry, path.to_path_buf()),
            Err(e) => {
                let message = format!("\"{}\" is not a valid CSAR: {e}", path.display());
                reporter.error(Code::Csar, &message);
                return EXIT_FAILURE;
            }
        }
    } else {
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match fs_loader(&dir) {
            Ok(loader) => (loader, name, dir),
            Err(code) => return code,
        }
    };
    let outcome = catch_panic(move || {
        let mut sources = Sources::new();
        let loaded = v4t_tosca::load(&mut sources, &mut loader as &mut dyn Loader, &entry);
        let ts = v4t_tosca::TypeSystem::build(&loaded);
        let diagnostics = levels.apply(v4t_tosca::validate(&ts, &sources).into_sorted());
        (display_names(sources, &shown), diagnostics, loader)
    });
    let (sources, diagnostics, loader) = match outcome {
        Ok(r) => r,
        Err(panic) => {
            reporter.error(Code::Internal, &format!("internal error: {panic}"));
            return EXIT_FAILURE;
        }
    };
    crate::resolve_cmd::print_notes(&reporter, &loader);
    for d in &diagnostics {
        reporter.report(&sources, d);
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    if errors == 0 {
        return EXIT_OK;
    }
    if reporter.format == Format::Text {
        let s = if errors == 1 { "" } else { "s" };
        eprintln!(
            "{errors} error{s}: \"{}\" is not valid TOSCA",
            args.path.display()
        );
    }
    EXIT_FAILURE
}

/// The sources with names as the user sees them: loaded files as
/// `DIR/path` (or `ARCHIVE/path`), bundled profiles as they are.
fn display_names(sources: Sources, dir: &Path) -> Sources {
    let mut out = Sources::new();
    let mut id = 0u32;
    while let Some(file) = sources.get(v4t::SourceId(id)) {
        let name = match &file.path {
            Some(p) => dir.join(p).display().to_string(),
            None => file.name.clone(),
        };
        out.add(name, file.text.clone());
        id += 1;
    }
    out
}

/// Whether a file is a zip archive or a tarball (by its name or its first
/// bytes).
fn is_archive(path: &Path) -> bool {
    use std::io::Read;
    let mut start = Vec::with_capacity(crate::tarball::SNIFF_BYTES);
    let read = fs::File::open(path).and_then(|f| {
        f.take(crate::tarball::SNIFF_BYTES as u64)
            .read_to_end(&mut start)
    });
    crate::csar::is_archive(path, if read.is_ok() { &start } else { &[] })
}
