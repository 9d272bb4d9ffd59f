//! POSIX-style shell (sh, bash, zsh, dash, ksh).
//!
//! Shell words are strings: every word is a String region, split into pieces at its quotes
//! (`a'b'"c"` is three regions; `'…'` and `"…"` have their content inside the quotes). The
//! first piece of an assignment `NAME=value` or option `--opt=value` spans the whole word from
//! its start, with content after the `=`. Code is what is left: blanks, operators and
//! redirections, heredoc operators and delimiters, comments' neighbours, words that are only a
//! parameter expansion (`$VAR`, `${VAR}`, `$1`, `$@`), reserved words (`if`, `then`, `done`, …,
//! `[[`, `{`), and file descriptor numbers of redirections (`2>`, `>&2`).
//!
//! `$(…)`, `${…}` and backticks are skipped as part of the word or double-quoted string holding
//! them, nested quotes included (an explicit stack, not recursion). Quotes and heredocs may span
//! lines, so an unterminated one runs to the end of the file.

use std::ops::Range;

use super::{line_end, Regions};

/// Bytes that end an unquoted word.
fn is_break(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\r' | b'\n' | b'|' | b'&' | b';' | b'(' | b')' | b'<' | b'>'
    )
}

struct Heredoc {
    delimiter: Vec<u8>,
    /// `<<-`: leading tabs of the terminator line are ignored.
    strip_tabs: bool,
}

pub(super) fn scan(bytes: &[u8], out: &mut Regions) {
    let n = bytes.len();
    let mut heredocs: Vec<Heredoc> = Vec::new();
    let mut pieces: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let mut i = 0;
    while i < n {
        match bytes[i] {
            b'\n' => {
                i += 1;
                if !heredocs.is_empty() {
                    i = bodies(bytes, i, &mut heredocs, out);
                }
            }
            b' ' | b'\t' | b'\r' | b'|' | b';' | b'(' | b')' => i += 1,
            b'#' => {
                let end = line_end(bytes, i);
                out.comment(i..end);
                i = end;
            }
            // A line continuation between words.
            b'\\' if matches!(bytes.get(i + 1), Some(b'\n' | b'\r')) => i += 2,
            b'&' | b'<' | b'>' => {
                if bytes[i..].starts_with(b"<<<") {
                    i += 3;
                } else if bytes[i..].starts_with(b"<<") {
                    i = heredoc_operator(bytes, i + 2, &mut heredocs);
                } else {
                    i += 1;
                    // `>&2`, `<&-`, `&>`: the descriptor after a duplication is code.
                    if bytes[i - 1] != b'&' && bytes.get(i) == Some(&b'&') {
                        i += 1;
                        while i < n && (bytes[i].is_ascii_digit() || bytes[i] == b'-') {
                            i += 1;
                        }
                    }
                }
            }
            _ => i = word(bytes, i, &mut pieces, out).max(i + 1),
        }
    }
}

/// After `<<`: an optional `-`, blanks and the delimiter word (quotes removed). Returns the
/// offset after the delimiter.
fn heredoc_operator(bytes: &[u8], mut i: usize, heredocs: &mut Vec<Heredoc>) -> usize {
    let n = bytes.len();
    let strip_tabs = bytes.get(i) == Some(&b'-');
    if strip_tabs {
        i += 1;
    }
    while i < n && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    let mut delimiter = Vec::new();
    while i < n && !is_break(bytes[i]) {
        match bytes[i] {
            quote @ (b'\'' | b'"') => {
                let close =
                    memchr::memchr2(quote, b'\n', &bytes[i + 1..]).map_or(n, |at| i + 1 + at);
                delimiter.extend_from_slice(&bytes[i + 1..close]);
                i = if close < n && bytes[close] == quote {
                    close + 1
                } else {
                    close
                };
            }
            b'\\' if i + 1 < n && bytes[i + 1] != b'\n' => {
                delimiter.push(bytes[i + 1]);
                i += 2;
            }
            b => {
                delimiter.push(b);
                i += 1;
            }
        }
    }
    if !delimiter.is_empty() {
        heredocs.push(Heredoc {
            delimiter,
            strip_tabs,
        });
    }
    i
}

/// The bodies of the pending heredocs, one after the other from `i` (the start of the line
/// after their command). Returns the offset after the last terminator line.
fn bodies(bytes: &[u8], mut i: usize, heredocs: &mut Vec<Heredoc>, out: &mut Regions) -> usize {
    let n = bytes.len();
    for heredoc in heredocs.drain(..) {
        let body = i;
        loop {
            if i >= n {
                out.string(body..n, body..n);
                break;
            }
            let newline = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |at| i + at);
            let end = line_end(bytes, i);
            let mut line = &bytes[i..end];
            if heredoc.strip_tabs {
                while let [b'\t', rest @ ..] = line {
                    line = rest;
                }
            }
            if line == heredoc.delimiter.as_slice() {
                out.string(body..end, body..i);
                i = (newline + 1).min(n);
                break;
            }
            i = (newline + 1).min(n);
        }
    }
    i
}

/// The offset after `NAME=` or `--opt=` (`NAME+=`, `-o=`) at the start of a word, or after
/// the key of a Hydra-style override (`data.train_files=`, `+trainer.x=`, `~a.b=`,
/// `optim@actor.optim=`): what follows is a value.
fn value_start(word: &[u8]) -> Option<usize> {
    let (name_start, first_ok): (usize, fn(u8) -> bool) = if word.starts_with(b"--") {
        (2, |b: u8| b.is_ascii_alphanumeric())
    } else if word.starts_with(b"-") {
        (1, |b: u8| b.is_ascii_alphanumeric())
    } else {
        let marks = word.iter().take_while(|&&b| b == b'+' || b == b'~').count();
        (marks.min(2), |b: u8| b.is_ascii_alphabetic() || b == b'_')
    };
    let option = word.first() == Some(&b'-');
    let first = *word.get(name_start)?;
    if !first_ok(first) {
        return None;
    }
    let mut i = name_start + 1;
    while let Some(&b) = word.get(i) {
        match b {
            b'=' => return Some(i + 1),
            b'+' if !option && word.get(i + 1) == Some(&b'=') => return Some(i + 2),
            b if b.is_ascii_alphanumeric() || b == b'_' => i += 1,
            b'-' | b'.' if option => i += 1,
            b'-' | b'.' | b'/' | b'@' if !option => i += 1,
            _ => return None,
        }
    }
    None
}

const RESERVED: &[&[u8]] = &[
    b"if",
    b"then",
    b"else",
    b"elif",
    b"fi",
    b"for",
    b"while",
    b"until",
    b"do",
    b"done",
    b"case",
    b"esac",
    b"in",
    b"function",
    b"select",
    b"time",
    b"{",
    b"}",
    b"[[",
    b"]]",
    b"!",
];

/// A word that is code: a reserved word, only a parameter expansion, or the descriptor of a
/// redirection.
fn is_code_word(word: &[u8], next: Option<u8>) -> bool {
    if RESERVED.contains(&word) {
        return true;
    }
    if !word.is_empty() && word.iter().all(u8::is_ascii_digit) && matches!(next, Some(b'<' | b'>'))
    {
        return true;
    }
    let is_name = |name: &[u8]| {
        !name.is_empty()
            && (name.iter().all(u8::is_ascii_digit)
                || (!name[0].is_ascii_digit()
                    && name.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')))
    };
    match word {
        [b'$', b'@' | b'*' | b'#' | b'?' | b'$' | b'!' | b'-' | b'0'..=b'9'] => true,
        [b'$', b'{', inner @ .., b'}'] => {
            let inner = inner
                .strip_prefix(b"#")
                .or(inner.strip_prefix(b"!"))
                .unwrap_or(inner);
            is_name(inner) || matches!(inner, b"@" | b"*")
        }
        [b'$', name @ ..] => is_name(name) && !name[0].is_ascii_digit(),
        _ => false,
    }
}

/// The word starting at `start`: its pieces are String regions (or all of it code). Returns its
/// end.
fn word(
    bytes: &[u8],
    start: usize,
    pieces: &mut Vec<(Range<usize>, Range<usize>)>,
    out: &mut Regions,
) -> usize {
    let n = bytes.len();
    pieces.clear();
    // The end of the word, first: up to an unquoted break.
    let limit = {
        let mut i = start;
        while i < n && !is_break(bytes[i]) {
            i = match bytes[i] {
                b'\'' => quoted_end(bytes, i, b'\'').1,
                b'"' => nested(bytes, i + 1, Frame::Dq).1,
                b'$' if bytes.get(i + 1) == Some(&b'\'') => ansi_end(bytes, i + 2).1,
                b'$' if bytes.get(i + 1) == Some(&b'(') => nested(bytes, i + 2, Frame::Paren).1,
                b'$' if bytes.get(i + 1) == Some(&b'{') => nested(bytes, i + 2, Frame::Brace).1,
                b'`' => nested(bytes, i + 1, Frame::Tick).1,
                b'\\' if matches!(bytes.get(i + 1), Some(b'\n')) => break,
                b'\\' => i + 2,
                _ => i + 1,
            };
        }
        i.min(n)
    };
    if is_code_word(&bytes[start..limit], bytes.get(limit).copied()) {
        out.code(limit);
        return limit;
    }
    let content_from = value_start(&bytes[start..limit]).map_or(start, |at| start + at);
    let mut span_from = Some(start);
    let mut run: Option<usize> = None;
    let mut i = content_from;
    while i < limit {
        let quoted = match bytes[i] {
            b'\'' => Some((i + 1, quoted_end(bytes, i, b'\''))),
            b'"' => Some((i + 1, nested(bytes, i + 1, Frame::Dq))),
            b'$' if bytes.get(i + 1) == Some(&b'\'') => Some((i + 2, ansi_end(bytes, i + 2))),
            _ => None,
        };
        match quoted {
            Some((content_start, (close, end))) => {
                if let Some(run_start) = run.take() {
                    let from = span_from.take().unwrap_or(run_start);
                    pieces.push((from..i, run_start..i));
                }
                let from = span_from.take().unwrap_or(i);
                pieces.push((from..end, content_start..close));
                i = end;
            }
            None => {
                run.get_or_insert(i);
                i = match bytes[i] {
                    b'$' if bytes.get(i + 1) == Some(&b'(') => nested(bytes, i + 2, Frame::Paren).1,
                    b'$' if bytes.get(i + 1) == Some(&b'{') => nested(bytes, i + 2, Frame::Brace).1,
                    b'`' => nested(bytes, i + 1, Frame::Tick).1,
                    b'\\' => i + 2,
                    _ => i + 1,
                };
            }
        }
    }
    let end = limit;
    if let Some(run_start) = run.take() {
        let from = span_from.take().unwrap_or(run_start);
        pieces.push((from..end, run_start..end));
    }
    if let Some(from) = span_from {
        // Only `NAME=` or `--opt=`: an empty value.
        pieces.push((from..end, end..end));
    }
    for (span, content) in pieces.drain(..) {
        out.string(span, content);
    }
    end
}

/// `'…'` from its opening quote at `open`: (offset of the closing quote, offset after it), or
/// the end of the text twice.
fn quoted_end(bytes: &[u8], open: usize, quote: u8) -> (usize, usize) {
    match memchr::memchr(quote, &bytes[open + 1..]) {
        Some(at) => (open + 1 + at, open + 2 + at),
        None => (bytes.len(), bytes.len()),
    }
}

/// `$'…'` from just after its opening quote: backslash escapes.
fn ansi_end(bytes: &[u8], mut i: usize) -> (usize, usize) {
    let n = bytes.len();
    while i < n {
        match bytes[i] {
            b'\\' => i += 2,
            b'\'' => return (i, i + 1),
            _ => i += 1,
        }
    }
    (n, n)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// `"…"`
    Dq,
    /// `$(…)`, `$((…))` or a `(…)` inside one
    Paren,
    /// `${…}`
    Brace,
    /// `` `…` ``
    Tick,
}

/// Skips a construct from just after its opener (`first` says which) to just after its closer,
/// nested constructs included: (offset of the closer, offset after it), or the end of the text
/// twice when it is unterminated.
fn nested(bytes: &[u8], mut i: usize, first: Frame) -> (usize, usize) {
    let n = bytes.len();
    let mut stack = vec![first];
    while i < n {
        let Some(&top) = stack.last() else { break };
        let b = bytes[i];
        let closes = matches!(
            (top, b),
            (Frame::Dq, b'"') | (Frame::Paren, b')') | (Frame::Brace, b'}') | (Frame::Tick, b'`')
        );
        if closes {
            stack.pop();
            if stack.is_empty() {
                return (i, i + 1);
            }
            i += 1;
            continue;
        }
        let next = bytes.get(i + 1).copied();
        match b {
            b'\\' => i += 2,
            b'$' if next == Some(b'(') => {
                stack.push(Frame::Paren);
                i += 2;
            }
            b'$' if next == Some(b'{') => {
                stack.push(Frame::Brace);
                i += 2;
            }
            b'(' if top == Frame::Paren => {
                stack.push(Frame::Paren);
                i += 1;
            }
            b'`' => {
                stack.push(Frame::Tick);
                i += 1;
            }
            b'"' if top != Frame::Dq => {
                stack.push(Frame::Dq);
                i += 1;
            }
            b'\'' if matches!(top, Frame::Paren | Frame::Tick) => {
                i = quoted_end(bytes, i, b'\'').1;
            }
            b'#' if top == Frame::Paren
                && i > 0
                && matches!(bytes[i - 1], b' ' | b'\t' | b'\n') =>
            {
                i = line_end(bytes, i);
            }
            _ => i += 1,
        }
    }
    (n, n)
}

#[cfg(test)]
mod tests {
    use crate::text::{scan, Language, Region, RegionKind};

    use RegionKind::{Code as K, Comment as C, String as S};

    fn parts(text: &str) -> Vec<(RegionKind, &str)> {
        scan(Language::Shell, text)
            .into_iter()
            .filter(|r| r.kind != K)
            .map(|r| (r.kind, &text[r.content]))
            .collect()
    }

    fn spans(text: &str) -> Vec<(RegionKind, &str)> {
        scan(Language::Shell, text)
            .into_iter()
            .map(|r: Region| (r.kind, &text[r.span]))
            .collect()
    }

    #[test]
    fn words_are_strings() {
        assert_eq!(
            parts("python train.py --data /mnt/x # uses /mnt/y\n"),
            vec![
                (S, "python"),
                (S, "train.py"),
                (S, "--data"),
                (S, "/mnt/x"),
                (C, "# uses /mnt/y")
            ]
        );
    }

    #[test]
    fn assignments_and_options() {
        let text = "export DATA=/mnt/d OUT+=x --out=/mnt/o -k=v X= Y=\"a b\"";
        assert_eq!(
            parts(text),
            vec![
                (S, "export"),
                (S, "/mnt/d"),
                (S, "x"),
                (S, "/mnt/o"),
                (S, "v"),
                (S, ""),
                (S, "a b")
            ]
        );
        let s = spans(text);
        assert!(s.contains(&(S, "DATA=/mnt/d")));
        assert!(s.contains(&(S, "--out=/mnt/o")));
        assert!(s.contains(&(S, "Y=\"a b\"")));
        // `--opt` without `=` is a word of its own.
        assert_eq!(parts("--a.b-c"), vec![(S, "--a.b-c")]);
        // Hydra-style overrides: the value follows the key, whatever its dots and marks.
        let text = "data.train_files=/d/t +trainer.x=1 ++a=2 ~b.c=3 optim@actor.optim=adam a/b=c";
        assert_eq!(
            parts(text),
            vec![
                (S, "/d/t"),
                (S, "1"),
                (S, "2"),
                (S, "3"),
                (S, "adam"),
                (S, "c")
            ]
        );
        // Not a key: a value that only contains `=`.
        assert_eq!(
            parts("http://x/?a=b 1=2"),
            vec![(S, "http://x/?a=b"), (S, "1=2")]
        );
    }

    #[test]
    fn quotes_and_pieces() {
        let text = "echo 'a # b' \"x $(dirname \"$0\")/y\" $'t\\'s' pre'q'\"d\"post";
        assert_eq!(
            parts(text),
            vec![
                (S, "echo"),
                (S, "a # b"),
                (S, "x $(dirname \"$0\")/y"),
                (S, "t\\'s"),
                (S, "pre"),
                (S, "q"),
                (S, "d"),
                (S, "post")
            ]
        );
    }

    #[test]
    fn code_words() {
        let text = "if [[ -f $F ]]; then cat ${DIR} $1 \"$@\" 2>&1 >&2 | tee ${X:-/mnt/d}; fi";
        assert_eq!(
            parts(text),
            vec![
                (S, "-f"),
                (S, "cat"),
                (S, "$@"),
                (S, "tee"),
                (S, "${X:-/mnt/d}")
            ]
        );
        assert_eq!(
            parts("echo a#b $# x"),
            vec![(S, "echo"), (S, "a#b"), (S, "x")]
        );
    }

    #[test]
    fn substitutions_stay_in_their_word() {
        assert_eq!(
            parts("OUT=$(ls \"/mnt/a b\" | head) `date` x$(( 1 + 2 ))y"),
            vec![
                (S, "$(ls \"/mnt/a b\" | head)"),
                (S, "`date`"),
                (S, "x$(( 1 + 2 ))y")
            ]
        );
    }

    #[test]
    fn heredocs() {
        let text = "cat <<EOF > out.txt\n/mnt/a $X\n# not a comment\nEOF\npython - <<-'PY' # c\n\timport os\n\tPY\necho done\n";
        assert_eq!(
            parts(text),
            vec![
                (S, "cat"),
                (S, "out.txt"),
                (S, "/mnt/a $X\n# not a comment\n"),
                (S, "python"),
                (S, "-"),
                (C, "# c"),
                (S, "\timport os\n"),
                (S, "echo"),
            ]
        );
        let s = spans(text);
        assert!(s.contains(&(S, "/mnt/a $X\n# not a comment\nEOF")));
        // Two on one line, one after the other; an unterminated one runs to the end.
        assert_eq!(
            parts("a <<A <<\"B\"\n1\nA\n2\nB\nb <<C\nx\ny"),
            vec![(S, "a"), (S, "1\n"), (S, "2\n"), (S, "b"), (S, "x\ny")]
        );
        // A here-string is a word.
        assert_eq!(parts("cat <<< /mnt/x"), vec![(S, "cat"), (S, "/mnt/x")]);
    }

    #[test]
    fn crlf_and_unterminated() {
        assert_eq!(
            parts("a 'b\r\n# c\r\nEOF <<X\r\nbody\r\nX\r\nz"),
            vec![(S, "a"), (S, "b\r\n# c\r\nEOF <<X\r\nbody\r\nX\r\nz")]
        );
        assert_eq!(
            parts("cat <<X\r\nbody\r\nX\r\nz # c\r\n"),
            vec![(S, "cat"), (S, "body\r\n"), (S, "z"), (C, "# c")]
        );
        assert_eq!(parts("echo \"$(x"), vec![(S, "echo"), (S, "$(x")]);
        assert_eq!(parts("x \\\n  --y"), vec![(S, "x"), (S, "--y")]);
    }
}
