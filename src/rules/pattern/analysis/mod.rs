//! What a pattern's parse says before its regex is compiled: its run form ([`runs::Runs`]) and
//! the literals every match holds ([`gate::Literals`]). Parsing a pattern for them was a sixth
//! of the instructions of a pre-commit run on one spec, so `build.rs` includes this module,
//! analyses the built-in rules' patterns there and writes the results as bytes
//! ([`analysed_bytes`]); a rule file's patterns are analysed on first use.
//!
//! Only `std` and `regex-syntax` may be used here (the build script has nothing else).

pub mod gate;
pub mod runs;

use gate::Literals;
use runs::Runs;

/// A pattern's run form and literals as bytes, each `None` when the pattern has none.
pub struct AnalysedBytes {
    pub runs: Option<Vec<u8>>,
    pub literals: Option<Vec<u8>>,
}

/// The run form and the literals of `source`, as bytes; `None` when `source` does not parse.
pub fn analysed_bytes(source: &str) -> Option<AnalysedBytes> {
    let hir = regex_syntax::Parser::new().parse(source).ok()?;
    let runs = Runs::from_hir(&hir).map(|r| {
        let mut out = Writer::default();
        r.write(&mut out);
        out.0
    });
    let literals = Literals::of(&hir).map(|l| {
        let mut out = Writer::default();
        l.write(&mut out);
        out.0
    });
    Some(AnalysedBytes { runs, literals })
}

/// Bytes written by [`analysed_bytes`] read back; `None` when they are not whole.
pub fn read_all<T>(bytes: &[u8], read: impl FnOnce(&mut Reader<'_>) -> Option<T>) -> Option<T> {
    let mut input = Reader { bytes };
    let value = read(&mut input)?;
    input.bytes.is_empty().then_some(value)
}

#[derive(Default)]
pub struct Writer(Vec<u8>);

impl Writer {
    pub fn flag(&mut self, b: bool) {
        self.0.push(u8::from(b));
    }

    pub fn u32(&mut self, n: u32) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    pub fn u64(&mut self, n: u64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    pub fn count(&mut self, n: usize) {
        self.u64(n as u64);
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.count(b.len());
        self.0.extend_from_slice(b);
    }

    /// A table of flags, eight to a byte.
    pub fn bits(&mut self, set: &[bool]) {
        self.0.extend(set.chunks(8).map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0u8, |byte, (i, &on)| byte | u8::from(on) << i)
        }));
    }
}

pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.bytes.len() {
            return None;
        }
        let (taken, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(taken)
    }

    pub fn flag(&mut self) -> Option<bool> {
        match self.take(1)? {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }

    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    pub fn count(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }

    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = self.count()?;
        self.take(len)
    }

    /// Fills `set` from [`Writer::bits`].
    pub fn bits(&mut self, set: &mut [bool]) -> Option<()> {
        let bytes = self.take(set.len().div_ceil(8))?;
        for (i, on) in set.iter_mut().enumerate() {
            *on = bytes[i / 8] >> (i % 8) & 1 == 1;
        }
        Some(())
    }
}
