//! Long reports rendered on several threads, in chunks, and written in order: the same bytes
//! whatever the thread count. A long JSON array rendered so matches the whole document written
//! at once by the JSON writer.

use std::io::Write;
use std::sync::mpsc;

use super::Findings;
use crate::diagnostic::Finding;
use crate::json::writer::write_newline_indent;

/// Elements rendered per chunk (one buffer, one hand-over between threads).
const CHUNK: usize = 256;

/// Writes an array at nesting `level` whose element `i` is `render(state, buffer, i,
/// element_level)`. With `threads > 1` and enough elements, chunks are rendered on `threads`
/// threads (this one included) and written in order, a few chunks ahead at most: the output is
/// the same whatever the thread count, and memory stays bounded. The state, of type `S`, is
/// made afresh for each chunk (`S::default()`) and handed from one element to the next, for
/// what neighbouring elements can share.
#[cfg(test)]
pub fn write_array_with<W, S, R>(
    out: &mut W,
    level: usize,
    len: usize,
    threads: usize,
    render: R,
) -> std::io::Result<()>
where
    W: Write,
    S: Default,
    R: Fn(&mut S, &mut Vec<u8>, usize, usize) -> std::io::Result<()> + Sync,
{
    if len == 0 {
        return out.write_all(b"[]");
    }
    out.write_all(b"[")?;
    write_in_chunks(out, len, threads, |state: &mut S, buffer, i| {
        if i > 0 {
            buffer.push(b',');
        }
        write_newline_indent(buffer, level + 1)?;
        render(state, buffer, i, level + 1)
    })?;
    write_newline_indent(out, level)?;
    out.write_all(b"]")
}

/// Writes an array at nesting `level` of every finding, element `i` of a batch being
/// `render(state, buffer, batch, i, element_level)`: batch by batch, each rendered in chunks as
/// [`write_array_with`] renders them, so the bytes are the same as that array's over all the
/// findings at once. A chunk never spans two batches, and batches hold whole files.
pub fn write_findings_array<W, S, R>(
    out: &mut W,
    level: usize,
    findings: &dyn Findings,
    threads: usize,
    render: R,
) -> std::io::Result<()>
where
    W: Write,
    S: Default,
    R: Fn(&mut S, &mut Vec<u8>, &[Finding], usize, usize) -> std::io::Result<()> + Sync,
{
    if findings.count() == 0 {
        return out.write_all(b"[]");
    }
    out.write_all(b"[")?;
    let element = |state: &mut S, buffer: &mut Vec<u8>, batch: &[Finding], i, number| {
        if number > 0 {
            buffer.push(b',');
        }
        write_newline_indent(buffer, level + 1)?;
        render(state, buffer, batch, i, level + 1)
    };
    write_each_finding(out, findings, threads, element, |_| {})?;
    write_newline_indent(out, level)?;
    out.write_all(b"]")
}

/// Writes `element(state, buffer, batch, i, number)` for finding `i` of each batch, `number`
/// its place among all, in order, in chunks of a batch as [`write_in_chunks`] renders them (so
/// the same bytes): on the threads that decoded the batches when the findings were spilled,
/// else on `threads` threads. `seen` is shown each batch, in order, on this thread.
pub fn write_each_finding<W, S, R>(
    out: &mut W,
    findings: &dyn Findings,
    threads: usize,
    element: R,
    mut seen: impl FnMut(&[Finding]),
) -> std::io::Result<()>
where
    W: Write + ?Sized,
    S: Default,
    R: Fn(&mut S, &mut Vec<u8>, &[Finding], usize, usize) -> std::io::Result<()> + Sync,
{
    let render_batch = |batch: &[Finding], before: usize, buffer: &mut Vec<u8>| {
        for chunk in (0..batch.len()).step_by(CHUNK) {
            let mut state = S::default();
            for i in chunk..(chunk + CHUNK).min(batch.len()) {
                element(&mut state, buffer, batch, i, before + i)?;
            }
        }
        Ok(())
    };
    let mut before = 0;
    findings.each_batch_rendered(&render_batch, &mut |batch, text| {
        seen(batch);
        match text {
            Some(text) => out.write_all(text)?,
            None => write_in_chunks(out, batch.len(), threads, |state: &mut S, buffer, i| {
                element(state, buffer, batch, i, before + i)
            })?,
        }
        before += batch.len();
        Ok(())
    })
}

/// Writes `render(state, buffer, i)` for every `i` in `0..len`, in order. With `threads > 1` and
/// enough items, chunks are rendered on `threads` threads (this one included) and written in
/// order, a few chunks ahead at most: the output is the same whatever the thread count, and
/// memory stays bounded. Each chunk starts with a fresh `S::default()`.
pub fn write_in_chunks<W, S, R>(
    out: &mut W,
    len: usize,
    threads: usize,
    render: R,
) -> std::io::Result<()>
where
    W: Write + ?Sized,
    S: Default,
    R: Fn(&mut S, &mut Vec<u8>, usize) -> std::io::Result<()> + Sync,
{
    let chunks = len.div_ceil(CHUNK);
    let render_chunk = |chunk: usize, buffer: &mut Vec<u8>| -> std::io::Result<()> {
        buffer.clear();
        let mut state = S::default();
        for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(len) {
            render(&mut state, buffer, i)?;
        }
        Ok(())
    };
    let threads = threads.clamp(1, chunks.max(1));
    if threads == 1 {
        let mut buffer = Vec::new();
        for chunk in 0..chunks {
            render_chunk(chunk, &mut buffer)?;
            out.write_all(&buffer)?;
        }
        return Ok(());
    }
    std::thread::scope(|scope| -> std::io::Result<()> {
        // Helper `t` renders chunks t, t + threads, …, and this thread writes them in chunk
        // order as they come: the rendering keeps `threads` cores busy while the writing waits
        // on the file. A helper that cannot be started (a thread limit) leaves its chunks to
        // this thread.
        let mut receivers = Vec::with_capacity(threads);
        for t in 0..threads {
            let (sender, receiver) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(2);
            let render_chunk = &render_chunk;
            if refuse_helper_for_tests(t) {
                receivers.push(None);
                continue;
            }
            let started = std::thread::Builder::new().spawn_scoped(scope, move || {
                for chunk in (t..chunks).step_by(threads) {
                    let mut buffer = Vec::new();
                    let rendered = render_chunk(chunk, &mut buffer).map(|()| buffer);
                    // The writer stopped (an error): so does this helper.
                    if sender.send(rendered).is_err() {
                        return;
                    }
                }
            });
            receivers.push(started.ok().map(|_| receiver));
        }
        let mut own = Vec::new();
        for chunk in 0..chunks {
            match &receivers[chunk % threads] {
                Some(receiver) => {
                    let rendered = receiver.recv().map_err(|_| {
                        std::io::Error::other("a report thread stopped unexpectedly")
                    })??;
                    out.write_all(&rendered)?;
                }
                None => {
                    render_chunk(chunk, &mut own)?;
                    out.write_all(&own)?;
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
thread_local! {
    /// Tests only: the report helpers `write_in_chunks` must not start (as if a thread limit
    /// refused them), by number.
    static REFUSED_HELPERS: std::cell::Cell<fn(usize) -> bool> = const { std::cell::Cell::new(|_| false) };
}

/// Whether a test has helper `t` refused; never outside tests (the real refusal is a failed
/// spawn, which root does not get here).
fn refuse_helper_for_tests(_t: usize) -> bool {
    #[cfg(test)]
    {
        REFUSED_HELPERS.with(|refused| refused.get()(_t))
    }
    #[cfg(not(test))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::writer::{write_json, write_json_at, ArrayWriter, ObjectWriter};

    /// Helpers that cannot be started leave their chunks to the writing thread: the output is
    /// the same, in order.
    #[test]
    fn refused_helpers_leave_their_chunks_to_the_writer() {
        let len = 7 * CHUNK + 3;
        let render = |_: &mut (), buf: &mut Vec<u8>, i: usize| -> std::io::Result<()> {
            buf.extend_from_slice(format!("{i},").as_bytes());
            Ok(())
        };
        let mut expected = Vec::new();
        write_in_chunks(&mut expected, len, 1, render).unwrap();
        let refusals: [fn(usize) -> bool; 4] = [|_| true, |t| t % 2 == 1, |t| t == 0, |t| t == 2];
        for refuse in refusals {
            REFUSED_HELPERS.with(|r| r.set(refuse));
            for threads in [2, 3, 4] {
                let mut got = Vec::new();
                write_in_chunks(&mut got, len, threads, render).unwrap();
                assert_eq!(got, expected, "{threads} threads");
            }
        }
        REFUSED_HELPERS.with(|r| r.set(|_| false));
    }

    /// Parts written by the writers here equal the whole document written at once, for every
    /// thread count and around chunk boundaries.
    #[test]
    fn parts_match_the_whole() {
        for len in [0, 1, 2, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 5] {
            let items: Vec<serde_json::Value> = (0..len)
                .map(|i| serde_json::json!({"i": i, "nested": {"list": [i, "x\u{1b}"], "empty": {}}}))
                .collect();
            let whole = serde_json::json!({
                "a": 1, "items": items, "b": {"c": []}, "d": [{"x": 1}, 2]
            });
            let mut expected = Vec::new();
            write_json(&mut expected, &whole).unwrap();
            for threads in [1, 2, 3, 8] {
                let mut got = Vec::new();
                let mut object = ObjectWriter::begin(&mut got, 0).unwrap();
                object.value("a", &1).unwrap();
                object
                    .field("items", |out, level| {
                        write_array_with(
                            out,
                            level,
                            items.len(),
                            threads,
                            |_: &mut (), buf, i, level| write_json_at(buf, level, &items[i]),
                        )
                    })
                    .unwrap();
                object
                    .field("b", |out, level| {
                        let mut b = ObjectWriter::begin(out, level)?;
                        b.field("c", |out, level| ArrayWriter::begin(out, level)?.end())?;
                        b.end()
                    })
                    .unwrap();
                object
                    .field("d", |out, level| {
                        let mut d = ArrayWriter::begin(out, level)?;
                        d.element(|out, level| {
                            write_json_at(out, level, &serde_json::json!({"x": 1}))
                        })?;
                        d.element(|out, level| write_json_at(out, level, &2))?;
                        d.end()
                    })
                    .unwrap();
                object.end().unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&expected),
                    "{len} items, {threads} threads"
                );
            }
        }
    }

    #[test]
    fn a_failing_element_fails_the_array() {
        for threads in [1, 2] {
            let mut out = Vec::new();
            let failed =
                write_array_with(&mut out, 0, 5 * CHUNK, threads, |_: &mut (), buf, i, _| {
                    if i == 3 * CHUNK + 1 {
                        return Err(std::io::Error::other("boom"));
                    }
                    buf.extend_from_slice(b"1");
                    Ok(())
                });
            assert!(failed.is_err(), "{threads} threads");
        }
    }
}
