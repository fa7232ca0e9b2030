//! A property test: hostile buffers (every file of the command line's
//! hostile test set and the examples' templates), edited at random
//! positions with random text, with every request the server offers at
//! random positions in between. The server must answer every request,
//! keep publishing diagnostics and shut down cleanly: it never crashes or
//! hangs. The edits are reproducible (a fixed seed; `V4T_LSP_SEED` picks
//! another, `V4T_LSP_STEPS` the edits per file, `V4T_LSP_FILES` a file
//! that lists other buffers to start from, one path per line: real-world
//! corpora, which stay out of the repository).

use std::path::{Path, PathBuf};
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{json, Value};

/// How long one answer may take before the test calls it a hang.
const WAIT: Duration = Duration::from_secs(60);

/// Snippets typed into the buffers: YAML and TOSCA syntax half-written,
/// Variability4TOSCA operators, multi-byte text.
const SNIPPETS: &[&str] = &[
    ":",
    " ",
    "\n",
    "  ",
    "- ",
    "{",
    "}",
    "[",
    "]",
    ",",
    "\"",
    "'",
    "#",
    "&a ",
    "*a",
    "!!str ",
    "\t",
    "é",
    "😀",
    "conditions: ",
    "{variability_input: ",
    "logic_expression: ",
    "type: ",
    "requirements:\n  - host: ",
    "node_templates:\n",
    "variability:\n  inputs:\n",
    "$get_input: ",
    "derived_from: ",
    "? ",
    "|\n",
    ">-\n",
    "tosca_definitions_version: tosca_2_0\n",
];

/// xorshift64*: reproducible without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

struct Client {
    conn: Connection,
    next: i32,
}

impl Client {
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.conn
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.into(),
                params,
            )))
            .unwrap();
        loop {
            match self.conn.receiver.recv_timeout(WAIT) {
                Ok(Message::Response(r)) => {
                    assert_eq!(r.id, id, "answers come in order");
                    return r
                        .response_result
                        .unwrap_or_else(|e| panic!("{method}: {}", e.message));
                }
                Ok(_) => {}
                Err(e) => panic!("no answer to {method}: {e}"),
            }
        }
    }

    fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                method.into(),
                params,
            )))
            .unwrap();
    }

    /// Waits until diagnostics of `uri` are published.
    fn published(&self, uri: &str) {
        loop {
            match self.conn.receiver.recv_timeout(WAIT) {
                Ok(Message::Notification(n)) if n.method == "textDocument/publishDiagnostics" => {
                    let text = n.params.to_string();
                    assert!(!text.contains("internal error"), "{text}");
                    if n.params["uri"] == uri {
                        return;
                    }
                }
                Ok(_) => {}
                Err(e) => panic!("no diagnostics for {uri}: {e}"),
            }
        }
    }
}

fn files() -> Vec<PathBuf> {
    if let Some(list) = std::env::var_os("V4T_LSP_FILES") {
        let list = std::fs::read_to_string(&list).expect("the V4T_LSP_FILES list is readable");
        let listed: Vec<PathBuf> = list
            .lines()
            .filter(|l| !l.is_empty())
            .map(PathBuf::from)
            .collect();
        // A listed file that is not there would run as an empty buffer.
        for path in &listed {
            assert!(
                path.is_file(),
                "V4T_LSP_FILES lists {path:?}, which is no file"
            );
        }
        return listed;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let hostile = root.join("crates/v4t-cli/tests/hostile");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&hostile)
        .map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    assert!(
        !out.is_empty() || std::env::var_os("CI").is_none(),
        "the hostile test set is missing"
    );
    out.sort();
    for example in [
        "web-app/template.yaml",
        "web-app-2.0/service-template.yaml",
        "monitoring/service-template.yaml",
    ] {
        out.push(root.join("examples").join(example));
    }
    out
}

/// A random position, sometimes past the end of its line or the text.
fn position(rng: &mut Rng, text: &str) -> Value {
    let lines = text.split('\n').count();
    let line = rng.below(lines + 2);
    let len = text
        .split('\n')
        .nth(line)
        .map_or(0, |l| l.encode_utf16().count());
    json!({"line": line, "character": rng.below(len + 3)})
}

#[test]
fn random_edits_and_requests_never_crash_or_hang() {
    let seed = std::env::var("V4T_LSP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED);
    let steps: usize = std::env::var("V4T_LSP_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    let mut rng = Rng(seed | 1);
    let (server, client) = Connection::memory();
    let loaders: Box<v4t_lsp::LoaderFactory> = Box::new(|_| Box::new(v4t::NoFiles));
    let handle = std::thread::Builder::new()
        .stack_size(64 * 1024 * 1024)
        .spawn(move || v4t_lsp::run(server, loaders))
        .unwrap();
    let mut c = Client {
        conn: client,
        next: 0,
    };
    c.request("initialize", json!({"capabilities": {}}));
    c.notify("initialized", json!({}));
    for (i, path) in files().iter().enumerate() {
        let mut text = std::fs::read_to_string(path).unwrap_or_default();
        let uri = format!("file:///hostile/{i}/template.yaml");
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 0, "text": text}}),
        );
        for step in 0..steps {
            // An edit: replace a random range (possibly reversed or past
            // the end) by a snippet, or by a piece of the text itself.
            let (start, end) = (position(&mut rng, &text), position(&mut rng, &text));
            let insert = if rng.below(4) == 0 && !text.is_empty() {
                let a = rng.below(text.len());
                let b = (a + rng.below(80)).min(text.len());
                text.get(a..b).unwrap_or_default().to_string()
            } else {
                SNIPPETS[rng.below(SNIPPETS.len())].to_string()
            };
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": step + 1},
                       "contentChanges": [{"range": {"start": start, "end": end}, "text": insert}]}),
            );
            // Keep the client's copy in step through a full-text refresh
            // now and then (so later positions stay meaningful).
            if rng.below(3) == 0 {
                text = format!("{text}\n{insert}");
                c.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": step + 1}, "contentChanges": [{"text": text}]}),
                );
            }
            let at = json!({"textDocument": {"uri": uri}, "position": position(&mut rng, &text)});
            let method = [
                "textDocument/hover",
                "textDocument/definition",
                "textDocument/references",
                "textDocument/completion",
                "textDocument/documentSymbol",
                "textDocument/foldingRange",
                "textDocument/codeAction",
            ][rng.below(7)];
            let params = match method {
                "textDocument/references" => {
                    let mut p = at.clone();
                    p["context"] = json!({"includeDeclaration": true});
                    p
                }
                "textDocument/documentSymbol" | "textDocument/foldingRange" => {
                    json!({"textDocument": {"uri": uri}})
                }
                "textDocument/codeAction" => json!({"textDocument": {"uri": uri},
                    "range": {"start": position(&mut rng, &text), "end": position(&mut rng, &text)},
                    "context": {"diagnostics": []}}),
                _ => at,
            };
            c.request(method, params);
        }
        // The diagnostics thread is alive and answers for this buffer.
        c.published(&uri);
        c.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        );
    }
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(handle.join().expect("the server does not panic"), Ok(true));
}

/// The default seed.
const DEFAULT_SEED: u64 = 0x5eed_0024;
