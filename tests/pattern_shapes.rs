//! The run matcher of `forgelint::rules::Pattern` answers as the regex crate does, on random
//! patterns of the shapes it takes and random texts mixing ASCII and other characters.
//!
//! The inputs are decoded from random bytes by the decoder of the `pattern_shapes` fuzz target
//! (`fuzz/src/pattern_shapes.rs`), so a failure found either way is kept the same way: its bytes
//! as `tests/data/fuzz-regressions/pattern_shapes-<short-name>`, which `tests/fuzz_regressions.rs`
//! replays. Proptest shrinks a failure to a short byte string and prints it; the panic message
//! above it names the pattern and the text.

use proptest::prelude::*;

// The fuzz target's decoder, from its checks as the fuzz-regression replay includes them.
use crate::fuzz_regressions::props::{check_pattern_shapes, decode_pattern_shape};

/// About 3 s in a debug build; before the fix of `[\x00-\x7F]*` taken for any character, about
/// one input in 500 failed. `PROPTEST_CASES` asks for more.
const CASES: u32 = 5_000;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(CASES),
        // A failure is kept as a fuzz regression instead (see above).
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_run_matcher_agrees_with_the_regex(bytes in prop::collection::vec(any::<u8>(), 0..40)) {
        check_pattern_shapes(&bytes);
    }
}

/// The decoder reaches what it is for: its patterns compile, a good share of them take the run
/// matcher, in each shape (no tail, an optional group, an alternation, a "contains" branch,
/// unanchored),
/// and most texts have characters past 0x7F.
#[test]
fn the_decoded_patterns_take_the_run_matcher() {
    const N: usize = 2_000;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let (mut compiled, mut fast, mut non_ascii) = (0, 0, 0);
    let mut fast_shapes = [0; 5];
    for _ in 0..N {
        let bytes: Vec<u8> = (0..24)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect();
        let (source, text) = decode_pattern_shape(&bytes);
        non_ascii += usize::from(!text.is_ascii());
        if regex::Regex::new(&source).is_err() {
            continue;
        }
        compiled += 1;
        if !forgelint::rules::Pattern::deferred(&source).has_fast_path() {
            continue;
        }
        fast += 1;
        // The shape, as the first byte chooses it (see `decode`).
        let shape = if bytes[0] & 3 == 3 {
            4
        } else {
            usize::from((bytes[0] >> 3) & 3)
        };
        fast_shapes[shape] += 1;
    }
    assert!(compiled > N * 9 / 10, "{compiled} of {N} compile");
    assert!(fast > N / 5, "{fast} of {compiled} take the run matcher");
    assert!(
        fast_shapes.iter().all(|&n| n >= 10),
        "fast by shape (no tail, optional, alternation, contains, unanchored): {fast_shapes:?}"
    );
    assert!(
        non_ascii > N * 3 / 4,
        "{non_ascii} of {N} texts are not ASCII"
    );
}
