//! The main loop: the initialize handshake, then one message at a time,
//! every request answered exactly once (a failed handler, a malformed
//! request or a panic become error responses, never silence).

use std::collections::{BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, CodeLensRequest, Completion, DocumentSymbolRequest, ExecuteCommand,
    GotoDefinition, HoverRequest, References, Rename, Request as _, SemanticTokensFullRequest,
};
use lsp_types::{
    CompletionOptions, CompletionResponse, DocumentSymbolResponse, GotoDefinitionResponse,
    InitializeParams, OneOf, PublishDiagnosticsParams, ServerCapabilities,
    TextDocumentPositionParams, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};

use crate::analysis::Doc;
use crate::diagnostics;
use crate::features;
use crate::options::ServerOptions;
use crate::text::{path_to_uri, uri_to_path};
use crate::workspace::Workspace;

/// Why the server stopped other than by `shutdown` and `exit`.
#[derive(Debug)]
pub struct ServerError(String);

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServerError {}

/// A request handler's failure: an LSP error code and a message.
type Failure = (ErrorCode, String);

struct Server<'c> {
    connection: &'c Connection,
    ws: Workspace,
    lib: murano_yaql::eval::Library,
    /// Files each package has diagnostics published on.
    published: HashMap<usize, BTreeSet<String>>,
    /// Files the editor holds open (their text is the editor's).
    open: std::collections::HashSet<PathBuf>,
}

/// The capabilities announced to the client.
fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into(), ":".into()]),
            ..Default::default()
        }),
        semantic_tokens_provider: Some(
            lsp_types::SemanticTokensOptions {
                legend: crate::tokens::legend(),
                full: Some(lsp_types::SemanticTokensFullOptions::Bool(true)),
                ..Default::default()
            }
            .into(),
        ),
        code_action_provider: Some(lsp_types::CodeActionProviderCapability::Simple(true)),
        code_lens_provider: Some(lsp_types::CodeLensOptions {
            resolve_provider: Some(false),
        }),
        execute_command_provider: Some(lsp_types::ExecuteCommandOptions {
            commands: vec![crate::lens::RUN_TEST.to_owned()],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The folders of the client's workspace.
#[allow(deprecated)] // root_uri and root_path are what older clients send.
fn roots(params: &InitializeParams) -> Vec<PathBuf> {
    if let Some(folders) = &params.workspace_folders {
        let roots: Vec<PathBuf> = folders.iter().filter_map(|f| uri_to_path(&f.uri)).collect();
        if !roots.is_empty() {
            return roots;
        }
    }
    if let Some(path) = params.root_uri.as_ref().and_then(uri_to_path) {
        return vec![path];
    }
    params.root_path.iter().map(PathBuf::from).collect()
}

/// Serves `connection` until the client's `shutdown` and `exit` (or
/// until the connection closes).
pub fn run(connection: Connection, options: ServerOptions) -> Result<(), ServerError> {
    let (id, params) = connection
        .initialize_start()
        .map_err(|e| ServerError(e.to_string()))?;
    let params: InitializeParams = serde_json::from_value(params)
        .map_err(|e| ServerError(format!("bad initialize params: {e}")))?;
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": {"name": "murano-lsp", "version": env!("CARGO_PKG_VERSION")},
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| ServerError(e.to_string()))?;
    let ws = Workspace::load(&roots(&params), options);
    let mut server = Server {
        connection: &connection,
        ws,
        lib: murano_engine::yaql_library(),
        published: HashMap::new(),
        open: std::collections::HashSet::new(),
    };
    let all: Vec<usize> = (0..server.ws.packages.len()).collect();
    server.publish(&all);
    for message in &connection.receiver {
        match message {
            Message::Request(req) => {
                if req.method == "shutdown" {
                    let _ = connection
                        .sender
                        .send(Response::new_ok(req.id, serde_json::Value::Null).into());
                    continue;
                }
                let response = server.request(req);
                if connection.sender.send(response.into()).is_err() {
                    return Ok(());
                }
            }
            Message::Notification(note) => {
                if note.method == "exit" {
                    return Ok(());
                }
                let _ = catch_unwind(AssertUnwindSafe(|| server.notification(note)));
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

impl Server<'_> {
    fn send(&self, message: Message) {
        let _ = self.connection.sender.send(message);
    }

    /// Checks packages and publishes their diagnostics, clearing files
    /// that had some and have none now.
    fn publish(&mut self, packages: &[usize]) {
        for &pi in packages {
            let package = &self.ws.packages[pi];
            if !package.checked || package.root().is_none() {
                continue;
            }
            let findings = self.ws.check(pi);
            let by_file = diagnostics::to_lsp(package, &findings);
            let before = self.published.remove(&pi).unwrap_or_default();
            let now: BTreeSet<String> = by_file.keys().cloned().collect();
            let cleared = before.difference(&now).map(|f| (f.clone(), Vec::new()));
            let updates: Vec<_> = by_file.into_iter().chain(cleared).collect();
            for (rel, diagnostics) in updates {
                let Some(uri) = self.ws.path_of(pi, &rel).as_deref().and_then(path_to_uri) else {
                    continue;
                };
                let params = PublishDiagnosticsParams::new(uri, diagnostics, None);
                self.send(Notification::new(PublishDiagnostics::METHOD.to_owned(), params).into());
            }
            self.published.insert(pi, now);
        }
    }

    fn notification(&mut self, note: Notification) {
        let changed = match note.method.as_str() {
            DidOpenTextDocument::METHOD => {
                serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(note.params)
                    .ok()
                    .and_then(|p| {
                        self.open.extend(uri_to_path(&p.text_document.uri));
                        self.set_text(&p.text_document.uri, &p.text_document.text)
                    })
            }
            DidChangeTextDocument::METHOD => {
                serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(note.params)
                    .ok()
                    .and_then(|p| {
                        // Full sync: the last change holds the whole text.
                        let text = p.content_changes.last()?.text.clone();
                        self.set_text(&p.text_document.uri, &text)
                    })
            }
            DidCloseTextDocument::METHOD | DidSaveTextDocument::METHOD => {
                serde_json::from_value::<lsp_types::TextDocumentIdentifier>(
                    note.params.get("textDocument").cloned().unwrap_or_default(),
                )
                .ok()
                .and_then(|doc| {
                    let path = uri_to_path(&doc.uri)?;
                    if note.method == DidCloseTextDocument::METHOD {
                        self.open.remove(&path);
                        self.ws.reload(&path).map(|pi| vec![pi])
                    } else {
                        None
                    }
                })
            }
            "workspace/didChangeWatchedFiles" => {
                // Files changed on disk (a checkout, another tool): read
                // again, unless the editor holds them open.
                serde_json::from_value::<lsp_types::DidChangeWatchedFilesParams>(note.params)
                    .ok()
                    .map(|p| {
                        let mut packages: Vec<usize> = p
                            .changes
                            .iter()
                            .filter(|c| c.typ != lsp_types::FileChangeType::DELETED)
                            .filter_map(|c| uri_to_path(&c.uri))
                            .filter(|path| !self.open.contains(path))
                            .filter_map(|path| self.ws.reload(&path))
                            .collect();
                        packages.sort_unstable();
                        packages.dedup();
                        packages
                    })
                    .filter(|p| !p.is_empty())
            }
            _ => None,
        };
        if let Some(changed) = changed {
            self.publish(&changed);
        }
    }

    /// Lays an editor's text over a file; the packages to check again:
    /// the file's own, or all when what it declares for the others (its
    /// classes and their shapes) changed.
    fn set_text(&mut self, uri: &Uri, text: &str) -> Option<Vec<usize>> {
        let path = uri_to_path(uri)?;
        let (pi, _) = self.ws.locate(&path)?;
        let before = self.ws.packages[pi].class_index.clone();
        self.ws.set_text(&path, text)?;
        if self.ws.packages[pi].class_index != before {
            Some((0..self.ws.packages.len()).collect())
        } else {
            Some(vec![pi])
        }
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let outcome = catch_unwind(AssertUnwindSafe(|| self.dispatch(req)));
        match outcome {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                "the server failed on this request".to_owned(),
            ),
        }
    }

    fn dispatch(&mut self, req: Request) -> Result<serde_json::Value, Failure> {
        match req.method.as_str() {
            HoverRequest::METHOD => self.on::<HoverRequest>(req, |s, p| {
                s.at(&p.text_document_position_params, |ws, lib, doc, at| {
                    features::hover(ws, lib, doc, at)
                })
            }),
            GotoDefinition::METHOD => self.on::<GotoDefinition>(req, |s, p| {
                s.at(&p.text_document_position_params, |ws, lib, doc, at| {
                    features::definition(ws, lib, doc, at).map(GotoDefinitionResponse::Scalar)
                })
            }),
            References::METHOD => self.on::<References>(req, |s, p| {
                let declaration = p.context.include_declaration;
                s.at(&p.text_document_position, |ws, lib, doc, at| {
                    Some(features::references(ws, lib, doc, at, declaration))
                })
            }),
            Rename::METHOD => self.on::<Rename>(req, |s, p| {
                let new_name = p.new_name.clone();
                let result = s.at(&p.text_document_position, |ws, lib, doc, at| {
                    Some(features::rename(ws, lib, doc, at, &new_name))
                });
                match result {
                    Ok(Some(Ok(edit))) => Ok(Some(edit)),
                    Ok(Some(Err(message))) => Err((ErrorCode::RequestFailed, message)),
                    Ok(None) => Err((
                        ErrorCode::RequestFailed,
                        "the file is in no package of the workspace".to_owned(),
                    )),
                    Err(e) => Err(e),
                }
            }),
            Completion::METHOD => self.on::<Completion>(req, |s, p| {
                s.at(&p.text_document_position, |ws, lib, doc, at| {
                    Some(CompletionResponse::Array(features::completion(
                        ws, lib, doc, at,
                    )))
                })
            }),
            DocumentSymbolRequest::METHOD => self.on::<DocumentSymbolRequest>(req, |s, p| {
                let position = TextDocumentPositionParams::new(
                    p.text_document.clone(),
                    lsp_types::Position::default(),
                );
                s.at(&position, |ws, _, doc, _| {
                    Some(DocumentSymbolResponse::Nested(features::symbols(ws, doc)))
                })
            }),
            SemanticTokensFullRequest::METHOD => {
                self.on::<SemanticTokensFullRequest>(req, |s, p| {
                    let load = s.ws.load.clone();
                    s.doc(&p.text_document.uri, |_, _, doc| {
                        let data = crate::tokens::semantic_tokens(doc, &load);
                        Some(lsp_types::SemanticTokensResult::Tokens(
                            lsp_types::SemanticTokens {
                                result_id: None,
                                data,
                            },
                        ))
                    })
                })
            }
            CodeActionRequest::METHOD => self.on::<CodeActionRequest>(req, |s, p| {
                let uri = p.text_document.uri.clone();
                s.doc(&p.text_document.uri, |ws, _, doc| {
                    let actions =
                        crate::actions::code_actions(ws, &uri, doc, &p.context.diagnostics);
                    Some(actions.into_iter().map(Into::into).collect())
                })
            }),
            CodeLensRequest::METHOD => self.on::<CodeLensRequest>(req, |s, p| {
                let uri = p.text_document.uri.clone();
                s.doc(&p.text_document.uri, |ws, _, doc| {
                    Some(crate::lens::code_lenses(ws, &uri, doc))
                })
            }),
            ExecuteCommand::METHOD => self.on::<ExecuteCommand>(req, |s, p| s.execute(p)),
            other => Err((
                ErrorCode::MethodNotFound,
                format!("unknown request {other}"),
            )),
        }
    }

    /// Parses a request's params (`InvalidParams` when they do not
    /// parse) and serializes the handler's result.
    fn on<R: lsp_types::request::Request>(
        &mut self,
        req: Request,
        handler: impl FnOnce(&mut Self, R::Params) -> Result<R::Result, Failure>,
    ) -> Result<serde_json::Value, Failure> {
        let params: R::Params = serde_json::from_value(req.params)
            .map_err(|e| (ErrorCode::InvalidParams, format!("invalid params: {e}")))?;
        let result = handler(self, params)?;
        serde_json::to_value(result).map_err(|e| (ErrorCode::InternalError, e.to_string()))
    }

    /// Runs `f` on a document; `None` when the file is in no package.
    fn doc<T>(
        &self,
        uri: &Uri,
        f: impl FnOnce(&Workspace, &murano_yaql::eval::Library, &Doc) -> Option<T>,
    ) -> Result<Option<T>, Failure> {
        let Some((pi, rel)) = uri_to_path(uri).and_then(|p| self.ws.locate(&p)) else {
            return Ok(None);
        };
        let Some(doc) = Doc::new(&self.ws, pi, &rel) else {
            return Ok(None);
        };
        Ok(f(&self.ws, &self.lib, &doc))
    }

    /// `workspace/executeCommand`: runs a test method (the code lens's
    /// command); the result is shown as a message and returned.
    fn execute(
        &mut self,
        params: lsp_types::ExecuteCommandParams,
    ) -> Result<Option<serde_json::Value>, Failure> {
        if params.command != crate::lens::RUN_TEST {
            return Err((
                ErrorCode::InvalidParams,
                format!("unknown command {}", params.command),
            ));
        }
        let arg = |i: usize| {
            params
                .arguments
                .get(i)
                .and_then(|v| v.as_str())
                .map(str::to_owned)
        };
        let (Some(uri), Some(class), Some(method)) = (arg(0), arg(1), arg(2)) else {
            return Err((
                ErrorCode::InvalidParams,
                "expected the arguments file URI, class, method".to_owned(),
            ));
        };
        let located = uri
            .parse::<Uri>()
            .ok()
            .and_then(|u| uri_to_path(&u))
            .and_then(|p| self.ws.locate(&p));
        let Some((pi, _)) = located else {
            return Err((
                ErrorCode::InvalidParams,
                "the file is in no package of the workspace".to_owned(),
            ));
        };
        let outcome = crate::lens::run_test(&self.ws, pi, &class, &method);
        let (kind, message) = match &outcome {
            Ok(m) => (lsp_types::MessageType::INFO, m.clone()),
            Err(m) => (lsp_types::MessageType::ERROR, m.clone()),
        };
        let show = lsp_types::ShowMessageParams {
            typ: kind,
            message: message.clone(),
        };
        self.send(
            Notification::new(
                <lsp_types::notification::ShowMessage as lsp_types::notification::Notification>::METHOD
                    .to_owned(),
                show,
            )
            .into(),
        );
        Ok(Some(
            serde_json::json!({"passed": outcome.is_ok(), "message": message}),
        ))
    }

    /// Runs `f` on the document and byte offset of a position; `None`
    /// when the file is in no package.
    fn at<T>(
        &self,
        position: &TextDocumentPositionParams,
        f: impl FnOnce(&Workspace, &murano_yaql::eval::Library, &Doc, usize) -> Option<T>,
    ) -> Result<Option<T>, Failure> {
        let Some(path) = uri_to_path(&position.text_document.uri) else {
            return Ok(None);
        };
        let Some((pi, rel)) = self.ws.locate(&path) else {
            return Ok(None);
        };
        let Some(doc) = Doc::new(&self.ws, pi, &rel) else {
            return Ok(None);
        };
        let offset = doc.lines.byte_of(&doc.text, position.position);
        Ok(f(&self.ws, &self.lib, &doc, offset))
    }
}
