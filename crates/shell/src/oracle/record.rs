//! Reading what the sandbox recorded: bash's xtrace file and the shims' execution log.
//!
//! The xtrace file holds one record per traced simple command. Each starts on a fresh line
//! with one `+` per nesting level, then `\x1e`, the innermost function's name (empty at top
//! level), `\x1d`, the file it was read from (`BASH_SOURCE`, empty for a `-c` string), `\x1f`,
//! and the command's words as xtrace quotes them: bare when they need no
//! quoting, `'…'` (a `'` inside as `'\''`) when they hold shell metacharacters or blanks, and
//! `$'…'` when they hold non-printable bytes. A quoted word may span lines, but `\x1e` never
//! appears raw inside a word (xtrace writes it as `$'\036'`), so the marker cannot be forged.
//!
//! The execution log holds NUL-separated records `K\0N\0word1\0…\0wordN\0`, `K` being `S` for a
//! shim (its first word is the shim's path) and `H` for the `command_not_found_handle`.

/// The functions whose traced lines are the harness's own, not the command's.
pub(super) const HARNESS_FUNCTIONS: &[&str] = &["command_not_found_handle", "__oracle_init"];

/// Whether a traced line's `BASH_SOURCE` is a file: the env script, a shim bash reads as a
/// script, a file run by `source`, `bash f` or as a script without `#!`. Such a line is the
/// file's, not the command line's: the analysis lists the command that read the file, and
/// cannot see into it. The line itself has no source, and bash names the source of a
/// function it defined `environment`.
fn from_a_file(source: &str) -> bool {
    !source.is_empty() && source != "environment"
}

/// How an execution was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// A recording shim standing in for an external program.
    Shim,
    /// The `command_not_found_handle`: a name that is not a program anywhere on `PATH`.
    NotFound,
    /// Bash's xtrace: a builtin, a function, a program (also seen by a shim) …
    Trace,
}

/// One command bash ran, with the words it ran it with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Execution {
    /// Where the record came from.
    pub(super) source: Source,
    /// The words, lossily decoded as UTF-8.
    pub(super) argv: Vec<String>,
    /// The words before `argv` that xtrace's record read as assignments. xtrace writes a
    /// command named `R=` (run as `\R= git`) bare, as it writes an assignment, so the command
    /// may also have been these words followed by `argv`.
    pub(super) assigned: Vec<String>,
}

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RecordError {
    /// The execution log ends inside a record or holds a malformed count.
    BadExecLog(String),
}

/// The executions in an execution log.
pub(super) fn parse_exec_log(bytes: &[u8]) -> Result<Vec<Execution>, RecordError> {
    let mut fields = bytes.split(|&b| b == 0);
    let mut out = Vec::new();
    loop {
        let source = match fields.next() {
            None | Some(b"") => break,
            Some(b"S") => Source::Shim,
            Some(b"H") => Source::NotFound,
            Some(other) => return Err(RecordError::BadExecLog(format!("unknown kind {:?}", lossy(other)))),
        };
        let count: usize = fields
            .next()
            .and_then(|n| std::str::from_utf8(n).ok()?.parse().ok())
            .ok_or_else(|| RecordError::BadExecLog("missing word count".to_owned()))?;
        let mut argv = Vec::with_capacity(count);
        for _ in 0..count {
            let word = fields.next().ok_or_else(|| RecordError::BadExecLog("record cut short".to_owned()))?;
            argv.push(lossy(word));
        }
        out.push(Execution { source, argv, assigned: Vec::new() });
    }
    Ok(out)
}

/// The command executions in an xtrace file: records of the harness's functions, of keywords
/// (`[[`, `((`, `for`, `select`, `case`), empty ones and pure assignments left out, leading
/// assignments dropped.
pub(super) fn parse_trace(bytes: &[u8]) -> Vec<Execution> {
    let mut out = Vec::new();
    for record in trace_records(bytes) {
        let Some(rest) = record.strip_prefix(b"\x1e") else { continue };
        let Some(end) = rest.iter().position(|&b| b == 0x1f) else { continue };
        let (function, file) = match rest[..end].iter().position(|&b| b == 0x1d) {
            Some(split) => (lossy(&rest[..split]), lossy(&rest[split + 1..end])),
            None => (lossy(&rest[..end]), String::new()),
        };
        if HARNESS_FUNCTIONS.contains(&function.as_str()) || from_a_file(&file) {
            continue;
        }
        let words = split_words(&rest[end + 1..]);
        let first_command = words.iter().position(|w| !w.assignment).unwrap_or(words.len());
        // An array assignment (`a=(x y)`) is traced as written, its words unquoted.
        if words[..first_command].iter().any(|w| w.array) {
            continue;
        }
        let argv: Vec<String> = words[first_command..].iter().map(|w| lossy(&w.bytes)).collect();
        if argv.is_empty() || ["[[", "((", "for", "select", "case"].contains(&argv[0].as_str()) {
            continue;
        }
        let assigned = words[..first_command].iter().map(|w| lossy(&w.bytes)).collect();
        out.push(Execution { source: Source::Trace, argv, assigned });
    }
    out
}

/// The records of an xtrace file, each without its leading `+`s and trailing newline.
fn trace_records(bytes: &[u8]) -> Vec<&[u8]> {
    // A record starts at the file's start or after a newline, with `+`s then `\x1e`.
    let mut starts = Vec::new();
    let mut line_start = 0;
    while line_start < bytes.len() {
        let pluses = bytes[line_start..].iter().take_while(|&&b| b == b'+').count();
        if pluses > 0 && bytes.get(line_start + pluses) == Some(&0x1e) {
            starts.push((line_start, line_start + pluses));
        }
        match bytes[line_start..].iter().position(|&b| b == b'\n') {
            Some(nl) => line_start += nl + 1,
            None => break,
        }
    }
    let mut records = Vec::with_capacity(starts.len());
    for (i, &(_, body)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(bytes.len(), |&(next, _)| next);
        let record = &bytes[body..end];
        records.push(record.strip_suffix(b"\n").unwrap_or(record));
    }
    records
}

/// One word of a traced command.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    /// The word after quote removal.
    bytes: Vec<u8>,
    /// Whether it is an assignment (`NAME=`, `NAME+=`, `NAME[…]=` before any quote).
    assignment: bool,
    /// Whether it is an array assignment (`NAME=(`).
    array: bool,
}

/// Splits a traced command into words, removing xtrace's quoting.
fn split_words(line: &[u8]) -> Vec<Word> {
    let mut words = Vec::new();
    let mut i = 0;
    while i < line.len() {
        while i < line.len() && line[i] == b' ' {
            i += 1;
        }
        if i >= line.len() {
            break;
        }
        let assignment = is_assignment_start(&line[i..]);
        let array = assignment
            && line[i..].iter().position(|&b| b == b'=').is_some_and(|eq| line.get(i + eq + 1) == Some(&b'('));
        let mut bytes = Vec::new();
        while i < line.len() && line[i] != b' ' {
            match line[i] {
                b'\'' => {
                    let close = line[i + 1..].iter().position(|&b| b == b'\'').map_or(line.len(), |p| i + 1 + p);
                    bytes.extend_from_slice(&line[i + 1..close]);
                    i = close + 1;
                }
                b'$' if line.get(i + 1) == Some(&b'\'') => i = ansi_c(line, i + 2, &mut bytes),
                b'\\' if i + 1 < line.len() => {
                    bytes.push(line[i + 1]);
                    i += 2;
                }
                b => {
                    bytes.push(b);
                    i += 1;
                }
            }
        }
        words.push(Word { bytes, assignment, array });
    }
    words
}

/// Whether a word starts as an assignment: a name, an optional `[…]`, an optional `+`, `=`.
fn is_assignment_start(word: &[u8]) -> bool {
    let name = word.iter().take_while(|&&b| b == b'_' || b.is_ascii_alphanumeric()).count();
    if name == 0 || word[0].is_ascii_digit() {
        return false;
    }
    let mut rest = &word[name..];
    if rest.first() == Some(&b'[') {
        match rest.iter().position(|&b| b == b']') {
            Some(close) => rest = &rest[close + 1..],
            None => return false,
        }
    }
    rest.starts_with(b"=") || rest.starts_with(b"+=")
}

/// Decodes the body of a `$'…'` string starting at `i`, appending to `out`; returns the index
/// after the closing `'`.
fn ansi_c(line: &[u8], mut i: usize, out: &mut Vec<u8>) -> usize {
    while i < line.len() {
        match line[i] {
            b'\'' => return i + 1,
            b'\\' if i + 1 < line.len() => {
                let c = line[i + 1];
                i += 2;
                let simple = match c {
                    b'a' => Some(7),
                    b'b' => Some(8),
                    b'e' | b'E' => Some(0x1b),
                    b'f' => Some(0x0c),
                    b'n' => Some(b'\n'),
                    b'r' => Some(b'\r'),
                    b't' => Some(b'\t'),
                    b'v' => Some(0x0b),
                    b'\\' | b'\'' | b'"' | b'?' => Some(c),
                    _ => None,
                };
                if let Some(b) = simple {
                    out.push(b);
                } else if (b'0'..=b'7').contains(&c) {
                    let (value, used) = digits(&line[i - 1..], 8, 3);
                    out.push(value as u8);
                    i += used - 1;
                } else if c == b'x' {
                    let (value, used) = digits(&line[i..], 16, 2);
                    if used == 0 {
                        out.extend_from_slice(b"\\x");
                    } else {
                        out.push(value as u8);
                    }
                    i += used;
                } else if c == b'c' && i < line.len() {
                    out.push(line[i] & 0x1f);
                    i += 1;
                } else {
                    out.extend_from_slice(&[b'\\', c]);
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    i
}

/// The value of up to `max` digits in `radix` at the start of `bytes`, and how many were used.
fn digits(bytes: &[u8], radix: u32, max: usize) -> (u32, usize) {
    let mut value = 0;
    let mut used = 0;
    while used < max {
        match bytes.get(used).and_then(|&b| char::from(b).to_digit(radix)) {
            Some(d) => value = value * radix + d,
            None => break,
        }
        used += 1;
    }
    (value, used)
}

/// `bytes` as text, invalid UTF-8 replaced.
fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The argv of each record in an xtrace text.
    fn traced(text: &[u8]) -> Vec<Vec<String>> {
        parse_trace(text).into_iter().map(|e| e.argv).collect()
    }

    #[test]
    fn xtrace_quoting_is_removed() {
        let text = b"+\x1e\x1fecho 'a\nb' $'\\001\\377x' 'it'\\''s' '' '*' x=1\n++\x1e\x1frm -rf '~'\n";
        let got = traced(text);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0][0], "echo");
        assert_eq!(got[0][1], "a\nb");
        assert_eq!(got[0][2], "\u{1}\u{FFFD}x");
        assert_eq!(got[0][3], "it's");
        assert_eq!(got[0][4], "");
        assert_eq!(got[0][5..], ["*", "x=1"]);
        assert_eq!(got[1], ["rm", "-rf", "~"]);
    }

    #[test]
    fn harness_lines_keywords_and_assignments_are_left_out() {
        let text = b"+\x1ecommand_not_found_handle\x1fprintf x\n+\x1e\x1fX=1\n+\x1e\x1f[[ a == b ]]\n\
                     +\x1e\x1fY='a b' touch y\n+\x1ef\x1frm x\n+\x1e\x1ffor i in 1\n+\x1e\x1fa=(x '#' y)\n\
                     +\x1e\x1d/opt/oracle/env.sh\x1fset -x\n+\x1e\x1d/usr/local/sbin/t\x1fexit 0\n+\x1e\x1dlib.sh\x1fls\n\
                     +\x1eg\x1denvironment\x1fcat\n";
        assert_eq!(traced(text), [vec!["touch", "y"], vec!["rm", "x"], vec!["cat"]]);
    }

    #[test]
    fn a_plus_inside_a_quoted_word_does_not_start_a_record() {
        let text = b"+\x1e\x1fecho 'x\n+ rm y'\n";
        assert_eq!(traced(text), [vec!["echo", "x\n+ rm y"]]);
    }

    #[test]
    fn exec_log_records_are_read_and_a_cut_record_is_an_error() {
        let log = b"S\x002\x00/usr/bin/rm\x00x\x00H\x001\x00nothere\x00";
        let got = parse_exec_log(log).unwrap();
        assert_eq!(
            got[0],
            Execution { source: Source::Shim, argv: vec!["/usr/bin/rm".into(), "x".into()], assigned: Vec::new() }
        );
        assert_eq!(got[1].source, Source::NotFound);
        assert!(parse_exec_log(b"S\x003\x00rm\x00").is_err());
    }
}
