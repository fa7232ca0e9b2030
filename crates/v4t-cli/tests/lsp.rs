//! `v4t lsp` driven over standard input and output with plain JSON-RPC,
//! as an editor drives it: the handshake, buffers opened and edited,
//! every request the server offers, shutdown and exit, on the bundled
//! examples.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::TempDir;

/// How long a test waits for one message before it fails (the server
/// answers in milliseconds; this only keeps a broken server from hanging
/// the test).
const WAIT: Duration = Duration::from_secs(60);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    next_id: u64,
    /// Notifications received while waiting for responses.
    notifications: Vec<Value>,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_v4t"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("v4t lsp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; len.expect("Content-Length")];
                r.read_exact(&mut body).unwrap();
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut c = Client {
            child,
            stdin,
            messages,
            next_id: 0,
            notifications: Vec::new(),
        };
        let init = c.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {}}),
        );
        assert_eq!(init["serverInfo"]["name"], "v4t");
        assert_eq!(
            init["capabilities"]["textDocumentSync"], 2,
            "incremental sync"
        );
        c.notify("initialized", json!({}));
        c
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        let stdin = self.stdin.as_mut().unwrap();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.messages.recv_timeout(WAIT).expect("an answer");
            if m.get("id") == Some(&json!(id)) {
                assert!(m.get("error").is_none(), "{method}: {m}");
                return m["result"].clone();
            }
            assert!(m.get("id").is_none(), "answers come in order: {m}");
            self.notifications.push(m);
        }
    }

    /// Waits for diagnostics of `uri` that satisfy `wanted` (earlier
    /// publications may be of earlier texts).
    fn diagnostics(&mut self, uri: &str, wanted: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let m = if self.notifications.is_empty() {
                self.messages
                    .recv_timeout(WAIT)
                    .unwrap_or_else(|_| panic!("diagnostics of {uri}; seen {seen:#?}"))
            } else {
                self.notifications.remove(0)
            };
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                let d = m["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                if wanted(&d) {
                    return d;
                }
                seen.push(d);
            }
        }
    }

    fn open(&mut self, path: &Path, text: &str) -> String {
        let uri = uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        );
        uri
    }

    fn at(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        let mut params = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
        if method == "textDocument/references" {
            params["context"] = json!({"includeDeclaration": true});
        }
        self.request(method, params)
    }

    /// `shutdown`, `exit`, and the exit code.
    fn finish(mut self) -> Option<i32> {
        assert_eq!(self.request("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        self.stdin = None;
        self.child.wait().unwrap().code()
    }
}

fn uri(path: &Path) -> String {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    format!("file://{}", path.display())
}

fn example(rel: &str) -> PathBuf {
    std::fs::canonicalize(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples")
            .join(rel),
    )
    .unwrap()
}

/// 0-based line and character of the first `needle` (after `after`).
fn find(text: &str, after: &str, needle: &str) -> (u32, u32) {
    let start = text.find(after).expect(after);
    let at = start + text[start..].find(needle).expect(needle);
    let line = text[..at].matches('\n').count() as u32;
    let col = text[..at].rsplit('\n').next().unwrap().chars().count() as u32;
    (line, col)
}

fn labels(items: &Value) -> Vec<String> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn diagnostics_code_action_hover_definition_references_completion_on_web_app() {
    let path = example("web-app/template.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut c = Client::start();
    let uri = c.open(&path, &text);
    // The example resolves with its default inputs and every preset.
    c.diagnostics(&uri, |d| d.is_empty());

    // A typo, typed incrementally: the diagnostic at its line, with the
    // suggestion as related information and as a code action.
    let (line, col) = find(&text, "shop_db\n", "logic_expression");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{
            "range": {"start": {"line": line, "character": col + 13}, "end": {"line": line, "character": col + 14}},
            "text": ""
        }]}),
    );
    let d = c.diagnostics(&uri, |d| !d.is_empty());
    assert_eq!(d[0]["code"], "V4T021", "{d:#?}");
    assert_eq!(d[0]["severity"], 1);
    assert_eq!(d[0]["range"]["start"]["line"], line);
    let related = &d[0]["relatedInformation"][0];
    assert!(
        related["message"]
            .as_str()
            .unwrap()
            .contains("did you mean \"logic_expression\""),
        "{related}"
    );
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": d[0]["range"], "context": {"diagnostics": d}}),
    );
    let edit = &actions[0]["edit"]["changes"][&uri][0];
    assert_eq!(edit["newText"], "logic_expression", "{actions:#}");
    assert_eq!(
        edit["range"]["start"],
        json!({"line": line, "character": col})
    );
    assert_eq!(
        edit["range"]["end"],
        json!({"line": line, "character": col + 15})
    );

    // Back to the example (full-text sync works too).
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": text}]}),
    );
    c.diagnostics(&uri, |d| d.is_empty());

    // Hover: presence per preset, a variability input, a type, a condition.
    let (l, ch) = find(&text, "node_templates:", "dev_vm:");
    let hover = c.at("textDocument/hover", &uri, l, ch + 1)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(hover.contains("preset `dev`: present"), "{hover}");
    assert!(
        hover.contains("preset `prod`: absent: its pruning condition is false"),
        "{hover}"
    );
    let (l, ch) = find(&text, "expressions:", "variability_input: env");
    let hover = c.at("textDocument/hover", &uri, l, ch + 20)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        hover.contains("type: `string`") && hover.contains("default: `\"dev\"`"),
        "{hover}"
    );
    assert!(hover.contains("preset `prod`: `\"prod\"`"), "{hover}");
    let (l, ch) = find(&text, "shop:", "shop.nodes.Shop");
    let hover = c.at("textDocument/hover", &uri, l, ch + 2)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        hover.contains("`shop.nodes.Shop` → `tosca.nodes.WebApplication` → `tosca.nodes.Root`"),
        "{hover}"
    );
    assert!(hover.contains("- `replicas`: integer"), "{hover}");
    let (l, ch) = find(
        &text,
        "web_server:",
        "conditions: {logic_expression: is_dev}",
    );
    let hover = c.at("textDocument/hover", &uri, l, ch + 2)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(hover, "condition: `is_dev`");

    // Definition: a requirement's target, a named expression, a type
    // defined in the file, an implicit TOSCA 1.3 type (no file: nothing).
    let (def_line, _) = find(&text, "node_templates:", "web_server:");
    let (l, ch) = find(&text, "- host: ", "web_server");
    let found = c.at("textDocument/definition", &uri, l, ch + 1);
    assert_eq!(found[0]["range"]["start"]["line"], def_line, "{found}");
    assert_eq!(found[0]["uri"], uri.as_str());
    let (expr_line, _) = find(&text, "expressions:", "is_prod:");
    let (l, ch) = find(&text, "shop_db\n", "is_prod");
    assert_eq!(
        c.at("textDocument/definition", &uri, l, ch)[0]["range"]["start"]["line"],
        expr_line
    );
    let (l, ch) = find(&text, "shop:", "shop.nodes.Shop");
    assert_eq!(
        c.at("textDocument/definition", &uri, l, ch)[0]["range"]["start"]["line"],
        9
    );

    // References: the expression's definition and its four uses.
    let refs = c.at("textDocument/references", &uri, expr_line, 13);
    assert_eq!(refs.as_array().unwrap().len(), 4, "{refs:#}");

    // Completion: type names of the right kind, node names in requirements,
    // keynames, variability inputs, expressions, operators.
    let (l, ch) = find(&text, "dev_vm:", "tosca.nodes.Compute");
    let types = labels(&c.at("textDocument/completion", &uri, l, ch));
    assert!(
        types.contains(&"tosca.nodes.Compute".into()) && types.contains(&"shop.nodes.Shop".into()),
        "{types:?}"
    );
    assert!(
        !types.contains(&"tosca.capabilities.Compute".into()),
        "{types:?}"
    );
    let (l, ch) = find(&text, "- host: ", "web_server");
    let nodes = labels(&c.at("textDocument/completion", &uri, l, ch));
    assert_eq!(
        nodes,
        [
            "shop",
            "web_server",
            "dev_vm",
            "prod_vm",
            "shop_db",
            "db_server",
            "db_vm"
        ]
    );
    let (l, _) = find(&text, "dev_vm:", "type:");
    let keys = labels(&c.at("textDocument/completion", &uri, l, 12));
    assert!(
        keys.contains(&"requirements".into()) && keys.contains(&"conditions".into()),
        "{keys:?}"
    );
    let (l, ch) = find(&text, "expressions:", "env}");
    let inputs = labels(&c.at("textDocument/completion", &uri, l, ch));
    assert_eq!(inputs, ["env"]);
    let (l, ch) = find(&text, "shop_db\n", "is_prod");
    assert_eq!(
        labels(&c.at("textDocument/completion", &uri, l, ch)),
        ["is_dev", "is_prod"]
    );
    let (l, ch) = find(&text, "shop_db\n", "logic_expression");
    let ops = labels(&c.at("textDocument/completion", &uri, l, ch));
    assert!(
        ops.contains(&"and".into()) && ops.contains(&"node_presence".into()),
        "{ops:?}"
    );

    // The outline and folding.
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let headings: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        headings,
        [
            "node_types",
            "variability inputs",
            "presets",
            "expressions",
            "node templates"
        ]
    );
    assert_eq!(symbols[4]["children"].as_array().unwrap().len(), 7);
    let folds = c.request(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(
        folds
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["startLine"] == def_line),
        "{folds}"
    );

    assert_eq!(c.finish(), Some(0));
}

#[test]
fn imported_types_files_and_topology_inputs_on_tosca_2_0_examples() {
    let path = example("multi-cloud/service-template.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut c = Client::start();
    let uri = c.open(&path, &text);
    let base = uri.replace("service-template.yaml", "profiles/base.yaml");
    // A type of a namespaced profile import, defined in another file.
    let (l, ch) = find(&text, "node_templates:", "base:Application");
    let found = c.at("textDocument/definition", &uri, l, ch + 6);
    assert_eq!(found[0]["uri"], base.as_str(), "{found}");
    let hover = c.at("textDocument/hover", &uri, l, ch + 6)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(hover.starts_with("**node type** `Application`"), "{hover}");
    // The imported file of a profile import.
    let (l, ch) = find(&text, "imports:", "example.base:1.0");
    assert_eq!(
        c.at("textDocument/definition", &uri, l, ch + 2)[0]["uri"],
        base.as_str()
    );
    // Namespaced type names complete where a node type is expected.
    let (l, ch) = find(&text, "node_templates:", "base:Application");
    let types = labels(&c.at("textDocument/completion", &uri, l, ch));
    assert!(types.contains(&"base:Application".into()), "{types:?}");

    // `$get_input` names a topology input.
    let path = example("monitoring/service-template.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = c.open(&path, &text);
    let (input_line, _) = find(&text, "\n    inputs:", "retention:");
    let (l, ch) = find(&text, "$get_input: retention", "retention");
    let found = c.at("textDocument/definition", &uri, l, ch + 1);
    assert_eq!(found[0]["range"]["start"]["line"], input_line, "{found}");
    let refs = c.at("textDocument/references", &uri, l, ch + 1);
    assert!(refs.as_array().unwrap().len() >= 3, "{refs:#}");
    // Presence of a topology input and of a policy per preset.
    let (l, ch) = find(&text, "\n    inputs:", "admin_password:");
    let hover = c.at("textDocument/hover", &uri, l, ch + 1)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(hover.starts_with("input `admin_password`"), "{hover}");
    assert!(hover.contains("preset `minimal`: absent"), "{hover}");
    let (l, ch) = find(&text, "policies:", "scale_collectors:");
    let hover = c.at("textDocument/hover", &uri, l, ch + 1)["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(hover.contains("preset `minimal`: present"), "{hover}");
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn diagnostics_of_imported_files_are_theirs_and_open_buffers_override_the_disk() {
    let dir = TempDir::new("lsp-imports");
    let main = dir.write(
        "main.yaml",
        "tosca_definitions_version: tosca_2_0\nimports:\n  - url: types.yaml\nservice_template:\n  node_templates:\n    a:\n      type: Thing\n",
    );
    let broken =
        "tosca_definitions_version: tosca_2_0\nnode_types:\n  Thing:\n    derived_from: Missing\n";
    let types = dir.write("types.yaml", broken);
    let mut c = Client::start();
    let main_uri = c.open(&main, &std::fs::read_to_string(&main).unwrap());
    let types_uri = uri(&types);
    // Checking main.yaml finds the mistake in types.yaml, published there
    // (main.yaml first: files are published in order of their URIs).
    c.diagnostics(&main_uri, |d| d.is_empty());
    let d = c.diagnostics(&types_uri, |d| !d.is_empty());
    assert_eq!(d[0]["range"]["start"]["line"], 3, "{d:#?}");
    assert!(
        d[0]["message"].as_str().unwrap().contains("Missing"),
        "{d:#?}"
    );
    // Opening types.yaml with the mistake fixed overrides the file on disk.
    let fixed = broken.replace("    derived_from: Missing\n", "    description: fixed\n");
    c.open(&types, &fixed);
    c.diagnostics(&types_uri, |d| d.is_empty());
    assert_eq!(c.finish(), Some(0));
}

/// A template file's imports may lead above its directory, as `v4t
/// validate FILE` and `v4t resolve FILE` read them; an open buffer of such
/// a file overrides the disk.
#[test]
fn a_template_imports_files_above_its_directory_as_the_command_line_reads_them() {
    let dir = TempDir::new("lsp-above");
    let types = "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  Thing:\n    derived_from: tosca.nodes.Root\n";
    let types_path = dir.write("types.yaml", types);
    let main = dir.write(
        "sub/main.yaml",
        "tosca_definitions_version: tosca_simple_yaml_1_3\nimports:\n  - ../types.yaml\ntopology_template:\n  node_templates:\n    a:\n      type: Thing\n",
    );
    let validate = std::process::Command::new(env!("CARGO_BIN_EXE_v4t"))
        .arg("validate")
        .arg(&main)
        .output()
        .unwrap();
    assert!(validate.status.success(), "{validate:?}");
    let mut c = Client::start();
    let text = std::fs::read_to_string(&main).unwrap();
    let main_uri = c.open(&main, &text);
    c.diagnostics(&main_uri, |d| d.is_empty());
    // With `Thing` renamed in an open buffer of types.yaml, main.yaml names
    // an unknown type.
    c.open(&types_path, &types.replace("Thing", "Other"));
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": main_uri, "version": 2}, "contentChanges": [{"text": text}]}),
    );
    let d = c.diagnostics(&main_uri, |d| !d.is_empty());
    assert!(
        d[0]["message"].as_str().unwrap().contains("Thing"),
        "{d:#?}"
    );
    // A variable service template reads it too: `Other` is defined in the
    // buffer of types.yaml.
    let variable = dir.write(
        "sub/variable.yaml",
        "tosca_definitions_version: tosca_variability_1_0\nimports:\n  - ../types.yaml\ntopology_template:\n  node_templates:\n    a:\n      type: Other\n",
    );
    let text = std::fs::read_to_string(&variable).unwrap();
    let variable_uri = c.open(&variable, &text);
    c.diagnostics(&variable_uri, |d| d.is_empty());
    let found = c.at("textDocument/definition", &variable_uri, 6, 13);
    assert_eq!(found[0]["uri"], uri(&types_path).as_str(), "{found}");
    assert_eq!(found[0]["range"]["start"]["line"], 2, "{found}");
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn a_preset_that_does_not_resolve_says_so() {
    let dir = TempDir::new("lsp-presets");
    let text = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      env:
        type: string
        constraints:
          - valid_values: [dev, prod]
        default: dev
    presets:
      good:
        inputs: {env: prod}
      bad:
        inputs: {env: test}
  node_templates:
    a:
      type: tosca.nodes.Root
";
    let path = dir.write("template.yaml", text);
    let mut c = Client::start();
    let uri = c.open(&path, text);
    let d = c.diagnostics(&uri, |d| {
        d.iter()
            .any(|d| d["message"].as_str().unwrap().starts_with("preset"))
    });
    let d: Vec<&Value> = d
        .iter()
        .filter(|d| d["message"].as_str().unwrap().starts_with("preset"))
        .collect();
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("preset \"bad\" does not resolve: "),
        "{d:#?}"
    );
    assert_eq!(d[0]["range"]["start"]["line"], 12);
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn half_typed_buffers_answer_and_the_server_exits_when_its_input_ends() {
    let dir = TempDir::new("lsp-broken");
    let text = "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n    a: [\n      ty";
    let path = dir.write("template.yaml", text);
    let mut c = Client::start();
    let uri = c.open(&path, text);
    let d = c.diagnostics(&uri, |d| !d.is_empty());
    assert_eq!(d[0]["code"], "V4T001", "{d:#?}");
    assert_eq!(d[0]["severity"], 1);
    assert_eq!(c.at("textDocument/hover", &uri, 4, 8), Value::Null);
    assert_eq!(c.at("textDocument/definition", &uri, 4, 8), json!([]));
    let _ = c.at("textDocument/completion", &uri, 4, 8);
    // Unknown requests are errors, not crashes.
    c.next_id += 1;
    let id = c.next_id;
    c.send(json!({"jsonrpc": "2.0", "id": id, "method": "v4t/unknown", "params": {}}));
    let m = c.messages.recv_timeout(WAIT).unwrap();
    let m = if m.get("id").is_some() {
        m
    } else {
        c.messages.recv_timeout(WAIT).unwrap()
    };
    assert_eq!(m["error"]["code"], -32601, "{m}");
    // The input ends without shutdown: the server exits (code 1).
    c.stdin = None;
    assert_eq!(c.child.wait().unwrap().code(), Some(1));
}
