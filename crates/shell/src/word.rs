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
    /// A quoted or escaped part holds a `$` or a backtick: text that a builtin evaluating its
    /// argument (`read "a[\$(…)$z]"`) may run, even in a word known only at run time.
    pub literal_dollar: bool,
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
            literal_dollar: self.literal_dollar,
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
        // A bracket or brace left open may close in `next` (tree-sitter splits `secre[\t]`
        // after the `[`): taken as a glob, whether its closing character was quoted or not.
        let closes_bracket = self.scan.bracket && next.value.contains(']');
        let closes_brace = self.scan.brace && next.value.contains('}');
        self.glob |= closes_bracket || closes_brace;
        self.scan.bracket = next.scan.bracket || (self.scan.bracket && !closes_bracket);
        self.scan.brace = next.scan.brace || (self.scan.brace && !closes_brace);
        self.append(next.value);
        self.end = next.end;
        self.expansion |= next.expansion;
        self.glob |= next.glob;
        self.ansi_c |= next.ansi_c;
        self.literal_dollar |= next.literal_dollar;
    }

    /// Notes literal (quoted, escaped or decoded) `text` for [`Word::literal_dollar`].
    fn note_literal(&mut self, text: &str) {
        self.literal_dollar |= text.contains(['$', '`']);
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
        self.note_literal(text);
        self.push_opaque(text);
    }

    /// Appends decoded literal text.
    pub fn push_decoded(&mut self, text: String) {
        self.note_literal(&text);
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
        self.note_literal(text);
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
            self.note_literal(text);
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
pub fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Bash's reserved words (and `[[`, `]]`, `!`): words it reads as syntax, not as a command's
/// name, where a command could start. Sorted.
pub(super) const RESERVED_WORDS: &[&str] = &[
    "!", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in",
    "select", "then", "time", "until", "while", "{", "}",
];

/// Whether `word` is one of [`RESERVED_WORDS`].
pub(super) fn is_reserved_word(word: &str) -> bool {
    RESERVED_WORDS.binary_search(&word).is_ok()
}

/// Whether `name`, written unquoted as a command's name, is one bash never runs: a reserved
/// word that opens, continues or closes a compound command (`esac`, `fi`, `}`, `if` …). A
/// command so named in tree-sitter's reading is not bash's (`case l in *) cp esac;esac`,
/// where bash runs `cp esac`). Not `in`, `time`, `coproc` or `!`: bash runs a command named
/// `in`, and the others prefix a command.
pub(super) fn never_a_command_name(name: &str) -> bool {
    RESERVED_WORDS.binary_search(&name).is_ok() && !matches!(name, "in" | "time" | "coproc" | "!")
}

/// Decodes the body of an ANSI-C string (`$'…'` without `$'` and `'`) as bash does. bash
/// makes bytes of it: when they are not UTF-8 (`$'\207'`), or a `\u` escape names a character
/// past ASCII (which bash spells by its locale), the word bash passes is not known as text,
/// and the error holds the value with U+FFFD (or the character) in their place.
pub(super) fn decode_ansi_c(body: &str) -> Result<String, String> {
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let mut exact = true;
    let push_char = |out: &mut Vec<u8>, c: char| out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '\\' || i >= chars.len() {
            push_char(&mut out, c);
            continue;
        }
        let e = chars[i];
        i += 1;
        match e {
            'a' => out.push(0x07),
            'b' => out.push(0x08),
            'e' | 'E' => out.push(0x1b),
            'f' => out.push(0x0c),
            'n' => out.push(b'\n'),
            'r' => out.push(b'\r'),
            't' => out.push(b'\t'),
            'v' => out.push(0x0b),
            '\\' | '\'' | '"' | '?' => push_char(&mut out, e),
            '0'..='7' | 'x' => {
                let (radix, max) = if e == 'x' { (16, 2) } else { (8, 3) };
                let mut value = if e == 'x' { 0 } else { e.to_digit(8).unwrap_or(0) };
                let mut taken = usize::from(e != 'x');
                while taken < max && i < chars.len() && chars[i].is_digit(radix) {
                    value = value * radix + chars[i].to_digit(radix).unwrap_or(0);
                    i += 1;
                    taken += 1;
                }
                if taken == 0 {
                    out.extend_from_slice(b"\\x");
                } else {
                    out.push(u8::try_from(value & 0xff).unwrap_or(0));
                }
            }
            'u' | 'U' => {
                let max = if e == 'u' { 4 } else { 8 };
                let mut value: u32 = 0;
                let mut taken = 0;
                while taken < max && i < chars.len() && chars[i].is_ascii_hexdigit() {
                    value = value.saturating_mul(16).saturating_add(chars[i].to_digit(16).unwrap_or(0));
                    i += 1;
                    taken += 1;
                }
                if taken == 0 {
                    push_char(&mut out, '\\');
                    push_char(&mut out, e);
                } else {
                    // Past ASCII the character depends on the locale bash runs in (in the C
                    // locale `$'\u00e9'` stays `\u00E9`): not known here.
                    let decoded = char::from_u32(value);
                    exact &= decoded.is_some() && value < 0x80;
                    push_char(&mut out, decoded.unwrap_or('\u{fffd}'));
                }
            }
            'c' if i < chars.len() => {
                let control = chars[i];
                i += 1;
                // `\c\\` is the control character of a backslash: both backslashes are taken.
                if control == '\\' && chars.get(i) == Some(&'\\') {
                    i += 1;
                }
                out.push(u8::try_from(u32::from(control) & 0x1f).unwrap_or(0));
            }
            _ => {
                push_char(&mut out, '\\');
                push_char(&mut out, e);
            }
        }
    }
    // bash ends the string's value at a NUL byte (`echo$'\0'` runs `echo`).
    if let Some(nul) = out.iter().position(|&b| b == 0) {
        out.truncate(nul);
    }
    match String::from_utf8(out) {
        Ok(text) if exact => Ok(text),
        Ok(text) => Err(text),
        Err(bytes) => Err(String::from_utf8_lossy(bytes.as_bytes()).into_owned()),
    }
}

/// Whether `text` is made only of characters that mean nothing to the shell inside a word
/// (letters, digits and `-_./+:,=`): no quote, escape, expansion, glob, brace, tilde or
/// operator.
pub(crate) fn is_plain(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b'+' | b':' | b',' | b'='))
}

/// Whether `text` contains a backtick or a `$(` that does not open an arithmetic `$((`.
pub(crate) fn has_substitution_text(text: &str) -> bool {
    text.contains('`') || text.match_indices("$(").any(|(at, _)| !text[at + 2..].starts_with('('))
}

/// The first variable an arithmetic expression names (or `$` for an expansion), skipping
/// numbers in any base (`0x1f`, `2#101`, `64#_@`).
pub(crate) fn arithmetic_name(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(&c) = bytes.get(at) {
        if c.is_ascii_digit() {
            at += 1;
            while bytes.get(at).is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'#' | b'_' | b'@')) {
                at += 1;
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = at;
            while bytes.get(at).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_') {
                at += 1;
            }
            return text.get(start..at);
        } else if c == b'$' && bytes.get(at + 1) != Some(&b'(') {
            // (A `$(` is a command substitution, a hazard of its own.)
            return Some("$");
        } else {
            at += 1;
        }
    }
    None
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
    fn reserved_words_are_sorted() {
        assert!(RESERVED_WORDS.is_sorted(), "RESERVED_WORDS must stay sorted for binary search");
        assert!(never_a_command_name("esac") && never_a_command_name("}") && never_a_command_name("if"));
        assert!(!never_a_command_name("in") && !never_a_command_name("time") && !never_a_command_name("esac2"));
    }

    #[test]
    fn ansi_c_escapes_decode_like_bash() {
        assert_eq!(decode_ansi_c(r"\x41\101\n\u0041\cA\q\'"), Ok("AA\nA\u{1}\\q'".to_owned()));
        assert_eq!(decode_ansi_c(r"\u00e9"), Err("é".to_owned()));
        assert_eq!(decode_ansi_c(r"r\x6d"), Ok("rm".to_owned()));
        assert_eq!(decode_ansi_c("trailing\\"), Ok("trailing\\".to_owned()));
        // Bytes bash makes of escapes: UTF-8 together, or no text at all.
        assert_eq!(decode_ansi_c(r"\xc3\xa9\303\251"), Ok("éé".to_owned()));
        assert_eq!(decode_ansi_c(r"a\207"), Err("a\u{fffd}".to_owned()));
        assert_eq!(decode_ansi_c(r"\xZ"), Ok("\\xZ".to_owned()));
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
