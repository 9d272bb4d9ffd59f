//! `forgelint lsp`: a language server over standard input and output. It lints the documents
//! an editor has open as `forgelint check` lints their files, from the editor's text, and
//! publishes the findings as diagnostics; it offers their fixes as quick fixes and explains
//! their rules on hover. One thread serves the protocol (lsp-server's synchronous loop, fed by
//! our own bounded framing reader, [`transport`]), with a large stack for hostile documents; a
//! lint that crashes a rule is caught and becomes a diagnostic, not the end of the server.

mod convert;
mod documents;
mod features;
pub mod transport;
mod workspace;

use std::path::{Path, PathBuf};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{PublishDiagnosticsParams, Uri};
use serde_json::{json, Value};

use crate::env::{Env, ExitStatus};
use crate::error::Error;
use documents::Documents;
use workspace::Workspace;

/// Serves the protocol on standard input and output until the client says `exit`: status 0
/// after a `shutdown`, 1 without one (as the protocol asks).
pub fn run(env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    // Our own framing reader, not lsp-server's: see `transport`.
    let (connection, io_threads) = transport::stdio();
    let cwd = env.cwd.clone();
    let status = std::thread::scope(|scope| {
        let server = std::thread::Builder::new()
            .name("forgelint-lsp".into())
            .stack_size(SERVER_STACK)
            .spawn_scoped(scope, || serve(&connection, &cwd))
            .map_err(|e| Error::usage(format!("cannot start the language server: {e}")))?;
        server
            .join()
            .unwrap_or_else(|_| Err(Error::usage("the language server crashed (a bug)")))
    });
    let exited = matches!(status, Ok(Some(_)));
    drop(connection);
    // The reader stops at `exit`; otherwise it may be blocked on standard input for good.
    if exited {
        io_threads
            .join()
            .map_err(|e| Error::usage(format!("the language server's streams failed: {e}")))?;
    }
    Ok(status?.unwrap_or(ExitStatus::Failure))
}

/// Stack of the server's thread: a hostile document nests deep, and the server must outlive it.
const SERVER_STACK: usize = 64 * 1024 * 1024;

/// The session: the handshake, then every message until `exit` (`Some`) or the end of the
/// input (`None`).
fn serve(connection: &Connection, cwd: &Path) -> Result<Option<ExitStatus>, Error> {
    let protocol = |e: lsp_server::ProtocolError| Error::usage(format!("language server: {e}"));
    let (id, params) = connection.initialize_start().map_err(protocol)?;
    let root = workspace_root(&params).unwrap_or_else(|| cwd.to_path_buf());
    let result = json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "forgelint", "version": env!("CARGO_PKG_VERSION") },
    });
    connection.initialize_finish(id, result).map_err(protocol)?;
    let mut server = Server {
        connection,
        workspace: Workspace::new(root),
        documents: Documents::default(),
        shut_down: false,
    };
    if watches_files(&params) {
        server.watch_settings_files();
    }
    for message in &connection.receiver {
        match message {
            Message::Request(request) => server.request(request),
            Message::Notification(n) if n.method == note::Exit::METHOD => {
                return Ok(Some(if server.shut_down {
                    ExitStatus::Success
                } else {
                    ExitStatus::Failure
                }));
            }
            Message::Notification(n) => server.notification(n),
            // The answer to the file watchers' registration: nothing to do with it.
            Message::Response(_) => {}
        }
    }
    Ok(None)
}

/// What the server offers: open/close and incremental changes, saves, quick fixes and hover.
fn capabilities() -> Value {
    json!({
        "textDocumentSync": {
            "openClose": true,
            "change": 2,
            "save": { "includeText": false },
        },
        "codeActionProvider": { "codeActionKinds": ["quickfix"] },
        "hoverProvider": true,
    })
}

/// The folder the client opened: its first workspace folder, else `rootUri`, else
/// `rootPath`.
fn workspace_root(params: &Value) -> Option<PathBuf> {
    let folder = params
        .pointer("/workspaceFolders/0/uri")
        .or_else(|| params.get("rootUri"))
        .and_then(Value::as_str)
        .and_then(convert::uri_to_path);
    folder
        .or_else(|| params.get("rootPath")?.as_str().map(PathBuf::from))
        .filter(|p| p.is_absolute())
}

/// Whether the client can be asked to watch files (dynamic registration).
fn watches_files(params: &Value) -> bool {
    params
        .pointer("/capabilities/workspace/didChangeWatchedFiles/dynamicRegistration")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

struct Server<'c> {
    connection: &'c Connection,
    workspace: Workspace,
    documents: Documents,
    /// `shutdown` was received: only `exit` is expected now.
    shut_down: bool,
}

/// A request's failure: its JSON-RPC error code and message.
struct Failure(ErrorCode, String);

impl Server<'_> {
    fn send(&self, message: impl Into<Message>) {
        // Fails only when the writer is gone (the client closed the stream): the loop ends
        // with the input then.
        self.connection.sender.send(message.into()).ok();
    }

    /// Answers a request; a panic while answering is an error response, not the end.
    fn request(&mut self, request: Request) {
        let id = request.id.clone();
        let answered =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.answer(request)));
        let response = match answered {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err(Failure(code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                "forgelint crashed answering this request (a bug in forgelint)".into(),
            ),
        };
        self.send(response);
    }

    fn answer(&mut self, request: Request) -> Result<Value, Failure> {
        if self.shut_down {
            return Err(Failure(
                ErrorCode::InvalidRequest,
                "the server is shut down".into(),
            ));
        }
        match request.method.as_str() {
            req::Shutdown::METHOD => {
                self.shut_down = true;
                Ok(Value::Null)
            }
            req::CodeActionRequest::METHOD => {
                let params: lsp_types::CodeActionParams = params_of(request.params)?;
                let Some(doc) = self.documents.get(&params.text_document.uri) else {
                    return Ok(Value::Null);
                };
                let actions = features::code_actions(doc, &params.range, &mut self.workspace);
                to_value(actions)
            }
            req::HoverRequest::METHOD => {
                let params: lsp_types::HoverParams = params_of(request.params)?;
                let at = params.text_document_position_params;
                let Some(doc) = self.documents.get(&at.text_document.uri) else {
                    return Ok(Value::Null);
                };
                to_value(features::hover(doc, at.position, &mut self.workspace))
            }
            other => Err(Failure(
                ErrorCode::MethodNotFound,
                format!(
                    "forgelint does not answer {}",
                    crate::escape::visible(other)
                ),
            )),
        }
    }

    /// Acts on a notification; one it cannot read or that crashes is logged to the client.
    fn notification(&mut self, n: Notification) {
        let method = n.method.clone();
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.act(n)));
        let problem = match done {
            Ok(Ok(())) => return,
            Ok(Err(Failure(_, message))) => message,
            Err(_) => "forgelint crashed (a bug in forgelint)".into(),
        };
        self.log(&format!("{method}: {problem}"));
    }

    fn act(&mut self, n: Notification) -> Result<(), Failure> {
        match n.method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                let params: lsp_types::DidOpenTextDocumentParams = params_of(n.params)?;
                let doc = params.text_document;
                self.documents.open(doc.uri.clone(), doc.version, doc.text);
                self.lint(&doc.uri);
            }
            note::DidChangeTextDocument::METHOD => {
                let params: lsp_types::DidChangeTextDocumentParams = params_of(n.params)?;
                let doc = params.text_document;
                if self
                    .documents
                    .change(&doc.uri, doc.version, params.content_changes)
                {
                    self.lint(&doc.uri);
                }
            }
            note::DidSaveTextDocument::METHOD => {
                let params: lsp_types::DidSaveTextDocumentParams = params_of(n.params)?;
                self.saved(&params.text_document.uri);
            }
            note::DidCloseTextDocument::METHOD => {
                let params: lsp_types::DidCloseTextDocumentParams = params_of(n.params)?;
                if let Some(doc) = self.documents.close(&params.text_document.uri) {
                    self.publish(doc.uri, Vec::new(), None);
                }
            }
            note::DidChangeWatchedFiles::METHOD => {
                let params: lsp_types::DidChangeWatchedFilesParams = params_of(n.params)?;
                let settings_changed = params.changes.iter().any(|change| {
                    convert::uri_to_path(change.uri.as_str())
                        .is_some_and(|p| Workspace::is_setting_file(&p))
                });
                if settings_changed {
                    self.reload();
                }
            }
            // Anything else (`$/cancelRequest`, `$/setTrace`, …) needs nothing from us.
            _ => {}
        }
        Ok(())
    }

    /// A saved config, rule file or catalog changes what every file is linted with.
    fn saved(&mut self, uri: &Uri) {
        let path = self.documents.get(uri).and_then(|d| d.path.clone());
        match path {
            Some(path) if Workspace::is_setting_file(&path) => self.reload(),
            Some(_) => self.lint(uri),
            None => {}
        }
    }

    /// Compiles the configs again and lints every open document with them.
    fn reload(&mut self) {
        self.workspace.reload();
        for uri in self.documents.uris() {
            self.lint(&uri);
        }
    }

    /// Lints an open document and publishes its diagnostics.
    fn lint(&mut self, uri: &Uri) {
        let Some(doc) = self.documents.get(uri) else {
            return;
        };
        let Some(path) = doc.path.clone() else {
            return;
        };
        let version = doc.version;
        let linted = self.workspace.lint(&path, &doc.text, uri);
        if let Some(doc) = self.documents.get_mut(uri) {
            doc.findings = linted.findings;
        }
        self.publish(uri.clone(), linted.diagnostics, Some(version));
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.send(Notification::new(
            note::PublishDiagnostics::METHOD.into(),
            params,
        ));
    }

    fn log(&self, message: &str) {
        let params = lsp_types::LogMessageParams {
            typ: lsp_types::MessageType::WARNING,
            message: format!("forgelint: {message}"),
        };
        self.send(Notification::new(note::LogMessage::METHOD.into(), params));
    }

    /// Asks the client to say when a config, rule file or catalog changes on disk.
    fn watch_settings_files(&self) {
        let watchers: Vec<Value> = ["**/forgelint.toml", "**/.forgelint.toml", "**/*.toml"]
            .iter()
            .map(|glob| json!({ "globPattern": glob }))
            .collect();
        let params = json!({
            "registrations": [{
                "id": "forgelint-settings-files",
                "method": note::DidChangeWatchedFiles::METHOD,
                "registerOptions": { "watchers": watchers },
            }]
        });
        let id = RequestId::from("forgelint-watch".to_string());
        self.send(Request::new(
            id,
            req::RegisterCapability::METHOD.into(),
            params,
        ));
    }
}

fn params_of<P: serde::de::DeserializeOwned>(params: Value) -> Result<P, Failure> {
    serde_json::from_value(params)
        .map_err(|e| Failure(ErrorCode::InvalidParams, format!("invalid parameters: {e}")))
}

fn to_value(value: impl serde::Serialize) -> Result<Value, Failure> {
    serde_json::to_value(value).map_err(|e| Failure(ErrorCode::InternalError, e.to_string()))
}
