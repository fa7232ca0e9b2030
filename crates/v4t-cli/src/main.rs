//! The `v4t` command-line tool: argument parsing, dispatch and exit codes.
//!
//! `v4t resolve` turns a variable service template into plain TOSCA and
//! `v4t test` runs variability tests in the reference implementation's format.
//! The library (`v4t`) does no I/O; everything touching files, the
//! environment, the terminal and the clock lives in this crate.

mod compare;
mod diagnostics;
mod featureide;
mod fs_loader;
mod inputs;
mod loose;
mod resolve_cmd;
mod test_runner;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// mimalloc instead of glibc malloc: resolving allocates millions of small
/// maps and strings on a worker thread, where glibc grows a secondary arena
/// with `mprotect` page by page (measured: 20% of the family-1 benchmark).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: resolution failed, or tests failed.
pub const EXIT_FAILURE: u8 = 1;
/// Exit code: usage error (bad arguments, unreadable files named on the
/// command line, output that cannot be written).
pub const EXIT_USAGE: u8 = 2;

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  resolution failed (invalid template or inputs, or a Variability4TOSCA
     error), or at least one test failed
  2  usage error: invalid arguments, a file named on the command line cannot
     be read (including the template), or the output cannot be written";

#[derive(Parser, Debug)]
#[command(
    name = "v4t",
    version,
    about = "Resolve Variability4TOSCA variable service templates into plain TOSCA",
    long_about = "v4t resolves Variability4TOSCA (V4T) variable service templates, i.e. TOSCA \
                  with conditional elements, into plain TOSCA Simple Profile 1.3 templates, \
                  following the behaviour of OpenTOSCA Vintner.",
    after_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Resolve a variable service template into a TOSCA service template
    #[command(after_help = EXIT_CODES)]
    Resolve(ResolveArgs),
    /// Write the template with every generated condition and constraint made explicit
    #[command(after_help = EXIT_CODES)]
    Enrich(EnrichArgs),
    /// Run variability tests (conformance test trees, test groups, CSARs)
    #[command(after_help = EXIT_CODES, long_about = TEST_ABOUT)]
    Test(TestArgs),
}

/// Arguments of `v4t resolve`.
#[derive(Args, Debug)]
pub struct ResolveArgs {
    /// The variable service template (YAML); `-` reads standard input.
    ///
    /// Files the template refers to (`lib/`, `qualities.yaml`,
    /// `type-specific-conditions.yaml`) are read relative to its directory,
    /// or to the current directory for standard input; paths leaving that
    /// directory are refused.
    #[arg(value_name = "TEMPLATE")]
    pub template: String,

    /// Variability inputs file (YAML or JSON map `name: value`).
    ///
    /// When given, the environment variables
    /// OPENTOSCA_VINTNER_VARIABILITY_INPUT_<NAME> are read first (key: NAME
    /// lower-cased, value parsed as JSON if possible) and the file is
    /// deep-merged over them. Without this option the environment is ignored.
    #[arg(long, value_name = "FILE")]
    pub inputs: Option<PathBuf>,

    /// Variability presets to apply, in order (comma-separated, repeatable).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub presets: Vec<String>,

    /// Set one variability input, overriding the inputs file (repeatable).
    ///
    /// VALUE is read as a YAML scalar: `80` is a number, `true` a boolean,
    /// `'80'` or `"80"` a string, anything else a string; an empty VALUE is
    /// the empty string.
    #[arg(long = "input", value_name = "NAME=VALUE", value_parser = parse_assignment)]
    pub input: Vec<(String, String)>,

    /// Write the resolved template to FILE instead of standard output.
    ///
    /// The file is replaced atomically (temporary file + rename) and only if
    /// resolution succeeded; otherwise an existing FILE is left untouched.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Also write a decision report to FILE: every element's id, display name
    /// and presence, the chosen technologies, the optimisation objectives and
    /// the inputs used. JSON if FILE ends in `.json`, YAML otherwise; written
    /// only if resolution succeeded.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// How errors and warnings are printed on standard error: `text`
    /// (rustc-style) or `json` (one JSON object per line with `severity`,
    /// `message`, and `file`, `line`, `column` when the location is known).
    #[arg(long, value_enum, default_value_t = diagnostics::Format::Text)]
    pub format: diagnostics::Format,
}

/// Arguments of `v4t enrich`.
#[derive(Args, Debug)]
pub struct EnrichArgs {
    /// The variable service template (YAML); `-` reads standard input.
    #[arg(value_name = "TEMPLATE")]
    pub template: String,

    /// Write the enriched template to FILE instead of standard output
    /// (atomically, and only on success).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// How errors are printed on standard error: `text` or `json` (see
    /// `v4t resolve --help`).
    #[arg(long, value_enum, default_value_t = diagnostics::Format::Text)]
    pub format: diagnostics::Format,
}

/// The long help of `v4t test`.
const TEST_ABOUT: &str = "\
Run variability tests in the format of OpenTOSCA Vintner.

PATH may be:
  * a CSAR: a directory with a `tests/` sub-directory; the variable service
    template is at the CSAR root and every `tests/<name>/` is one test;
  * a single test directory (contains `test.yaml` or a template file such as
    `template.yaml`);
  * a group of test directories, or a tree of groups (searched recursively,
    names starting with `.` are ignored).

Per test, `test.yaml` may set `name`, `description`, `presets` (string or
list), `inputs`, `template`, `expected`, `error` (the exact expected error
message), `replace` (list of [find, replace] applied to the output text) and
`merge` (deep-merged into the expected document). For CSARs, `template` is
relative to the CSAR root, everything else to the test directory. Directories
ending in `---disabled` are skipped; if any name ends in `---only`, only those
tests run.

Failing tests are listed with a short diff. The last line of the output is
`N passed, M failed` (followed by `, K skipped` if tests were skipped).";

/// Arguments of `v4t test`.
#[derive(Args, Debug)]
pub struct TestArgs {
    /// A CSAR, a test directory, a group of tests or a tree of groups.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,

    /// Also list passed and skipped tests.
    #[arg(long, short)]
    pub verbose: bool,

    /// Always print the per-group summary (printed by default when the tests
    /// come from more than one group).
    #[arg(long)]
    pub summary: bool,

    /// Number of worker threads (default: available parallelism).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<std::num::NonZeroUsize>,
}

/// The stack size of the thread that runs a command.
const MAIN_STACK_BYTES: usize = 64 * 1024 * 1024;

/// Parses `NAME=VALUE` for `--input`.
fn parse_assignment(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_string(), value.to_string())),
        _ => Err(format!("expected NAME=VALUE, got `{text}`")),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Prints help/version (exit 0) or the usage error (exit 2).
        Err(e) => e.exit(),
    };
    // The library bounds every recursion (YAML depth, expression depth), but
    // the bounds are sized for small stacks; a generous main stack keeps
    // debug builds and unusual inputs far from the edge.
    let run = move || match cli.command {
        Command::Resolve(args) => resolve_cmd::run(&args),
        Command::Enrich(args) => resolve_cmd::run_enrich(&args),
        Command::Test(args) => test_runner::run(&args),
    };
    let code = std::thread::Builder::new()
        .name("v4t".into())
        .stack_size(MAIN_STACK_BYTES)
        .spawn(run)
        .map(|handle| handle.join().unwrap_or(EXIT_FAILURE))
        .unwrap_or(EXIT_FAILURE);
    ExitCode::from(code)
}
