//! `v4t validate`: checks a TOSCA 2.0 (or 1.3) file, CSAR directory or
//! CSAR archive with everything it imports, and prints the diagnostics.

use std::fs;
use std::path::{Path, PathBuf};

use v4t::Code;
use v4t_files::open::{open_repository, OpenError};
use v4t_tosca::{Level, Levels};

use crate::diagnostics::{catch_panic, ColorChoice, ReportFormat, Reporter};
use crate::{EXIT_FAILURE, EXIT_NOT_CHECKED, EXIT_OK, EXIT_USAGE};
use v4t_files::fs_loader::FsLoader;

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
    /// the element path and the specification section as notes), `json`
    /// (one object per line with `severity`, `code`, `message`, the location,
    /// `element` (the element path) and `notes` (the section)) or `sarif`
    /// (one SARIF 2.1.0 log).
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,

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

    /// Imports of a file on disk may lead above its directory
    /// (`../types/base.yaml`); with `--root`, only within DIR: an import of
    /// a file outside it is an error. (Inside a CSAR, imports never leave
    /// the archive.)
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// Read remote imports whose URL (or repository URL) starts with PREFIX
    /// from the folder DIR: `PREFIX/a/b.yaml` is `DIR/a/b.yaml`. Repeatable;
    /// the longest matching prefix wins. Without it, v4t fetches nothing
    /// and a file with remote imports is not checked (exit code 3).
    #[arg(long = "import-map", value_name = "PREFIX=DIR", value_parser = parse_mapping)]
    pub import_map: Vec<(String, PathBuf)>,

    /// A folder whose files may define the profiles that `profile:` imports
    /// name (searched after the bundled profiles and the file's own
    /// directory or CSAR). Repeatable, searched in order.
    #[arg(long = "profile-path", value_name = "DIR")]
    pub profile_path: Vec<PathBuf>,
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

/// `PREFIX=DIR` of `--import-map`.
fn parse_mapping(text: &str) -> Result<(String, PathBuf), String> {
    match text.rsplit_once('=') {
        Some((prefix, dir)) if !prefix.is_empty() && !dir.is_empty() => {
            Ok((prefix.to_string(), PathBuf::from(dir)))
        }
        _ => Err("expected PREFIX=DIR (`https://example.org/tosca/=vendor/tosca`)".to_string()),
    }
}

/// The folders of `--import-map` and `--profile-path`, each read by a
/// loader confined to it (their `config.yaml` dependencies are not read).
fn elsewhere(args: &ValidateArgs) -> v4t_tosca::Elsewhere<'static> {
    let folder = |dir: &PathBuf| v4t_tosca::Folder {
        shown: dir.display().to_string(),
        files: Box::new(FsLoader::without_dependencies(dir)),
    };
    v4t_tosca::Elsewhere {
        import_map: (args.import_map.iter())
            .map(|(prefix, dir)| (prefix.clone(), folder(dir)))
            .collect(),
        profile_path: args.profile_path.iter().map(folder).collect(),
    }
}

/// Runs `v4t validate`; returns the exit code.
pub fn run(args: &ValidateArgs, color: ColorChoice) -> u8 {
    let reporter = Reporter::to_stderr(args.format, color, args.quiet);
    let code = validate(args, &reporter);
    reporter.finish();
    code
}

/// Validates and reports; returns the exit code.
fn validate(args: &ValidateArgs, reporter: &Reporter) -> u8 {
    let repository = match open_repository(&args.path, args.root.as_deref()) {
        Ok(r) => r,
        Err(OpenError::Usage(code, message)) => {
            reporter.error(code, &message);
            return EXIT_USAGE;
        }
        Err(OpenError::Invalid(sources, diagnostic)) => {
            reporter.report(&sources, &diagnostic);
            return EXIT_FAILURE;
        }
    };
    let levels = match levels(args, args.path.is_dir()) {
        Ok(l) => l,
        Err(message) => {
            reporter.error(Code::File, &message);
            return EXIT_USAGE;
        }
    };
    for dir in args
        .profile_path
        .iter()
        .chain(args.import_map.iter().map(|(_, d)| d))
    {
        if !dir.is_dir() {
            let message = format!("\"{}\" is not a directory", dir.display());
            reporter.error(Code::File, &message);
            return EXIT_USAGE;
        }
    }
    let elsewhere = elsewhere(args);
    let outcome = catch_panic(move || {
        let (sources, diagnostics, loader) = repository.validate(elsewhere);
        (sources, levels.apply(diagnostics), loader)
    });
    let (sources, diagnostics, loader) = match outcome {
        Ok(r) => r,
        Err(panic) => {
            reporter.error(Code::Internal, &format!("internal error: {panic}"));
            return EXIT_FAILURE;
        }
    };
    crate::resolve_cmd::print_notes(reporter, &loader);
    for d in &diagnostics {
        reporter.report(&sources, d);
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    if errors == 0 {
        return EXIT_OK;
    }
    let remote = (diagnostics.iter())
        .filter(|d| d.is_error() && d.code == Code::RemoteImport)
        .count();
    if remote == errors {
        if reporter.format == ReportFormat::Text {
            let s = if remote == 1 { "" } else { "s" };
            eprintln!(
                "not checked: \"{}\" has {remote} remote import{s} that v4t does not fetch (--import-map PREFIX=DIR reads them from a folder)",
                args.path.display()
            );
        }
        return EXIT_NOT_CHECKED;
    }
    if reporter.format == ReportFormat::Text {
        let s = if errors == 1 { "" } else { "s" };
        eprintln!(
            "{errors} error{s}: \"{}\" is not valid TOSCA",
            args.path.display()
        );
    }
    EXIT_FAILURE
}
