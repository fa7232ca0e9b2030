//! `v4t-bench explain`: `v4t explain` of every element (no element named)
//! as a whole process, with a time limit per run, to show how explaining
//! all elements grows with the template (issue 23: linear, not quadratic).

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;
use v4t_bench::Family;

use crate::drawing::{median_run, seconds};
use crate::measure::{mb, peak_rss};

/// The figures of one size: median wall time (`None` after a timeout) and
/// peak RSS (KiB).
pub struct Row {
    size: usize,
    time: Option<Duration>,
    peak: Option<u64>,
}

/// Explains every element of `template` under `inputs` `runs` times.
pub fn measure(
    v4t: &Path,
    (template, inputs): (&Path, &Path),
    size: usize,
    runs: usize,
    timeout: Duration,
) -> Result<Row, String> {
    let args: [&OsStr; 4] = [
        "explain".as_ref(),
        template.as_os_str(),
        "--inputs".as_ref(),
        inputs.as_os_str(),
    ];
    let time = median_run(v4t, runs, timeout, &args)?;
    let peak = time.and_then(|_| peak_rss(v4t, &args));
    Ok(Row { size, time, peak })
}

/// The markdown table of one family.
pub fn table(family: Family, rows: &[Row], timeout: Duration) -> String {
    let mut out = format!(
        "### `v4t explain` of every element, family {}\n\n\
         | size | s | peak MB |\n|---:|---:|---:|\n",
        family.number()
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            r.size,
            seconds(r.time, timeout),
            r.peak.map_or("-".to_string(), |p| mb(Some(p))),
        ));
    }
    out
}
