//! `--format junit`: JUnit XML for CI test reporters (GitLab, Jenkins, Azure Pipelines). One
//! `<testsuite>` per file with findings, one failing `<testcase>` per finding; a clean run is one
//! passing test case, so a reporter that wants at least one test is satisfied.
//!
//! A suite's start tag holds its count of findings, known only at the file's end: a second pass
//! over the findings, run on a helper thread a bounded number of files ahead, counts them, so
//! memory stays bounded whatever the number of findings in a file or in the run.
//!
//! Text from a file is shown with [`visible`] escapes, then XML-escaped: characters XML 1.0
//! forbids (controls, U+FFFE, U+FFFF) are never written raw.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::Write;
use std::sync::mpsc;
use std::sync::Arc;

use super::{Findings, ReportInput};
use crate::diagnostic::Finding;
use crate::escape::visible;

/// Counts of files the counting pass may run ahead of the writing one.
const AHEAD: usize = 1024;

pub fn write(out: &mut dyn Write, input: &ReportInput<'_>) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    let findings = input.findings;
    let total = findings.count();
    out.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")?;
    // A clean run is one passing test: some reporters fail a job whose report has no test.
    let tests = total.max(1);
    writeln!(
        out,
        "<testsuites name=\"forgelint\" tests=\"{tests}\" failures=\"{total}\" errors=\"0\">"
    )?;
    if total == 0 {
        let files = super::plural(input.summary.files, "file");
        writeln!(
            out,
            "  <testsuite name=\"forgelint\" tests=\"1\" failures=\"0\" errors=\"0\">\n    <testcase name=\"{files} checked, no findings\" classname=\"forgelint\"/>\n  </testsuite>"
        )?;
    } else {
        write_suites(&mut out, findings)?;
    }
    out.write_all(b"</testsuites>\n")?;
    out.flush()
}

/// The suites, with their counts from a counting pass on a helper thread.
fn write_suites<F: Findings + ?Sized>(out: &mut dyn Write, findings: &F) -> std::io::Result<()> {
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::sync_channel::<usize>(AHEAD);
        let helper = std::thread::Builder::new()
            .name("junit-counts".into())
            .spawn_scoped(scope, move || {
                count_per_file(findings, &mut |n| {
                    // The writer stopped (an error): so does the count.
                    sender
                        .send(n)
                        .map_err(|_| std::io::Error::other("the JUnit report stopped"))
                })
            });
        let Ok(helper) = helper else {
            // No thread to be had (a thread limit): the counts first, one number per file.
            let mut counts = VecDeque::new();
            count_per_file(findings, &mut |n| {
                counts.push_back(n);
                Ok(())
            })?;
            return write_cases(out, findings, &mut || {
                counts
                    .pop_front()
                    .ok_or_else(|| std::io::Error::other("the findings changed between passes"))
            });
        };
        let mut helper_stopped = false;
        let written = write_cases(out, findings, &mut || {
            receiver.recv().map_err(|_| {
                helper_stopped = true;
                std::io::Error::other("the JUnit count stopped")
            })
        });
        // A helper waiting to hand over a count stops now.
        drop(receiver);
        let counted = helper
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the JUnit count failed")));
        // The first failure is the one to tell: the other side only saw it stop.
        if helper_stopped {
            counted.and(written)
        } else {
            written.and(counted)
        }
    })
}

/// Calls `each` with the number of findings of each file, in file order: one pass.
fn count_per_file<F: Findings + ?Sized>(
    findings: &F,
    each: &mut dyn FnMut(usize) -> std::io::Result<()>,
) -> std::io::Result<()> {
    findings.each_file(&mut |_, n| each(n))
}

/// The suites and their cases: one pass; `next_count` gives each file's number of findings.
fn write_cases<F: Findings + ?Sized>(
    out: &mut dyn Write,
    findings: &F,
    next_count: &mut dyn FnMut() -> std::io::Result<usize>,
) -> std::io::Result<()> {
    let mut current: Option<Arc<str>> = None;
    let mut text = String::new();
    findings.each_batch(&mut |batch| {
        for f in batch {
            text.clear();
            if current.as_deref() != Some(&*f.path) {
                if current.is_some() {
                    text.push_str("  </testsuite>\n");
                }
                let n = next_count()?;
                text.push_str("  <testsuite name=\"");
                push_escaped(&mut text, &f.path);
                text.push_str(&format!(
                    "\" tests=\"{n}\" failures=\"{n}\" errors=\"0\">\n"
                ));
                current = Some(f.path.clone());
            }
            push_case(&mut text, f);
            out.write_all(text.as_bytes())?;
        }
        Ok(())
    })?;
    if current.is_some() {
        out.write_all(b"  </testsuite>\n")?;
    }
    Ok(())
}

/// One finding's `<testcase>`: named by rule and position, its class the file, failing with
/// the message, the severity as the failure's type, and the concise line as its text.
fn push_case(text: &mut String, f: &Finding) {
    text.push_str("    <testcase name=\"");
    push_escaped(text, &f.rule);
    // Plain text: nothing to escape.
    let _ = write!(text, " at {}:{}", f.start.line, f.start.column);
    text.push_str("\" classname=\"");
    push_escaped(text, &f.path);
    text.push_str("\">\n      <failure message=\"");
    push_escaped(text, &f.message);
    text.push_str("\" type=\"");
    text.push_str(f.severity.as_str());
    text.push_str("\">");
    push_escaped(text, &super::concise::line(f));
    text.push_str("</failure>\n    </testcase>\n");
}

/// Appends `s` for XML text or an attribute value: dangerous and invisible characters as
/// visible `\u{…}` escapes, then `&`, `<`, `>`, `"` and `'` as entities, and any character XML
/// 1.0 forbids that is left (U+FFFE, U+FFFF) as a visible escape too.
fn push_escaped(out: &mut String, s: &str) {
    // Printable ASCII (nearly all text) needs no visible escape and no check for characters
    // XML forbids: its five specials are replaced and the runs between copied whole. Any other
    // byte sends the whole text the long way.
    let start = out.len();
    let mut plain = 0;
    for (at, b) in s.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&apos;",
            0x20..0x7F => continue,
            _ => {
                out.truncate(start);
                return push_escaped_chars(out, s);
            }
        };
        out.push_str(&s[plain..at]);
        out.push_str(entity);
        plain = at + 1;
    }
    out.push_str(&s[plain..]);
}

/// [`push_escaped`] character by character, for any text.
fn push_escaped_chars(out: &mut String, s: &str) {
    for c in visible(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if is_xml_char(c) => out.push(c),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
}

/// XML 1.0's `Char` production, less the line breaks and tab (which [`visible`] escapes
/// before, so an attribute value keeps them).
fn is_xml_char(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Position;
    use crate::report::BatchedForTests as Batched;

    fn finding(path: &str, rule: &str, message: &str, line: u32) -> Finding {
        Finding {
            message: message.to_string(),
            start: Position { line, column: 3 },
            end: Position { line, column: 4 },
            ..Finding::for_tests(path, rule, line)
        }
    }

    fn sample() -> Vec<Finding> {
        let mut findings = Vec::new();
        for (file, n) in [("a.json", 3), ("b.json", 1), ("c.json", 5)] {
            for i in 0..n {
                findings.push(finding(file, "rule-x", "m", i + 1));
            }
        }
        findings
    }

    fn suite_counts(xml: &str) -> Vec<usize> {
        xml.lines()
            .filter_map(|l| l.trim_start().strip_prefix("<testsuite name="))
            .map(|l| {
                let at = l.find("tests=\"").unwrap() + 7;
                l[at..].split('"').next().unwrap().parse().unwrap()
            })
            .collect()
    }

    /// Every batch size gives the counts of each file, from the helper or without it.
    #[test]
    fn suites_are_counted_across_batches() {
        let mut expected = None;
        let sample = sample();
        for size in [1, 2, 3, 4, 9, 100] {
            let findings = Batched(&sample, size);
            let mut out = Vec::new();
            write_suites(&mut out, &findings).unwrap();
            let xml = String::from_utf8(out).unwrap();
            assert_eq!(suite_counts(&xml), [3, 1, 5], "batches of {size}");
            assert_eq!(xml.matches("<testcase ").count(), 9);
            // Without a helper: the counts first.
            let mut counts = VecDeque::new();
            count_per_file(&findings, &mut |n| {
                counts.push_back(n);
                Ok(())
            })
            .unwrap();
            let mut alone = Vec::new();
            write_cases(&mut alone, &findings, &mut || {
                Ok(counts.pop_front().unwrap())
            })
            .unwrap();
            assert_eq!(String::from_utf8(alone).unwrap(), xml);
            assert_eq!(expected.get_or_insert_with(|| xml.clone()), &xml);
        }
    }

    /// A failing writer stops the counting helper (no dead lock), and the error comes back.
    #[test]
    fn a_failing_writer_stops_the_count() {
        struct Failing;
        impl Write for Failing {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let many: Vec<Finding> = (0..5000)
            .map(|i| finding(&format!("f{i:05}"), "r", "m", 1))
            .collect();
        let err = write_suites(&mut Failing, &Batched(&many, 7)).unwrap_err();
        assert!(err.to_string().contains("stopped") || err.to_string().contains("disk full"));
    }

    /// A whole report with hostile paths and messages parses as XML, with the totals of the
    /// report.
    #[test]
    fn a_whole_report_parses() {
        let hostile = "x<y>&\"'\u{1b}]8;;\u{7}\u{202e}\u{fffe}-->]]>";
        let findings = vec![
            finding(&format!("{hostile}/a.json"), "rule-x", hostile, 1),
            finding(&format!("{hostile}/a.json"), "rule-x", hostile, 2),
            finding("b.json", "rule-y", "m", 1),
        ];
        let summary = crate::report::Summary {
            files: 2,
            ..Default::default()
        };
        let input = ReportInput {
            findings: &findings,
            summary: &summary,
            rules: &[],
            cwd: std::path::Path::new("/"),
            root: std::path::Path::new("/"),
            statistics: false,
            tool_error: false,
            threads: 1,
        };
        let mut out = Vec::new();
        write(&mut out, &input).unwrap();
        let xml = String::from_utf8(out).unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        let root = doc.root_element();
        assert_eq!(root.attribute("tests"), Some("3"));
        let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
        assert_eq!(suites.len(), 2);
        assert_eq!(suites[0].attribute("tests"), Some("2"));
        assert_eq!(
            suites[0].attribute("name"),
            Some("x<y>&\"'\\u{1b}]8;;\\u{7}\\u{202e}\\u{fffe}-->]]>/a.json")
        );
    }

    /// Printable ASCII's short way, and text that leaves it part way, give what the character
    /// by character one does.
    #[test]
    fn plain_text_takes_the_short_way_to_the_same_text() {
        let every: String = (0x20u8..0x7F).map(char::from).collect();
        let mixed = ["a&b\u{1b}c", "x<y>é", "&&\u{202e}", "ok\u{7f}"];
        for text in [&every[..], "", "&", "a'b", "x&&y<<>>\"\"", "plain text 1:2"]
            .into_iter()
            .chain(mixed)
        {
            // What was written before stays, whichever way the text takes.
            let (mut short, mut long) = (String::from("<kept>"), String::from("<kept>"));
            push_escaped(&mut short, text);
            push_escaped_chars(&mut long, text);
            assert_eq!(short, long, "{text:?}");
        }
        let mut out = String::new();
        push_escaped(&mut out, "a<b>&\"c'd");
        assert_eq!(out, "a&lt;b&gt;&amp;&quot;c&apos;d");
    }

    #[test]
    fn escapes_what_xml_and_terminals_refuse() {
        let mut out = String::new();
        push_escaped(
            &mut out,
            "a<b>&\"c'\u{1b}[2J\u{0}\u{7}\n\u{202e}\u{fffe}\u{ffff}\u{200b}é",
        );
        assert_eq!(
            out,
            "a&lt;b&gt;&amp;&quot;c&apos;\\u{1b}[2J\\u{0}\\u{7}\\u{a}\\u{202e}\\u{fffe}\\u{ffff}\\u{200b}é"
        );
    }
}
