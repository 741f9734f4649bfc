//! Words: the value of one shell word after quote removal, and what it contains.
//!
//! The walker builds a [`Word`] from a word-like node; this file holds the pure parts: quote
//! and escape decoding for unquoted text, double-quoted text and ANSI-C strings, and glob
//! detection over the unquoted characters of a word.
//!
//! A word's value borrows from the source while it is one piece of it (most words are), and
//! becomes owned when a second piece is appended or an escape is decoded.

use std::borrow::Cow;

/// One shell word, after quote removal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Word<'s> {
    /// The value with quotes removed and escapes decoded; expansions kept as written.
    pub value: Cow<'s, str>,
    /// Byte offset of the word's first byte in its source.
    pub start: usize,
    /// Byte offset one past the word's last byte in its source.
    pub end: usize,
    /// Contains `$VAR`, `${..}`, `$(..)`, backticks, `$((..))`, `<(..)` or `$"..."`.
    pub expansion: bool,
    /// Contains an unquoted glob (`*`, `?`, `[..]`), brace expansion (`{a,b}`, `{1..3}`) or
    /// extglob.
    pub glob: bool,
    /// Contains an ANSI-C string (`$'..'`).
    pub ansi_c: bool,
    /// Starts with an unquoted `~` (tilde expansion).
    pub tilde: bool,
    /// Made by brace expansion of a word as written (`r{m,}` gives `rm` and `r`): known
    /// before the command runs, but not what its source text says.
    pub braced: bool,
    /// Where the glob scan of unquoted characters stands.
    scan: GlobScan,
}

/// The state of the scan for globs over a word's unquoted characters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct GlobScan {
    /// Some character has been appended.
    started: bool,
    /// An unquoted `[` is open.
    bracket: bool,
    /// An unquoted `{` is open.
    brace: bool,
    /// An unquoted `,` or `..` follows the open `{`.
    brace_separator: bool,
    /// The last character was an unquoted `.`.
    dot: bool,
}

impl<'s> Word<'s> {
    /// An empty word at the given position.
    pub fn at(start: usize, end: usize) -> Self {
        Word { start, end, ..Word::default() }
    }

    /// A static word (no expansion, no glob) with the given value and position.
    pub fn literal(value: &'s str, start: usize, end: usize) -> Self {
        let mut word = Word::at(start, end);
        word.push_quoted(value);
        word
    }

    /// The same word, owning its value.
    pub fn into_owned(self) -> Word<'static> {
        Word {
            value: Cow::Owned(self.value.into_owned()),
            start: self.start,
            end: self.end,
            expansion: self.expansion,
            glob: self.glob,
            ansi_c: self.ansi_c,
            tilde: self.tilde,
            braced: self.braced,
            scan: self.scan,
        }
    }

    /// Whether the word's value is fixed: no expansion and no glob.
    pub fn is_static(&self) -> bool {
        !self.expansion && !self.glob
    }

    /// Appends `next`, which follows this word after a line continuation (`r\<newline>m`):
    /// bash joins the two into one word where tree-sitter sees two.
    pub fn join(&mut self, next: Word<'s>) {
        self.append(next.value);
        self.end = next.end;
        self.expansion |= next.expansion;
        self.glob |= next.glob;
        self.ansi_c |= next.ansi_c;
    }

    /// Appends `text` to the value: borrowed while it is the only piece, owned from the second.
    fn append(&mut self, text: Cow<'s, str>) {
        if text.is_empty() {
            return;
        }
        if self.value.is_empty() {
            self.value = text;
        } else {
            self.value.to_mut().push_str(&text);
        }
    }

    /// Appends text that is not subject to globbing: an expansion as written.
    pub fn push_opaque(&mut self, text: &'s str) {
        if !text.is_empty() {
            self.append(Cow::Borrowed(text));
            self.scan.started = true;
            self.scan.dot = false;
        }
    }

    /// Appends quoted (literal) text.
    pub fn push_quoted(&mut self, text: &'s str) {
        self.push_opaque(text);
    }

    /// Appends decoded literal text.
    pub fn push_decoded(&mut self, text: String) {
        if !text.is_empty() {
            self.append(Cow::Owned(text));
            self.scan.started = true;
            self.scan.dot = false;
        }
    }

    /// Notes one unquoted, unescaped character for the glob scan (globs and a leading tilde).
    fn scan_unquoted_char(&mut self, c: char) {
        if !self.scan.started && c == '~' {
            self.tilde = true;
        }
        let scan = &mut self.scan;
        scan.started = true;
        match c {
            '*' | '?' => self.glob = true,
            '[' => scan.bracket = true,
            ']' if scan.bracket => self.glob = true,
            '{' => scan.brace = true,
            ',' if scan.brace => scan.brace_separator = true,
            '.' if scan.brace && scan.dot => scan.brace_separator = true,
            '}' if scan.brace => {
                if scan.brace_separator {
                    self.glob = true;
                }
                scan.brace = false;
                scan.brace_separator = false;
            }
            _ => {}
        }
        self.scan.dot = c == '.';
    }

    /// Notes unquoted, unescaped `text` for the glob scan. Characters that mean nothing to
    /// globbing or tildes only mark the word started (bytes of a multi-byte character alike).
    fn scan_unquoted(&mut self, text: &str) {
        for &b in text.as_bytes() {
            if matches!(b, b'*' | b'?' | b'[' | b']' | b'{' | b'}' | b',' | b'.' | b'~') {
                self.scan_unquoted_char(char::from(b));
            } else {
                self.scan.started = true;
                self.scan.dot = false;
            }
        }
    }

    /// Appends unquoted source text, removing backslash escapes and line continuations.
    pub fn push_unquoted(&mut self, text: &'s str) {
        if !text.as_bytes().contains(&b'\\') {
            self.scan_unquoted(text);
            self.append(Cow::Borrowed(text));
            return;
        }
        let mut decoded = String::with_capacity(text.len());
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('\n') => {}
                    Some(escaped) => {
                        decoded.push(escaped);
                        self.scan.started = true;
                        self.scan.dot = false;
                    }
                    None => {
                        decoded.push('\\');
                        self.scan.started = true;
                        self.scan.dot = false;
                    }
                }
            } else {
                decoded.push(c);
                self.scan_unquoted_char(c);
            }
        }
        self.append(Cow::Owned(decoded));
    }

    /// Appends the inside of a double-quoted string, decoding `\$`, `` \` ``, `\"`, `\\` and
    /// line continuations (other backslashes stay).
    pub fn push_double_quoted(&mut self, text: &'s str) {
        if !text.contains('\\') {
            self.push_opaque(text);
            return;
        }
        let mut decoded = String::with_capacity(text.len());
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.peek() {
                    Some('\n') => {
                        chars.next();
                    }
                    Some(&next @ ('$' | '`' | '"' | '\\')) => {
                        chars.next();
                        decoded.push(next);
                    }
                    _ => decoded.push('\\'),
                }
            } else {
                decoded.push(c);
            }
        }
        self.push_decoded(decoded);
    }
}

/// Whether `text` is a shell identifier, a name bash assigns to: a letter or `_`, then
/// letters, digits and `_`.
pub(crate) fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Decodes the body of an ANSI-C string (`$'…'` without `$'` and `'`) as bash does.
pub(super) fn decode_ansi_c(body: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '\\' || i >= chars.len() {
            out.push(c);
            continue;
        }
        let e = chars[i];
        i += 1;
        match e {
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'e' | 'E' => out.push('\u{1b}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                let mut taken = 1;
                while taken < 3 && i < chars.len() && chars[i].is_digit(8) {
                    value = value * 8 + chars[i].to_digit(8).unwrap_or(0);
                    i += 1;
                    taken += 1;
                }
                out.push(char::from_u32(value & 0xff).unwrap_or('\u{fffd}'));
            }
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut value: u32 = 0;
                let mut taken = 0;
                while taken < max && i < chars.len() && chars[i].is_ascii_hexdigit() {
                    value = value.saturating_mul(16).saturating_add(chars[i].to_digit(16).unwrap_or(0));
                    i += 1;
                    taken += 1;
                }
                if taken == 0 {
                    out.push('\\');
                    out.push(e);
                } else {
                    out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
                }
            }
            'c' if i < chars.len() => {
                let control = chars[i];
                i += 1;
                // `\c\\` is the control character of a backslash: both backslashes are taken.
                if control == '\\' && chars.get(i) == Some(&'\\') {
                    i += 1;
                }
                out.push(char::from_u32(u32::from(control) & 0x1f).unwrap_or('\u{fffd}'));
            }
            _ => {
                out.push('\\');
                out.push(e);
            }
        }
    }
    // bash ends the string's value at a NUL byte (`echo$'\0'` runs `echo`).
    if let Some(nul) = out.find('\0') {
        out.truncate(nul);
    }
    out
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn unquoted_text_drops_backslashes_and_continuations() {
        let mut word = Word::default();
        word.push_unquoted("\\rm\\\n-x\\ y\\*");
        assert_eq!(word.value, "rm-x y*");
        assert!(!word.glob, "escaped characters are literal");
    }

    #[test]
    fn double_quoted_text_decodes_only_its_escapes() {
        let mut word = Word::default();
        word.push_double_quoted(r#"a\"b\$c\\d\e"#);
        assert_eq!(word.value, r#"a"b$c\d\e"#);
    }

    #[test]
    fn ansi_c_escapes_decode_like_bash() {
        assert_eq!(decode_ansi_c(r"\x41\101\n\u00e9\cA\q\'"), "AA\né\u{1}\\q'");
        assert_eq!(decode_ansi_c(r"r\x6d"), "rm");
        assert_eq!(decode_ansi_c("trailing\\"), "trailing\\");
    }

    #[test]
    fn globs_and_braces_are_found_only_unquoted() {
        for (unquoted, glob) in [
            ("*.rs", true),
            ("a?", true),
            ("[ab]", true),
            ("[", false),
            ("{a,b}", true),
            ("x{1..3}", true),
            ("{}", false),
            ("@{u}", false),
            ("@{u}..@{1}", false),
            ("{a}b,c}", false),
            ("HEAD~1", false),
            ("-exec", false),
        ] {
            let mut word = Word::default();
            word.push_unquoted(unquoted);
            assert_eq!(word.glob, glob, "{unquoted:?}");
        }
        let mut quoted = Word::default();
        quoted.push_quoted("*");
        quoted.push_unquoted("{a");
        quoted.push_quoted(",");
        quoted.push_unquoted("}");
        assert!(!quoted.glob, "quoted characters do not glob");
        let mut tilde = Word::default();
        tilde.push_unquoted("~/x");
        assert!(tilde.tilde);
        let mut not_leading = Word::default();
        not_leading.push_quoted("a");
        not_leading.push_unquoted("~");
        assert!(!not_leading.tilde);
    }
}
