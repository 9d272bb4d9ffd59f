//! Message templates: `{name}` placeholders filled from a finding's variables; `{{` and `}}` are
//! literal braces. Placeholders are checked against the variables a check can provide when the
//! rule file is compiled, so a typo is an error there, not a blank in a message.

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Var(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pieces: Vec<Piece>,
    /// A bit per name of [`COMMON`] the template uses: asked for every finding, so that a
    /// placeholder's text is made only for a template that shows it.
    common: u8,
}

/// The placeholders whose use [`Template::uses`] answers from a bit.
const COMMON: [&str; 5] = ["value", "expected", "path", "key", "pointer"];

/// A template error: byte offset in the template text, message.
pub type TemplateError = (usize, String);

/// The error of a placeholder the check does not provide, with the nearest one it does.
fn unknown_placeholder(name: &str, known: &[&str]) -> String {
    let hint = match crate::error::suggest(name, known.iter().copied()) {
        Some(s) => format!("; did you mean `{{{s}}}`?"),
        None => format!(
            "; this check provides {}",
            known
                .iter()
                .map(|k| format!("{{{k}}}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!("unknown placeholder `{{{name}}}`{hint}")
}

impl Template {
    pub fn parse(text: &str, known: &[&str]) -> Result<Template, TemplateError> {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let bytes = text.as_bytes();
        // Text between braces is copied a run at a time (a byte search, not a push per char).
        let mut start = 0;
        while let Some(offset) = bytes[start..].iter().position(|&b| b == b'{' || b == b'}') {
            let i = start + offset;
            literal.push_str(&text[start..i]);
            let brace = bytes[i];
            if bytes.get(i + 1) == Some(&brace) {
                literal.push(char::from(brace));
                start = i + 2;
                continue;
            }
            if brace == b'}' {
                return Err((
                    i,
                    "unmatched `}` in message template (use `}}` for a brace)".into(),
                ));
            }
            let rest = &text[i + 1..];
            let Some(end) = rest.find('}') else {
                return Err((
                    i,
                    "unclosed `{` in message template (use `{{` for a brace)".into(),
                ));
            };
            let name = rest[..end].trim();
            if !known.contains(&name) {
                return Err((i, unknown_placeholder(name, known)));
            }
            if !literal.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut literal)));
            }
            pieces.push(Piece::Var(name.to_string()));
            start = i + 1 + end + 1;
        }
        literal.push_str(&text[start..]);
        if !literal.is_empty() {
            pieces.push(Piece::Text(literal));
        }
        let common = COMMON
            .iter()
            .enumerate()
            .filter(|(_, name)| {
                pieces
                    .iter()
                    .any(|piece| matches!(piece, Piece::Var(v) if v == *name))
            })
            .fold(0, |bits, (i, _)| bits | 1 << i);
        Ok(Template { pieces, common })
    }

    /// The literal text every rendering starts with: up to the first placeholder.
    pub fn literal_start(&self) -> &str {
        match self.pieces.first() {
            Some(Piece::Text(text)) => text,
            _ => "",
        }
    }

    /// Does the template use the placeholder `name`?
    pub fn uses(&self, name: &str) -> bool {
        if let Some(i) = COMMON.iter().position(|c| *c == name) {
            return self.common & 1 << i != 0;
        }
        self.pieces
            .iter()
            .any(|piece| matches!(piece, Piece::Var(v) if v == name))
    }

    /// Fills the template; `lookup` returns each variable's already-escaped text.
    pub fn render<'a>(&'a self, lookup: impl Fn(&str) -> Option<&'a str>) -> String {
        let piece = |piece: &'a Piece| -> &'a str {
            match piece {
                Piece::Text(t) => t,
                Piece::Var(v) => lookup(v).unwrap_or(""),
            }
        };
        // One allocation of the final size, not a chain of doublings (this runs per finding),
        // and each placeholder looked up once when the template is short (nearly all are).
        const SHORT: usize = 8;
        if self.pieces.len() <= SHORT {
            let mut parts = [""; SHORT];
            for (part, p) in parts.iter_mut().zip(&self.pieces) {
                *part = piece(p);
            }
            let parts = &parts[..self.pieces.len()];
            let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
            parts.iter().for_each(|p| out.push_str(p));
            return out;
        }
        let len = self.pieces.iter().map(piece).map(str::len).sum();
        let mut out = String::with_capacity(len);
        for p in &self.pieces {
            out.push_str(piece(p));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_and_escapes() {
        let t = Template::parse("{path} is {value} {{literal}}", &["path", "value"]).unwrap();
        let out = t.render(|k| match k {
            "path" => Some("a.b"),
            "value" => Some("\"x\""),
            _ => None,
        });
        assert_eq!(out, "a.b is \"x\" {literal}");
    }

    /// Short templates and long ones (past the pieces kept on the stack) fill alike.
    #[test]
    fn templates_of_every_length_fill_each_placeholder() {
        for n in 0..20 {
            let source: String = (0..n).map(|i| format!("<{{value}}{i}")).collect();
            let t = Template::parse(&source, &["value"]).unwrap();
            let expected: String = (0..n).map(|i| format!("<V{i}")).collect();
            assert_eq!(t.render(|_| Some("V")), expected, "{n}");
            assert_eq!(t.render(|_| None), source.replace("{value}", ""), "{n}");
        }
    }

    #[test]
    fn unknown_placeholders_are_errors_with_a_suggestion() {
        let err = Template::parse("x {valeu}", &["value", "path"]).unwrap_err();
        assert_eq!(err.0, 2);
        assert!(err.1.contains("did you mean `{value}`"), "{}", err.1);
        assert!(Template::parse("x {value", &["value"]).is_err());
    }

    #[test]
    fn braces_offsets_and_other_characters() {
        let known = ["value"];
        let text = |t: &Template| t.render(|_| Some("V"));
        let t = Template::parse("é {value}—{{ü}} }}{ value }ß", &known).unwrap();
        assert_eq!(text(&t), "é V—{ü} }Vß");
        assert!(t.uses("value"));
        assert_eq!(text(&Template::parse("", &known).unwrap()), "");
        assert_eq!(text(&Template::parse("{{{{", &known).unwrap()), "{{");
        // The byte offset of the brace at fault.
        let err = Template::parse("é }", &known).unwrap_err();
        assert_eq!(err.0, 3);
        assert!(err.1.contains("unmatched `}`"), "{}", err.1);
        assert_eq!(Template::parse("ab{{x}", &known).unwrap_err().0, 5);
        assert_eq!(Template::parse("ab {x", &known).unwrap_err().0, 3);
        assert_eq!(Template::parse("é {nope}", &known).unwrap_err().0, 3);
    }
}
