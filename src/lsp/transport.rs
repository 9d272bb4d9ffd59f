//! The base protocol on standard input and output: messages framed by a `Content-Length`
//! header, read by a framing reader of our own in front of lsp-server's message loop.
//!
//! lsp-server's reader sizes its buffer from the header before reading (a `Content-Length` of
//! 10^12 aborts the process, 2^63 panics, 4·10^9 takes gigabytes) and ends the session at the
//! first body that is not a message. Here a length is bounded ([`MAX_BODY`]); a body is read
//! as its bytes arrive, never allocated ahead; a longer one is answered with an error and its
//! bytes are skipped as they come, in constant memory. A body that is not JSON is answered
//! `-32700 Parse error`, one that is JSON but no message `-32600 Invalid Request` (id `null`
//! when none can be read, as JSON-RPC says), and the session goes on. A header that cannot be
//! read is answered too, and reading resumes at the next `Content-Length` header.

use std::io::{self, BufRead, Read, Write};
use std::thread;

use crossbeam_channel::{bounded, Receiver, Sender};
use lsp_server::{Connection, Message};
use serde_json::{json, Value};

/// The largest body read: a spec at the size limit, twice over for its JSON escapes.
pub const MAX_BODY: u64 = 2 * crate::read::MAX_FILE_SIZE;

/// A header line longer than this is not a header: its rest is skipped.
const MAX_HEADER_LINE: usize = 8 * 1024;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// The threads that read standard input and write standard output.
pub struct Transport {
    reader: thread::JoinHandle<()>,
    writer: thread::JoinHandle<io::Result<()>>,
}

impl Transport {
    /// Waits for both threads: the reader stops at `exit` or the end of its input, the writer
    /// once the connection is dropped.
    pub fn join(self) -> io::Result<()> {
        let read = self.reader.join();
        let written = self
            .writer
            .join()
            .map_err(|_| io::Error::other("the writer thread panicked"))?;
        read.map_err(|_| io::Error::other("the reader thread panicked"))?;
        written
    }
}

/// A connection over standard input and output.
pub fn stdio() -> (Connection, Transport) {
    let (to_server, from_client) = bounded::<Message>(0);
    let (to_client, from_server) = bounded::<Message>(0);
    let writer = thread::Builder::new()
        .name("forgelint-lsp-writer".into())
        .spawn(move || write_messages(&from_server))
        .expect("a thread to write the protocol's output");
    let reader = thread::Builder::new()
        .name("forgelint-lsp-reader".into())
        .spawn(move || {
            let stdin = io::stdin();
            let mut input = stdin.lock();
            read_messages(&mut input, &to_server, &mut |error| {
                // Written whole under the lock, so it cannot split another message.
                let mut out = io::stdout().lock();
                let _ = write_frame(&mut out, &error.to_string());
            });
        })
        .expect("a thread to read the protocol's input");
    (
        Connection {
            sender: to_client,
            receiver: from_client,
        },
        Transport { reader, writer },
    )
}

fn write_messages(messages: &Receiver<Message>) -> io::Result<()> {
    for message in messages {
        let mut out = io::stdout().lock();
        message.write(&mut out)?;
    }
    Ok(())
}

fn write_frame(out: &mut impl Write, body: &str) -> io::Result<()> {
    write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    out.flush()
}

/// An error response that answers no request the server saw.
fn error_response(id: Value, code: i64, message: String) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// Reads framed messages from `input` and hands them to the server until `exit`, the end of
/// the input, or the server is gone; what cannot be read is answered through `answer`.
pub fn read_messages(
    input: &mut impl BufRead,
    server: &Sender<Message>,
    answer: &mut dyn FnMut(Value),
) {
    loop {
        let body = match read_frame(input) {
            Ok(Frame::Body(body)) => body,
            Ok(Frame::End) | Err(_) => return,
            Ok(Frame::Refused(why)) => {
                answer(error_response(Value::Null, PARSE_ERROR, why));
                continue;
            }
            Ok(Frame::TooLong(length)) => {
                // Answered first; then its bytes are skipped as they come.
                answer(error_response(
                    Value::Null,
                    PARSE_ERROR,
                    format!("Parse error: a message of {length} bytes is over the limit of {MAX_BODY} bytes; it is skipped"),
                ));
                if io::copy(&mut input.take(length), &mut io::sink()).is_err() {
                    return;
                }
                continue;
            }
        };
        let message = match serde_json::from_slice::<Message>(&body) {
            // lsp-server reads any object with an `id` as a response; one is a response only
            // with a `result` or an `error` (responses are small: read again to tell).
            Ok(Message::Response(_)) if !is_response(&body) => {
                answer(not_a_message(&body));
                continue;
            }
            Ok(message) => message,
            Err(_) => {
                answer(not_a_message(&body));
                continue;
            }
        };
        let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
        if server.send(message).is_err() || exit {
            return;
        }
    }
}

/// Whether a body read as a response has a `result` or an `error`.
fn is_response(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body)
        .is_ok_and(|v| v.get("result").is_some() || v.get("error").is_some())
}

/// The answer to a body that is no message: not JSON, or JSON of another shape.
fn not_a_message(body: &[u8]) -> Value {
    match serde_json::from_slice::<Value>(body) {
        Err(e) => error_response(
            Value::Null,
            PARSE_ERROR,
            format!("Parse error: the message is not JSON ({e})"),
        ),
        Ok(value) => {
            let id = match value.get("id") {
                Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
                _ => Value::Null,
            };
            error_response(
                id,
                INVALID_REQUEST,
                "Invalid Request: the message is not a JSON-RPC request, response or notification"
                    .into(),
            )
        }
    }
}

/// What one frame of the input holds.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    Body(Vec<u8>),
    /// A frame whose header cannot be read: why. Reading resumes at the next header.
    Refused(String),
    /// A frame whose body is over [`MAX_BODY`]: its length. Its body is not read.
    TooLong(u64),
    /// The end of the input.
    End,
}

/// Reads the next frame: its headers, then its body as its bytes arrive.
pub fn read_frame(input: &mut impl BufRead) -> io::Result<Frame> {
    let mut length: Option<Result<u64, String>> = None;
    let mut line = Vec::new();
    loop {
        if !read_line(input, &mut line)? {
            return Ok(Frame::End);
        }
        let text = trim_line_end(&line);
        if text.is_empty() {
            if length.is_some() {
                break;
            }
            // A blank line before any header: nothing to frame yet.
            continue;
        }
        // Other headers (`Content-Type`) and anything that is no header are passed over up to
        // the next `Content-Length`, which may follow on the same line (the rest of a body
        // without a line break).
        let Some(at) = find_content_length(text) else {
            continue;
        };
        let header = &text[at..];
        length = Some(parse_length(&header[CONTENT_LENGTH.len()..]));
    }
    let length = match length {
        Some(Ok(length)) => length,
        Some(Err(why)) => return Ok(Frame::Refused(why)),
        None => return Ok(Frame::End),
    };
    if length > MAX_BODY {
        return Ok(Frame::TooLong(length));
    }
    let mut body = Vec::new();
    input.take(length).read_to_end(&mut body)?;
    if (body.len() as u64) < length {
        return Ok(Frame::End);
    }
    Ok(Frame::Body(body))
}

const CONTENT_LENGTH: &[u8] = b"content-length:";

/// Where `Content-Length:` begins in `line` (any case).
fn find_content_length(line: &[u8]) -> Option<usize> {
    line.windows(CONTENT_LENGTH.len())
        .position(|w| w.eq_ignore_ascii_case(CONTENT_LENGTH))
}

/// The value of a `Content-Length` header: decimal digits, at most [`u64::MAX`].
fn parse_length(value: &[u8]) -> Result<u64, String> {
    let digits = value.trim_ascii();
    let shown = String::from_utf8_lossy(&digits[..digits.len().min(40)]).into_owned();
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "Parse error: the Content-Length {:?} is not a number of bytes",
            crate::escape::visible(&shown)
        ));
    }
    std::str::from_utf8(digits)
        .ok()
        .and_then(|d| d.parse::<u64>().ok())
        .ok_or_else(|| {
            format!("Parse error: the Content-Length {shown} is over the limit of {MAX_BODY} bytes")
        })
}

/// Reads one line (to `\n`, kept) into `line`, at most [`MAX_HEADER_LINE`] bytes of it: the
/// rest of a longer line is read and dropped. `false` at the end of the input.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    let mut any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(any);
        }
        any = true;
        let (take, done) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        let room = MAX_HEADER_LINE.saturating_sub(line.len());
        line.extend_from_slice(&available[..take.min(room)]);
        input.consume(take);
        if done {
            return Ok(true);
        }
    }
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Frame> {
        let mut input = io::BufReader::with_capacity(16, input);
        let mut out = Vec::new();
        loop {
            match read_frame(&mut input).unwrap() {
                Frame::End => return out,
                frame => out.push(frame),
            }
        }
    }

    #[test]
    fn frames_are_read_by_their_length_and_headers_in_any_case() {
        let got = frames(
            b"Content-Length: 2\r\n\r\n{}content-length:3\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n[1]",
        );
        assert_eq!(
            got,
            [Frame::Body(b"{}".to_vec()), Frame::Body(b"[1]".to_vec())]
        );
    }

    #[test]
    fn huge_and_bad_lengths_are_refused_without_allocating() {
        for length in [1_000_000_000_000, 9_223_372_036_854_775_808, 4_000_000_000] {
            let input = format!("Content-Length: {length}\r\n\r\n{{\"a\":1}}");
            let mut input = io::BufReader::new(input.as_bytes());
            assert_eq!(read_frame(&mut input).unwrap(), Frame::TooLong(length));
        }
        let got = frames(b"Content-Length: 99999999999999999999999\r\n\r\n");
        assert!(matches!(&got[0], Frame::Refused(why) if why.contains("over the limit")));
        let got = frames(b"Content-Length: -1\r\n\r\nContent-Length: 2\r\n\r\n{}");
        assert!(matches!(&got[0], Frame::Refused(why) if why.contains("not a number")));
        assert_eq!(got[1], Frame::Body(b"{}".to_vec()));
    }

    #[test]
    fn reading_resumes_at_the_next_header() {
        // Junk, a header line without a colon, a body run into the next header.
        let long = "x".repeat(3 * MAX_HEADER_LINE);
        let input = format!("garbage\r\n{long}\r\nnot json{{Content-Length: 2\r\n\r\n{{}}");
        assert_eq!(frames(input.as_bytes()), [Frame::Body(b"{}".to_vec())]);
        // A body cut short by the end of the input is no frame.
        assert_eq!(frames(b"Content-Length: 10\r\n\r\n{}"), []);
    }

    #[test]
    fn a_body_that_is_no_message_is_answered_and_the_rest_read() {
        let (send, receive) = crossbeam_channel::unbounded();
        let body = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let input = format!(
            "Content-Length: 5\r\n\r\n{{bad}}Content-Length: 14\r\n\r\n{{\"id\":7,\"x\":1}}Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut answers = Vec::new();
        read_messages(&mut io::BufReader::new(input.as_bytes()), &send, &mut |a| {
            answers.push(a)
        });
        assert_eq!(answers.len(), 2, "{answers:?}");
        assert_eq!(answers[0]["error"]["code"], PARSE_ERROR);
        assert_eq!(answers[0]["id"], Value::Null);
        assert_eq!(answers[1]["error"]["code"], INVALID_REQUEST);
        assert_eq!(answers[1]["id"], 7);
        let message = receive.try_recv().expect("the good message is passed on");
        assert!(matches!(message, Message::Notification(n) if n.method == "initialized"));
    }
}
