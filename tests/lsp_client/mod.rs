//! A scripted language client for `forgelint lsp`, shared by `tests/lsp.rs` and
//! `benches/lsp.rs`: the server's process, messages framed by the base protocol, and waits that
//! time out (a server that hangs fails instead of blocking).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const TIMEOUT: Duration = Duration::from_secs(60);

/// A language client: the server's process, its input, and the messages it sent.
pub struct Client {
    child: Child,
    /// `None` once closed.
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Messages read while waiting for another one.
    pub backlog: Vec<Value>,
    next_id: i64,
    stderr: Arc<Mutex<String>>,
}

impl Client {
    /// Starts `BIN lsp` in `root` and initializes it with `root` as the workspace.
    pub fn start(bin: &str, root: &Path, env: &[(&str, &str)]) -> Client {
        let mut command = Command::new(bin);
        command
            .arg("lsp")
            .current_dir(root)
            .env_remove("FORGELINT_PANIC_ON")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("forgelint lsp starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (send, messages) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if send.send(message).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().expect("piped stderr");
        let collected = stderr.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).ok();
            collected.lock().unwrap().push_str(&text);
        });
        let mut client = Client {
            stdin: child.stdin.take(),
            child,
            messages,
            backlog: Vec::new(),
            next_id: 1,
            stderr,
        };
        let id = client.request(
            "initialize",
            json!({ "processId": null, "rootUri": uri(root), "capabilities": {} }),
        );
        let result = client.response(id);
        assert_eq!(result["result"]["capabilities"]["hoverProvider"], true);
        client.notify("initialized", json!({}));
        client
    }

    pub fn send(&mut self, message: Value) {
        let body = message.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// Writes `bytes` to the server's input as they are: a frame of one's own making.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("the server's input is open");
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .expect("the server reads its input");
    }

    /// Closes the server's input: the end of the session without `exit`.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The server's peak resident memory so far, in KiB (Linux).
    pub fn peak_rss_kb(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    pub fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// The first message `wanted` takes, waiting at most [`TIMEOUT`].
    pub fn wait_for(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.backlog.iter().position(&wanted) {
            return self.backlog.remove(at);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.backlog.push(message),
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no {what} within {TIMEOUT:?}; stderr:\n{}",
                    self.stderr.lock().unwrap()
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "the server closed its output waiting for {what}; stderr:\n{}",
                    self.stderr.lock().unwrap()
                ),
            }
        }
    }

    /// The response to request `id`.
    pub fn response(&mut self, id: i64) -> Value {
        self.wait_for(&format!("response {id}"), |m| {
            m.get("method").is_none() && m["id"] == id
        })
    }

    /// The diagnostics published for `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let message = self.wait_for(&format!("diagnostics of {uri} v{version}"), |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        message["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": {
                "uri": uri, "languageId": "json", "version": 1, "text": text
            }}),
        );
    }

    /// Asks for a hover, proving the server still answers.
    pub fn hover(&mut self, uri: &str, line: u64, character: u64) -> Value {
        let id = self.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri },
                    "position": { "line": line, "character": character } }),
        );
        self.response(id)
    }

    /// Shuts the server down; its exit code.
    pub fn shutdown(mut self) -> i32 {
        let id = self.request("shutdown", Value::Null);
        let response = self.response(id);
        assert!(response.get("error").is_none(), "{response}");
        self.notify("exit", Value::Null);
        self.wait_exit()
    }

    pub fn wait_exit(&mut self) -> i32 {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for the server") {
                return status.code().expect("an exit code, not a signal");
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

/// One message of the base protocol: headers, a blank line, `Content-Length` bytes of JSON.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The `file:` URI of a path (the tests' paths need no escaping).
pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}
