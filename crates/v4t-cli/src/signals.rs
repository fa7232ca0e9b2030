//! Removing temporary output files when the process is interrupted.
//!
//! [`crate::files::write_atomically`] registers its temporary file here
//! while it exists. On SIGINT, SIGTERM or SIGHUP a watcher thread removes
//! the registered files and then lets the signal take its default effect
//! (the process ends as killed by that signal, as shells expect). SIGKILL
//! cannot be caught; the output is still atomic then, but a temporary file
//! may remain.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files to remove on interruption.
static TEMP_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Records `path` for removal on interruption.
pub fn register_temp(path: &Path) {
    if let Ok(mut files) = TEMP_FILES.lock() {
        files.push(path.to_path_buf());
    }
}

/// Forgets `path` again (it was renamed or removed).
pub fn unregister_temp(path: &Path) {
    if let Ok(mut files) = TEMP_FILES.lock() {
        files.retain(|p| p != path);
    }
}

/// Starts the watcher thread (once; later calls do nothing).
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(watch);
}

#[cfg(unix)]
fn watch() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("v4t-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let files = match TEMP_FILES.lock() {
                    Ok(files) => files.clone(),
                    Err(poisoned) => poisoned.into_inner().clone(),
                };
                for file in files {
                    let _ = std::fs::remove_file(file);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                // Not reached for these signals; exit like a shell would.
                std::process::exit(128 + signal);
            }
        });
}

#[cfg(not(unix))]
fn watch() {}
