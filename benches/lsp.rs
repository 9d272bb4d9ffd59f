//! `forgelint lsp` end to end: an edit of the demo's faulty spec sent to the server until its
//! diagnostics come back — what an editor waits for after each keystroke. One server (this
//! profile's binary) serves every sample; the edit alternates between fixing and restoring a
//! misspelt key, so every sample lints a changed text. The demo is opened in place: the server
//! never writes.
//!
//! `cargo bench --bench lsp`.

#[path = "../tests/lsp_client/mod.rs"]
mod lsp_client;

use std::path::Path;

use divan::Bencher;
use lsp_client::{uri, Client};
use serde_json::json;

fn main() {
    divan::main();
}

#[divan::bench(sample_count = 200, sample_size = 1)]
fn edit_to_diagnostics(bencher: Bencher) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
    let path = root.join("specs/grpo-70b.jobspec.json");
    let faulty = std::fs::read_to_string(&path).expect("the demo spec");
    let fixed = faulty.replacen("\"gpu_per_node\"", "\"gpus_per_node\"", 1);
    let mut client = Client::start(env!("CARGO_BIN_EXE_forgelint"), &root, &[]);
    let uri = uri(&path);
    client.open(&uri, &faulty);
    client.diagnostics(&uri, 1);
    let mut version = 1;
    bencher.bench_local(|| {
        version += 1;
        let text = if version % 2 == 0 { &fixed } else { &faulty };
        client.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version },
                    "contentChanges": [{ "text": text }] }),
        );
        client.diagnostics(&uri, version)
    });
    assert_eq!(client.shutdown(), 0);
}
