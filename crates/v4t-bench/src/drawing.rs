//! `v4t-bench graph`: `v4t graph` as a whole process, DOT and SVG, with a
//! time limit per run (a layout that does not scale must not hang the
//! benchmark).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use v4t_bench::Family;

use crate::measure::{mb, median, peak_rss};

/// One template to draw.
pub struct Case<'a> {
    pub template: &'a Path,
    pub output: &'a Path,
    /// The `v4t` binary.
    pub v4t: &'a Path,
    pub runs: usize,
    /// A run still going after this long is stopped and reported as such.
    pub timeout: Duration,
}

/// The figures of one size.
pub struct Row {
    size: usize,
    nodes: usize,
    relations: usize,
    /// Median wall time, or `None` after a timeout.
    dot: Option<Duration>,
    /// Median wall time and peak RSS (KiB), or `None` after a timeout.
    svg: Option<(Duration, Option<u64>)>,
}

/// Draws `case` as DOT and as SVG (`size` is only reported).
pub fn measure(case: &Case, size: usize) -> Result<Row, String> {
    let text = std::fs::read_to_string(case.template).map_err(|e| e.to_string())?;
    let doc = v4t_yaml::parse(&text, v4t_yaml::SourceId(0)).map_err(|e| e.message)?;
    let nodes = doc
        .get("topology_template")
        .and_then(|t| t.get("node_templates"))
        .and_then(|n| n.as_map());
    let relations = nodes
        .into_iter()
        .flat_map(|m| m.iter())
        .filter_map(|(_, n)| n.get("requirements").and_then(|r| r.as_seq()))
        .map(|r| r.len())
        .sum();
    let nodes = nodes.map_or(0, |m| m.len());
    let args = |format: &'static str| {
        [
            "graph".as_ref(),
            case.template.as_os_str(),
            "--format".as_ref(),
            std::ffi::OsStr::new(format),
            "-o".as_ref(),
            case.output.as_os_str(),
        ]
    };
    let run = |args: &[&std::ffi::OsStr]| median_run(case.v4t, case.runs, case.timeout, args);
    let dot = run(&args("dot"))?;
    let svg = run(&args("svg"))?.map(|t| (t, peak_rss(case.v4t, &args("svg"))));
    Ok(Row {
        size,
        nodes,
        relations,
        dot,
        svg,
    })
}

/// The median wall time of `runs` runs of `v4t ARGS`, `None` if one
/// takes longer than `timeout`.
pub fn median_run(
    v4t: &Path,
    runs: usize,
    timeout: Duration,
    args: &[&std::ffi::OsStr],
) -> Result<Option<Duration>, String> {
    let mut times = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let mut child = Command::new(v4t)
            .args(args)
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", v4t.display()))?;
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                break status;
            }
            if start.elapsed() > timeout {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        times.push(start.elapsed());
        // `analyze` reports configurations that fail with exit code 1.
        let reported = args.first().is_some_and(|a| *a == "analyze") && status.code() == Some(1);
        if !status.success() && !reported {
            return Err(format!("{} failed ({status})", v4t.display()));
        }
    }
    Ok(Some(median(times)))
}

pub fn seconds(d: Option<Duration>, timeout: Duration) -> String {
    match d {
        Some(d) => format!("{:.2}", d.as_secs_f64()),
        None => format!("> {}", timeout.as_secs()),
    }
}

/// The markdown table of one family.
pub fn table(family: Family, rows: &[Row], timeout: Duration) -> String {
    let mut out = format!(
        "### `v4t graph`, family {}\n\n\
         | size | nodes | relations | `--format dot` s | `--format svg` s | peak MB |\n\
         |---:|---:|---:|---:|---:|---:|\n",
        family.number()
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            r.size,
            r.nodes,
            r.relations,
            seconds(r.dot, timeout),
            seconds(r.svg.map(|s| s.0), timeout),
            r.svg.map_or("-".to_string(), |s| mb(s.1)),
        ));
    }
    out
}
