//! `v4t validate`: checks a TOSCA 2.0 (or 1.3) file, CSAR directory or
//! CSAR archive with everything it imports, and prints the diagnostics.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use v4t::{Code, Loader, Sources};

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
            Err(message) => {
                reporter.error(
                    Code::Csar,
                    &format!("cannot read the CSAR \"{}\": {message}", path.display()),
                );
                return EXIT_FAILURE;
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
        let diagnostics = v4t_tosca::validate(&ts, &sources).into_sorted();
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
