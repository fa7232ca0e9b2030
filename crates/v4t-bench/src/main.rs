//! `v4t-bench`: generates the benchmark families and times v4t on them.
//!
//! ```text
//! v4t-bench generate --family 1 --size 10000 --out DIR
//! v4t-bench run [--family 1|2] [--sizes 10,1000] [--runs 5] [--v4t target/release/v4t]
//! v4t-bench roundtrip TEMPLATE OUTPUT
//! v4t-bench analyze --family 1|2|4|5 --size N [--runs R] [--details] [--why] [--sample T] [--random N] [--export uvl|dimacs]
//! v4t-bench generate-tosca --size N --out FILE
//! v4t-bench graph [--family 1|2|3] [--sizes 1000,5000] [--runs 3] [--timeout 120] [--v4t PATH]
//! v4t-bench explain [--family 1|2|3] [--sizes 2000,20000] [--runs 1] [--timeout 120] [--v4t PATH]
//! v4t-bench scaling [--size 2000] [--runs 3] [--timeout 60] [--shapes a,b] [--v4t PATH]
//! ```
//!
//! `run` generates each template into a temporary directory, runs the `v4t`
//! binary as a whole process (`v4t resolve TEMPLATE --inputs INPUTS -o OUT`)
//! `--runs` times, and resolves it `--runs` times in-process through
//! [`v4t::resolve_observed`], timing each stage. It also times the YAML
//! layer alone (parse + emit of the same template), in-process and as a
//! process (`v4t-bench roundtrip`). Results are printed as markdown tables
//! (medians). Peak memory of a process is its maximum resident set size,
//! taken from GNU `time` (`/usr/bin/time`) when available, otherwise by
//! polling `/proc/PID/status` (`VmHWM`); in-process peaks are not reported
//! because the generator and earlier runs share the address space.
//!
//! `graph` times drawings as whole processes: `v4t graph TEMPLATE --format
//! dot` and `--format svg` (the variable template), stopping a run after
//! `--timeout` seconds. `explain` times `v4t explain TEMPLATE --inputs
//! INPUTS` (every element) the same way, with its peak memory.
//!
//! `scaling` times each command of each [`v4t_bench::shapes`] template at
//! `--size` entries and at four times as many, as whole processes, and
//! prints how much longer the larger took: about 4 is linear, about 16 a
//! lookup that scans the list once per entry.

mod analysis;
mod drawing;
mod explaining;
mod measure;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use v4t_bench::Family;

/// The same allocator as `v4t`, so the YAML-only baseline is comparable.
#[global_allocator]
static GLOBAL: v4t_alloc::Mimalloc = v4t_alloc::Mimalloc;

const USAGE: &str = "usage:
  v4t-bench generate --family 1|2|3|4|5 --size N --out DIR
  v4t-bench run [--family 1|2|3] [--sizes N,N,..] [--runs R] [--v4t PATH] [--no-process]
  v4t-bench roundtrip TEMPLATE OUTPUT
  v4t-bench analyze --family 1|2|4|5 --size N [--runs R] [--details] [--why] [--sample T] [--random N] [--export uvl|dimacs]
  v4t-bench generate-tosca --size N --out FILE
  v4t-bench graph [--family 1|2|3] [--sizes N,N,..] [--runs R] [--timeout SECONDS] [--v4t PATH]
  v4t-bench explain [--family 1|2|3] [--sizes N,N,..] [--runs R] [--timeout SECONDS] [--v4t PATH]
  v4t-bench scaling [--size N] [--runs R] [--timeout SECONDS] [--shapes NAME,..] [--v4t PATH]
  v4t-bench shape --name NAME [--size N]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // The allocator returns freed memory as `v4t` does for the command
    // measured (its main says why), so that the in-process timings and the
    // round trip's match the command's.
    if args.first().map(String::as_str) == Some("analyze") {
        v4t_alloc::keep_freed_memory_a_second();
    } else {
        v4t_alloc::return_freed_segments_at_once();
    }
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let result = match args.first().map(String::as_str) {
        Some("generate") => generate(&args[1..]),
        Some("run") => run(&args[1..]),
        Some("roundtrip") => roundtrip(&args[1..]),
        Some("analyze") => analyze(&args[1..]),
        Some("generate-tosca") => generate_tosca(&args[1..]),
        Some("graph") => graph(&args[1..]),
        Some("explain") => explain(&args[1..]),
        Some("scaling") => scaling(&args[1..]),
        Some("shape") => shape(&args[1..]),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(2)
        }
    }
}

/// `--key value` options after the subcommand.
struct Flags<'a> {
    args: &'a [String],
}

impl Flags<'_> {
    /// Rejects options other than `known` (each of which takes a value,
    /// except those listed in `switches`).
    fn check(&self, known: &[&str], switches: &[&str]) -> Result<(), String> {
        let mut i = 0;
        while let Some(a) = self.args.get(i) {
            if switches.contains(&a.as_str()) {
                i += 1;
            } else if known.contains(&a.as_str()) {
                i += 2;
            } else {
                return Err(format!("unknown argument {a:?}\n{USAGE}"));
            }
        }
        Ok(())
    }

    fn value(&self, key: &str) -> Option<&str> {
        let i = self.args.iter().position(|a| a == key)?;
        self.args.get(i + 1).map(String::as_str)
    }

    fn has(&self, key: &str) -> bool {
        self.args.iter().any(|a| a == key)
    }

    fn family(&self) -> Result<Option<Family>, String> {
        match self.value("--family") {
            None => Ok(None),
            Some(f) => Family::parse(f)
                .map(Some)
                .ok_or_else(|| format!("unknown family {f:?} (1, 2 or 3)")),
        }
    }

    fn number(&self, key: &str, default: usize) -> Result<usize, String> {
        match self.value(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("{key}: not a number: {v}")),
        }
    }
}

fn generate(args: &[String]) -> Result<(), String> {
    let flags = Flags { args };
    flags.check(&["--family", "--size", "--out"], &[])?;
    let family = flags.family()?.ok_or(USAGE)?;
    let size = flags.number("--size", 0)?;
    let out = PathBuf::from(flags.value("--out").ok_or(USAGE)?);
    let (template, inputs) = write_family(family, size, &out)?;
    println!("{}\n{}", template.display(), inputs.display());
    Ok(())
}

/// Writes the TOSCA 2.0 validation benchmark file ([`v4t_bench::tosca2_service`]).
fn generate_tosca(args: &[String]) -> Result<(), String> {
    let flags = Flags { args };
    flags.check(&["--size", "--out"], &[])?;
    let size = flags.number("--size", 1_000)?;
    let out = PathBuf::from(flags.value("--out").ok_or(USAGE)?);
    std::fs::write(&out, v4t_bench::tosca2_service(size))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    println!("{}", out.display());
    Ok(())
}

/// Writes `template.yaml` and `inputs.yaml` of `family` at `size` into `dir`.
fn write_family(family: Family, size: usize, dir: &Path) -> Result<(PathBuf, PathBuf), String> {
    let generated = family.generate(size);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let template = dir.join("template.yaml");
    let inputs = dir.join("inputs.yaml");
    for (path, text) in [
        (&template, &generated.template),
        (&inputs, &generated.inputs),
    ] {
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok((template, inputs))
}

/// Times the family-based analysis in-process (`v4t analyze`), with the
/// analyses `--details`, `--why`, `--sample T`, `--random N` (seed 1) and
/// `--export uvl|dimacs` as the CLI's flags of the same names.
fn analyze(args: &[String]) -> Result<(), String> {
    use v4t::analyze::{AnalyzeOptions, ExportFormat};
    let flags = Flags { args };
    flags.check(
        &[
            "--family", "--size", "--runs", "--sample", "--random", "--export",
        ],
        &["--details", "--why"],
    )?;
    let family = flags.family()?.ok_or(USAGE)?;
    let size = flags.number("--size", 1_000)?;
    let runs = flags.number("--runs", 3)?.max(1);
    let export = match flags.value("--export") {
        None => None,
        Some("uvl") => Some(ExportFormat::Uvl),
        Some("dimacs") => Some(ExportFormat::Dimacs),
        Some(other) => return Err(format!("--export: uvl or dimacs, not {other:?}")),
    };
    let options = AnalyzeOptions {
        details: flags.has("--details"),
        why: flags.has("--why"),
        sample: flags
            .value("--sample")
            .map(|_| flags.number("--sample", 2))
            .transpose()?,
        random: flags
            .value("--random")
            .map(|_| flags.number("--random", 10).map(|n| (n, 1)))
            .transpose()?,
        export,
        ..AnalyzeOptions::default()
    };
    println!("{}", analysis::analyze(family, size, runs, &options)?);
    Ok(())
}

/// The flags of the commands that time whole `v4t` processes on a family
/// (`explain`, `graph`): the chain by default, `--runs`, a `--timeout` per
/// run and the binary (`--v4t`).
struct ProcessRuns {
    family: Family,
    sizes: Vec<usize>,
    runs: usize,
    timeout: std::time::Duration,
    v4t: PathBuf,
}

impl ProcessRuns {
    fn parse(args: &[String], default_runs: usize) -> Result<ProcessRuns, String> {
        let flags = Flags { args };
        flags.check(
            &["--family", "--sizes", "--runs", "--timeout", "--v4t"],
            &[],
        )?;
        let family = flags.family()?.unwrap_or(Family::Chain);
        let v4t = match flags.value("--v4t") {
            Some(p) => PathBuf::from(p),
            None => default_v4t()?,
        };
        Ok(ProcessRuns {
            family,
            sizes: sizes(&flags, family)?,
            runs: flags.number("--runs", default_runs)?.max(1),
            timeout: std::time::Duration::from_secs(flags.number("--timeout", 120)? as u64),
            v4t,
        })
    }
}

/// Times `v4t explain` of every element as whole processes.
fn explain(args: &[String]) -> Result<(), String> {
    let ProcessRuns {
        family,
        sizes,
        runs,
        timeout,
        v4t,
    } = ProcessRuns::parse(args, 1)?;
    let work = std::env::temp_dir().join(format!("v4t-bench-explain-{}", std::process::id()));
    let result = (|| {
        let mut rows = Vec::new();
        for size in sizes {
            let dir = work.join(format!("family{}-{size}", family.number()));
            let (template, inputs) = write_family(family, size, &dir)?;
            let files = (template.as_path(), inputs.as_path());
            rows.push(explaining::measure(&v4t, files, size, runs, timeout)?);
            eprintln!("family {} size {size}: done", family.number());
            let _ = std::fs::remove_dir_all(&dir);
        }
        println!("{}", explaining::table(family, &rows, timeout));
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// Times `v4t graph` (DOT and SVG) as whole processes.
fn graph(args: &[String]) -> Result<(), String> {
    let ProcessRuns {
        family,
        sizes,
        runs,
        timeout,
        v4t,
    } = ProcessRuns::parse(args, 3)?;
    let work = std::env::temp_dir().join(format!("v4t-bench-graph-{}", std::process::id()));
    let result = (|| {
        let mut rows = Vec::new();
        for size in sizes {
            let dir = work.join(format!("family{}-{size}", family.number()));
            let (template, _) = write_family(family, size, &dir)?;
            let case = drawing::Case {
                template: &template,
                output: &dir.join("graph.out"),
                v4t: &v4t,
                runs,
                timeout,
            };
            rows.push(drawing::measure(&case, size)?);
            eprintln!("family {} size {size}: done", family.number());
            let _ = std::fs::remove_dir_all(&dir);
        }
        println!("{}", drawing::table(family, &rows, timeout));
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// The sizes of `--sizes`, else the family's defaults.
fn sizes(flags: &Flags, family: Family) -> Result<Vec<usize>, String> {
    match flags.value("--sizes") {
        Some(list) => list
            .split(',')
            .map(|s| s.trim().parse().map_err(|_| format!("bad size {s:?}")))
            .collect(),
        None => Ok(family.default_sizes().to_vec()),
    }
}

fn roundtrip(args: &[String]) -> Result<(), String> {
    let [template, output] = args else {
        return Err(USAGE.to_string());
    };
    let text = std::fs::read_to_string(template).map_err(|e| format!("{template}: {e}"))?;
    let doc = v4t_yaml::parse(&text, v4t_yaml::SourceId(0)).map_err(|e| e.message)?;
    std::fs::write(output, v4t_yaml::emit(&doc)).map_err(|e| format!("{output}: {e}"))?;
    // Like `v4t resolve`, leave the tree to the operating system at exit.
    std::mem::forget(doc);
    Ok(())
}

fn run(args: &[String]) -> Result<(), String> {
    let flags = Flags { args };
    flags.check(
        &["--family", "--sizes", "--runs", "--v4t"],
        &["--no-process"],
    )?;
    let families = match flags.family()? {
        Some(f) => vec![f],
        None => vec![Family::Reference, Family::Pruning],
    };
    let runs = flags.number("--runs", 5)?.max(1);
    let v4t = match flags.value("--v4t") {
        Some(p) => PathBuf::from(p),
        None => default_v4t()?,
    };
    let process = !flags.has("--no-process");
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let work = std::env::temp_dir().join(format!("v4t-bench-{}", std::process::id()));
    let result = (|| {
        for family in families {
            let sizes = sizes(&flags, family)?;
            let mut rows = Vec::new();
            for size in sizes {
                let dir = work.join(format!("family{}-{size}", family.number()));
                let (template, inputs) = write_family(family, size, &dir)?;
                let row = measure::measure(
                    &measure::Case {
                        template: &template,
                        inputs: &inputs,
                        output: &dir.join("resolved.yaml"),
                        v4t: &v4t,
                        bench: &me,
                        runs,
                        process,
                    },
                    size,
                )?;
                eprintln!("family {} size {size}: done", family.number());
                rows.push(row);
                let _ = std::fs::remove_dir_all(&dir);
            }
            println!("{}", measure::table(family, &rows, process));
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// `v4t` next to this binary (both live in the same target directory).
fn default_v4t() -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let candidate = me.with_file_name("v4t");
    if candidate.exists() {
        Ok(candidate)
    } else {
        Err(format!(
            "{} not found: build it (cargo build --release) or pass --v4t PATH",
            candidate.display()
        ))
    }
}

/// Times every command of every shape (or of those `--shapes` names) at
/// `--size` entries and at four times as many.
/// Prints the template of one `scaling` shape (to measure it on its own).
fn shape(args: &[String]) -> Result<(), String> {
    use v4t_bench::shapes::SHAPES;
    let flags = Flags { args };
    flags.check(&["--name", "--size"], &[])?;
    let name = flags.value("--name").ok_or("--name is required")?;
    let shape = (SHAPES.iter())
        .find(|s| s.name == name)
        .ok_or_else(|| format!("unknown shape {name:?}"))?;
    print!("{}", shape.generate(flags.number("--size", 2_000)?.max(1)));
    Ok(())
}

fn scaling(args: &[String]) -> Result<(), String> {
    use v4t_bench::shapes::SHAPES;
    let flags = Flags { args };
    flags.check(&["--size", "--runs", "--timeout", "--shapes", "--v4t"], &[])?;
    let size = flags.number("--size", 2_000)?.max(1);
    let runs = flags.number("--runs", 3)?.max(1);
    let timeout = std::time::Duration::from_secs(flags.number("--timeout", 60)? as u64);
    let v4t = match flags.value("--v4t") {
        Some(p) => PathBuf::from(p),
        None => default_v4t()?,
    };
    let wanted: Option<Vec<&str>> = flags.value("--shapes").map(|s| s.split(',').collect());
    if let Some(unknown) = wanted
        .iter()
        .flatten()
        .find(|w| !SHAPES.iter().any(|s| s.name == **w))
    {
        return Err(format!("unknown shape {unknown:?}"));
    }
    let work = std::env::temp_dir().join(format!("v4t-bench-scaling-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let result = (|| {
        let mut out = format!(
            "| shape | command | {size} entries s | {} entries s | growth |\n|---|---|---:|---:|---:|\n",
            4 * size
        );
        for shape in SHAPES
            .iter()
            .filter(|s| wanted.as_ref().is_none_or(|w| w.contains(&s.name)))
        {
            let mut templates = Vec::new();
            for n in [size, 4 * size] {
                let path = work.join(format!("{}-{n}.yaml", shape.name));
                std::fs::write(&path, shape.generate(n))
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                templates.push(path);
            }
            for &command in shape.commands {
                let mut times = Vec::new();
                for template in &templates {
                    let mut args: Vec<&std::ffi::OsStr> =
                        command.split(' ').map(std::ffi::OsStr::new).collect();
                    args.push(template.as_os_str());
                    times.push(drawing::median_run(&v4t, runs, timeout, &args)?);
                }
                let growth = match (times[0], times[1]) {
                    (Some(a), Some(b)) if a.as_secs_f64() > 0.0 => {
                        format!("{:.1}x", b.as_secs_f64() / a.as_secs_f64())
                    }
                    _ => "-".to_string(),
                };
                out.push_str(&format!(
                    "| {} | `{command}` | {} | {} | {growth} |\n",
                    shape.name,
                    drawing::seconds(times[0], timeout),
                    drawing::seconds(times[1], timeout),
                ));
                eprintln!("{} {command}: done", shape.name);
            }
        }
        println!("{out}");
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&work);
    result
}
