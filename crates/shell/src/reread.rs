//! Tokens that tree-sitter-bash ends somewhere other than bash does, found in a parsed tree,
//! and the source rewritten so that tree-sitter reads them as bash does.
//!
//! tree-sitter-bash's lexer differs from bash's on two kinds of token whose end decides where
//! the rest of the line is read as commands:
//!
//! - **ANSI-C strings** (`$'…'`): tree-sitter's pattern lets `\'` continue the string even where
//!   the backslash is itself escaped, so `$'\\' ; touch x #'` is one string to it; bash pairs
//!   each backslash with the byte after it, and the string ends at the first `'` not so paired.
//! - **Here-documents**: bash's delimiter is its word with quotes removed (`E'O'F` is `EOF`),
//!   the word ends at a metacharacter (`<<EOF;echo`), a delimiter line must be the delimiter
//!   exactly (after leading tabs, for `<<-`), and only an unquoted body joins lines ending in
//!   `\`. tree-sitter keeps quotes in the middle, reads to the next blank, ends at a line that
//!   only starts with the delimiter, skips any leading blanks, and always joins such lines.
//!
//! - **Blanks**: bash separates words only by spaces, tabs and newlines; a carriage return, a
//!   vertical tab or a form feed is a character of a word, and so is a blank after a backslash.
//!   tree-sitter skips all of these between tokens, so `echo a\<TAB>#; rm x` is `echo a` and a
//!   comment to it, where bash runs `rm x`.
//!
//! [`check`] computes bash's end of each such token and compares it with the tree's. Where they
//! differ it returns the source with that token respelt in a form both read alike (`\\` as
//! `\x5c`; a delimiter as `'EOF'`, or a fresh one that no body line contains), which the caller
//! parses again; where no respelling is known it says so, and the line is never approved.

use tree_sitter::Node;

use super::kind::{Kind, kind};

/// What [`check`] found.
pub(super) enum Reading {
    /// Every checked token ends where bash ends it.
    Agrees,
    /// A token ends elsewhere in bash; this source spells it so that tree-sitter agrees.
    Rewritten(String),
    /// A token ends elsewhere in bash, or may, and no respelling is known.
    Unsure,
}

/// Compares the ends of `src`'s ANSI-C strings and here-documents in the tree at `root` with
/// bash's, and reports the first that differs; where they all agree, the blanks tree-sitter
/// skipped inside words.
///
/// The token ends come first: a string tree-sitter ends early leaves the rest of its text to
/// be read as words, and a respelling of the escaped blanks there would change what bash reads
/// as the string's (`$'\\' ';\ x'` has no escaped blank to bash: the `\ ` is inside quotes).
pub(super) fn check(root: Node<'_>, src: &str) -> Reading {
    if (src.contains("$'") || src.contains("<<"))
        && let Some(reading) = token_ends(root, src)
    {
        return reading;
    }
    if may_skip_word_bytes(src.as_bytes())
        && let Some(reading) = skipped(root, src)
    {
        return reading;
    }
    Reading::Agrees
}

/// The reading of the first ANSI-C string or here-document of the tree at `root` that ends
/// elsewhere in bash, if one does.
fn token_ends(root: Node<'_>, src: &str) -> Option<Reading> {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let found = match kind(node) {
            Kind::AnsiCString => ansi_c(node, src),
            // The start's parent: the redirect, or the ERROR node tree-sitter made of it.
            Kind::HeredocStart => node.parent().and_then(|redirect| heredoc(redirect, src)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            continue;
        }
        loop {
            if !cursor.goto_parent() {
                return None;
            }
            if cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

/// Whether `src` holds a byte that tree-sitter may skip as a blank where bash reads it as part
/// of a word: a carriage return, vertical tab or form feed, a blank after a backslash, or a
/// character outside ASCII (some of which tree-sitter takes for blanks).
fn may_skip_word_bytes(src: &[u8]) -> bool {
    src.iter().enumerate().any(|(i, &byte)| match byte {
        b'\r' | b'\x0b' | b'\x0c' => true,
        b'\\' => matches!(src.get(i + 1), Some(b' ' | b'\t' | b'\x0b' | b'\x0c')),
        b'\n' => src.get(i + 1) == Some(&b'\\'),
        _ => byte >= 0x80,
    })
}

/// Node kinds read as one token here: their text between children is theirs, not a gap.
fn is_token(node: Node<'_>) -> bool {
    node.child_count() == 0
        || matches!(kind(node), Kind::String | Kind::TranslatedString | Kind::HeredocBody | Kind::Comment)
}

/// The reading of `src` when tree-sitter skipped, between two tokens, bytes that bash reads
/// as part of a word: every such byte (or escaped blank) respelt in single quotes.
fn skipped(root: Node<'_>, src: &str) -> Option<Reading> {
    let bytes = src.as_bytes();
    let mut gaps = Vec::new();
    let mut end = 0;
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        if is_token(node) {
            if kind(node) == Kind::Word
                && let Some(reading) = word_across_lines(bytes, node.start_byte(), node.end_byte(), src)
            {
                return Some(reading);
            }
            if node.start_byte() > end {
                gaps.push((end, node.start_byte()));
            }
            end = end.max(node.end_byte());
        } else if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    gaps.push((end, bytes.len()));
    // Every such byte of every gap is respelt at once (a file of CRLF lines has one a line).
    let mut out: Vec<u8> = Vec::new();
    let mut copied = 0;
    for (start, gap_end) in gaps {
        let mut i = start;
        while i < gap_end {
            let width = match (bytes[i], bytes.get(i + 1)) {
                (b' ' | b'\t' | b'\n', _) => {
                    i += 1;
                    continue;
                }
                (b'\\', Some(b'\n')) => {
                    i += 2;
                    continue;
                }
                (b'\\', Some(b' ' | b'\t' | b'\x0b' | b'\x0c')) => 2,
                (b'\r' | b'\x0b' | b'\x0c', _) => 1,
                _ => return Some(Reading::Unsure),
            };
            out.extend_from_slice(&bytes[copied..i]);
            escape_dollar(&mut out);
            out.extend_from_slice(&[b'\'', bytes[i + width - 1], b'\'']);
            i += width;
            copied = i;
        }
    }
    if copied == 0 {
        return None;
    }
    out.extend_from_slice(&bytes[copied..]);
    Some(String::from_utf8(out).map_or(Reading::Unsure, Reading::Rewritten))
}

/// Escapes a `$` that ends `out` (and no backslash escapes), before a respelling in quotes is
/// appended: `$'…'` would be an ANSI-C string, where bash read a literal `$`.
fn escape_dollar(out: &mut Vec<u8>) {
    let Some((&b'$', before)) = out.split_last() else { return };
    if before.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0 {
        out.pop();
        out.extend_from_slice(b"\\$");
    }
}

/// The reading of `src` when tree-sitter made one word of a line's end and an escaped
/// character that starts the next line (`ls` then `\\rm -rf x` on the next line is one
/// command to it; bash runs two): the escaped character respelt in single quotes.
fn word_across_lines(bytes: &[u8], start: usize, end: usize, src: &str) -> Option<Reading> {
    let word = &bytes[start..end];
    // A newline after an odd run of backslashes is a line continuation, inside the word.
    let continued = |i: usize| word[..i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1;
    let newline = word.iter().enumerate().position(|(i, &b)| b == b'\n' && !continued(i))?;
    let at = start + newline + 1;
    match (bytes.get(at), bytes.get(at + 1)) {
        (Some(b'\\'), Some(&escaped)) if escaped != b'\'' && escaped != b'\n' && escaped.is_ascii() => {
            Some(splice(src, at, at + 2, &[b'\'', escaped, b'\'']))
        }
        _ => Some(Reading::Unsure),
    }
}

/// Where bash ends the ANSI-C string that starts at `start` (`$'`): one past its closing
/// quote, or `None` when the source ends first.
fn ansi_c_end(src: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 2;
    loop {
        match src.get(i)? {
            b'\\' => i += 2,
            b'\'' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The reading of the ANSI-C string `node`, when bash ends it elsewhere.
fn ansi_c(node: Node<'_>, src: &str) -> Option<Reading> {
    let bytes = src.as_bytes();
    let start = node.start_byte();
    if bytes.get(start..start + 2) != Some(b"$'") {
        return None;
    }
    let Some(end) = ansi_c_end(bytes, start) else { return Some(Reading::Unsure) };
    if end == node.end_byte() {
        return None;
    }
    // Respell every escaped backslash, so that no `\'` can be read as an escaped quote.
    let body = &bytes[start + 2..end - 1];
    let mut spelt = Vec::with_capacity(body.len() + 8);
    let mut i = 0;
    while i < body.len() {
        match (body[i], body.get(i + 1)) {
            // `\c\\` is the control character of a backslash, both backslashes taken.
            (b'\\', Some(b'c')) if body.get(i + 2..i + 4) == Some(b"\\\\") => {
                spelt.extend_from_slice(b"\\x1c");
                i += 4;
            }
            (b'\\', Some(b'\\')) => {
                spelt.extend_from_slice(b"\\x5c");
                i += 2;
            }
            (b'\\', Some(&next)) => {
                spelt.extend_from_slice(&[b'\\', next]);
                i += 2;
            }
            (byte, _) => {
                spelt.push(byte);
                i += 1;
            }
        }
    }
    Some(splice(src, start + 2, end - 1, &spelt))
}

/// A here-document's delimiter word as one lexer reads it.
#[derive(Debug, PartialEq, Eq)]
struct Delimiter {
    /// The delimiter lines are compared with.
    value: Vec<u8>,
    /// One past the word's last byte.
    end: usize,
    /// Whether any part of the word is quoted (then the body is not expanded).
    quoted: bool,
}

/// The bytes that end an unquoted word in bash.
fn is_metachar(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>')
}

/// bash's reading of the delimiter word at `start`; `None` where it holds something bash reads
/// as a nested construct (`$(`, `${`, a backtick) or never closes a quote.
fn bash_delimiter(src: &[u8], start: usize) -> Option<Delimiter> {
    let mut value = Vec::new();
    let mut quoted = false;
    let mut i = start;
    while let Some(&byte) = src.get(i) {
        match byte {
            _ if is_metachar(byte) => break,
            b'\\' if src.get(i + 1) == Some(&b'\n') => i += 2,
            b'\\' => {
                value.push(*src.get(i + 1)?);
                quoted = true;
                i += 2;
            }
            b'\'' => {
                let close = i + 1 + src.get(i + 1..)?.iter().position(|&b| b == b'\'')?;
                value.extend_from_slice(&src[i + 1..close]);
                quoted = true;
                i = close + 1;
            }
            b'$' if src.get(i + 1) == Some(&b'\'') => {
                let end = ansi_c_end(src, i)?;
                let body = &src[i + 2..end - 1];
                if body.contains(&b'\\') {
                    return None;
                }
                value.extend_from_slice(body);
                quoted = true;
                i = end;
            }
            b'$' if src.get(i + 1) == Some(&b'"') => i += 1,
            b'"' => {
                i += 1;
                loop {
                    match *src.get(i)? {
                        b'"' => break,
                        b'\\' if matches!(src.get(i + 1), Some(b'$' | b'`' | b'"' | b'\\')) => {
                            value.push(src[i + 1]);
                            i += 2;
                        }
                        b'\\' if src.get(i + 1) == Some(&b'\n') => i += 2,
                        b'`' => return None,
                        b'$' if matches!(src.get(i + 1), Some(b'(' | b'{')) => return None,
                        other => {
                            value.push(other);
                            i += 1;
                        }
                    }
                }
                quoted = true;
                i += 1;
            }
            b'`' => return None,
            b'$' if matches!(src.get(i + 1), Some(b'(' | b'{')) => return None,
            other => {
                value.push(other);
                i += 1;
            }
        }
    }
    Some(Delimiter { value, end: i, quoted })
}

/// tree-sitter-bash's reading of the delimiter word at `start` (its scanner's rules).
fn tree_sitter_delimiter(src: &[u8], start: usize) -> Delimiter {
    let mut value = Vec::new();
    let mut i = start;
    let quote = src.get(i).copied().filter(|&b| b == b'\'' || b == b'"');
    if quote.is_some() {
        i += 1;
    }
    while let Some(&byte) = src.get(i) {
        let stop = match quote {
            Some(quote) => byte == quote || byte == b'\r' || byte == b'\n',
            None => byte.is_ascii_whitespace() || byte == b'\x0b',
        };
        if stop {
            break;
        }
        if byte == b'\\' {
            i += 1;
        }
        match src.get(i) {
            Some(&byte) => value.push(byte),
            None => break,
        }
        i += 1;
    }
    if quote.is_some() && src.get(i).copied() == quote {
        i += 1;
    }
    let quoted = matches!(src.get(start), Some(b'\'' | b'"' | b'\\'));
    Delimiter { value, end: i, quoted }
}

/// The reading of the here-document `node` (its redirect, or an ERROR node holding its
/// parts), when bash ends its delimiter or its body elsewhere.
fn heredoc(node: Node<'_>, src: &str) -> Option<Reading> {
    let bytes = src.as_bytes();
    let mut strip_tabs = false;
    let mut start = None;
    let mut body_start = None;
    let mut end = None;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match kind(child) {
            Kind::HeredocStart => start = Some(child),
            Kind::HeredocBody if body_start.is_none() => body_start = Some(child.start_byte()),
            Kind::HeredocEnd => end = Some(child),
            _ if child.kind() == "<<-" => strip_tabs = true,
            _ => {}
        }
    }
    let start = start?;
    let Some(delimiter) = bash_delimiter(bytes, start.start_byte()) else { return Some(Reading::Unsure) };
    if delimiter.value.is_empty() {
        return Some(Reading::Unsure);
    }
    let theirs = tree_sitter_delimiter(bytes, start.start_byte());
    if delimiter.end != start.end_byte() || theirs != delimiter {
        return Some(respell_delimiter(src, start.start_byte(), &delimiter));
    }
    // The body starts on the line after the redirect's (tree-sitter's node may skip blanks).
    let first = body_start.or(end.map(|end| end.start_byte()))?;
    let body_start = line_start(bytes, first);
    if body_start == 0 || !bytes[body_start..first].iter().all(u8::is_ascii_whitespace) {
        return Some(Reading::Unsure);
    }
    // Where the rest of the redirect's line holds nothing that can carry it onto the next line
    // (a backslash, a quote, a substitution), bash's body starts right after that line;
    // tree-sitter may start it later (it reads a body line of `\` as joining the next line to
    // the command's), and no respelling of the delimiter mends that.
    let after = start.end_byte();
    let line_end = bytes[after..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |at| after + at);
    let plain_rest = !bytes[after..line_end].iter().any(|b| matches!(b, b'\\' | b'\'' | b'"' | b'`' | b'$'));
    if plain_rest && body_start != line_end + 1 {
        return Some(Reading::Unsure);
    }
    let bash_end = body_end(bytes, body_start, &delimiter, strip_tabs);
    // A body the source ends before its delimiter line: bash reads it to the end of input
    // (with a warning), and its reading of the last line is its own (`touch\` there ran as
    // `touch`, and `EOF\` as a word with a byte of bash's own in it; a quoted delimiter's body
    // lost a backslash to the analysis). Such a line is not read as bash reads it.
    if bash_end.is_none() {
        return Some(Reading::Unsure);
    }
    let tree_end = end.map(|end| (line_start(bytes, end.start_byte()), end.end_byte()));
    let agrees = match (bash_end, tree_end) {
        (Some((line, line_end)), Some((their_line, their_end))) => line == their_line && line_end == their_end,
        // Both read the body to the end of the source: tree-sitter's end, if any, is empty there
        // (a last line ` EOF` ends no body to bash, and does to tree-sitter).
        (None, None) => true,
        (None, Some((_, their_end))) => {
            their_end == bytes.len()
                && node.end_byte() == bytes.len()
                && end.is_some_and(|end| end.start_byte() == end.end_byte())
        }
        (Some(_), None) => false,
    };
    if agrees {
        return None;
    }
    Some(fresh_delimiter(src, start.start_byte(), &delimiter, bash_end))
}

/// The offset where the line holding `at` starts.
fn line_start(src: &[u8], at: usize) -> usize {
    src[..at].iter().rposition(|&b| b == b'\n').map_or(0, |newline| newline + 1)
}

/// Where bash ends the body that starts at `start`: the start and end of the delimiter line,
/// or `None` when the source ends first.
fn body_end(src: &[u8], start: usize, delimiter: &Delimiter, strip_tabs: bool) -> Option<(usize, usize)> {
    let mut line = start;
    // An unquoted body joins a line ending in an odd number of backslashes with the next, and
    // bash compares the joined line with the delimiter (a line `\`, then `EOF`, ends it).
    let mut logical: Vec<u8> = Vec::new();
    let mut logical_start = None;
    while line < src.len() {
        let line_end = src[line..].iter().position(|&b| b == b'\n').map_or(src.len(), |at| line + at);
        let text = &src[line..line_end];
        let content = if strip_tabs { &text[text.iter().take_while(|&&b| b == b'\t').count()..] } else { text };
        let first = *logical_start.get_or_insert(line);
        logical.extend_from_slice(content);
        let backslashes = text.iter().rev().take_while(|&&b| b == b'\\').count();
        if !delimiter.quoted && backslashes % 2 == 1 {
            // The continuation's backslash goes; the newline after it too.
            logical.pop();
        } else {
            if logical == delimiter.value {
                return Some((first, line_end));
            }
            logical.clear();
            logical_start = None;
        }
        line = line_end + 1;
    }
    None
}

/// `src` with the delimiter word at `start` spelt `'EOF'` (quoted) or `EOF ` (unquoted), which
/// tree-sitter reads as bash reads the original.
fn respell_delimiter(src: &str, start: usize, delimiter: &Delimiter) -> Reading {
    let value = &delimiter.value;
    if value.iter().any(|&b| b == b'\'' || b == b'\n' || b == b'\r') {
        return Reading::Unsure;
    }
    let spelt =
        if delimiter.quoted { [b"'".as_slice(), value, b"'"].concat() } else { [value.as_slice(), b" "].concat() };
    splice(src, start, delimiter.end, &spelt)
}

/// `src` with the here-document at `start` given a delimiter that no line of the source holds,
/// written in place of the word and of the line where bash ends the body (or after the last
/// line, when bash reads the body to the end).
fn fresh_delimiter(src: &str, start: usize, delimiter: &Delimiter, end: Option<(usize, usize)>) -> Reading {
    let fresh =
        (0..).map(|n| format!("TOOLGATE_EOF_{n}")).find(|fresh| !src.contains(fresh.as_str())).unwrap_or_default();
    let word = if delimiter.quoted { format!("'{fresh}'") } else { fresh.clone() };
    let mut out = String::with_capacity(src.len() + 2 * fresh.len() + 4);
    out.push_str(&src[..start]);
    out.push_str(&word);
    match end {
        Some((line, line_end)) => {
            out.push_str(&src[delimiter.end..line]);
            out.push_str(&fresh);
            out.push_str(&src[line_end..]);
        }
        None => {
            out.push_str(&src[delimiter.end..]);
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&fresh);
        }
    }
    Reading::Rewritten(out)
}

/// `src` with the bytes `start..end` replaced by `with`.
fn splice(src: &str, start: usize, end: usize, with: &[u8]) -> Reading {
    let mut out = Vec::with_capacity(src.len() + with.len());
    out.extend_from_slice(&src.as_bytes()[..start]);
    out.extend_from_slice(with);
    out.extend_from_slice(&src.as_bytes()[end..]);
    String::from_utf8(out).map_or(Reading::Unsure, Reading::Rewritten)
}

#[cfg(test)]
mod unit {
    use super::*;

    fn bash(word: &str) -> Option<(String, usize, bool)> {
        bash_delimiter(word.as_bytes(), 0).map(|d| (String::from_utf8(d.value).expect("utf-8"), d.end, d.quoted))
    }

    /// Each spelling's delimiter as real bash 5.2 reads it (checked with `cat <<WORD`).
    #[test]
    fn delimiters_are_read_as_bash_reads_them() {
        assert_eq!(bash("EOF"), Some(("EOF".into(), 3, false)));
        assert_eq!(bash("E'O'F"), Some(("EOF".into(), 5, true)));
        assert_eq!(bash("E\"O\"F"), Some(("EOF".into(), 5, true)));
        assert_eq!(bash("E''OF"), Some(("EOF".into(), 5, true)));
        assert_eq!(bash("E$'O'F"), Some(("EOF".into(), 6, true)));
        assert_eq!(bash("$\"EOF\""), Some(("EOF".into(), 6, true)));
        assert_eq!(bash("E\\OF"), Some(("EOF".into(), 4, true)));
        assert_eq!(bash("E\\\nOF"), Some(("EOF".into(), 5, false)));
        assert_eq!(bash("EOF;echo hi"), Some(("EOF".into(), 3, false)));
        assert_eq!(bash("EOF)"), Some(("EOF".into(), 3, false)));
        assert_eq!(bash("E''"), Some(("E".into(), 3, true)));
        assert_eq!(bash("$(x)"), None);
        assert_eq!(bash("'EOF"), None);
    }

    #[test]
    fn tree_sitter_keeps_inner_quotes_and_reads_to_a_blank() {
        let read = |word: &str| {
            let d = tree_sitter_delimiter(word.as_bytes(), 0);
            (String::from_utf8(d.value).expect("utf-8"), d.end, d.quoted)
        };
        assert_eq!(read("'EOF' x"), ("EOF".into(), 5, true));
        assert_eq!(read("E'O'F"), ("E'O'F".into(), 5, false));
        assert_eq!(read("EOF;echo hi"), ("EOF;echo".into(), 8, false));
        assert_eq!(read("\\EOF"), ("EOF".into(), 4, true));
    }

    /// A blank bash reads as part of a word is respelt where tree-sitter skipped it; what
    /// tree-sitter keeps in a token (a quoted carriage return, a comment's) is left alone.
    #[test]
    fn blanks_that_bash_reads_as_word_bytes_are_quoted() {
        let read = |src: &str| {
            let tree = crate::parse::parse(src, std::time::Instant::now() + std::time::Duration::from_secs(1))
                .expect("parsed");
            match skipped(tree.root_node(), src) {
                Some(Reading::Rewritten(respelt)) => Some(respelt),
                Some(Reading::Unsure) => Some("unsure".to_owned()),
                Some(Reading::Agrees) | None => None,
            }
        };
        assert_eq!(read("echo a\\\t#; rm x").as_deref(), Some("echo a'\t'#; rm x"));
        assert_eq!(read("echo\r#; rm x").as_deref(), Some("echo'\r'#; rm x"));
        assert_eq!(read("echo a\x0b#; rm x").as_deref(), Some("echo a'\x0b'#; rm x"));
        assert_eq!(read("echo 'a\r' # x\r y"), None);
        assert_eq!(read("echo a \\\n b"), None);
        let crlf = "git status\r\n".repeat(40);
        assert_eq!(read(&crlf), Some("git status'\r'\n".repeat(40)));
    }

    #[test]
    fn an_ansi_c_string_ends_at_the_first_quote_no_backslash_takes() {
        assert_eq!(ansi_c_end(br"$'\\' ; x #'", 0), Some(5));
        assert_eq!(ansi_c_end(br"$'\'' x", 0), Some(5));
        assert_eq!(ansi_c_end(br"$'a\'", 0), None);
    }

    #[test]
    fn a_body_ends_at_a_line_that_is_the_delimiter() {
        let unquoted = Delimiter { value: b"EOF".to_vec(), end: 0, quoted: false };
        let quoted = Delimiter { quoted: true, ..Delimiter { value: b"EOF".to_vec(), end: 0, quoted: false } };
        let body = b"x\\\nEOF\nEOFX\n  EOF\nEOF\nrest";
        assert_eq!(body_end(body, 0, &unquoted, false), Some((18, 21)));
        assert_eq!(body_end(body, 0, &quoted, false), Some((3, 6)));
        assert_eq!(body_end(b"\tEOF\n", 0, &unquoted, true), Some((0, 4)));
        assert_eq!(body_end(b"  EOF\n", 0, &unquoted, true), None);
    }
}
