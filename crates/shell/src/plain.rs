//! Command lines of plain words, read without the syntax tree.
//!
//! Most command lines an agent runs are a few plain words joined by `&&`, `||`, `;` and `|`
//! (`git status`, `cargo test -p core`, `cd web && npm run build`). Bash splits such a line
//! at its blanks and operators and does nothing else to it: no quote is open across an
//! operator, nothing expands, nothing is redirected. For these lines [`line`] finds the same
//! statements and words the syntax tree would give, and the walker lists them with the same
//! code it lists a tree's commands with; only the parse is skipped, which is most of what a
//! decision costs.
//!
//! The line is taken only when every byte of it is one of:
//!
//! - a blank (space or tab) between words;
//! - an operator `&&`, `||`, `;` or `|` between two statements (`;` may also end the line);
//! - an unquoted character of a word that means nothing to bash inside one: ASCII letters,
//!   digits and `-_./+:,=@%~` (a leading `~` is still a tilde, as the tree's words say), a
//!   word not starting with `=`;
//! - the inside of a single-quoted string, or of a double-quoted one without `$`, `` ` ``,
//!   `\` or `!`, on one line;
//! - a comment from a `#` after a blank to the end of the line.
//!
//! and every statement's first word, after any leading `NAME=value` assignments, is unquoted,
//! made of letters, digits and `_./-+~` (not first `-` or `+`), and not a reserved word
//! (`if`, `time` …) or a declaration (`export`, `local`, `unset` …).
//! Anything else (a newline, `$`, a glob, a brace, a redirect, `&`, a backslash, a statement
//! made only of assignments, more than [`MAX_STATEMENTS`] statements) is left to the tree.
//! A test compares this reading with the tree's on every line it takes.

use std::borrow::Cow;

use super::Text;
use super::word::{RESERVED_WORDS, Word, is_identifier};

/// Lines longer than this many bytes go to the tree.
const MAX_BYTES: usize = 4096;

/// Lines with more statements than this go to the tree.
pub(super) const MAX_STATEMENTS: usize = 32;

/// One statement of a plain line: its leading assignments and its words.
#[derive(Debug)]
pub(super) struct Statement<'s> {
    /// Leading `NAME=value` assignments, the values with quotes removed.
    pub assignments: Vec<(Text<'s>, Text<'s>)>,
    /// The words, the command name first.
    pub words: Vec<Word<'s>>,
    /// Whether the statement reads a pipe (it follows a `|`).
    pub piped: bool,
}

/// The statements of `src` when it is a line of plain words (see the module documentation),
/// otherwise `None`.
pub(super) fn line(src: &str) -> Option<Vec<Statement<'_>>> {
    let bytes = src.as_bytes();
    if bytes.len() > MAX_BYTES {
        return None;
    }
    let mut statements = Vec::new();
    let mut current = Statement { assignments: Vec::new(), words: Vec::new(), piped: false };
    // Whether an operator other than a final `;` needs a statement after it.
    let mut open = false;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b' ' | b'\t' => at += 1,
            b'#' => {
                // Only a `#` that starts a word after a blank (or the line) starts a comment.
                if at > 0 && !matches!(bytes[at - 1], b' ' | b'\t') {
                    return None;
                }
                if bytes[at..].iter().any(|&b| is_control(b)) {
                    return None;
                }
                break;
            }
            b'&' | b'|' | b';' => {
                let (operator, width) = match (bytes[at], bytes.get(at + 1)) {
                    (b'&', Some(b'&')) => (Operator::List, 2),
                    (b'|', Some(b'|')) => (Operator::List, 2),
                    (b'|', Some(b'&')) | (b'&', _) | (b';', Some(b';' | b'&')) => return None,
                    (b'|', _) => (Operator::Pipe, 1),
                    _ => (Operator::Sequence, 1),
                };
                let next = Statement { assignments: Vec::new(), words: Vec::new(), piped: operator == Operator::Pipe };
                statements.push(finish(std::mem::replace(&mut current, next))?);
                if statements.len() > MAX_STATEMENTS {
                    return None;
                }
                open = operator != Operator::Sequence;
                at += width;
            }
            _ => {
                // tree-sitter reads a word that starts with `==` or `=~` as a test operator,
                // even outside a test, and the operator after it as part of the command.
                if bytes[at] == b'=' {
                    return None;
                }
                let (word, end) = word(src, at)?;
                if !current.words.is_empty() {
                    current.words.push(word);
                } else {
                    match leading(&src[at..end]) {
                        Leading::Assignment(equals) => {
                            current.assignments.push(assignment(src, at, at + equals, end)?);
                        }
                        Leading::Other => return None,
                        Leading::Word if !is_plain_name(&src[at..end]) => return None,
                        Leading::Word => current.words.push(word),
                    }
                }
                open = false;
                at = end;
            }
        }
    }
    if open {
        return None;
    }
    if !current.words.is_empty() || !current.assignments.is_empty() {
        statements.push(finish(current)?);
    }
    (!statements.is_empty() && statements.len() <= MAX_STATEMENTS).then_some(statements)
}

/// What joins two statements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    /// `&&` or `||`.
    List,
    /// `|`.
    Pipe,
    /// `;`.
    Sequence,
}

/// `statement` when it is one the walker may list as it is: it has a command name that is not
/// a word the tree gives a construct of its own.
fn finish(statement: Statement<'_>) -> Option<Statement<'_>> {
    let name = statement.words.first()?;
    (!is_construct_word(&name.value)).then_some(statement)
}

/// Whether `name`, in command position, starts something other than a simple command in the
/// tree: a reserved word, or a declaration or `unset` command.
fn is_construct_word(name: &str) -> bool {
    RESERVED_WORDS.binary_search(&name).is_ok()
        || matches!(name, "declare" | "typeset" | "export" | "readonly" | "local" | "unset" | "unsetenv")
}

/// Whether `name`, a command name as written, is one tree-sitter reads as bash does: letters,
/// digits and `_./-+~`, not starting with `-` or `+`. (tree-sitter cannot read `user@host`,
/// `a%b` or `a:b` after an assignment as a command name; it reads the words after `-` as
/// assignments, and the quoted rest of `unset'x'` as an argument.)
fn is_plain_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes.first().is_some_and(|first| !matches!(first, b'-' | b'+'))
        && bytes.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-' | b'+' | b'~'))
}

/// Whether `b` is a control character other than a tab.
fn is_control(b: u8) -> bool {
    (b < b' ' && b != b'\t') || b == 0x7f
}

/// Whether `b` means nothing to bash inside an unquoted word.
fn is_plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b'+' | b':' | b',' | b'=' | b'@' | b'%' | b'~')
}

/// The word starting at byte `start` of `src`, and the byte just past it. `None` when the word
/// holds anything but plain characters and simple quoted strings.
fn word(src: &str, start: usize) -> Option<(Word<'_>, usize)> {
    let bytes = src.as_bytes();
    let mut word = Word::at(start, start);
    let mut at = start;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'\'' => {
                let close = at + 1 + bytes[at + 1..].iter().position(|&b| b == b'\'')?;
                let inside = &src[at + 1..close];
                if inside.bytes().any(is_control) {
                    return None;
                }
                word.push_quoted(inside);
                at = close + 1;
            }
            b'"' => {
                let close = at + 1 + bytes[at + 1..].iter().position(|&b| b == b'"')?;
                let inside = &src[at + 1..close];
                if inside.bytes().any(|b| is_control(b) || matches!(b, b'$' | b'`' | b'\\' | b'!')) {
                    return None;
                }
                word.push_double_quoted(inside);
                at = close + 1;
            }
            b' ' | b'\t' | b'&' | b'|' | b';' => break,
            _ => {
                let run = bytes[at..].iter().position(|&b| !is_plain_byte(b)).map_or(bytes.len(), |n| at + n);
                if run == at {
                    return None;
                }
                word.push_unquoted(&src[at..run]);
                at = run;
            }
        }
    }
    word.end = at;
    Some((word, at))
}

/// What a word in front of a command's name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Leading {
    /// An assignment `NAME=value`, its `=` at this byte of the word.
    Assignment(usize),
    /// A word with an `=` that is not a plain assignment (`NAME+=value`, `-x=1`): tree-sitter
    /// may read an assignment into it where bash does not.
    Other,
    /// A word without `=`: the command name.
    Word,
}

/// What `word`, as written, is in front of a command's name.
fn leading(word: &str) -> Leading {
    match word.find('=') {
        None => Leading::Word,
        Some(equals) if is_identifier(&word[..equals]) => Leading::Assignment(equals),
        Some(_) => Leading::Other,
    }
}

/// The assignment `NAME=value` spanning `start..end` of `src`, its `=` at `equals`: the name
/// as written, the value with quotes removed.
fn assignment(src: &str, start: usize, equals: usize, end: usize) -> Option<(Text<'_>, Text<'_>)> {
    let value = if equals + 1 < end { word(src, equals + 1)?.0.value } else { Cow::Borrowed("") };
    Some((Cow::Borrowed(&src[start..equals]), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The argv of each statement of a plain line, joined by spaces.
    fn argvs(src: &str) -> Option<Vec<String>> {
        let statements = line(src)?;
        Some(
            statements
                .iter()
                .map(|statement| statement.words.iter().map(|word| &*word.value).collect::<Vec<_>>().join(" "))
                .collect(),
        )
    }

    #[test]
    fn plain_lines_split_at_blanks_and_operators() {
        assert_eq!(argvs("git status").unwrap(), ["git status"]);
        assert_eq!(argvs("cd web&&npm run build ;").unwrap(), ["cd web", "npm run build"]);
        assert_eq!(argvs("git commit -m 'fix: a | b' # run 3").unwrap(), ["git commit -m fix: a | b"]);
        assert_eq!(argvs("echo \"a b\"c'd' | wc -l || true").unwrap(), ["echo a bcd", "wc -l", "true"]);
        let statements = line("NODE_ENV=test npm test | tail").unwrap();
        assert_eq!(statements[0].assignments, [("NODE_ENV".into(), "test".into())]);
        assert!(!statements[0].piped && statements[1].piped);
    }

    #[test]
    fn anything_else_is_left_to_the_tree() {
        for src in [
            "",
            "# only a comment",
            "ls\nrm x",
            "ls *.rs",
            "echo $HOME",
            "echo \"$HOME\"",
            "echo a > f",
            "cargo test 2>&1",
            "sleep 1 &",
            "ls |& cat",
            "r\\m x",
            "ls && ",
            "&& ls",
            "ls ;; x",
            "ls;#x",
            "a#b",
            "echo 'unclosed",
            "echo {a,b}",
            "if true; then ls; fi",
            "time ls",
            "export A=1",
            "X=1",
            "X=1 && ls",
            "echo 'two\nlines'",
            "echo é",
            "echo (x)",
            "! ls",
            "A+=1 ls",
            "-x=1 ls",
            "user@host",
            "ls && a%b",
            "A=1 a:b",
            "- A=1 ls",
            "unset'x' y",
            "'ls' -l",
            "git checkout ==||ls",
        ] {
            assert!(line(src).is_none(), "{src:?} is for the tree");
        }
        let many = vec!["ls"; MAX_STATEMENTS + 1].join(" && ");
        assert!(line(&many).is_none());
    }
}
