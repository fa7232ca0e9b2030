//! The diagnostics thread: takes the newest job, checks every open file,
//! drops its results when a newer change made them stale, and publishes
//! each file's diagnostics (the union over every open file that reaches
//! it, so an imported file shows what its importers find in it).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Message, Notification};
use lsp_types::notification::{Notification as _, PublishDiagnostics};
use lsp_types::{Diagnostic, PublishDiagnosticsParams, Uri};

use crate::check::{analyze, presets, Fix, Subject};
use crate::overlay::{Buffers, LoaderFactory};

/// The fixes of the last analysis of each open file (by its URI): the
/// file each fix edits and the fix.
pub(crate) type Fixes = Arc<Mutex<HashMap<String, Vec<(String, Fix)>>>>;

/// Work for the diagnostics thread.
pub(crate) enum Job {
    /// Check these open files (URI, path, text) against these buffers.
    Check {
        generation: u64,
        buffers: Buffers,
        files: Vec<(String, PathBuf, String)>,
    },
    /// A file was closed: forget what it reported.
    Forget(String),
}

/// The stack of the diagnostics thread (the command line's: deeply nested
/// but allowed input needs a few MB in debug builds).
const STACK_BYTES: usize = 64 * 1024 * 1024;

/// The handle of the diagnostics thread.
pub(crate) struct Worker {
    jobs: Option<Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    pub(crate) fn start(
        out: Sender<Message>,
        loaders: Arc<LoaderFactory>,
        generation: Arc<AtomicU64>,
        fixes: Fixes,
    ) -> Worker {
        let (jobs, rx) = crossbeam_channel::unbounded();
        let mut state = State {
            out,
            loaders,
            generation,
            fixes,
            results: BTreeMap::new(),
        };
        let thread = std::thread::Builder::new()
            .name("v4t-lsp-diagnostics".into())
            .stack_size(STACK_BYTES)
            .spawn(move || state.run(rx))
            .ok();
        Worker {
            jobs: Some(jobs),
            thread,
        }
    }

    pub(crate) fn send(&self, job: Job) {
        if let Some(j) = &self.jobs {
            let _ = j.send(job);
        }
    }

    /// Ends the thread after the job in hand (its result is stale anyway).
    pub(crate) fn stop(&mut self) {
        self.jobs = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct State {
    out: Sender<Message>,
    loaders: Arc<LoaderFactory>,
    generation: Arc<AtomicU64>,
    fixes: Fixes,
    /// What each open file reported, by the file it points into.
    results: BTreeMap<String, BTreeMap<String, Vec<Diagnostic>>>,
}

impl State {
    fn run(&mut self, rx: Receiver<Job>) {
        while let Ok(mut job) = rx.recv() {
            // Only the newest check matters; closes are applied on the way.
            while let Ok(next) = rx.try_recv() {
                if let Job::Forget(uri) = std::mem::replace(&mut job, next) {
                    self.forget(&uri);
                }
            }
            match job {
                Job::Forget(uri) => self.forget(&uri),
                Job::Check {
                    generation,
                    buffers,
                    files,
                } => self.check(generation, &buffers, &files),
            }
        }
    }

    fn stale(&self, generation: u64) -> bool {
        self.generation.load(Ordering::SeqCst) != generation
    }

    fn check(&mut self, generation: u64, buffers: &Buffers, files: &[(String, PathBuf, String)]) {
        // First what the default inputs give, for every file; then the
        // presets (slower: one resolution each).
        for (uri, path, text) in files {
            let subject = Subject { uri, path, text };
            let analysis = analyze(&subject, buffers, &*self.loaders);
            if self.stale(generation) {
                return;
            }
            if let Ok(mut f) = self.fixes.lock() {
                f.insert(uri.clone(), analysis.fixes);
            }
            self.update(uri, analysis.files);
        }
        for (uri, path, text) in files {
            let known: Vec<String> = (self
                .results
                .get(uri)
                .and_then(|f| f.get(uri))
                .into_iter()
                .flatten())
            .filter(|d| d.severity == Some(lsp_types::DiagnosticSeverity::ERROR))
            .map(|d| d.message.clone())
            .collect();
            let found = presets(
                &Subject { uri, path, text },
                buffers,
                &*self.loaders,
                &known,
            );
            if self.stale(generation) {
                return;
            }
            if !found.is_empty() {
                let mut files = self.results.get(uri).cloned().unwrap_or_default();
                files.entry(uri.clone()).or_default().extend(found);
                self.update(uri, files);
            }
        }
    }

    fn forget(&mut self, uri: &str) {
        if let Ok(mut f) = self.fixes.lock() {
            f.remove(uri);
        }
        self.update(uri, BTreeMap::new());
        self.results.remove(uri);
    }

    /// Records what `root` reports and publishes it, and every other file
    /// whose diagnostics that changes (the analysed file always: its
    /// publication tells the editor that its current text was checked).
    fn update(&mut self, root: &str, files: BTreeMap<String, Vec<Diagnostic>>) {
        let old = self
            .results
            .insert(root.to_string(), files)
            .unwrap_or_default();
        let new = &self.results[root];
        let touched: HashSet<&String> = old.keys().chain(new.keys()).collect();
        let mut touched: Vec<String> = touched.into_iter().cloned().collect();
        touched.sort();
        for uri in touched {
            if uri != root && old.get(&uri) == self.results[root].get(&uri) {
                continue;
            }
            self.publish(&uri);
        }
    }

    /// Publishes `uri`'s diagnostics: the union over every open file.
    fn publish(&self, uri: &str) {
        let mut all: Vec<Diagnostic> = Vec::new();
        for d in self
            .results
            .values()
            .filter_map(|files| files.get(uri))
            .flatten()
        {
            if !all
                .iter()
                .any(|x| x.range == d.range && x.message == d.message)
            {
                all.push(d.clone());
            }
        }
        let Ok(uri) = uri.parse::<Uri>() else {
            return;
        };
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics: all,
            version: None,
        };
        let _ = self.out.send(Message::Notification(Notification::new(
            PublishDiagnostics::METHOD.into(),
            params,
        )));
    }
}
