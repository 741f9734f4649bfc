//! Scans of a word's or a line's text that the tree does not make: assignments, here-document
//! bodies as bash hands them on, blanks and gaps between tokens, scripts inside text.

use std::borrow::Cow;

use tree_sitter::Node;

use super::*;
use crate::Text;
use crate::kind::{Kind, kind};
use crate::word::is_identifier;

/// Whether `text`, a word as written, is an assignment to bash: an unquoted name, then `=`.
pub(crate) fn is_shell_assignment(text: &str) -> bool {
    text.split_once('=').is_some_and(|(name, _)| {
        // `NAME=`, `NAME+=`, `NAME[…]=` (the subscript unquoted in the text).
        let name = name.strip_suffix('+').unwrap_or(name);
        let name = name.strip_suffix(']').and_then(|n| n.split_once('[')).map_or(name, |(base, _)| base);
        is_identifier(name)
    })
}

/// Whether `name`, the name of an assignment as tree-sitter reads it, is one bash assigns
/// to: an identifier, maybe with a subscript (`a[1]`).
pub(super) fn is_assigned_name(name: &str) -> bool {
    is_identifier(name.split_once('[').map_or(name, |(base, _)| base))
}

/// The text a here-document `body` feeds a command, as bash makes it: `<<-` strips each line's
/// leading tabs (but a line a continuation joined to the one before's), and an unquoted delimiter removes line continuations and the backslash of
/// `\$`, `` \` `` and `\\` (`bash <<EOF` given `echo \$(rm x)` runs `rm x`). Expansions stay
/// as written: they make the script's words dynamic to the analysis.
pub(super) fn heredoc_text(body: &str, expands: bool, strip_tabs: bool) -> Text<'_> {
    let tabs = strip_tabs && (body.starts_with('\t') || body.contains("\n\t"));
    let escapes = expands && body.contains('\\');
    if !tabs && !escapes {
        return Cow::Borrowed(body);
    }
    let mut out = String::with_capacity(body.len());
    // With an unquoted delimiter a line continuation joins the next line to this one before
    // `<<-` looks at line starts, so that line keeps its tabs (`touch d\<newline><tab>d` runs
    // `touch d d`).
    let mut continued = false;
    for line in body.split_inclusive('\n') {
        out.push_str(if strip_tabs && !continued { line.trim_start_matches('\t') } else { line });
        let backslashes = line.strip_suffix('\n').map_or(0, |l| l.len() - l.trim_end_matches('\\').len());
        continued = expands && backslashes % 2 == 1;
    }
    if !expands {
        return Cow::Owned(out);
    }
    let mut decoded = String::with_capacity(out.len());
    let mut chars = out.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some('\n')) => {
                chars.next();
            }
            ('\\', Some(&next @ ('$' | '`' | '\\'))) => {
                chars.next();
                decoded.push(next);
            }
            _ => decoded.push(c),
        }
    }
    Cow::Owned(decoded)
}

/// Whether `before`, the source up to some digits, ends in a line continuation glued to a word
/// (`c\<newline>`): bash then reads the digits as the rest of that word, not as a redirect's
/// descriptor (`cp c\<newline>2>c` runs `cp c2`).
pub(super) fn continues_a_word(before: &str) -> bool {
    let word_char = |c: char| !c.is_whitespace() && !matches!(c, ';' | '|' | '&' | '(' | ')' | '<' | '>');
    before.strip_suffix("\\\n").and_then(|rest| rest.chars().last()).is_some_and(word_char)
}

/// Whether `text` has a blank or newline outside quotes and escapes.
pub(super) fn has_unquoted_blank(text: &str) -> bool {
    let mut quote = None;
    let mut escaped = false;
    for b in text.bytes() {
        match (quote, b) {
            _ if escaped => escaped = false,
            (Some(b'\''), b'\'') | (Some(b'"'), b'"') => quote = None,
            (Some(b'\''), _) => {}
            (_, b'\\') => escaped = true,
            (None, b'\'' | b'"') => quote = Some(b),
            (None, b' ' | b'\t' | b'\n') => return true,
            _ => {}
        }
    }
    false
}

/// The statement kinds whose children [`Walker::gaps`] checks.
pub(super) fn is_container(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Program
            | Kind::List
            | Kind::Pipeline
            | Kind::RedirectedStatement
            | Kind::Command
            | Kind::Subshell
            | Kind::CompoundStatement
            | Kind::DoGroup
            | Kind::IfStatement
            | Kind::ElifClause
            | Kind::ElseClause
            | Kind::WhileStatement
            | Kind::ForStatement
            | Kind::CaseStatement
            | Kind::CaseItem
            | Kind::FunctionDefinition
            | Kind::NegatedCommand
            | Kind::VariableAssignment
            | Kind::DeclarationCommand
    )
}

/// Whether a node of `kind` is a word of a command (its name included).
pub(super) fn is_word_or_name(kind: Kind) -> bool {
    kind == Kind::CommandName || is_word(kind)
}

/// What the text between two tokens is to bash.
pub(super) enum Gap {
    /// Nothing: the tokens touch.
    Empty,
    /// Blanks and newlines (line continuations among them).
    Blank,
    /// Only line continuations: bash joins the tokens into one.
    Continuation,
    /// Something else: a token tree-sitter left out.
    Token,
}

/// What `gap` is to bash.
pub(super) fn gap_reading(gap: &[u8]) -> Gap {
    let mut blank = false;
    let mut i = 0;
    while let Some(&b) = gap.get(i) {
        match b {
            b'\\' if gap.get(i + 1) == Some(&b'\n') => i += 2,
            b' ' | b'\t' | b'\n' => {
                blank = true;
                i += 1;
            }
            _ => return Gap::Token,
        }
    }
    match (gap.is_empty(), blank) {
        (true, _) => Gap::Empty,
        (false, true) => Gap::Blank,
        (false, false) => Gap::Continuation,
    }
}

/// The command or process substitution `node` is inside, if any.
pub(super) fn enclosing_substitution(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node.parent();
    while let Some(parent) = current {
        if matches!(kind(parent), Kind::CommandSubstitution | Kind::ProcessSubstitution) {
            return Some(parent);
        }
        current = parent.parent();
    }
    None
}

/// Whether the gap between two words of one command holds a newline that is not part of a
/// line continuation (`\` then newline).
pub(super) fn ends_a_line(gap: &str) -> bool {
    let bytes = gap.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| b == b'\n' && (i == 0 || bytes[i - 1] != b'\\'))
}

/// How many substitutions one piece of text may yield to be read from the text; past that
/// (`read 'a[$(a[$(a[$(…'`, each one holding all the next) the reading would grow with the
/// square of the line.
pub(super) const MAX_TEXT_SCRIPTS: usize = 8;

/// `scripts` found in a text, or none and a hazard that hides what runs when there are more
/// than [`MAX_TEXT_SCRIPTS`].
pub(crate) fn bounded(out: &mut Output<'_>, scripts: Vec<String>) -> Vec<String> {
    if scripts.len() > MAX_TEXT_SCRIPTS {
        out.too_deep();
        return Vec::new();
    }
    scripts
}

/// Whether a backtick substitution's text (`` `…` ``) holds an unescaped backtick before its
/// closing one.
pub(super) fn backticks_inside(text: &str) -> bool {
    let Some(inner) = text.strip_prefix('`').and_then(|t| t.strip_suffix('`')) else { return false };
    let mut escaped = false;
    for b in inner.bytes() {
        if !escaped && b == b'`' {
            return true;
        }
        escaped = !escaped && b == b'\\';
    }
    false
}

/// Whether `text` holds a control or redirection operator (`|&;()<>` or a newline) outside
/// quotes and not escaped by a backslash.
pub(super) fn has_unquoted_operator(text: &[u8]) -> bool {
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while let Some(&b) = text.get(i) {
        match (quote, b) {
            (Some(b'\''), b'\'') | (Some(b'"'), b'"') => quote = None,
            (Some(b'"') | None, b'\\') => i += 1,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(b),
            (None, b'|' | b'&' | b';' | b'(' | b')' | b'<' | b'>' | b'\n') => return true,
            (None, _) => {}
        }
        i += 1;
    }
    false
}

/// Whether `src` holds a line continuation (an odd run of backslashes, a newline) followed
/// at once by `#`.
pub(super) fn continued_into_a_hash(src: &str) -> bool {
    src.match_indices("\\\n#").any(|(at, _)| src[..at].bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 0)
}

/// Whether an unquoted word's text holds a space, tab or newline that no backslash escapes.
pub(super) fn has_unescaped_blank(text: &str) -> bool {
    let mut escaped = false;
    for b in text.bytes() {
        if !escaped && matches!(b, b' ' | b'\t' | b'\n') {
            return true;
        }
        escaped = !escaped && b == b'\\';
    }
    false
}

/// The commands of the backtick substitutions in the text of a here-document body whose
/// delimiter is unquoted, with the escapes bash removes inside backticks (`\\`, `` \` ``,
/// `\$`) removed. An unclosed backtick runs to the end of the body.
pub(crate) fn backtick_scripts(body: &str) -> Vec<String> {
    let mut scripts = Vec::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '`' => {
                let mut script = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '`' => break,
                        '\\' => match chars.next() {
                            Some(escaped @ ('\\' | '`' | '$')) => script.push(escaped),
                            Some(other) => {
                                script.push('\\');
                                script.push(other);
                            }
                            None => script.push('\\'),
                        },
                        other => script.push(other),
                    }
                }
                scripts.push(script);
            }
            _ => {}
        }
    }
    scripts
}

/// `src` with each carriage return that a backslash escapes outside quotes respelt in single
/// quotes (`\<CR>` as `'<CR>'`): bash reads `\<CR>` as an escaped character and the line feed
/// after it still ends the command, where tree-sitter-bash reads `\<CR><LF>` as a line
/// continuation and would join the next line's command to this one. Inside quotes (`'\<CR>'`)
/// both characters stay as they are.
pub(super) fn escaped_carriage_returns(src: &str) -> String {
    let mut out = String::with_capacity(src.len() + 8);
    let mut chars = src.chars().peekable();
    // The quote the scan is inside: `'`, `"`, or `$` for an ANSI-C string.
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '\\') if chars.peek() == Some(&'\r') => {
                chars.next();
                // A `$` before it stays literal (not `$'…'`).
                if let Some(before) = out.strip_suffix('$')
                    && before.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 0
                {
                    out.insert(before.len(), '\\');
                }
                out.push_str("'\r'");
                continue;
            }
            (None | Some('"' | '$'), '\\') => {
                out.push(c);
                out.extend(chars.next());
                continue;
            }
            (None, '\'') => quote = Some('\''),
            (None, '"') => quote = Some('"'),
            (None, '$') if chars.peek() == Some(&'\'') => {
                out.push(c);
                out.extend(chars.next());
                quote = Some('$');
                continue;
            }
            (Some('\'' | '$'), '\'') | (Some('"'), '"') => quote = None,
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The commands of the `$( )` substitutions in the text of a here-document body whose
/// delimiter is unquoted (tree-sitter-bash misses some, such as one that starts a line after
/// blanks). Each runs to its balancing `)` outside quotes, or to the end of the body; an
/// escaped `\$(` and arithmetic `$((` are not substitutions (a `$(` inside one still is);
/// neither is one inside the byte ranges of `found` (those tree-sitter parsed).
pub(crate) fn dollar_paren_scripts(body: &str, found: &[(usize, usize)]) -> Vec<String> {
    let bytes = body.as_bytes();
    let mut scripts = Vec::new();
    let mut backslashes = 0usize;
    for (at, &b) in bytes.iter().enumerate() {
        let escaped = backslashes % 2 == 1;
        backslashes = if b == b'\\' { backslashes + 1 } else { 0 };
        if escaped
            || b != b'$'
            || bytes.get(at + 1) != Some(&b'(')
            || bytes.get(at + 2) == Some(&b'(')
            || found.iter().any(|&(start, end)| (start..end).contains(&at))
        {
            continue;
        }
        let start = at + 2;
        let mut depth = 1usize;
        let mut quote: Option<u8> = None;
        let mut end = bytes.len();
        let mut i = start;
        while i < bytes.len() {
            let c = bytes[i];
            match (quote, c) {
                (_, b'\\') if quote != Some(b'\'') => i += 1,
                (Some(q), _) if c == q => quote = None,
                (Some(_), _) => {}
                (None, b'\'' | b'"') => quote = Some(c),
                (None, b'(') => depth += 1,
                (None, b')') => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        scripts.push(body.get(start..end).unwrap_or_default().to_owned());
    }
    scripts
}

/// Whether a static `>&` target is a descriptor (`2`, `-`, `3-`) rather than a file.
pub(super) fn is_descriptor(value: &str) -> bool {
    let digits = value.strip_suffix('-').unwrap_or(value);
    value == "-" || (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// The descriptor an exempt device other than `/dev/null` writes to (`/dev/stdout` is 1).
pub(super) fn device_descriptor(path: &str) -> Option<u32> {
    match path {
        "/dev/stdout" => Some(1),
        "/dev/stderr" => Some(2),
        _ => path.strip_prefix("/dev/fd/")?.parse().ok(),
    }
}

/// Whether a write to `path` is exempt: `/dev/null`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`
/// (a write through a descriptor's device is the walker's to resolve).
pub fn is_exempt_device(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr")
        || path.strip_prefix("/dev/fd/").is_some_and(|fd| !fd.is_empty() && fd.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_continuation_glued_to_a_word_continues_it() {
        assert!(continues_a_word("cp c\\\n"));
        assert!(!continues_a_word("cp c \\\n"), "after a blank the digits are a word of their own");
        assert!(!continues_a_word("a|\\\n"));
        assert!(!continues_a_word("cp c\n"));
    }
}
