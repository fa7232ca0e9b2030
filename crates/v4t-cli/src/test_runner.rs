//! `v4t test`: discovers variability tests in OpenTOSCA Vintner's format
//! (conformance test trees, test groups, single tests and CSARs with a
//! `tests/` directory), runs them in parallel and reports failures with short
//! data diffs in a deterministic order.
//!
//! The semantics follow the reference's conformance harness and
//! `vintner template test`: template, inputs and expected files found by
//! their default names or named in `test.yaml`; `error:` compared exactly;
//! results compared as data (see [`crate::compare`]).
//!
//! The tests are read through a [`Tree`]: the file system (where discovery
//! never follows a symlinked directory, so a `self -> .` link cannot loop
//! and `up -> ..` cannot count tests twice) or a zipped CSAR held in memory.
//! Results go to standard output as text or one JSON document, and
//! optionally to a JUnit XML file.

use std::collections::BTreeMap;
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use v4t::{Error, ResolveOptions, Sources};
use v4t_yaml::{Map, Node, Schema, SourceId, Span, Value};

use crate::compare::diff;
use crate::diagnostics::{catch_panic, escape, ReportFormat};
use crate::files::write_atomically;
use crate::inputs::{env_inputs, inputs_from_file};
use crate::resolve_cmd::now_ms;
use crate::{TestArgs, EXIT_FAILURE, EXIT_OK, EXIT_USAGE};
use v4t::deep_merge;
use v4t_files::csar::{Archive, ArchiveLoader};
use v4t_files::csar_entry::{entry_template, EntryError, TEMPLATE_NAMES};
use v4t_files::fs_loader::{AnyLoader, FsLoader};
use v4t_files::read::{confine, read_bytes, MAX_INPUT_BYTES};

/// Default inputs file names.
const INPUTS_NAMES: [&str; 2] = ["inputs.yaml", "inputs.xml"];
/// Default expected file names.
const EXPECTED_NAMES: [&str; 2] = ["est.yaml", "expected.yaml"];
/// At most this many diff lines per failing test.
const MAX_DIFF_LINES: usize = 20;
/// Directory nesting limit of discovery.
const MAX_DEPTH: usize = 32;
/// Stack size of the worker threads: the resolver recurses over documents.
const STACK_SIZE: usize = 64 * 1024 * 1024;

/// Where the tests are read from.
enum Tree {
    /// The file system.
    Disk,
    /// A zipped CSAR in memory; paths are relative to its root. `name` is
    /// the archive's path, shown in front of the paths inside it.
    Archive { archive: Arc<Archive>, name: String },
}

impl Tree {
    /// The `/`-separated path inside an archive (`None` if `path` leaves
    /// the archive's root).
    fn inner(path: &Path) -> Option<String> {
        let text = path.to_str()?;
        let rel = confine(text, ".").ok()?;
        let parts: Vec<&str> = rel.iter().filter_map(|c| c.to_str()).collect();
        Some(parts.join("/"))
    }

    fn is_file(&self, path: &Path) -> bool {
        match self {
            Tree::Disk => path.is_file(),
            Tree::Archive { archive, .. } => Tree::inner(path).is_some_and(|p| archive.is_file(&p)),
        }
    }

    fn is_dir(&self, path: &Path) -> bool {
        match self {
            // A symlinked directory is not followed (see [`Tree::sub_directories`]).
            Tree::Disk => fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()),
            Tree::Archive { archive, .. } => Tree::inner(path).is_some_and(|p| archive.is_dir(&p)),
        }
    }

    /// Sub-directory names of `dir`, sorted, without those starting with
    /// `.`. On disk, symlinked directories are left out (with a warning):
    /// following them could loop forever or count tests twice.
    fn sub_directories(&self, dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = match self {
            Tree::Disk => {
                let Ok(entries) = fs::read_dir(dir) else {
                    return Vec::new();
                };
                let mut names = Vec::new();
                for entry in entries.filter_map(|e| e.ok()) {
                    let Ok(name) = entry.file_name().into_string() else {
                        continue;
                    };
                    let Ok(file_type) = entry.file_type() else {
                        continue;
                    };
                    if file_type.is_dir() {
                        names.push(name);
                    } else if file_type.is_symlink()
                        && entry.path().is_dir()
                        && !name.starts_with('.')
                    {
                        eprintln!(
                            "warning: not following the symlinked directory \"{}\"",
                            escape(&entry.path().display().to_string())
                        );
                    }
                }
                names
            }
            Tree::Archive { archive, .. } => Tree::inner(dir)
                .map(|d| archive.sub_directories(&d))
                .unwrap_or_default(),
        };
        names.retain(|n| !n.starts_with('.'));
        names.sort();
        names
    }

    /// Reads a UTF-8 text file (bounded, regular files only).
    fn read_text(&self, path: &Path) -> Result<String, String> {
        let bytes = match self {
            Tree::Disk => read_bytes(path, MAX_INPUT_BYTES)?,
            Tree::Archive { archive, .. } => Tree::inner(path)
                .and_then(|p| archive.get(&p))
                .ok_or_else(|| "not in the archive".to_string())?
                .to_vec(),
        };
        String::from_utf8(bytes).map_err(|e| v4t_files::read::not_utf8_message(&e))
    }

    /// [`Tree::read_text`] of a file a test names (template, inputs,
    /// expected result), its failure said as the test's failure line.
    fn read_named(&self, path: &Path) -> Result<String, String> {
        self.read_text(path)
            .map_err(|e| format!("could not read \"{}\": {e}", self.show(path)))
    }

    /// The loader for the files beside the template at `template` (on
    /// disk with the dependencies of its `config.yaml`), or why there is none.
    fn loader(&self, template: &Path) -> Result<AnyLoader, String> {
        Ok(match self {
            Tree::Disk => AnyLoader::Fs(FsLoader::for_template(template)?),
            Tree::Archive { archive, .. } => AnyLoader::Archive(ArchiveLoader::for_template(
                archive.clone(),
                &Tree::inner(template).unwrap_or_default(),
            )),
        })
    }

    /// The loader for the files below the directory `dir`.
    fn directory(&self, dir: &Path) -> AnyLoader {
        match self {
            Tree::Disk => AnyLoader::Fs(FsLoader::without_dependencies(dir)),
            Tree::Archive { archive, .. } => AnyLoader::Archive(ArchiveLoader::for_directory(
                archive.clone(),
                &Tree::inner(dir).unwrap_or_default(),
            )),
        }
    }

    /// `path` for messages.
    fn show(&self, path: &Path) -> String {
        match self {
            Tree::Disk => path.display().to_string(),
            Tree::Archive { name, .. } => match Tree::inner(path) {
                Some(p) if p.is_empty() => name.clone(),
                Some(p) => format!("{name}!/{p}"),
                None => format!("{name}!/{}", path.display()),
            },
        }
    }
}

/// One discovered test.
#[derive(Debug, Clone)]
struct TestCase {
    /// The test directory (expected and inputs files are relative to it).
    dir: PathBuf,
    /// Where the template is looked up: the test directory, or the CSAR root.
    base: PathBuf,
    /// Whether `base` is a CSAR root (with `tests/`), not a test directory.
    csar: bool,
    /// Directory names from the PATH argument down to the test (for sorting,
    /// `---only` and `---disabled`).
    components: Vec<String>,
    /// The group the test is counted in for the summary.
    group: String,
}

/// What happened to one test.
#[derive(Debug)]
enum Outcome {
    Passed,
    Failed(Vec<String>),
    Skipped,
}

/// An outcome without its details (for counting).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Passed,
    Failed,
    Skipped,
}

impl Outcome {
    fn kind(&self) -> Kind {
        match self {
            Outcome::Passed => Kind::Passed,
            Outcome::Failed(_) => Kind::Failed,
            Outcome::Skipped => Kind::Skipped,
        }
    }
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Passed => "passed",
            Kind::Failed => "failed",
            Kind::Skipped => "skipped",
        }
    }
}

/// The outcomes of a run, in path order, and their renderings.
struct Results<'a> {
    tree: &'a Tree,
    tests: &'a [TestCase],
    outcomes: &'a [Outcome],
    /// Templates without tests (reported, not counted).
    untested: &'a [PathBuf],
}

impl Results<'_> {
    fn count(&self, kind: Kind) -> usize {
        self.outcomes.iter().filter(|o| o.kind() == kind).count()
    }

    /// `N passed, M failed` (plus `, K skipped`).
    fn last_line(&self) -> String {
        let mut last = format!(
            "{} passed, {} failed",
            self.count(Kind::Passed),
            self.count(Kind::Failed)
        );
        let skipped = self.count(Kind::Skipped);
        if skipped > 0 {
            last.push_str(&format!(", {skipped} skipped"));
        }
        last
    }

    /// Per group: passed, total and skipped tests, by group name.
    fn groups(&self) -> BTreeMap<&str, (usize, usize, usize)> {
        let mut groups: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
        for (test, outcome) in self.tests.iter().zip(self.outcomes) {
            let group = groups.entry(test.group.as_str()).or_default();
            match outcome.kind() {
                Kind::Passed => {
                    group.0 += 1;
                    group.1 += 1;
                }
                Kind::Failed => group.1 += 1,
                Kind::Skipped => group.2 += 1,
            }
        }
        groups
    }

    /// The text report: failures with their diffs (and with `verbose` passed
    /// and skipped tests), the per-group summary, the last line. `quiet`
    /// leaves only the last line.
    fn text(&self, verbose: bool, quiet: bool, summary: bool) -> String {
        let mut out = String::new();
        if !quiet {
            for (test, outcome) in self.tests.iter().zip(self.outcomes) {
                let dir = self.tree.show(&test.dir);
                let dir = escape(&dir);
                match outcome {
                    Outcome::Passed if verbose => out.push_str(&format!("ok   {dir}\n")),
                    Outcome::Skipped if verbose => out.push_str(&format!("skip {dir}\n")),
                    Outcome::Failed(lines) => {
                        out.push_str(&format!("FAIL {dir}\n"));
                        for part in lines.iter().flat_map(|l| l.lines()) {
                            out.push_str(&format!("     {}\n", escape(part)));
                        }
                    }
                    _ => {}
                }
            }
            for dir in self.untested {
                let shown = self.tree.show(dir);
                let dir = escape(&shown);
                out.push_str(&format!("none {dir}: a template without tests\n"));
            }
            let groups = self.groups();
            if summary || groups.len() > 1 {
                for (name, (p, total, s)) in &groups {
                    let skipped = if *s > 0 {
                        format!(" ({s} skipped)")
                    } else {
                        String::new()
                    };
                    out.push_str(&format!("{}: {p}/{total}{skipped}\n", escape(name)));
                }
            }
        }
        out.push_str(&self.last_line());
        out.push('\n');
        out
    }

    /// One JSON document: every test (path, group, outcome, messages) and
    /// the counts.
    fn json(&self) -> String {
        let tests = self
            .tests
            .iter()
            .zip(self.outcomes)
            .map(|(test, outcome)| {
                let mut m = Map::new();
                m.insert("path", Node::string(self.tree.show(&test.dir)));
                m.insert("group", Node::string(test.group.as_str()));
                m.insert("outcome", Node::string(outcome.kind().word()));
                if let Outcome::Failed(lines) = outcome {
                    let lines = lines.iter().map(|l| Node::string(l.as_str())).collect();
                    m.insert("messages", Node::seq(lines));
                }
                Node::map(m)
            })
            .collect();
        let untested = self
            .untested
            .iter()
            .map(|dir| Node::string(self.tree.show(dir)))
            .collect();
        let mut doc = Map::new();
        doc.insert("tests", Node::seq(tests));
        doc.insert("untested", Node::seq(untested));
        for kind in [Kind::Passed, Kind::Failed, Kind::Skipped] {
            doc.insert(kind.word(), Node::number(self.count(kind) as f64));
        }
        let mut json = v4t_yaml::json::to_json_pretty(&Node::map(doc));
        json.push('\n');
        json
    }

    /// A SARIF log with one result per failed test (at its directory).
    fn sarif(&self) -> String {
        let failures = self
            .tests
            .iter()
            .zip(self.outcomes)
            .filter_map(|(test, outcome)| match outcome {
                Outcome::Failed(lines) => Some(crate::sarif::test_failure(
                    &self.tree.show(&test.dir),
                    lines,
                )),
                _ => None,
            })
            .collect();
        crate::sarif::log(failures)
    }

    /// JUnit XML: one `testsuite` per group, one `testcase` per test (name:
    /// its path, class name: its group), `failure` with the messages,
    /// `skipped`. No timings, so the same run gives the same bytes.
    fn junit(&self) -> String {
        let mut suites: BTreeMap<&str, Vec<(&TestCase, &Outcome)>> = BTreeMap::new();
        for (test, outcome) in self.tests.iter().zip(self.outcomes) {
            suites
                .entry(test.group.as_str())
                .or_default()
                .push((test, outcome));
        }
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str(&format!(
            "<testsuites name=\"v4t\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
            self.tests.len(),
            self.count(Kind::Failed),
            self.count(Kind::Skipped)
        ));
        for (group, cases) in suites {
            let count = |kind: Kind| cases.iter().filter(|(_, o)| o.kind() == kind).count();
            out.push_str(&format!(
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                xml_escape(group),
                cases.len(),
                count(Kind::Failed),
                count(Kind::Skipped)
            ));
            for (test, outcome) in cases {
                let open = format!(
                    "    <testcase name=\"{}\" classname=\"{}\"",
                    xml_escape(&self.tree.show(&test.dir)),
                    xml_escape(group)
                );
                match outcome {
                    Outcome::Passed => out.push_str(&format!("{open}/>\n")),
                    Outcome::Skipped => {
                        out.push_str(&format!("{open}>\n      <skipped/>\n    </testcase>\n"))
                    }
                    Outcome::Failed(lines) => {
                        let first = lines.first().map(String::as_str).unwrap_or_default();
                        out.push_str(&format!(
                            "{open}>\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                            xml_escape(first.lines().next().unwrap_or_default()),
                            xml_escape(&lines.join("\n"))
                        ));
                    }
                }
            }
            out.push_str("  </testsuite>\n");
        }
        out.push_str("</testsuites>\n");
        out
    }
}

/// Text as XML character data or attribute value: markup characters as
/// entities, characters XML 1.0 cannot carry (control characters other than
/// tab and line breaks) as `\u{..}` escapes in the text.
fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// Runs `v4t test` and returns the exit code.
pub fn run(args: &TestArgs) -> u8 {
    let flags = &args.flags;
    let (tree, root) = match open(&args.path) {
        Ok(opened) => opened,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let mut found = Found::default();
    discover(&tree, &root, &mut Vec::new(), &root, &mut found, 0);
    let Found {
        mut tests,
        untested,
    } = found;
    tests.sort_by(|a, b| a.components.cmp(&b.components));

    let only = tests
        .iter()
        .any(|t| t.components.iter().any(|c| c.ends_with("---only")));
    let skip: Vec<bool> = tests
        .iter()
        .map(|t| {
            let disabled = t.components.iter().any(|c| c.ends_with("---disabled"));
            let not_only = only && !t.components.iter().any(|c| c.ends_with("---only"));
            disabled || not_only
        })
        .collect();

    let threads = flags
        .jobs
        .map(|n| n.get())
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .min(tests.len().max(1));
    let progress = !flags.quiet && std::io::stderr().is_terminal();
    let run = Run {
        validate: flags.validate,
        emit: flags.emit.as_deref(),
    };
    let outcomes = run_all(&tree, &tests, &skip, threads, progress, run);
    let results = Results {
        tree: &tree,
        tests: &tests,
        outcomes: &outcomes,
        untested: &untested,
    };

    let text = match flags.format {
        ReportFormat::Json => results.json(),
        ReportFormat::Sarif => results.sarif(),
        ReportFormat::Text => results.text(flags.verbose, flags.quiet, flags.summary),
    };
    // Nothing to test is no success: a wrong path must not pass a CI job.
    if tests.is_empty() {
        eprintln!("error: no tests found in \"{}\"", args.path.display());
    }
    let mut code = if results.count(Kind::Failed) == 0 && !tests.is_empty() {
        EXIT_OK
    } else {
        EXIT_FAILURE
    };
    if let Some(path) = &flags.junit {
        let xml = results.junit();
        let written = if path.as_os_str() == "-" {
            write_stdout(xml.as_bytes())
        } else {
            write_atomically(path, xml.as_bytes())
        };
        if let Err(e) = written {
            eprintln!("error: could not write \"{}\": {e}", path.display());
            code = EXIT_USAGE;
        }
    }
    // A reader that stopped early (`| head`) does not change the verdict.
    match write_stdout(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: could not write the results: {e}");
            EXIT_USAGE
        }
        _ => code,
    }
}

fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|()| out.flush())
}

/// The tree and the root directory in it for the PATH argument: a
/// directory, or a zipped CSAR.
fn open(path: &Path) -> Result<(Tree, PathBuf), String> {
    if path.is_dir() {
        return Ok((Tree::Disk, path.to_path_buf()));
    }
    let not_tests = || {
        format!(
            "\"{}\" is not a directory or a zipped CSAR (expected a CSAR, a test directory or a directory of tests)",
            path.display()
        )
    };
    if !path.exists() {
        return Err(not_tests());
    }
    let bytes = read_bytes(path, MAX_INPUT_BYTES)
        .map_err(|e| format!("could not read \"{}\": {e}", path.display()))?;
    if !v4t_files::csar::is_archive(path, &bytes) {
        return Err(not_tests());
    }
    let archive = Archive::read(&bytes)
        .map_err(|e| format!("could not read CSAR \"{}\": {e}", path.display()))?;
    Ok((
        Tree::Archive {
            archive: Arc::new(archive),
            name: path.display().to_string(),
        },
        PathBuf::new(),
    ))
}

/// What discovery finds.
#[derive(Default)]
struct Found {
    tests: Vec<TestCase>,
    /// Templates (CSARs and template directories) without a test: a
    /// template meant for swapping, a CSAR with an empty `tests/`.
    untested: Vec<PathBuf>,
}

/// Finds the tests below `dir` (`rel` are the names from the root to `dir`).
fn discover(
    tree: &Tree,
    root: &Path,
    rel: &mut Vec<String>,
    dir: &Path,
    found: &mut Found,
    depth: usize,
) {
    let group_of = |rel: &[String]| {
        if rel.is_empty() {
            tree.show(root)
        } else {
            rel.join("/")
        }
    };
    if tree.is_dir(&dir.join("tests")) {
        // A CSAR: the template is at its root, tests below `tests/`.
        let names = tree.sub_directories(&dir.join("tests"));
        if names.is_empty() {
            found.untested.push(dir.to_path_buf());
        }
        for name in names {
            let mut components = rel.clone();
            components.extend(["tests".to_string(), name.clone()]);
            found.tests.push(TestCase {
                dir: dir.join("tests").join(&name),
                base: dir.to_path_buf(),
                csar: true,
                components,
                group: group_of(rel),
            });
        }
    } else if is_test_dir(tree, dir) {
        let group = group_of(rel.split_last().map(|(_, g)| g).unwrap_or(&[]));
        found.tests.push(TestCase {
            dir: dir.to_path_buf(),
            base: dir.to_path_buf(),
            csar: false,
            components: rel.clone(),
            group,
        });
    } else {
        let before = found.tests.len();
        if depth < MAX_DEPTH {
            for name in tree.sub_directories(dir) {
                rel.push(name.clone());
                discover(tree, root, rel, &dir.join(&name), found, depth + 1);
                rel.pop();
            }
        }
        // A template with no test of its own and none below.
        let template = entry_template(&mut tree.directory(dir), false);
        if found.tests.len() == before && !matches!(template, Err(EntryError::NotFound(_))) {
            found.untested.push(dir.to_path_buf());
        }
    }
}

/// Whether `dir` is a single test: it has `test.yaml`, or a template file
/// and an expected file. A template without either is no test (a
/// template meant for swapping, a CSAR without `tests/`).
fn is_test_dir(tree: &Tree, dir: &Path) -> bool {
    let has = |names: &[&str]| names.iter().any(|n| tree.is_file(&dir.join(n)));
    tree.is_file(&dir.join("test.yaml")) || (has(&TEMPLATE_NAMES) && has(&EXPECTED_NAMES))
}

/// Runs the tests on `threads` workers; outcomes in the order of `tests`.
fn run_all(
    tree: &Tree,
    tests: &[TestCase],
    skip: &[bool],
    threads: usize,
    progress: bool,
    run: Run<'_>,
) -> Vec<Outcome> {
    let env = env_inputs();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..tests.len()).map(|_| None).collect());
    let progress = progress && !tests.is_empty();
    let to_run = skip.iter().filter(|s| !**s).count();

    std::thread::scope(|scope| {
        for _ in 0..threads {
            let worker = || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= tests.len() {
                    break;
                }
                let outcome = if skip[i] {
                    Outcome::Skipped
                } else {
                    let outcome = match catch_panic(|| run_one(tree, &tests[i], &env, run)) {
                        Ok(Ok(())) => Outcome::Passed,
                        Ok(Err(lines)) => Outcome::Failed(lines),
                        Err(panic) => Outcome::Failed(vec![format!("panicked: {panic}")]),
                    };
                    let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                    if progress {
                        draw_progress(n, to_run);
                    }
                    outcome
                };
                if let Ok(mut results) = results.lock() {
                    results[i] = Some(outcome);
                }
            };
            let spawned = std::thread::Builder::new()
                .stack_size(STACK_SIZE)
                .spawn_scoped(scope, worker);
            if spawned.is_err() {
                // Could not start a thread: the others (or the fallback
                // below) do the work.
                break;
            }
        }
    });
    // If no thread could be started, run here.
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    if progress {
        eprint!("\r\x1b[K");
    }
    results
        .iter_mut()
        .enumerate()
        .map(|(i, r)| {
            r.take().unwrap_or_else(|| {
                if skip[i] {
                    Outcome::Skipped
                } else {
                    match catch_panic(|| run_one(tree, &tests[i], &env, run)) {
                        Ok(Ok(())) => Outcome::Passed,
                        Ok(Err(lines)) => Outcome::Failed(lines),
                        Err(panic) => Outcome::Failed(vec![format!("panicked: {panic}")]),
                    }
                }
            })
        })
        .collect()
}

fn draw_progress(done: usize, total: usize) {
    const WIDTH: usize = 30;
    let filled = (done * WIDTH)
        .checked_div(total)
        .unwrap_or(WIDTH)
        .min(WIDTH);
    let mut err = std::io::stderr().lock();
    let _ = write!(
        err,
        "\r[{}{}] {done}/{total}",
        "=".repeat(filled),
        " ".repeat(WIDTH - filled)
    );
    let _ = err.flush();
}

/// The settings of `test.yaml`.
#[derive(Default)]
struct TestConfig {
    presets: Vec<String>,
    /// v4t's extension: validate the result with the TOSCA validator (as
    /// `--validate` does for every test).
    validate: bool,
    error: Option<String>,
    template: Option<String>,
    expected: Option<String>,
    inputs: Option<String>,
    replace: Vec<(String, String)>,
    merge: Option<Node>,
}

/// How every test of a run is run.
#[derive(Clone, Copy)]
struct Run<'a> {
    /// Validate each result (`--validate`).
    validate: bool,
    /// Write each result below this directory (`--emit`).
    emit: Option<&'a Path>,
}

/// Writes what one test produced below `--emit DIR` (a failure to write is
/// a failure of the test: a comparison must not miss a case silently).
fn emit_result(
    dir: &Path,
    test: &TestCase,
    result: &Result<v4t::Resolved, Error>,
) -> Result<(), Vec<String>> {
    let dir = test
        .components
        .iter()
        .fold(dir.to_path_buf(), |d, c| d.join(c));
    let (name, bytes) = match result {
        Ok(resolved) => ("output.yaml", v4t::to_yaml(&resolved.template)),
        Err(e) => ("error.txt", format!("{}\n", e.message)),
    };
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join(name), bytes))
        .map_err(|e| vec![format!("could not write to \"{}\": {e}", dir.display())])
}

/// Runs one test; `Err` holds the lines explaining the failure.
fn run_one(tree: &Tree, test: &TestCase, env: &Map, run: Run<'_>) -> Result<(), Vec<String>> {
    let validate = run.validate;
    let fail = |line: String| vec![line];
    let config = read_config(tree, &test.dir).map_err(fail)?;

    // The template.
    let template_path = match &config.template {
        Some(t) => test.base.join(t),
        None => match entry_template(&mut tree.directory(&test.base), test.csar) {
            Ok(entry) => test.base.join(entry),
            Err(EntryError::NotFound(_)) => {
                return Err(fail(format!(
                    "Did not find variable service template in directory \"{}\"",
                    tree.show(&test.base)
                )))
            }
            Err(EntryError::Invalid(message)) => {
                return Err(fail(format!(
                    "\"{}\" is not a valid CSAR: {message}",
                    tree.show(&test.base)
                )))
            }
        },
    };
    let text = tree.read_named(&template_path).map_err(fail)?;
    let mut sources = Sources::new();
    let template = sources.add(tree.show(&template_path), text);
    let mut loader = tree.loader(&template_path).map_err(fail)?;

    // The inputs: only if a file exists (then with the environment).
    let inputs_path = match &config.inputs {
        Some(i) => Some(test.dir.join(i)),
        None => INPUTS_NAMES
            .iter()
            .map(|n| test.dir.join(n))
            .find(|p| tree.is_file(p)),
    };
    let mut inputs_error: Option<Error> = None;
    let mut inputs = None;
    if let Some(path) = &inputs_path {
        let text = tree.read_named(path).map_err(fail)?;
        let id = sources.add(tree.show(path), text);
        match inputs_from_file(&sources, env, id) {
            Ok(map) => inputs = Some(map),
            // Loading inputs is part of resolving in the reference.
            Err(e) => inputs_error = Some(e),
        }
    }

    let options = ResolveOptions {
        presets: config.presets.clone(),
        inputs,
        enrich: true,
        // Like the reference harness: the real clock.
        now_ms: Some(now_ms()),
        validate: validate || config.validate,
        ..ResolveOptions::default()
    };
    let result = match inputs_error {
        Some(e) => Err(e),
        None => v4t::resolve(&mut sources, template, &mut loader, &options),
    };
    if let Some(dir) = run.emit {
        emit_result(dir, test, &result)?;
    }

    let resolved = match (&config.error, result) {
        (Some(expected), Err(e)) if e.message == *expected => return Ok(()),
        (Some(expected), Err(e)) => {
            return Err(fail(format!(
                "expected error \"{expected}\" but got \"{}\"",
                e.message
            )))
        }
        (Some(expected), Ok(_)) => {
            return Err(fail(format!(
                "expected error \"{expected}\" but resolution succeeded"
            )))
        }
        (None, Err(e)) => {
            // The error and its notes (with `--validate`: where the variable
            // template wrote the part the output has wrong), each located.
            let at = |span: Span| {
                sources
                    .get(span.source)
                    .filter(|_| span.is_known())
                    .map(|f| format!(" (at {}:{})", f.name, f.locate(span)))
                    .unwrap_or_default()
            };
            let mut lines = vec![format!("resolution failed: {}{}", e.message, at(e.span))];
            lines.extend(
                e.notes
                    .iter()
                    .map(|n| format!("note: {}{}", n.message, at(n.span))),
            );
            return Err(lines);
        }
        (None, Ok(resolved)) => resolved,
    };

    // Emit, post-process textually and read back, like the reference (a
    // TOSCA 2.0 result, and its expected file, with the YAML core schema:
    // values as written).
    let schema = match v4t::grammar_of(&resolved.template) {
        v4t::Grammar::Tosca13 => Schema::JsYaml,
        v4t::Grammar::Tosca2 => Schema::Core,
    };
    let mut output = v4t::to_yaml(&resolved.template);
    for (find, replace) in &config.replace {
        if !find.is_empty() {
            output = output.replace(find.as_str(), replace);
        }
    }
    let actual = v4t_yaml::parse_with(&output, SourceId(0), schema).map_err(|e| {
        fail(format!(
            "could not read back the emitted output: {} at {}",
            e.message,
            e.span.locate(&output)
        ))
    })?;

    let expected_path = match &config.expected {
        Some(e) => test.dir.join(e),
        None => EXPECTED_NAMES
            .iter()
            .map(|n| test.dir.join(n))
            .find(|p| tree.is_file(p))
            .ok_or_else(|| {
                fail(format!(
                    "Did not find expected service template in directory \"{}\"",
                    tree.show(&test.dir)
                ))
            })?,
    };
    let text = tree.read_named(&expected_path).map_err(fail)?;
    let mut expected = v4t_yaml::parse_with(&text, SourceId(0), schema).map_err(|e| {
        fail(format!(
            "invalid expected file \"{}\": {} at {}",
            tree.show(&expected_path),
            e.message,
            e.span.locate(&text)
        ))
    })?;
    if let Some(merge) = &config.merge {
        deep_merge(&mut expected, merge);
    }

    let lines = diff(&expected.value, &actual.value, MAX_DIFF_LINES);
    if lines.is_empty() {
        Ok(())
    } else {
        Err(lines)
    }
}

/// Reads `test.yaml` of `dir` (all defaults if there is none).
fn read_config(tree: &Tree, dir: &Path) -> Result<TestConfig, String> {
    let path = dir.join("test.yaml");
    if !tree.is_file(&path) {
        return Ok(TestConfig::default());
    }
    let invalid = |what: String| format!("invalid \"{}\": {what}", tree.show(&path));
    let text = tree.read_text(&path).map_err(&invalid)?;
    let doc = v4t_yaml::parse(&text, SourceId(0))
        .map_err(|e| invalid(format!("{} at {}", e.message, e.span.locate(&text))))?;
    let map = match &doc.value {
        Value::Null => return Ok(TestConfig::default()),
        Value::Map(map) => map,
        other => {
            return Err(invalid(format!(
                "expected a map, not a {}",
                other.kind_name()
            )))
        }
    };
    let string = |key: &str| -> Result<Option<String>, String> {
        match map.get(key).map(|n| &n.value) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(invalid(format!(
                "`{key}` must be a string, not a {}",
                other.kind_name()
            ))),
        }
    };
    let presets = match map.get("presets").map(|n| &n.value) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Seq(items)) => items
            .iter()
            .map(|n| {
                n.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| invalid("`presets` must contain strings".into()))
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(invalid(format!(
                "`presets` must be a string or a list, not a {}",
                other.kind_name()
            )))
        }
    };
    let replace = match map.get("replace").map(|n| &n.value) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Seq(items)) => items
            .iter()
            .map(|pair| match pair.as_seq().map(Vec::as_slice) {
                Some([find, replace]) => match (find.as_str(), replace.as_str()) {
                    (Some(f), Some(r)) => Ok((f.to_string(), r.to_string())),
                    _ => Err(invalid("`replace` pairs must be strings".into())),
                },
                _ => Err(invalid(
                    "`replace` must be a list of [find, replace] pairs".into(),
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(invalid(
                "`replace` must be a list of [find, replace] pairs".into(),
            ))
        }
    };
    let validate = match map.get("validate").map(|n| &n.value) {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(invalid(format!(
                "`validate` must be a boolean, not a {}",
                other.kind_name()
            )))
        }
    };
    Ok(TestConfig {
        presets,
        validate,
        error: string("error")?,
        template: string("template")?,
        expected: string("expected")?,
        inputs: string("inputs")?,
        replace,
        merge: map.get("merge").filter(|n| n.is_defined()).cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_of_a_tree_and_a_csar() {
        let root = std::env::temp_dir().join(format!("v4t-discover-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for f in [
            "g1/t2/template.yaml",
            "g1/t2/expected.yaml",
            "g1/t1/test.yaml",
            "g3/swap/template.yaml",
            "g1/template.host.yaml",
            "g2/.hidden/template.yaml",
            "csar/template.yaml",
            "csar/tests/prod/test.yaml",
            "csar/tests/dev/test.yaml",
        ] {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "").unwrap();
        }
        let mut found = Found::default();
        discover(&Tree::Disk, &root, &mut Vec::new(), &root, &mut found, 0);
        let tests = found.tests;
        // A template without test or expected file is no test.
        assert_eq!(found.untested, [root.join("g3/swap")]);
        let names: Vec<_> = tests.iter().map(|t| t.components.join("/")).collect();
        assert_eq!(
            names,
            ["csar/tests/dev", "csar/tests/prod", "g1/t1", "g1/t2"]
        );
        assert_eq!(tests[0].base, root.join("csar"));
        assert_eq!(tests[0].group, "csar");
        assert_eq!(tests[2].group, "g1");
        fs::remove_dir_all(&root).unwrap();
    }
}
