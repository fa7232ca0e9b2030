//! The main loop: the handshake, the open buffers, requests answered in
//! order, diagnostics scheduled after a pause in typing.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, FoldingRangeRequest, GotoDefinition,
    HoverRequest, References, Request as _,
};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, CompletionOptions, CompletionParams, DidChangeTextDocumentParams,
    DidCloseTextDocumentParams, DidOpenTextDocumentParams, DocumentSymbolParams,
    FoldingRangeParams, FoldingRangeProviderCapability, GotoDefinitionParams, HoverParams,
    HoverProviderCapability, InitializeResult, OneOf, ReferenceParams, ServerCapabilities,
    ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit, WorkspaceEdit,
};
use serde_json::Value as Json;

use crate::features::{Buffer, Parsed, Presence};
use crate::overlay::{Buffers, LoaderFactory};
use crate::text::{apply, normalize, uri_path};
use crate::worker::{Fixes, Job, Worker};

/// How long typing must pause before diagnostics are computed.
const DEBOUNCE: Duration = Duration::from_millis(50);

/// Serves on standard input and output until `exit` or the end of the
/// input. `Ok(true)` after an orderly `shutdown` and `exit`.
pub fn serve_stdio(loaders: Box<LoaderFactory>) -> Result<bool, String> {
    let (connection, threads) = Connection::stdio();
    let result = run(connection, loaders);
    // The writer ends when every sender is gone (they were dropped with
    // the connection); the reader ends with the input.
    threads.join().map_err(|e| e.to_string())?;
    result
}

/// Serves on `connection` (see [`serve_stdio`]).
pub fn run(connection: Connection, loaders: Box<LoaderFactory>) -> Result<bool, String> {
    let (id, _params) = match connection.initialize_start() {
        Ok(start) => start,
        // The input ended before `initialize`.
        Err(e) => return Err(e.to_string()),
    };
    let result = InitializeResult {
        capabilities: capabilities(),
        server_info: Some(ServerInfo {
            name: "v4t".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    let result = serde_json::to_value(result).map_err(|e| e.to_string())?;
    connection
        .initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    let loaders: Arc<LoaderFactory> = Arc::from(loaders);
    let generation = Arc::new(AtomicU64::new(0));
    let fixes = Fixes::default();
    let worker = Worker::start(
        connection.sender.clone(),
        loaders.clone(),
        generation.clone(),
        fixes.clone(),
    );
    let mut server = Server {
        connection,
        loaders,
        docs: HashMap::new(),
        generation,
        fixes,
        worker,
        due: None,
        shutdown: false,
    };
    let orderly = server.main_loop();
    server.worker.stop();
    Ok(orderly)
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), " ".into(), "$".into()]),
            ..Default::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        ..Default::default()
    }
}

/// One open buffer.
struct Doc {
    text: String,
    /// The file's path (`None` for URIs that are no files: then imports
    /// cannot be followed and the buffer is checked alone).
    path: Option<PathBuf>,
    /// The parse of the current text (`None` while it is no YAML), valid
    /// when `fresh`.
    current: Option<Arc<Parsed>>,
    /// The last parse that succeeded.
    last: Option<Arc<Parsed>>,
    fresh: bool,
    /// Presence per preset for hover, of the current text.
    presence: Presence,
}

/// What a request sees of a buffer.
struct Views<'a> {
    current: Option<&'a Parsed>,
    last: Option<&'a Parsed>,
    presence: &'a mut Presence,
}

struct Server {
    connection: Connection,
    loaders: Arc<LoaderFactory>,
    docs: HashMap<String, Doc>,
    generation: Arc<AtomicU64>,
    fixes: Fixes,
    worker: Worker,
    /// When the pending diagnostics are due.
    due: Option<Instant>,
    shutdown: bool,
}

impl Server {
    /// Until `exit` (`true` if `shutdown` came first) or the end of input.
    fn main_loop(&mut self) -> bool {
        loop {
            let wait = self.due.map_or(Duration::from_secs(3600), |d| {
                d.saturating_duration_since(Instant::now())
            });
            match self.connection.receiver.recv_timeout(wait) {
                Ok(Message::Request(req)) => {
                    if self.shutdown {
                        self.reply(Response::new_err(
                            req.id,
                            ErrorCode::InvalidRequest as i32,
                            "shut down".into(),
                        ));
                        continue;
                    }
                    if req.method == "shutdown" {
                        self.shutdown = true;
                        self.reply(Response::new_ok(req.id, ()));
                        continue;
                    }
                    let response = self.request(req);
                    self.reply(response);
                }
                Ok(Message::Notification(n)) => {
                    if n.method == "exit" {
                        return self.shutdown;
                    }
                    self.notification(n);
                }
                Ok(Message::Response(_)) => {}
                Err(RecvTimeoutError::Timeout) => {
                    self.due = None;
                    self.check();
                }
                Err(RecvTimeoutError::Disconnected) => return false,
            }
        }
    }

    fn reply(&self, response: Response) {
        let _ = self.connection.sender.send(Message::Response(response));
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) else {
                    return;
                };
                let uri = p.text_document.uri.as_str().to_string();
                let path = uri_path(&uri).map(|p| normalize(&p));
                let doc = Doc {
                    text: p.text_document.text,
                    path,
                    current: None,
                    last: None,
                    fresh: false,
                    presence: Presence::new(),
                };
                self.docs.insert(uri, doc);
                self.changed(Duration::ZERO);
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) else {
                    return;
                };
                let Some(doc) = self.docs.get_mut(p.text_document.uri.as_str()) else {
                    return;
                };
                for change in p.content_changes {
                    apply(&mut doc.text, change);
                }
                doc.fresh = false;
                doc.presence.clear();
                self.changed(DEBOUNCE);
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) else {
                    return;
                };
                let uri = p.text_document.uri.as_str().to_string();
                self.docs.remove(&uri);
                self.worker.send(Job::Forget(uri));
                self.changed(DEBOUNCE);
            }
            _ => {}
        }
    }

    /// A buffer changed: work in flight is stale, diagnostics are due
    /// after `delay`.
    fn changed(&mut self, delay: Duration) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        let due = Instant::now() + delay;
        self.due = Some(self.due.map_or(due, |d| d.max(due)));
    }

    fn buffers(&self) -> Buffers {
        Arc::new(
            (self.docs.values())
                .filter_map(|d| Some((d.path.clone()?, d.text.clone())))
                .collect(),
        )
    }

    /// Hands every open TOSCA file to the worker.
    fn check(&mut self) {
        let buffers = self.buffers();
        let mut files: Vec<(String, PathBuf, String)> = (self.docs.iter())
            .map(|(uri, d)| {
                let path = d
                    .path
                    .clone()
                    .unwrap_or_else(|| PathBuf::from("/untitled.yaml"));
                (uri.clone(), path, d.text.clone())
            })
            .collect();
        files.sort();
        let generation = self.generation.load(Ordering::SeqCst);
        self.worker.send(Job::Check {
            generation,
            buffers,
            files,
        });
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        match self.answer(req) {
            Ok(value) => Response::new_ok(id, value),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        }
    }

    fn answer(&mut self, req: Request) -> Result<Json, (ErrorCode, String)> {
        let bad = |e: serde_json::Error| (ErrorCode::InvalidParams, e.to_string());
        let json = |v: Result<Json, serde_json::Error>| {
            v.map_err(|e| (ErrorCode::InternalError, e.to_string()))
        };
        match req.method.as_str() {
            HoverRequest::METHOD => {
                let p: HoverParams = serde_json::from_value(req.params).map_err(bad)?;
                let uri = p.text_document_position_params.text_document.uri;
                let pos = p.text_document_position_params.position;
                let hover =
                    self.with_buffer(uri.as_str(), |b, v| b.hover(v.current?, pos, v.presence))?;
                json(serde_json::to_value(hover))
            }
            GotoDefinition::METHOD => {
                let p: GotoDefinitionParams = serde_json::from_value(req.params).map_err(bad)?;
                let uri = p.text_document_position_params.text_document.uri;
                let pos = p.text_document_position_params.position;
                let found =
                    self.with_buffer(uri.as_str(), |b, v| Some(b.definition(v.current?, pos)))?;
                json(serde_json::to_value(found.unwrap_or_default()))
            }
            References::METHOD => {
                let p: ReferenceParams = serde_json::from_value(req.params).map_err(bad)?;
                let uri = p.text_document_position.text_document.uri;
                let pos = p.text_document_position.position;
                let with = p.context.include_declaration;
                let found = self.with_buffer(uri.as_str(), |b, v| {
                    Some(b.references(v.current?, pos, with))
                })?;
                json(serde_json::to_value(found.unwrap_or_default()))
            }
            Completion::METHOD => {
                let p: CompletionParams = serde_json::from_value(req.params).map_err(bad)?;
                let uri = p.text_document_position.text_document.uri;
                let pos = p.text_document_position.position;
                let items = self.with_buffer(uri.as_str(), |b, v| Some(b.complete(v.last, pos)))?;
                json(serde_json::to_value(items.unwrap_or_default()))
            }
            DocumentSymbolRequest::METHOD => {
                let p: DocumentSymbolParams = serde_json::from_value(req.params).map_err(bad)?;
                let found = self.with_buffer(p.text_document.uri.as_str(), |b, v| {
                    Some(crate::features::symbols(b.text, v.current?))
                })?;
                json(serde_json::to_value(found.unwrap_or_default()))
            }
            FoldingRangeRequest::METHOD => {
                let p: FoldingRangeParams = serde_json::from_value(req.params).map_err(bad)?;
                let found = self.with_buffer(p.text_document.uri.as_str(), |_, v| {
                    Some(crate::features::folding(v.current?))
                })?;
                json(serde_json::to_value(found.unwrap_or_default()))
            }
            CodeActionRequest::METHOD => {
                let p: CodeActionParams = serde_json::from_value(req.params).map_err(bad)?;
                json(serde_json::to_value(self.code_actions(&p)))
            }
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("unknown request {}", req.method),
            )),
        }
    }

    /// Runs `f` on the open buffer `uri` with its parse if the current
    /// text parses, and the last parse that succeeded (names for
    /// completion while the buffer is half-typed).
    fn with_buffer<T>(
        &mut self,
        uri: &str,
        f: impl FnOnce(&Buffer<'_>, Views<'_>) -> Option<T>,
    ) -> Result<Option<T>, (ErrorCode, String)> {
        let buffers = self.buffers();
        let Some(doc) = self.docs.get_mut(uri) else {
            return Ok(None);
        };
        if !doc.fresh {
            doc.fresh = true;
            doc.current = Parsed::of(&doc.text).map(Arc::new);
            if doc.current.is_some() {
                doc.last = doc.current.clone();
            }
        }
        let path = doc
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from("/untitled.yaml"));
        let buffer = Buffer {
            uri,
            path: &path,
            text: &doc.text,
            buffers: &buffers,
            loaders: &*self.loaders,
        };
        let views = Views {
            current: doc.current.as_deref(),
            last: doc.last.as_deref(),
            presence: &mut doc.presence,
        };
        // A bug must not take the editor's server down: the request gets
        // an error instead.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&buffer, views))).map_err(|_| {
            (
                ErrorCode::InternalError,
                "internal error (a bug in v4t lsp)".to_string(),
            )
        })
    }

    fn code_actions(&self, p: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        let uri = p.text_document.uri.as_str();
        let fixes = self.fixes.lock().map(|f| f.clone()).unwrap_or_default();
        let mut out = Vec::new();
        for (file, fix) in fixes.values().flatten() {
            let overlaps = fix.range.start <= p.range.end && p.range.start <= fix.range.end;
            if file != uri || !overlaps {
                continue;
            }
            let edit = TextEdit {
                range: fix.range,
                new_text: fix.text.clone(),
            };
            let action = CodeAction {
                title: format!("Replace with \"{}\"", fix.text),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![fix.diagnostic.clone()]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(p.text_document.uri.clone(), vec![edit])])),
                    ..Default::default()
                }),
                is_preferred: Some(true),
                ..Default::default()
            };
            if !out.iter().any(|a: &CodeActionOrCommand| matches!(a, CodeActionOrCommand::CodeAction(b) if b.edit == action.edit)) {
                out.push(CodeActionOrCommand::CodeAction(action));
            }
        }
        out
    }
}
