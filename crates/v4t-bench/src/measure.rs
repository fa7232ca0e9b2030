//! Timing and memory measurement for `v4t-bench run`, and the markdown tables.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use v4t::{NoFiles, ResolveOptions, Sources, Stage};
use v4t_bench::Family;

/// One template to measure.
pub struct Case<'a> {
    pub template: &'a Path,
    pub inputs: &'a Path,
    pub output: &'a Path,
    /// The `v4t` binary.
    pub v4t: &'a Path,
    /// This binary (for `roundtrip`).
    pub bench: &'a Path,
    pub runs: usize,
    /// Also run whole processes.
    pub process: bool,
}

/// Medians of one template size.
pub struct Row {
    size: usize,
    templates: usize,
    bytes: usize,
    /// `v4t resolve` as a process: wall time, peak RSS (KiB).
    process: Option<(Duration, Option<u64>)>,
    /// `v4t-bench roundtrip` (parse + emit) as a process.
    roundtrip: Option<(Duration, Option<u64>)>,
    /// In-process: load, enrich, graph, solve, check, transform, emit.
    stages: [Duration; 7],
    /// In-process YAML layer alone: parse, emit.
    yaml: [Duration; 2],
}

impl Row {
    fn resolve_total(&self) -> Duration {
        self.stages.iter().sum()
    }
}

pub(crate) fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Measures `case` (`size` is only reported).
pub fn measure(case: &Case, size: usize) -> Result<Row, String> {
    let text = std::fs::read_to_string(case.template).map_err(|e| e.to_string())?;
    let inputs_text = std::fs::read_to_string(case.inputs).map_err(|e| e.to_string())?;
    let inputs = v4t_yaml::parse(&inputs_text, v4t_yaml::SourceId(0)).map_err(|e| e.message)?;

    // The YAML layer alone.
    let mut parse_times = Vec::new();
    let mut emit_times = Vec::new();
    let mut templates = 0;
    for _ in 0..case.runs {
        let start = Instant::now();
        let doc = v4t_yaml::parse(&text, v4t_yaml::SourceId(0)).map_err(|e| e.message)?;
        parse_times.push(start.elapsed());
        let start = Instant::now();
        let out = v4t_yaml::emit(&doc);
        emit_times.push(start.elapsed());
        std::hint::black_box(out);
        let tt = doc.get("topology_template");
        templates = ["node_templates", "relationship_templates"]
            .iter()
            .filter_map(|k| tt.and_then(|t| t.get(k)).and_then(|n| n.as_map()))
            .map(|m| m.len())
            .sum();
    }

    // In-process resolution by stage.
    let mut stage_times: Vec<[Duration; 7]> = Vec::new();
    for _ in 0..case.runs {
        let mut times = [Duration::ZERO; 7];
        let mut sources = Sources::new();
        let id = sources.add(case.template.display().to_string(), text.clone());
        // As `v4t resolve` without `--report`.
        let options = ResolveOptions {
            inputs: Some(inputs.clone()),
            report: false,
            ..ResolveOptions::default()
        };
        let mut last = Instant::now();
        let resolved = v4t::resolve_observed(
            &mut sources,
            id,
            &mut NoFiles,
            &options,
            &mut |s| {
                let i = match s {
                    Stage::Load => 0,
                    Stage::Enrich => 1,
                    Stage::Graph => 2,
                    Stage::Solve => 3,
                    Stage::Check => 4,
                    Stage::Transform => 5,
                };
                times[i] = last.elapsed();
                last = Instant::now();
            },
            &mut Vec::new(),
        )
        .map_err(|e| format!("{}: {}", case.template.display(), e.message))?;
        let start = Instant::now();
        let out = v4t_yaml::emit(&resolved.template);
        times[6] = start.elapsed();
        drop(resolved);
        std::hint::black_box(out);
        stage_times.push(times);
    }
    let stages: [Duration; 7] =
        std::array::from_fn(|i| median(stage_times.iter().map(|t| t[i]).collect()));

    let (process, roundtrip) = if case.process {
        let template = case.template.as_os_str();
        let resolve_args = [
            "resolve".as_ref(),
            template,
            "--inputs".as_ref(),
            case.inputs.as_os_str(),
            "-o".as_ref(),
            case.output.as_os_str(),
        ];
        let roundtrip_args = ["roundtrip".as_ref(), template, case.output.as_os_str()];
        (
            Some(time_process(case.v4t, &resolve_args, case.runs)?),
            Some(time_process(case.bench, &roundtrip_args, case.runs)?),
        )
    } else {
        (None, None)
    };
    Ok(Row {
        size,
        templates,
        bytes: text.len(),
        process,
        roundtrip,
        stages,
        yaml: [median(parse_times), median(emit_times)],
    })
}

/// Median wall time of `runs` runs and the peak RSS of one more.
fn time_process(
    program: &Path,
    args: &[&std::ffi::OsStr],
    runs: usize,
) -> Result<(Duration, Option<u64>), String> {
    let mut times = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let status = Command::new(program)
            .args(args)
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("{}: {e}", program.display()))?;
        times.push(start.elapsed());
        if !status.success() {
            return Err(format!("{} failed ({status})", program.display()));
        }
    }
    Ok((median(times), peak_rss(program, args)))
}

/// The peak resident set size (KiB) of one run of `program`.
pub(crate) fn peak_rss(program: &Path, args: &[&std::ffi::OsStr]) -> Option<u64> {
    let gnu_time = Path::new("/usr/bin/time");
    if gnu_time.exists() {
        let report = std::env::temp_dir().join(format!("v4t-bench-time-{}", std::process::id()));
        let status = Command::new(gnu_time)
            .arg("-f")
            .arg("%M")
            .arg("-o")
            .arg(&report)
            .arg(program)
            .args(args)
            .stdout(Stdio::null())
            .status()
            .ok()?;
        let text = std::fs::read_to_string(&report).ok();
        let _ = std::fs::remove_file(&report);
        if status.success() {
            if let Some(kb) = text.and_then(|t| t.lines().last()?.trim().parse().ok()) {
                return Some(kb);
            }
        }
    }
    // Fallback: poll VmHWM (the high-water mark) until the process exits.
    let mut child = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .ok()?;
    let status = format!("/proc/{}/status", child.id());
    let mut peak = None;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            peak = peak.max(hwm);
        }
        if child.try_wait().ok()?.is_some() {
            return peak;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2}")
    } else if ms < 100.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.0}")
    }
}

pub(crate) fn mb(kb: Option<u64>) -> String {
    kb.map(|k| format!("{:.0}", k as f64 / 1024.0))
        .unwrap_or_else(|| "?".to_string())
}

/// The markdown tables of one family.
pub fn table(family: Family, rows: &[Row], process: bool) -> String {
    let mut out = format!("### Family {}\n\n", family.number());
    if process {
        out.push_str(
            "| size | templates | YAML MB | `v4t resolve` ms | peak MB | parse+emit process ms | peak MB | ratio |\n\
             |---:|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        for r in rows {
            let (Some((pt, pm)), Some((rt, rm))) = (r.process, r.roundtrip) else {
                continue;
            };
            out.push_str(&format!(
                "| {} | {} | {:.1} | {} | {} | {} | {} | {:.1}x |\n",
                r.size,
                r.templates,
                r.bytes as f64 / 1e6,
                ms(pt),
                mb(pm),
                ms(rt),
                mb(rm),
                pt.as_secs_f64() / rt.as_secs_f64().max(1e-9),
            ));
        }
        out.push('\n');
    }
    out.push_str(
        "| size | load | enrich | graph | solve | check | transform | emit | resolve total | YAML parse | YAML emit | ratio |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let total = r.resolve_total();
        let yaml: Duration = r.yaml.iter().sum();
        out.push_str(&format!("| {} |", r.size));
        for s in r.stages {
            out.push_str(&format!(" {} |", ms(s)));
        }
        out.push_str(&format!(
            " {} | {} | {} | {:.1}x |\n",
            ms(total),
            ms(r.yaml[0]),
            ms(r.yaml[1]),
            total.as_secs_f64() / yaml.as_secs_f64().max(1e-9)
        ));
    }
    out
}
