//! `v4t validate`: checks a TOSCA 2.0 (or 1.3) file, CSAR directory or
//! CSAR archive with everything it imports, and prints the diagnostics.

use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use v4t::{Code, Sources};

use crate::diagnostics::{catch_panic, Format, Reporter};
use crate::fs_loader::FsLoader;
use crate::{EXIT_FAILURE, EXIT_OK, EXIT_USAGE};

/// Arguments of `v4t validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// A TOSCA file, a CSAR directory (with `TOSCA.meta` or one YAML file at
    /// its root) or a CSAR zip archive.
    #[arg(value_name = "FILE|DIR|CSAR")]
    pub path: PathBuf,

    /// How diagnostics are printed on standard error: `text` (rustc-style;
    /// the element path and the specification section as notes) or `json`
    /// (one object per line with `severity`, `code`, `message`, the location,
    /// `element` (the element path) and `notes` (the section)).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

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
            reporter.error(
                Code::File,
                &format!("cannot read \"{}\": {e}", path.display()),
            );
            return EXIT_USAGE;
        }
    };
    let (dir, entry) = if meta.is_dir() {
        let mut loader = FsLoader::new(path);
        match v4t_tosca::csar::entry_of(&mut loader) {
            Ok(entry) => (path.to_path_buf(), entry),
            Err(message) => {
                let message = format!("\"{}\" is not a valid CSAR: {message}", path.display());
                reporter.error(Code::Csar, &message);
                return EXIT_FAILURE;
            }
        }
    } else if is_zip(path) {
        let message = format!(
            "\"{}\" is a zip archive: unpack it and validate the directory",
            path.display()
        );
        reporter.error(Code::File, &message);
        return EXIT_USAGE;
    } else {
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (dir, name)
    };
    let outcome = catch_panic(move || {
        let mut sources = Sources::new();
        let mut loader = FsLoader::new(&dir);
        let loaded = v4t_tosca::load(&mut sources, &mut loader, &entry);
        let ts = v4t_tosca::TypeSystem::build(&loaded);
        let diagnostics = v4t_tosca::validate(&ts, &sources).into_sorted();
        (display_names(sources, &dir), diagnostics)
    });
    let (sources, diagnostics) = match outcome {
        Ok(r) => r,
        Err(panic) => {
            reporter.error(Code::Internal, &format!("internal error: {panic}"));
            return EXIT_FAILURE;
        }
    };
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

/// The sources with names as the user sees them: loaded files relative to
/// the current directory (`dir/path`), bundled profiles as they are.
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

/// Whether a file is a zip archive (by its first bytes).
fn is_zip(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"PK\x03\x04")
}
