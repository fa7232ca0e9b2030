//! `v4t-bench analyze`: times the family-based analysis ([`v4t::analyze`])
//! in-process, stage by stage, and prints what it found.

use std::time::{Duration, Instant};
use v4t::analyze::{analyze_observed, AnalyzeOptions, AnalyzeStage};
use v4t::{NoFiles, Sources};
use v4t_bench::Family;

/// Analyses `family` at `size` `runs` times with `options` and prints a
/// markdown table of median stage times (ms) and the counts.
pub fn analyze(
    family: Family,
    size: usize,
    runs: usize,
    options: &AnalyzeOptions,
) -> Result<String, String> {
    let generated = family.generate(size);
    let mut per_stage: Vec<Vec<(AnalyzeStage, Duration)>> = Vec::new();
    let mut totals = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let mut sources = Sources::new();
        let id = sources.add("template.yaml", &generated.template);
        let mut stages = Vec::new();
        let start = Instant::now();
        let mut mark = start;
        let analysis = analyze_observed(&mut sources, id, &mut NoFiles, options, &mut |stage| {
            let now = Instant::now();
            stages.push((stage, now - mark));
            mark = now;
        })
        .map_err(|e| e.message.clone())?;
        totals.push(start.elapsed());
        per_stage.push(stages);
        last = Some(analysis);
    }
    let analysis = last.ok_or("no run")?;
    let mut out = String::from("| stage | ms |\n|---|---:|\n");
    for (i, (stage, _)) in per_stage[0].iter().enumerate() {
        let times: Vec<Duration> = per_stage.iter().map(|s| s[i].1).collect();
        out.push_str(&format!("| {stage:?} | {} |\n", ms(median(times))));
    }
    out.push_str(&format!("| total | {} |\n\n", ms(median(totals))));
    out.push_str(&format!(
        "family {} size {size}: {} inputs, {} configurations, {} valid{}, {} topologies{} ({}), {} dead, {} core, {} failure groups\n",
        family.number(),
        analysis.inputs.len(),
        analysis.configurations,
        analysis.valid.value,
        if analysis.valid.exact { "" } else { " (at least)" },
        analysis.topologies.value,
        if analysis.topologies.exact { "" } else { " (at least)" },
        if analysis.determined { "determined by the inputs" } else { "not determined by the inputs" },
        analysis.dead.len(),
        analysis.core.len(),
        analysis.failures.len(),
    ));
    Ok(out)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}
