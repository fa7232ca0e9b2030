//! The `v4t` command-line tool: argument parsing, dispatch and exit codes.
//!
//! `v4t resolve` turns a variable service template into plain TOSCA and
//! `v4t test` runs variability tests in the reference implementation's format.
//! The library (`v4t`) does no I/O; everything touching files, the
//! environment, the terminal and the clock lives in this crate.

mod analyze_cmd;
mod compare;
mod diagnostics;
mod explain_cmd;
mod featureide;
mod files;
mod graph_cmd;
mod inputs;
mod loose;
mod resolve_cmd;
mod sample_tests;
mod sarif;
mod signals;
mod template_cmd;
mod test_runner;
mod validate_cmd;
mod validate_config;

use std::path::PathBuf;
use std::process::ExitCode;

use std::io::Write;

use clap::{Args, CommandFactory, Parser, Subcommand};

/// mimalloc instead of glibc malloc (`v4t-alloc` says why).
#[global_allocator]
static GLOBAL: v4t_alloc::Mimalloc = v4t_alloc::Mimalloc;

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: resolution failed, or tests failed.
pub const EXIT_FAILURE: u8 = 1;
/// Exit code: usage error (bad arguments, unreadable files named on the
/// command line, output that cannot be written).
pub const EXIT_USAGE: u8 = 2;
/// Exit code of `v4t validate`: not checked, because the file imports
/// remote files that were not fetched (and has no other error).
pub const EXIT_NOT_CHECKED: u8 = 3;

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
pub struct Cli {
    #[command(subcommand)]
    command: Command,

    /// When to colour diagnostics: `auto` (when standard error is a
    /// terminal and NO_COLOR is not set), `always` or `never`.
    #[arg(long, value_enum, global = true, default_value_t = diagnostics::ColorChoice::Auto)]
    color: diagnostics::ColorChoice,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Resolve a variable service template into a TOSCA service template
    #[command(after_help = EXIT_CODES, long_about = RESOLVE_ABOUT)]
    Resolve(ResolveArgs),
    /// Write the template with every generated condition and constraint made explicit
    #[command(after_help = EXIT_CODES)]
    Enrich(EnrichArgs),
    /// Run variability tests (conformance test trees, test groups, CSARs)
    #[command(after_help = EXIT_CODES, long_about = TEST_ABOUT)]
    Test(TestArgs),
    /// Analyse every configuration of a template at once: counts, dead and
    /// core elements, failing configurations
    #[command(after_help = ANALYZE_EXIT_CODES, long_about = ANALYZE_ABOUT)]
    Analyze(AnalyzeArgs),
    /// Explain why each element of a variant is present or absent, or why
    /// the variant does not resolve
    #[command(after_help = EXPLAIN_EXIT_CODES, long_about = EXPLAIN_ABOUT)]
    Explain(ExplainArgs),
    /// Draw the topology (DOT, Mermaid, PlantUML or SVG), of the variable
    /// template or of a resolved variant
    #[command(after_help = EXIT_CODES)]
    Graph(GraphArgs),
    /// Validate a TOSCA 2.0 (or 1.3) file, CSAR directory or archive with everything it imports
    #[command(after_help = VALIDATE_EXIT_CODES)]
    Validate(validate_cmd::ValidateArgs),
    /// The command forms of OpenTOSCA Vintner (`v4t template resolve --template T ...`)
    #[command(subcommand)]
    Template(TemplateCommand),
    /// Run the language server (LSP 3.17 over standard input and output) for
    /// editors: diagnostics, hover, definitions, references, completion
    #[command(after_help = LSP_EXIT_CODES)]
    Lsp,
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; `v4t man | man -l -`), or write one page per command
    Man {
        /// Write `v4t.1`, `v4t-resolve.1`, ... into DIR instead.
        #[arg(long, value_name = "DIR")]
        output_dir: Option<PathBuf>,
    },
}

const LSP_EXIT_CODES: &str = "\
Exit codes:
  0  the client sent `shutdown`, then `exit`
  1  `exit` without `shutdown`, or the input ended";

const VALIDATE_EXIT_CODES: &str = "\
Exit codes:
  0  valid (warnings may have been printed)
  1  invalid: at least one error was printed
  2  usage error: invalid arguments, or the path cannot be read or is a
     refused archive (an entry leaving its root, a link, a zip bomb)
  3  not checked: the only errors are remote imports (`https:` URLs) that
     v4t does not fetch; map them to folders with --import-map";

/// `v4t template ...`: the reference implementation's command lines.
#[derive(Subcommand, Debug)]
enum TemplateCommand {
    /// Resolve a variable service template (`v4t resolve` with the reference's flags)
    #[command(after_help = EXIT_CODES, long_about = RESOLVE_ABOUT)]
    Resolve(TemplateResolveArgs),
    /// Enrich a variable service template (`v4t enrich` with the reference's flags)
    #[command(after_help = EXIT_CODES)]
    Enrich(TemplateEnrichArgs),
    /// Run the tests of a CSAR (`v4t test` with the reference's flags)
    #[command(after_help = EXIT_CODES, long_about = TEST_ABOUT)]
    Test(TemplateTestArgs),
    /// Copy (or link) the dependencies listed in a directory's config.yaml into place
    #[command(after_help = PROJECT_EXIT_CODES, long_about = PULL_ABOUT)]
    Pull(template_cmd::PullArgs),
    /// Remove what `template pull` put into place (never anything else)
    #[command(after_help = PROJECT_EXIT_CODES)]
    Unpull(template_cmd::UnpullArgs),
    /// Package a directory as a zipped CSAR
    #[command(after_help = PROJECT_EXIT_CODES)]
    Package(template_cmd::PackageArgs),
    /// Unpack a zipped CSAR into a new directory
    #[command(after_help = PROJECT_EXIT_CODES)]
    Unpackage(template_cmd::UnpackageArgs),
    /// Count the nodes, relations, properties, conditions, inputs and presets of templates
    #[command(after_help = EXIT_CODES)]
    Stats(template_cmd::StatsArgs),
}

/// The exit codes of the project commands (`template pull`, ...).
const PROJECT_EXIT_CODES: &str = "\
Exit codes:
  0  done
  1  some dependency could not be pulled or removed, or a file could not be read
  2  usage error: invalid arguments, a broken config.yaml, an unreadable archive";

/// The long help of `v4t template pull`.
const PULL_ABOUT: &str = "\
Copy (or, with --link, symbolically link) the dependencies listed in DIR/config.yaml
into place, as OpenTOSCA Vintner's `template pull` does:

    dependencies:
        - source: ../shared/lib   # relative to DIR, or absolute
          target: lib             # optional: the source's base name

Every other command reads a dependency that has not been pulled from its
source in place, so pulling is needed only to hand the directory on without
its sources. A copy refreshes the files of an earlier copy; `template unpull`
removes only a link to the source or a copy that is still exactly the source.";

/// The long help of `v4t resolve`: every form the inputs can take.
const RESOLVE_ABOUT: &str = "\
Resolve a variable service template into a TOSCA service template.

The template may be:
  * a YAML file (the variable service template); files it refers to
    (`lib/`, `qualities.yaml`, `type-specific-conditions.yaml`) are read
    relative to its directory;
  * `-`: the template is read from standard input (files beside it relative
    to the current directory);
  * a CSAR: a directory, or a zip archive (`.csar` or `.zip`, or any file
    that starts like a zip archive); the template is the file named by
    `Entry-Definitions` in `TOSCA.meta` (at the root or in
    `TOSCA-Metadata/`), else the first of `vst.yaml`,
    `variable-service-template.yaml`, `service-template.yaml` and
    `template.yaml`, else the single YAML file at the root; files beside it
    are read from the CSAR.

Variability inputs come from, lowest precedence first:
  * the presets named by --presets (or, without --presets, the JSON list in
    OPENTOSCA_VINTNER_VARIABILITY_PRESETS);
  * with --inputs only: the environment variables
    OPENTOSCA_VINTNER_VARIABILITY_INPUT_<NAME>;
  * the --inputs file: a YAML or JSON map `name: value`, or a FeatureIDE
    extended configuration (`.xml`: every feature a boolean input, every
    attribute an input `<feature>_<attribute>`);
  * --input NAME=VALUE assignments.

The result goes to standard output, or to the --output file, as YAML, as
JSON (`.json` or --output-format json) or as a zipped CSAR with the resolved
template in place of the variable one (`.csar`/`.zip` or --output-format
csar).";

/// Flags `v4t resolve` and `v4t template resolve` share.
#[derive(Args, Debug, Clone)]
pub struct ResolveFlags {
    /// Variability inputs file: a YAML or JSON map `name: value`, or a
    /// FeatureIDE extended configuration (`.xml`).
    ///
    /// When given, the environment variables
    /// OPENTOSCA_VINTNER_VARIABILITY_INPUT_<NAME> are read first (key: NAME
    /// lower-cased, value parsed as JSON if possible) and the file is
    /// deep-merged over them. Without this option the environment is ignored.
    #[arg(long, value_name = "FILE")]
    pub inputs: Option<PathBuf>,

    /// Set one variability input, overriding the inputs file (repeatable).
    ///
    /// VALUE is read as a YAML scalar: `80` is a number, `true` a boolean,
    /// `'80'` or `"80"` a string, anything else a string; an empty VALUE is
    /// the empty string.
    #[arg(long = "input", value_name = "NAME=VALUE", value_parser = parse_assignment)]
    pub input: Vec<(String, String)>,

    /// Write the resolved template to FILE instead of standard output (`-`
    /// is standard output).
    ///
    /// The file is replaced atomically (temporary file + rename) and only if
    /// resolution succeeded; otherwise an existing FILE is left untouched.
    /// FILE may not be the template or the inputs file.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// The format of the result: `yaml`, `json` or `csar` (a zipped CSAR).
    /// Default: from the extension of --output (`.json`, `.csar`, `.zip`),
    /// otherwise YAML.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub output_format: Option<resolve_cmd::OutputFormat>,

    /// Also write a decision report to FILE (`-` is standard output, when
    /// the result goes to a file): every element's id, display name and
    /// presence, the chosen technologies, the optimisation objectives and
    /// the inputs used. JSON if FILE ends in `.json`, YAML otherwise;
    /// written only if resolution succeeded.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Validate the resolved template with the TOSCA validator (`v4t
    /// validate`) before writing it: an invalid result is an error (exit 1,
    /// code V4T061) located in the output, with a note where the offending
    /// part was written in the variable template; nothing is written.
    #[arg(long)]
    pub validate: bool,

    /// How errors and warnings are printed on standard error: `text`
    /// (rustc-style), `json` (one JSON object per line with `severity`,
    /// `message`, and `file`, `line`, `column` when the location is known)
    /// or `sarif` (one SARIF 2.1.0 log when the command ends).
    #[arg(long, value_enum, default_value_t = diagnostics::ReportFormat::Text)]
    pub format: diagnostics::ReportFormat,

    /// Do not print warnings (errors are still printed).
    #[arg(long, short)]
    pub quiet: bool,
}

/// Arguments of `v4t resolve`.
#[derive(Args, Debug, Clone)]
pub struct ResolveArgs {
    /// The variable service template: a YAML file, `-` for standard input,
    /// or a CSAR (a directory, or a zip archive: `.csar`, `.zip`).
    #[arg(value_name = "TEMPLATE")]
    pub template: String,

    /// Variability presets to apply, in order (comma-separated, repeatable).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub presets: Vec<String>,

    #[command(flatten)]
    pub flags: ResolveFlags,
}

/// Arguments of `v4t template resolve` (the reference's form).
#[derive(Args, Debug)]
pub struct TemplateResolveArgs {
    /// The variable service template: a YAML file, `-` for standard input,
    /// or a CSAR (a directory, or a zip archive: `.csar`, `.zip`).
    #[arg(long, value_name = "TEMPLATE")]
    pub template: String,

    /// Variability presets to apply, in order (space- or comma-separated).
    #[arg(long, value_name = "NAMES", num_args = 1.., value_delimiter = ',')]
    pub presets: Vec<String>,

    #[command(flatten)]
    pub flags: ResolveFlags,
}

impl From<TemplateResolveArgs> for ResolveArgs {
    fn from(args: TemplateResolveArgs) -> ResolveArgs {
        ResolveArgs {
            template: args.template,
            presets: args.presets,
            flags: args.flags,
        }
    }
}

/// Arguments of `v4t enrich`.
#[derive(Args, Debug)]
pub struct EnrichArgs {
    /// The variable service template: a YAML file, `-` for standard input,
    /// or a CSAR (a directory, or a zip archive: `.csar`, `.zip`).
    #[arg(value_name = "TEMPLATE")]
    pub template: String,

    /// Write the enriched template to FILE instead of standard output (`-`
    /// is standard output; atomically, and only on success).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// How errors are printed on standard error: `text` or `json` (see
    /// `v4t resolve --help`).
    #[arg(long, value_enum, default_value_t = diagnostics::Format::Text)]
    pub format: diagnostics::Format,
}

/// Arguments of `v4t template enrich` (the reference's form).
#[derive(Args, Debug)]
pub struct TemplateEnrichArgs {
    /// The variable service template: a YAML file, `-` for standard input,
    /// or a CSAR (a directory, or a zip archive: `.csar`, `.zip`).
    #[arg(long, value_name = "TEMPLATE")]
    pub template: String,

    /// Write the enriched template to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// How errors are printed on standard error: `text` or `json`.
    #[arg(long, value_enum, default_value_t = diagnostics::Format::Text)]
    pub format: diagnostics::Format,
}

impl From<TemplateEnrichArgs> for EnrichArgs {
    fn from(args: TemplateEnrichArgs) -> EnrichArgs {
        EnrichArgs {
            template: args.template,
            output: args.output,
            format: args.format,
        }
    }
}

/// The long help of `v4t test`.
const TEST_ABOUT: &str = "\
Run variability tests in the format of OpenTOSCA Vintner.

PATH may be:
  * a CSAR: a directory with a `tests/` sub-directory; the variable service
    template is at the CSAR root (chosen as for `v4t resolve`: `TOSCA.meta`,
    the default names, the single root YAML file) and every `tests/<name>/`
    is one test;
  * a zipped CSAR (`.csar` or `.zip`) with the same layout inside;
  * a single test directory (contains `test.yaml`, or a template file such
    as `template.yaml` and an expected file);
  * a group of test directories, or a tree of groups (searched recursively,
    names starting with `.` are ignored, symlinked directories are not
    followed).

Per test, `test.yaml` may set `name`, `description`, `presets` (string or
list), `inputs`, `template`, `expected`, `error` (the exact expected error
message), `replace` (list of [find, replace] applied to the output text) and
`merge` (deep-merged into the expected document). For CSARs, `template` is
relative to the CSAR root, everything else to the test directory. Directories
ending in `---disabled` are skipped; if any name ends in `---only`, only those
tests run.

A template without tests (a CSAR without tests, a template directory
without `test.yaml` and expected file) is listed as `none DIR`, not counted.
A run that finds no test at all fails (exit code 1).

Failing tests are listed with a short diff. The last line of the output is
`N passed, M failed` (followed by `, K skipped` if tests were skipped);
--format json prints one JSON document instead, --junit also writes a JUnit
XML report.";

/// Arguments of `v4t test`.
#[derive(Args, Debug)]
pub struct TestArgs {
    /// A CSAR (directory or zipped), a test directory, a group of tests or a
    /// tree of groups.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,

    #[command(flatten)]
    pub flags: TestFlags,
}

/// Flags `v4t test` and `v4t template test` share.
#[derive(Args, Debug)]
pub struct TestFlags {
    /// Also list passed and skipped tests.
    #[arg(long, short, conflicts_with = "quiet")]
    pub verbose: bool,

    /// Print only the last line (`N passed, M failed`), no failure details.
    #[arg(long, short)]
    pub quiet: bool,

    /// Always print the per-group summary (printed by default when the tests
    /// come from more than one group).
    #[arg(long)]
    pub summary: bool,

    /// Number of worker threads (default: available parallelism).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<std::num::NonZeroUsize>,

    /// How results are printed on standard output: `text`, `json` (one
    /// JSON document with every test's outcome and the counts) or `sarif`
    /// (a SARIF 2.1.0 log with one result per failed test).
    #[arg(long, value_enum, default_value_t = diagnostics::ReportFormat::Text)]
    pub format: diagnostics::ReportFormat,

    /// Also write the results as JUnit XML to FILE (`-` is standard output).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,

    /// Validate every resolved template with the TOSCA validator (`v4t
    /// validate`): an invalid result fails the test, unless the test
    /// expects exactly that error (`error` in `test.yaml`).
    #[arg(long)]
    pub validate: bool,

    /// Also write what each test produced under DIR, one directory per test
    /// (its path below PATH): `output.yaml`, the resolved template as `v4t
    /// resolve` writes it, or `error.txt`. Two builds' DIRs compare byte
    /// for byte (`scripts/same-output.sh`).
    #[arg(long, value_name = "DIR")]
    pub emit: Option<PathBuf>,
}

/// Arguments of `v4t template test` (the reference's form).
#[derive(Args, Debug)]
pub struct TemplateTestArgs {
    /// The CSAR (directory or zipped) whose `tests/` are run.
    #[arg(long, value_name = "PATH")]
    pub path: PathBuf,

    #[command(flatten)]
    pub flags: TestFlags,
}

impl From<TemplateTestArgs> for TestArgs {
    fn from(args: TemplateTestArgs) -> TestArgs {
        TestArgs {
            path: args.path,
            flags: args.flags,
        }
    }
}

/// The long help of `v4t analyze`.
const ANALYZE_ABOUT: &str = "\
Analyse every configuration of a variable service template at once, on one
SAT encoding of all of them (not by resolving each).

A configuration gives every variability input a value of its domain: a
boolean input is false or true; any other input takes the values the
template mentions for it (its default, its preset values, the constants it
is compared with) plus representatives of the values it does not mention.
The report lists the number of configurations, of valid ones and of
distinct topologies (\"at least\" where counting stopped at its budget),
dead elements (absent in every valid configuration), core elements
(present in every one), inputs that never change the topology, and the
failing configurations (outside the input feature model, an expression
that fails, no solution, a present property whose expression fails or
gives no value, a failed consistency or semantic check or, on
TOSCA 2.0, a reference to an absent element, and with --validate a
resolved template that is no valid TOSCA) grouped by error
with one example each, and the presets resolved one by one.

Not modelled: the optimiser (when the inputs leave presence open, the
topology count covers every solution the conditions allow, and the report
says so).";

const ANALYZE_EXIT_CODES: &str = "\
Exit codes:
  0  every configuration resolves
  1  some configuration fails, or the template is invalid
  2  usage error: invalid arguments or an unreadable template";

/// Arguments of `v4t analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// The variable service template: a YAML file, `-` for standard input,
    /// or a CSAR (a directory or a zip archive).
    #[arg(value_name = "TEMPLATE")]
    pub template: String,

    /// Also list up to N distinct topologies (the ids of their present elements).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub enumerate: usize,

    /// Also resolve one configuration of each distinct topology (up to
    /// 256) and validate the resolved template as `v4t validate` does; the
    /// ones that are no valid TOSCA count as failing configurations.
    #[arg(long)]
    pub validate: bool,

    /// Count failures that occur only with values the template neither
    /// mentions nor declares for an input (`other`) as failures (exit
    /// code 1); without it they are reported apart.
    #[arg(long)]
    pub strict: bool,

    /// Sample valid configurations that cover every combination of T input
    /// values some valid configuration has (T-wise; `--sample` alone:
    /// pairwise).
    #[arg(long, value_name = "T", num_args = 0..=1, default_missing_value = "2")]
    pub sample: Option<usize>,

    /// Sample N valid configurations uniformly at random (by counting).
    #[arg(long, value_name = "N")]
    pub random: Option<usize>,

    /// The seed of `--random` (the same seed, the same sample).
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Write one test per sampled configuration into DIR (`sample-N/` with
    /// `test.yaml`, `inputs.yaml` and `expected.yaml`, the resolved
    /// template, or the error), so that `v4t test DIR` pins the variants.
    #[arg(long, value_name = "DIR")]
    pub write_tests: Option<std::path::PathBuf>,

    /// Also the commonality of each element (in how many valid
    /// configurations it is present) and the atomic sets (elements present
    /// together in every valid configuration).
    #[arg(long)]
    pub details: bool,

    /// Also say why: for each dead and core element a minimal set of
    /// conditions, constraints, feature-model rules and failing checks
    /// (with their locations) that makes it so; for each input that never
    /// changes the topology, why not; and the written conditions that
    /// always or never hold in the valid configurations.
    #[arg(long)]
    pub why: bool,

    /// Print the variability model (the valid configurations) for other
    /// tools instead of the report: `uvl` (Universal Variability Language)
    /// or `dimacs` (CNF).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub export: Option<ExportArg>,

    /// `text` (a report) or `json` (one object on standard output; errors
    /// as JSON Lines on standard error).
    #[arg(long, value_enum, default_value_t = diagnostics::Format::Text)]
    pub format: diagnostics::Format,
}

/// The formats of `v4t analyze --export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportArg {
    /// Universal Variability Language.
    Uvl,
    /// DIMACS CNF.
    Dimacs,
}

/// The long help of `v4t explain`.
const EXPLAIN_ABOUT: &str = "\
Explain a variant of a variable service template: for each element named
(by id, such as `node.db` or `property.p@0.node.web`, or by node name; all
elements if none is named), whether it is present and why.

An element is decided either by conditions or by the optimiser. By
conditions: under the variant's inputs, the conditions and constraints
leave it no other value; the notes name a minimal set of them (its own
condition, the conditions of the elements it reads, constraints, implies),
each at its location, with the inputs it reads and the elements it depends
on and their values. By the optimiser: the best solution with the other
value is worse at an objective (its name, the element's weight, both
values and how that solution differs), or as good at every objective and
tie-breaking decided.

A variant that does not resolve is explained by its error; \"Could not
solve\" and violated input constraints name a minimal conflict of
conditions, constraints, feature-model rules and input values.";

const EXPLAIN_EXIT_CODES: &str = "\
Exit codes:
  0  the variant resolves (every element explained)
  1  the variant does not resolve (its error explained), or the template is invalid
  2  usage error: invalid arguments or an unreadable file";

/// The variant a command looks at (`v4t explain`, `v4t graph`): presets
/// and inputs as for `v4t resolve`.
#[derive(Args, Debug)]
pub struct VariantArgs {
    /// Variability presets of the variant, in order (comma-separated, repeatable).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub presets: Vec<String>,

    /// Variability inputs file of the variant (as for `v4t resolve`).
    #[arg(long, value_name = "FILE")]
    pub inputs: Option<PathBuf>,

    /// Set one variability input of the variant (repeatable).
    #[arg(long = "input", value_name = "NAME=VALUE", value_parser = parse_assignment)]
    pub input: Vec<(String, String)>,
}

impl VariantArgs {
    /// Whether any preset or input is given.
    pub fn given(&self) -> bool {
        !self.presets.is_empty() || self.inputs.is_some() || !self.input.is_empty()
    }
}

/// Arguments of `v4t explain`.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The variable service template: a YAML file, `-` for standard input,
    /// or a CSAR (a directory or a zip archive).
    #[arg(value_name = "TEMPLATE")]
    pub template: String,

    /// The elements to explain: ids (`node.db`, `relation.host@0.node.web`)
    /// or node names; all if none.
    #[arg(value_name = "ELEMENT")]
    pub elements: Vec<String>,

    #[command(flatten)]
    pub variant: VariantArgs,

    /// `text` (notes) or `json` (one object on standard output; errors as
    /// JSON Lines on standard error).
    #[arg(long, value_enum, default_value_t = diagnostics::Format::Text)]
    pub format: diagnostics::Format,
}

/// The drawing formats of `v4t graph`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    /// Graphviz DOT.
    Dot,
    /// A Mermaid flowchart.
    Mermaid,
    /// A PlantUML deployment diagram.
    Plantuml,
    /// SVG, laid out without external programs.
    Svg,
}

/// Arguments of `v4t graph`.
#[derive(Args, Debug)]
pub struct GraphArgs {
    /// The variable service template: a YAML file, `-` for standard input,
    /// or a CSAR (a directory or a zip archive).
    #[arg(value_name = "TEMPLATE")]
    pub template: String,

    /// The drawing format.
    #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
    pub format: GraphFormat,

    /// Draw a resolved variant (only what is present in it) instead of the
    /// variable template with its conditions; implied by --presets,
    /// --inputs and --input.
    #[arg(long)]
    pub resolved: bool,

    #[command(flatten)]
    pub variant: VariantArgs,

    /// Also draw the nodes' deployment artifacts.
    #[arg(long)]
    pub artifacts: bool,

    /// Write the drawing to FILE instead of standard output (atomically).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// How errors are printed on standard error: `text` or `json`.
    #[arg(long = "error-format", value_enum, default_value_t = diagnostics::Format::Text)]
    pub format_errors: diagnostics::Format,
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

/// `v4t completions SHELL`: the completion script, generated from the
/// same clap definition as the parser.
fn print_completions(shell: clap_complete::Shell) -> u8 {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "v4t", &mut out);
    write_stdout(&out)
}

/// `v4t man`: the manual page (roff) generated from the clap definition;
/// with a directory, one page per command and subcommand.
fn man_pages(output_dir: Option<&std::path::Path>) -> u8 {
    let command = Cli::command();
    if let Some(dir) = output_dir {
        // Like `clap_mangen::generate_to`, but every page is written the
        // way v4t writes all files (atomically, never through a planted link).
        let mut command = command.disable_help_subcommand(true);
        command.build();
        let mut pending = vec![command];
        while let Some(command) = pending.pop() {
            pending.extend(
                command
                    .get_subcommands()
                    .filter(|s| !s.is_hide_set())
                    .cloned(),
            );
            let man = clap_mangen::Man::new(command);
            let mut page = Vec::new();
            let path = dir.join(man.get_filename());
            let written = man
                .render(&mut page)
                .and_then(|()| files::write_atomically(&path, &page));
            if let Err(e) = written {
                eprintln!("error: could not write \"{}\": {e}", path.display());
                return EXIT_USAGE;
            }
        }
        return EXIT_OK;
    }
    let mut out = Vec::new();
    if let Err(e) = clap_mangen::Man::new(command).render(&mut out) {
        eprintln!("error: could not render the manual page: {e}");
        return EXIT_FAILURE;
    }
    write_stdout(&out)
}

/// Writes `bytes` to standard output (a closed pipe is not an error worth
/// a message).
fn write_stdout(bytes: &[u8]) -> u8 {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("error: could not write to standard output: {e}");
            EXIT_USAGE
        }
    }
}

/// `v4t lsp`: files beside an edited template are read by the file system
/// loader of the other commands (dependencies of its `config.yaml`
/// included): a template file's imports may lead above its directory, as
/// `v4t resolve FILE` and `v4t validate FILE` read them.
fn lsp() -> u8 {
    // A `config.yaml` with broken dependencies: the files of the directory
    // alone (the command line reports the error itself).
    let loaders: Box<v4t_lsp::LoaderFactory> = Box::new(|dir| {
        let loader = v4t_files::fs_loader::FsLoader::new(dir)
            .unwrap_or_else(|_| v4t_files::fs_loader::FsLoader::without_dependencies(dir));
        Box::new(loader.reaching_above(None)) as Box<dyn v4t::Loader>
    });
    match v4t_lsp::serve_stdio(loaders) {
        Ok(true) => EXIT_OK,
        Ok(false) => EXIT_FAILURE,
        Err(e) => {
            eprintln!("error: v4t lsp: {e}");
            EXIT_FAILURE
        }
    }
}

fn main() -> ExitCode {
    diagnostics::install_quiet_panic_hook();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Prints help/version (exit 0) or the usage error (exit 2).
        Err(e) => e.exit(),
    };
    if matches!(cli.command, Command::Analyze(_)) {
        v4t_alloc::keep_freed_memory_a_second();
    } else {
        v4t_alloc::return_freed_segments_at_once();
    }
    // The library bounds every recursion (YAML depth, expression depth), but
    // the bounds are sized for small stacks; a generous main stack keeps
    // debug builds and unusual inputs far from the edge.
    let color = cli.color;
    let run = move || match cli.command {
        Command::Resolve(args) => resolve_cmd::run(&args, color),
        Command::Enrich(args) => resolve_cmd::run_enrich(&args, color),
        Command::Test(args) => test_runner::run(&args),
        Command::Analyze(args) => analyze_cmd::run(&args, color),
        Command::Explain(args) => explain_cmd::run(&args, color),
        Command::Graph(args) => graph_cmd::run(&args, color),
        Command::Validate(args) => validate_cmd::run(&args, color),
        Command::Template(TemplateCommand::Resolve(args)) => resolve_cmd::run(&args.into(), color),
        Command::Template(TemplateCommand::Enrich(args)) => {
            resolve_cmd::run_enrich(&args.into(), color)
        }
        Command::Template(TemplateCommand::Test(args)) => test_runner::run(&args.into()),
        Command::Template(TemplateCommand::Pull(args)) => template_cmd::pull(&args),
        Command::Template(TemplateCommand::Unpull(args)) => template_cmd::unpull(&args),
        Command::Template(TemplateCommand::Package(args)) => template_cmd::package(&args),
        Command::Template(TemplateCommand::Unpackage(args)) => template_cmd::unpackage(&args),
        Command::Template(TemplateCommand::Stats(args)) => template_cmd::stats(&args, color),
        Command::Lsp => lsp(),
        Command::Completions { shell } => print_completions(shell),
        Command::Man { output_dir } => man_pages(output_dir.as_deref()),
    };
    let code = std::thread::Builder::new()
        .name("v4t".into())
        .stack_size(MAIN_STACK_BYTES)
        .spawn(run)
        .map(|handle| handle.join().unwrap_or(EXIT_FAILURE))
        .unwrap_or(EXIT_FAILURE);
    ExitCode::from(code)
}
