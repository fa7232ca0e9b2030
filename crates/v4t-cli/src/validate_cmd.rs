//! `v4t validate`: checks a TOSCA 2.0 (or 1.3) file, CSAR directory or
//! CSAR archive with everything it imports, and prints the diagnostics.

use std::path::PathBuf;

use v4t::Code;
use v4t_files::open::{open_repository, OpenError};

use crate::diagnostics::{catch_panic, ColorChoice, ReportFormat, Reporter};
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
    /// the element path and the specification section as notes), `json`
    /// (one object per line with `severity`, `code`, `message`, the location,
    /// `element` (the element path) and `notes` (the section)) or `sarif`
    /// (one SARIF 2.1.0 log).
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,

    /// Print errors only, no warnings.
    #[arg(long, short)]
    pub quiet: bool,
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
    let repository = match open_repository(&args.path) {
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
    let (sources, diagnostics, loader) = match catch_panic(move || repository.validate()) {
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
    if reporter.format == ReportFormat::Text {
        let s = if errors == 1 { "" } else { "s" };
        eprintln!(
            "{errors} error{s}: \"{}\" is not valid TOSCA",
            args.path.display()
        );
    }
    EXIT_FAILURE
}
