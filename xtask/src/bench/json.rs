//! Just enough JSON for the model-facing row: reading `toolgate`'s output and the Claude
//! Code fixture, and writing values back compactly, as `serde_json::to_string` does (xtask
//! keeps to `anyhow` and `nix`, so this is the whole of it).

use std::fmt::Write as _;

use anyhow::{Context as _, bail};

/// A JSON value; objects keep their keys in the order they were read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// A number, kept as its text.
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value of `key` in an object.
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a string.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    /// The elements of an array.
    pub(crate) fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// Whether this is `true`.
    pub(crate) fn is_true(&self) -> bool {
        *self == Json::Bool(true)
    }

    /// The compact text of the value: no spaces, strings escaped as serde_json escapes them
    /// (`"`, `\`, and control characters; everything else as it is).
    pub(crate) fn compact(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out);
        out
    }

    fn write_compact(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(text) => out.push_str(text),
            Json::String(text) => write_string(text, out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_compact(out);
                }
                out.push(']');
            }
            Json::Object(entries) => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(key, out);
                    out.push(':');
                    value.write_compact(out);
                }
                out.push('}');
            }
        }
    }
}

fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Reads one JSON value that fills `text` (surrounding whitespace aside).
pub(crate) fn parse(text: &str) -> anyhow::Result<Json> {
    let mut reader = Reader { text: text.as_bytes(), at: 0 };
    let value = reader.value().with_context(|| format!("JSON at byte {}", reader.at))?;
    reader.space();
    if reader.at != reader.text.len() {
        bail!("JSON has more after the value, at byte {}", reader.at);
    }
    Ok(value)
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn space(&mut self) {
        while self.text.get(self.at).is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> anyhow::Result<()> {
        self.space();
        if self.text.get(self.at) != Some(&byte) {
            bail!("expected `{}`", byte as char);
        }
        self.at += 1;
        Ok(())
    }

    fn literal(&mut self, word: &str, value: Json) -> anyhow::Result<Json> {
        if !self.text[self.at..].starts_with(word.as_bytes()) {
            bail!("expected `{word}`");
        }
        self.at += word.len();
        Ok(value)
    }

    fn value(&mut self) -> anyhow::Result<Json> {
        self.space();
        match self.text.get(self.at) {
            None => bail!("unexpected end"),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::String),
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.space();
                if self.text.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    self.space();
                    match self.text.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => bail!("expected `,` or `]`"),
                    }
                }
            }
            Some(b'{') => {
                self.at += 1;
                let mut entries = Vec::new();
                self.space();
                if self.text.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Json::Object(entries));
                }
                loop {
                    self.space();
                    let key = self.string()?;
                    self.expect(b':')?;
                    entries.push((key, self.value()?));
                    self.space();
                    match self.text.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Json::Object(entries));
                        }
                        _ => bail!("expected `,` or `}}`"),
                    }
                }
            }
            Some(_) => {
                let start = self.at;
                while self.text.get(self.at).is_some_and(|b| b.is_ascii_digit() || b"+-.eE".contains(b)) {
                    self.at += 1;
                }
                if start == self.at {
                    bail!("unexpected `{}`", self.text[start] as char);
                }
                Ok(Json::Number(String::from_utf8_lossy(&self.text[start..self.at]).into_owned()))
            }
        }
    }

    fn string(&mut self) -> anyhow::Result<String> {
        if self.text.get(self.at) != Some(&b'"') {
            bail!("expected a string");
        }
        self.at += 1;
        let mut bytes = Vec::new();
        loop {
            let Some(&byte) = self.text.get(self.at) else { bail!("unterminated string") };
            self.at += 1;
            match byte {
                b'"' => return String::from_utf8(bytes).context("a string that is not UTF-8"),
                b'\\' => {
                    let Some(&escape) = self.text.get(self.at) else { bail!("unterminated escape") };
                    self.at += 1;
                    let c = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let high = self.hex4()?;
                            let code = if (0xd800..0xdc00).contains(&high) {
                                if !self.text[self.at..].starts_with(b"\\u") {
                                    bail!("a lone surrogate");
                                }
                                self.at += 2;
                                let low = self.hex4()?;
                                0x10000 + ((high - 0xd800) << 10) + (low.wrapping_sub(0xdc00) & 0x3ff)
                            } else {
                                high
                            };
                            char::from_u32(code).context("an invalid \\u escape")?
                        }
                        other => bail!("unknown escape `\\{}`", other as char),
                    };
                    let mut buf = [0; 4];
                    bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                byte => bytes.push(byte),
            }
        }
    }

    fn hex4(&mut self) -> anyhow::Result<u32> {
        let digits = self.text.get(self.at..self.at + 4).context("a short \\u escape")?;
        self.at += 4;
        u32::from_str_radix(std::str::from_utf8(digits)?, 16).context("a \\u escape that is not hex")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_compactly() {
        let text = r#" { "a" : [1, -2.5e3, true, false, null], "b\n": "x\"\\\u00e9\ud83d\ude00\u0001", "c": {} } "#;
        let value = parse(text).unwrap();
        assert_eq!(value.get("a").and_then(Json::as_array).map(<[Json]>::len), Some(5));
        assert_eq!(value.get("b\n").and_then(Json::as_str), Some("x\"\\é😀\u{1}"));
        assert_eq!(value.compact(), r#"{"a":[1,-2.5e3,true,false,null],"b\n":"x\"\\é😀\u0001","c":{}}"#);
    }

    #[test]
    fn broken_json_is_an_error() {
        for text in ["", "[1,", r#"{"a" 1}"#, r#""open"#, "[1] 2", "nul"] {
            assert!(parse(text).is_err(), "{text}");
        }
    }
}
