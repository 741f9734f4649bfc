//! A coarse second reading of a line tree-sitter could not read as bash does.
//!
//! A line with [`super::Hazard::ParseError`] is never approved, but a deny rule must still deny
//! it when any reading of the line would match (`cat <<EOF ; rm -rf x` is one command to
//! tree-sitter, `cat` then `rm -rf x` to bash). This reading splits the text into commands at
//! every operator, newline, parenthesis, backtick and `$(`, removes quotes as bash would, skips
//! redirections with their targets and reserved words, and hands each command's words to the
//! same [`super::walk::Walker::emit`] as the other readings (wrappers, nested shells, rules).
//! It lists too much (the lines of a here-document body become commands, a quoted `;` is kept
//! as a word) rather than too little: it is only ever used to deny or ask.

use super::word::{RESERVED_WORDS, Word, is_identifier};

/// One command of the coarse reading: its words with quotes removed, each with its span.
#[derive(Debug, Default)]
pub(super) struct Command {
    /// The words, the command name first.
    pub(super) words: Vec<(String, usize, usize)>,
}

/// The commands of `src`, read coarsely (see the module documentation): the whole text, then
/// each of its lines on its own, so that a quote bash reads otherwise (in a here-document body,
/// an apostrophe in a comment) cannot hide the lines after it.
pub(super) fn commands(src: &str) -> Vec<Command> {
    let mut all = read_from(src.as_bytes(), 0);
    if src.contains('\n') {
        let mut start = 0;
        for line in src.split('\n') {
            all.extend(read_from(line.as_bytes(), start));
            start += line.len() + 1;
        }
    }
    all
}

/// The coarse commands of `src`, their spans moved by `offset`.
fn read_from(src: &[u8], offset: usize) -> Vec<Command> {
    let mut reader = Reader { src, at: 0, commands: Vec::new(), current: Command::default(), split: false };
    reader.read();
    for command in &mut reader.commands {
        for word in &mut command.words {
            word.1 += offset;
            word.2 += offset;
        }
    }
    reader.commands
}

/// The reader's state.
struct Reader<'b> {
    /// The line.
    src: &'b [u8],
    /// Where it is.
    at: usize,
    /// The commands so far.
    commands: Vec<Command>,
    /// The command being read.
    current: Command,
    /// Whether the word just read ended at a substitution inside quotes, which starts a command.
    split: bool,
}

impl Reader<'_> {
    /// Reads the whole line.
    fn read(&mut self) {
        let mut skip_next_word = false;
        while let Some(&byte) = self.src.get(self.at) {
            match byte {
                b' ' | b'\t' => self.at += 1,
                b'\\' if self.src.get(self.at + 1) == Some(&b'\n') => self.at += 2,
                b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'`' => {
                    self.end_command();
                    self.at += 1;
                }
                b'<' | b'>' => {
                    // A redirection: its operator, then its target word is not an argument.
                    while self.src.get(self.at).is_some_and(|b| matches!(b, b'<' | b'>' | b'&' | b'|' | b'-')) {
                        self.at += 1;
                    }
                    skip_next_word = true;
                }
                b'#' if self.at == 0 || self.src[self.at - 1].is_ascii_whitespace() => {
                    while self.src.get(self.at).is_some_and(|&b| b != b'\n') {
                        self.at += 1;
                    }
                }
                _ => {
                    let start = self.at;
                    let word = self.word();
                    if word.is_empty() && self.src.get(start) == Some(&b'$') {
                        // A `$(` read as the start of a command of its own.
                        continue;
                    }
                    if std::mem::take(&mut skip_next_word) {
                        continue;
                    }
                    // A descriptor before a redirection (`2>&1`) is not a word.
                    let descriptor = !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit());
                    if descriptor && self.src.get(self.at).is_some_and(|b| matches!(b, b'<' | b'>')) {
                        continue;
                    }
                    let leading = self.current.words.is_empty();
                    if !(leading && (RESERVED_WORDS.binary_search(&word.as_str()).is_ok() || is_assignment(&word))) {
                        self.current.words.push((word, start, self.at));
                    }
                    if std::mem::take(&mut self.split) {
                        self.end_command();
                    }
                }
            }
        }
        self.end_command();
    }

    /// Ends the command being read.
    fn end_command(&mut self) {
        let command = std::mem::take(&mut self.current);
        if command.words.iter().any(|(word, _, _)| !word.is_empty()) {
            self.commands.push(command);
        }
    }

    /// Reads one word from `self.at`, quotes removed; stops before a blank or an operator, and
    /// before a `$(`, whose command is read as one of its own.
    fn word(&mut self) -> String {
        let mut out = Vec::new();
        while let Some(&byte) = self.src.get(self.at) {
            match byte {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>' | b'`' => break,
                b'$' if self.src.get(self.at + 1) == Some(&b'(') => break,
                b'\\' => {
                    if let Some(&next) = self.src.get(self.at + 1)
                        && next != b'\n'
                    {
                        out.push(next);
                    }
                    self.at += 2;
                }
                b'\'' => {
                    let body = self.at + 1;
                    let close = self.src[body..].iter().position(|&b| b == b'\'').map_or(self.src.len(), |p| body + p);
                    out.extend_from_slice(&self.src[body..close]);
                    self.at = close + 1;
                }
                b'"' => {
                    self.at += 1;
                    while let Some(&inner) = self.src.get(self.at) {
                        match inner {
                            b'"' => break,
                            // A substitution inside: its commands are read as commands of their
                            // own (the rest of the line is then read as if unquoted).
                            b'`' => {
                                self.at += 1;
                                self.split = true;
                                return String::from_utf8_lossy(&out).into_owned();
                            }
                            b'$' if self.src.get(self.at + 1) == Some(&b'(') => {
                                self.at += 2;
                                self.split = true;
                                return String::from_utf8_lossy(&out).into_owned();
                            }
                            b'\\' if self.src.get(self.at + 1).is_some_and(|b| b"\"\\$`".contains(b)) => {
                                out.push(self.src[self.at + 1]);
                                self.at += 2;
                                continue;
                            }
                            _ => out.push(inner),
                        }
                        self.at += 1;
                    }
                    self.at += 1;
                }
                _ => {
                    out.push(byte);
                    self.at += 1;
                }
            }
        }
        if out.is_empty() && self.src.get(self.at) == Some(&b'$') {
            // A `$(` that starts the word: its command follows as a command of its own.
            self.at += 2;
            self.end_command();
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// Whether a word is an assignment (`NAME=…`, `NAME+=…`, `NAME[…]=…`).
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        let name = name.strip_suffix('+').unwrap_or(name);
        let name = name.split_once('[').map_or(name, |(base, _)| base);
        is_identifier(name)
    })
}

/// The words of a coarse command, for [`super::walk::Walker::emit`].
pub(super) fn words(command: Command) -> Vec<Word<'static>> {
    command
        .words
        .into_iter()
        .map(|(value, start, end)| {
            let mut word = Word::at(start, end);
            word.push_decoded(value);
            word
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The coarse commands of `src`, each as its words joined by a space.
    fn read(src: &str) -> Vec<String> {
        commands(src).into_iter().map(|c| c.words.into_iter().map(|w| w.0).collect::<Vec<_>>().join(" ")).collect()
    }

    #[test]
    fn operators_newlines_and_substitutions_split_commands() {
        assert_eq!(
            read("cat <<EOF ; rm -rf x\nx\nEOF"),
            ["cat", "rm -rf x", "x", "EOF", "cat", "rm -rf x", "x", "EOF"]
        );
        assert_eq!(read("a && b | c; (d) & e; f"), ["a", "b", "c", "d", "e", "f"]);
        assert_eq!(read("echo $(rm x) `touch y`"), ["echo", "rm x", "touch y"]);
        assert_eq!(read("if X=1 sudo rm -rf / ; then :; fi # rm z"), ["sudo rm -rf /", ":"]);
    }

    #[test]
    fn each_line_is_also_read_on_its_own() {
        let commands = read("cat <<EOF\nit's\nEOF\necho x\nrm -rf y");
        assert!(commands.contains(&"rm -rf y".to_owned()), "{commands:?}");
    }

    #[test]
    fn quotes_are_removed_and_redirect_targets_skipped() {
        assert_eq!(read("r'm' \"-rf\" \\x > out 2>&1 < in"), ["rm -rf x"]);
        assert_eq!(read("echo \"a \\\"b\\\" \\$c\""), ["echo a \"b\" $c"]);
        assert_eq!(read("echo \"x $(rm -rf y) `touch z`\""), ["echo x ", "rm -rf y", "touch z"]);
        assert_eq!(read("git \\\n push")[0], "git push");
    }
}
