//! Brace expansion, as bash performs it before any other expansion.
//!
//! Bash expands braces in the text of a word as written, quotes still in it: `{a,b}` and
//! `x{1..3}` become several words, then each goes through tilde expansion, globbing and quote
//! removal. The analysis does the same on every word whose other parts are static, so that
//! the words it lists are the words the program receives (`wc {--files0-from=.env,}` runs
//! `wc --files0-from=.env`).
//!
//! The rules, each checked against bash 5.2 (`bash -c 'printf "<%s>" WORD'`):
//!
//! - A brace expression is an unquoted `{` and its matching `}` with an unquoted top-level
//!   `,` (a list, `{a,b}`, nested lists alike: `{a,{b,c}}`) or `..` (a sequence,
//!   `{1..10..3}`, `{a..e}`, `{01..3}` zero-padded) between them. `{}`, `{a}`, `{a..}`,
//!   `{1..a}` and an unmatched `{` stay as written; a `}` before the first separator does not
//!   close (`{a}b,c}` is `a}b c`).
//! - Quoted and escaped characters are not syntax (`{"a,b"}`, `\{a,b}`, `{1..'3'}` stay), and
//!   neither is `${`, whose `}` it owns.
//! - A word that brace expansion leaves empty is removed (`{a,}` is one word, `{,}` none);
//!   one made empty by quote removal stays (`{a,""}` is two).
//!
//! Expansion is capped ([`MAX_WORDS`] words, [`MAX_BYTES`] bytes for one command): past it
//! the words stay as written and the analysis reports [`Hazard::BraceExpansionTooLarge`]
//! (bash itself would exhaust memory on `{1..1000}{1..1000}{1..1000}`).
//!
//! [`Hazard::BraceExpansionTooLarge`]: super::Hazard::BraceExpansionTooLarge

use super::Hazard;
use super::walk::Walker;
use super::word::{Word, decode_ansi_c};

/// The most words brace expansion may make of one command's words.
pub(super) const MAX_WORDS: usize = 256;

/// The most bytes brace expansion may make of one command's words.
pub(super) const MAX_BYTES: usize = 64 * 1024;

/// The expansion would make more than the budget allows.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct TooLarge;

/// The words brace expansion makes of `text` (a word as written, quotes and escapes kept),
/// at most `limit` of them, empty ones removed; `Err` past `limit`.
///
/// ```text
/// x{a,b}y → xay xby      {1..3} → 1 2 3      {a}b,c} → a}b c      {a,} → a
/// ```
pub(super) fn expand(text: &str, limit: usize) -> Result<Vec<String>, TooLarge> {
    let words = brace_expand(text.as_bytes(), limit)?;
    Ok(words.into_iter().filter(|w| !w.is_empty()).map(|w| String::from_utf8_lossy(&w).into_owned()).collect())
}

/// Bash's `brace_expand`: the preamble, the first brace expression, and the expansion of the
/// rest, multiplied out.
fn brace_expand(text: &[u8], limit: usize) -> Result<Vec<Vec<u8>>, TooLarge> {
    // The first `{` that has a `}` closing it after a separator.
    let mut i = 0;
    let open = loop {
        let (at, found) = gobble(text, i, b'{');
        if !found {
            return Ok(vec![text.to_vec()]);
        }
        if gobble(text, at + 1, b'}').1 {
            break at;
        }
        i = at + 1;
    };
    let start = open + 1;
    let (close, _) = gobble(text, start, b'}');
    let amble = &text[start..close];
    let has_comma = {
        let mut j = 0;
        let mut comma = false;
        while j < amble.len() {
            match amble[j] {
                b'\\' => j += 2,
                b',' => {
                    comma = true;
                    break;
                }
                _ => j += 1,
            }
        }
        comma
    };
    let alternatives = if has_comma {
        expand_amble(amble, limit)?
    } else {
        match sequence(amble, limit)? {
            Some(items) => items,
            // Not a sequence: the braces stay, and the rest may still expand.
            None if close + 1 < text.len() => vec![text[open..=close].to_vec()],
            None => return Ok(vec![text.to_vec()]),
        }
    };
    let mut result = product(&[text[..open].to_vec()], &alternatives, limit)?;
    let rest = &text[close + 1..];
    if !rest.is_empty() {
        result = product(&result, &brace_expand(rest, limit)?, limit)?;
    }
    Ok(result)
}

/// Each of `left` followed by each of `right`, in order; `Err` past `limit` words.
fn product(left: &[Vec<u8>], right: &[Vec<u8>], limit: usize) -> Result<Vec<Vec<u8>>, TooLarge> {
    if left.len().saturating_mul(right.len()) > limit {
        return Err(TooLarge);
    }
    let mut out = Vec::with_capacity(left.len() * right.len());
    for head in left {
        for tail in right {
            let mut word = head.clone();
            word.extend_from_slice(tail);
            out.push(word);
        }
    }
    Ok(out)
}

/// Bash's `expand_amble`: the comma-separated parts of a list, each brace-expanded.
fn expand_amble(amble: &[u8], limit: usize) -> Result<Vec<Vec<u8>>, TooLarge> {
    let mut out = Vec::new();
    let mut start = 0;
    loop {
        let (at, found) = gobble(amble, start, b',');
        let part = brace_expand(&amble[start..at], limit)?;
        if out.len() + part.len() > limit {
            return Err(TooLarge);
        }
        out.extend(part);
        if !found {
            return Ok(out);
        }
        start = at + 1;
    }
}

/// Bash's `brace_gobbler`: from `start`, the index of the first `satisfy` at brace depth 0
/// outside quotes and escapes (`}` only after a `,` or `..` at depth 0; a `{` between blanks
/// or before `}` does not count), and whether there is one; `${` opens a level of its own.
fn gobble(text: &[u8], start: usize, satisfy: u8) -> (usize, bool) {
    let blank = |c: Option<&u8>| matches!(c, Some(b' ' | b'\t' | b'\n'));
    let mut level = 0usize;
    let mut quoted = 0u8;
    let mut commas = usize::from(satisfy != b'}');
    let mut i = start;
    while let Some(&c) = text.get(i) {
        let next = text.get(i + 1).copied();
        if c == b'\\' && matches!(quoted, 0 | b'"' | b'`') {
            i += 2;
            continue;
        }
        if c == b'$' && next == Some(b'{') && quoted != b'\'' {
            if quoted == 0 {
                level += 1;
            }
            i += 2;
            continue;
        }
        if quoted != 0 {
            if c == quoted {
                quoted = 0;
            }
            i += 1;
            continue;
        }
        if matches!(c, b'"' | b'\'' | b'`') {
            quoted = c;
            i += 1;
            continue;
        }
        if c == satisfy && level == 0 && commas > 0 {
            let lone =
                c == b'{' && (i == 0 || blank(text.get(i - 1))) && (blank(text.get(i + 1)) || next == Some(b'}'));
            if !lone {
                return (i, true);
            }
            i += 1;
            continue;
        }
        match c {
            b'{' => level += 1,
            b'}' if level > 0 => level -= 1,
            b',' if satisfy == b'}' && level == 0 => commas += 1,
            b'.' if satisfy == b'}'
                && level == 0
                && next == Some(b'.')
                && text.get(i + 2).is_some_and(|&after| after != satisfy) =>
            {
                commas += 1;
            }
            _ => {}
        }
        i += 1;
    }
    (text.len(), false)
}

/// An integer as `strtoimax` reads it from the start of `text`: a sign, then digits (at
/// least one); the value (`None` on overflow) and the bytes read, or `None` without digits.
fn leading_integer(text: &[u8]) -> Option<(Option<i64>, usize)> {
    let signed = usize::from(matches!(text.first(), Some(b'+' | b'-')));
    let digits = text[signed..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let read = signed + digits;
    let value = std::str::from_utf8(&text[..read]).ok().and_then(|s| s.parse::<i64>().ok());
    Some((value, read))
}

/// Bash's `expand_seqterm`: the items of a sequence body (`1..5`, `a..e`, `10..1..3`,
/// `01..10`), `None` if it is not a valid one (then the braces stay as written).
fn sequence(body: &[u8], limit: usize) -> Result<Option<Vec<Vec<u8>>>, TooLarge> {
    let Some(split) = body.windows(2).position(|pair| pair == b"..") else { return Ok(None) };
    let (lhs, rhs) = (&body[..split], &body[split + 2..]);
    if lhs.is_empty() || rhs.is_empty() {
        return Ok(None);
    }
    let letter = |side: &[u8]| side.first().filter(|c| c.is_ascii_alphabetic()).copied();
    // The left side is a whole integer or one letter; the right side one of them, then an
    // optional `..STEP`.
    let lhs_int = match leading_integer(lhs) {
        Some((value, read)) if read == lhs.len() => Some(value),
        _ => None,
    };
    let lhs_char = if lhs.len() == 1 { letter(lhs) } else { None };
    let (rhs_int, rhs_char, rhs_len) = match leading_integer(rhs) {
        Some((value, read)) => (Some(value), None, read),
        None if letter(rhs).is_some() => (None, letter(rhs), 1),
        None => return Ok(None),
    };
    let rest = &rhs[rhs_len..];
    let step = match rest {
        [] => 1,
        [b'.', b'.', step @ ..] if !step.is_empty() => match leading_integer(step) {
            Some((Some(value), read)) if read == step.len() => value,
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    let (start, end, width, chars) = match (lhs_int, lhs_char, rhs_int, rhs_char) {
        (Some(Some(start)), _, Some(Some(end)), _) => {
            let padded = |side: &[u8]| {
                (side.len() > 1 && side[0] == b'0') || (side.len() > 2 && side[0] == b'-' && side[1] == b'0')
            };
            let width = if padded(lhs) || padded(&rhs[..rhs_len]) { lhs.len().max(rhs_len) } else { 0 };
            (start, end, width, false)
        }
        (None, Some(start), None, Some(end)) => (i64::from(start), i64::from(end), 0, true),
        _ => return Ok(None),
    };
    // Bash's `mkseq`: the step takes the direction of the range; a range too wide for it is
    // not a sequence.
    let (start, end, step) = (i128::from(start), i128::from(end), i128::from(step));
    let step = match step {
        0 => 1,
        s if (start > end && s > 0) || (start < end && s < 0) => -s,
        s => s,
    };
    let span = (end - start).abs();
    if span > i128::from(i64::MAX - 2) || span / step.abs() > i128::from(i32::MAX - 3) {
        return Ok(None);
    }
    let count = span / step.abs() + 1;
    if count > limit as i128 {
        return Err(TooLarge);
    }
    let items = (0..count)
        .map(|k| {
            let n = start + k * step;
            if chars {
                vec![u8::try_from(n).unwrap_or(b'?')]
            } else if width > 0 {
                // `%0*d` of the value as an `int`, as bash prints it.
                format!("{:0width$}", n as i32).into_bytes()
            } else {
                n.to_string().into_bytes()
            }
        })
        .collect();
    Ok(Some(items))
}

/// The word one brace-expanded piece of text is, after quote removal: unquoted text
/// (escapes removed), `'…'`, `"…"` and `$'…'` decoded as the walker decodes them, and a
/// lone backslash at the end removed, as bash removes it.
pub(super) fn dequote(raw: &str, start: usize, end: usize) -> Word<'static> {
    let mut word = Word::at(start, end);
    let bytes = raw.as_bytes();
    let mut i = 0;
    let mut plain = 0;
    // The end of a quoted part opened at `from` by `quote`, backslashes escaping unless in '…'.
    let closing = |from: usize, quote: u8, escapes: bool| {
        let mut j = from;
        while let Some(&c) = bytes.get(j) {
            if escapes && c == b'\\' {
                j += 2;
            } else if c == quote {
                return j;
            } else {
                j += 1;
            }
        }
        bytes.len()
    };
    let mut parts: Vec<(u8, &str)> = Vec::new();
    while let Some(&c) = bytes.get(i) {
        let (kind, body_start) = match (c, bytes.get(i + 1)) {
            (b'\\', _) => {
                i += 2;
                continue;
            }
            (b'\'', _) => (b'\'', i + 1),
            (b'"', _) => (b'"', i + 1),
            (b'$', Some(b'\'')) => (b'$', i + 2),
            _ => {
                i += 1;
                continue;
            }
        };
        parts.push((0, raw.get(plain..i).unwrap_or_default()));
        let close = closing(body_start, if kind == b'"' { b'"' } else { b'\'' }, kind != b'\'');
        parts.push((kind, raw.get(body_start..close).unwrap_or_default()));
        i = close + 1;
        plain = i;
    }
    let tail = raw.get(plain.min(raw.len())..).unwrap_or_default();
    // A lone backslash at the end escapes nothing: quote removal drops it.
    let odd_backslashes = tail.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1;
    parts.push((0, if odd_backslashes { &tail[..tail.len() - 1] } else { tail }));
    for (kind, text) in parts {
        match kind {
            b'\'' => word.push_quoted(text),
            b'"' => word.push_double_quoted(text),
            b'$' => {
                word.ansi_c = true;
                // Bytes that are not text made the walk of this word a parse error already.
                word.push_decoded(decode_ansi_c(text).unwrap_or_else(|lossy| lossy));
            }
            _ => word.push_unquoted(text),
        }
    }
    word.into_owned()
}

impl<'s> Walker<'s, '_, '_> {
    /// The words of one command after brace expansion: each word with an unquoted brace and
    /// nothing else dynamic in it becomes the words bash makes of it ([`expand`], each after
    /// quote removal, marked [`Word::braced`]); past the command's budget the rest stay as
    /// written and the command is [`Hazard::BraceExpansionTooLarge`].
    pub(super) fn brace_expanded(&mut self, words: Vec<Word<'s>>) -> Vec<Word<'s>> {
        let expandable = |word: &Word<'s>, raw: &str| !word.expansion && raw.contains('{') && !raw.contains('(');
        if !words.iter().any(|word| expandable(word, self.slice(word.start, word.end))) {
            return words;
        }
        let (mut made, mut bytes) = (0usize, 0usize);
        let mut out = Vec::with_capacity(words.len());
        let mut too_large = false;
        for word in words {
            let raw = self.slice(word.start, word.end);
            if too_large || !expandable(&word, raw) {
                out.push(word);
                continue;
            }
            let expanded = match expand(raw, MAX_WORDS - made) {
                Ok(expanded) => expanded,
                Err(TooLarge) => {
                    too_large = true;
                    out.push(word);
                    continue;
                }
            };
            if expanded.len() == 1 && expanded[0] == raw {
                out.push(word);
                continue;
            }
            made += expanded.len();
            bytes += expanded.iter().map(String::len).sum::<usize>();
            if bytes > MAX_BYTES {
                too_large = true;
                out.push(word);
                continue;
            }
            out.extend(expanded.iter().map(|piece| {
                let mut expanded = dequote(piece, word.start, word.end);
                expanded.braced = true;
                expanded
            }));
        }
        if too_large {
            self.out.hazard(Hazard::BraceExpansionTooLarge);
        }
        out
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        expand(text, MAX_WORDS).unwrap_or_else(|_| vec!["<too large>".to_owned()])
    }

    /// Each row as `bash -c 'printf "<%s>" WORD'` prints it before quote removal.
    #[test]
    fn braces_expand_as_bash_expands_them() {
        for (text, want) in [
            ("x{a,b}y", &["xay", "xby"][..]),
            ("{a,}", &["a"]),
            ("{,}", &[]),
            ("{a,\"\"}", &["a", "\"\""]),
            ("{\"a,b\"}", &["{\"a,b\"}"]),
            ("{a}b,c}", &["a}b", "c"]),
            ("{a}", &["{a}"]),
            ("{}", &["{}"]),
            ("{a,b", &["{a,b"]),
            ("{a,{b,c}}", &["a", "b", "c"]),
            ("{{a,b}", &["{a", "{b"]),
            ("{x{a,b}", &["{xa", "{xb"]),
            ("{a..c}{", &["a{", "b{", "c{"]),
            ("{1..2}}", &["1}", "2}"]),
            ("{1..3}", &["1", "2", "3"]),
            ("{3..1}", &["3", "2", "1"]),
            ("{1..10..3}", &["1", "4", "7", "10"]),
            ("{1..3..0}", &["1", "2", "3"]),
            ("{1..3..-1}", &["1", "2", "3"]),
            ("{01..3}", &["01", "02", "03"]),
            ("{-01..2}", &["-01", "000", "001", "002"]),
            ("{+1..3}", &["1", "2", "3"]),
            ("{a..e..2}", &["a", "c", "e"]),
            ("{1..a}", &["{1..a}"]),
            ("{a..}", &["{a..}"]),
            ("{ab..c}", &["{ab..c}"]),
            ("{a..b..c}", &["{a..b..c}"]),
            ("{1..'3'}", &["{1..'3'}"]),
            ("{1..3,x}", &["1..3", "x"]),
            ("{9223372036854775807..9223372036854775808}", &["{9223372036854775807..9223372036854775808}"]),
            ("'$'{a,b}", &["'$'a", "'$'b"]),
            ("\\${a,b}", &["\\$a", "\\$b"]),
            ("{a,b\\,c}", &["a", "b\\,c"]),
            ("{a,'b,c'}", &["a", "'b,c'"]),
            ("{--files0-from=.env,}", &["--files0-from=.env"]),
        ] {
            assert_eq!(words(text), want, "{text}");
        }
    }

    #[test]
    fn expansions_past_the_limit_are_refused() {
        assert_eq!(expand("{1..1000}{1..1000}{1..1000}", MAX_WORDS), Err(TooLarge));
        assert_eq!(expand("{1..2147483640}", MAX_WORDS), Err(TooLarge));
        assert_eq!(expand("{a,b}{1..200}", MAX_WORDS), Err(TooLarge));
        assert_eq!(expand("{1..256}", MAX_WORDS).map(|w| w.len()), Ok(256));
        // Too wide for bash's sequence: it stays as written.
        assert_eq!(words("{1..3000000000}"), ["{1..3000000000}"]);
    }

    #[test]
    fn quote_removal_follows_the_quotes_of_each_piece() {
        for (raw, value) in [
            ("'$'a", "$a"),
            ("\\$a", "$a"),
            ("b\\,c", "b,c"),
            ("\"a\\\"b\"c", "a\"bc"),
            ("$'\\x2dR'", "-R"),
            ("\\", ""),
        ] {
            assert_eq!(dequote(raw, 0, 0).value, value, "{raw}");
        }
        assert!(dequote("*.rs", 0, 0).glob);
        assert!(!dequote("'*'.rs", 0, 0).glob);
        assert!(dequote("~/x", 0, 0).tilde);
    }
}
