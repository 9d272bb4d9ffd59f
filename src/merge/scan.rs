//! A pull reader of a JSON document's structure: enough to walk to a large array and take its
//! elements one at a time, each parsed alone, so that a report of any size is merged in memory
//! bounded by one element per input.

use std::io::{self, BufRead};

use serde::de::DeserializeOwned;

pub struct Scanner<R> {
    input: R,
    /// Bytes consumed so far, for error messages.
    offset: u64,
}

impl<R: BufRead> Scanner<R> {
    pub fn new(input: R) -> Scanner<R> {
        Scanner { input, offset: 0 }
    }

    fn peek(&mut self) -> io::Result<Option<u8>> {
        Ok(self.input.fill_buf()?.first().copied())
    }

    fn bump(&mut self) {
        self.input.consume(1);
        self.offset += 1;
    }

    fn skip_ws(&mut self) -> io::Result<()> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek()? {
            self.bump();
        }
        Ok(())
    }

    /// Bytes read so far: where the next token begins, once whitespace is passed.
    pub fn offset(&mut self) -> io::Result<u64> {
        self.skip_ws()?;
        Ok(self.offset)
    }

    /// The end of the input: nothing but whitespace after the document (no second document,
    /// no trailing bytes).
    pub fn end(&mut self) -> io::Result<()> {
        self.skip_ws()?;
        match self.peek()? {
            None => Ok(()),
            Some(_) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "more after the end of the report at byte {} (two reports in one file, or trailing bytes)",
                    self.offset
                ),
            )),
        }
    }

    /// An error at the current offset: what was expected there.
    pub fn error(&self, expected: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("expected {expected} at byte {}", self.offset),
        )
    }

    fn expect(&mut self, byte: u8, what: &str) -> io::Result<()> {
        self.skip_ws()?;
        if self.peek()? != Some(byte) {
            return Err(self.error(what));
        }
        self.bump();
        Ok(())
    }

    /// Enters an object: then [`Scanner::next_key`] until it says there are no more.
    pub fn begin_object(&mut self) -> io::Result<()> {
        self.expect(b'{', "`{`")
    }

    /// Enters an array: then [`Scanner::next_item`] until it says there are no more.
    pub fn begin_array(&mut self) -> io::Result<()> {
        self.expect(b'[', "`[`")
    }

    /// The next key of the object being read (its value comes next), or `None` at its end.
    /// `first` is true until the first key is read.
    pub fn next_key(&mut self, first: &mut bool) -> io::Result<Option<String>> {
        self.skip_ws()?;
        if self.peek()? == Some(b'}') {
            self.bump();
            return Ok(None);
        }
        if !std::mem::replace(first, false) {
            self.expect(b',', "`,` or `}`")?;
            self.skip_ws()?;
        }
        if self.peek()? != Some(b'"') {
            return Err(self.error("a key"));
        }
        let key: String = self.value()?;
        self.expect(b':', "`:`")?;
        Ok(Some(key))
    }

    /// Whether the array being read has another element (read it next), `false` at its end.
    pub fn next_item(&mut self, first: &mut bool) -> io::Result<bool> {
        self.skip_ws()?;
        if self.peek()? == Some(b']') {
            self.bump();
            return Ok(false);
        }
        if !std::mem::replace(first, false) {
            self.expect(b',', "`,` or `]`")?;
        }
        Ok(true)
    }

    /// Reads the next value whole and parses it.
    pub fn value<T: DeserializeOwned>(&mut self) -> io::Result<T> {
        let mut raw = Vec::new();
        self.raw_value(Some(&mut raw))?;
        serde_json::from_slice(&raw).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{e} near byte {}", self.offset),
            )
        })
    }

    /// Passes over the next value without keeping it.
    pub fn skip_value(&mut self) -> io::Result<()> {
        self.raw_value(None)
    }

    /// The next value's bytes, copied into `sink` when one is given. Its syntax is checked
    /// only as far as finding its end: the parse of what is kept checks the rest.
    fn raw_value(&mut self, mut sink: Option<&mut Vec<u8>>) -> io::Result<()> {
        self.skip_ws()?;
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        loop {
            let Some(b) = self.peek()? else {
                return Err(self.error("the rest of a value"));
            };
            if !in_string
                && depth == 0
                && matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                return Ok(());
            }
            self.bump();
            if let Some(sink) = sink.as_deref_mut() {
                sink.push(b);
            }
            if in_string {
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => {
                        in_string = false;
                        if depth == 0 {
                            return Ok(());
                        }
                    }
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.checked_sub(1).ok_or_else(|| self.error("a value"))?;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn walks_to_an_array_and_reads_its_elements_one_by_one() {
        let text = r#" { "a" : [1, {"x": "]}\"" }] , "list":[ {"k": 1}, "s", 2.5e3, true, null ],"z":{} }"#;
        let mut scan = Scanner::new(text.as_bytes());
        scan.begin_object().unwrap();
        let mut first = true;
        assert_eq!(scan.next_key(&mut first).unwrap().as_deref(), Some("a"));
        scan.skip_value().unwrap();
        assert_eq!(scan.next_key(&mut first).unwrap().as_deref(), Some("list"));
        scan.begin_array().unwrap();
        let mut items = Vec::new();
        let mut first_item = true;
        while scan.next_item(&mut first_item).unwrap() {
            items.push(scan.value::<Value>().unwrap());
        }
        assert_eq!(
            items,
            serde_json::json!([{"k": 1}, "s", 2500.0, true, null])
                .as_array()
                .unwrap()
                .clone()
        );
        assert_eq!(scan.next_key(&mut first).unwrap().as_deref(), Some("z"));
        assert_eq!(scan.value::<Value>().unwrap(), serde_json::json!({}));
        assert_eq!(scan.next_key(&mut first).unwrap(), None);
    }

    #[test]
    fn truncated_or_malformed_documents_are_errors() {
        for text in [
            r#"{"a": [1, 2"#,
            r#"{"a" 1}"#,
            r#"{"a": 1 "b": 2}"#,
            "[",
            r#"{"a": "x"#,
            r#"{1: 2}"#,
        ] {
            let mut scan = Scanner::new(text.as_bytes());
            let walked = (|| -> io::Result<()> {
                scan.begin_object()?;
                let mut first = true;
                while scan.next_key(&mut first)?.is_some() {
                    scan.value::<Value>()?;
                }
                Ok(())
            })();
            assert!(walked.is_err(), "{text}");
        }
    }
}
