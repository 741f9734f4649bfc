//! Words: declarations, assignments and the parts of a word, as bash joins them.

use std::borrow::Cow;

use tree_sitter::Node;

use super::*;
use crate::kind::{Kind, kind, kind_of};
use crate::word::{Word, decode_ansi_c, has_substitution_text, is_plain};
use crate::{Hazard, Text};

impl<'s, 't, 'o> Walker<'s, 't, 'o> {
    /// `export`/`declare`/`local`/`readonly`/`typeset`/`unset` as a command with the keyword
    /// first.
    pub(crate) fn declaration(&mut self, node: Node<'t>) {
        let mark = self.pending.len();
        let mut words = Vec::new();
        for child in kids(node) {
            if !child.is_named() {
                words.push(Word::literal(self.text(child), child.start_byte(), child.end_byte()));
                continue;
            }
            match kind(child) {
                Kind::VariableAssignment => {
                    let mut word = Word::at(child.start_byte(), child.end_byte());
                    for (field, part) in children(child) {
                        match field {
                            Some("name") => {
                                self.scan(part);
                                word.push_quoted(self.text(part));
                            }
                            Some("value") => self.word_part(part, &mut word),
                            _ => word.push_quoted(self.text(part)),
                        }
                    }
                    words.push(word);
                }
                Kind::VariableName => {
                    words.push(Word::literal(self.text(child), child.start_byte(), child.end_byte()));
                }
                Kind::Comment => {}
                _ => {
                    let word = self.word(child);
                    words.push(word);
                }
            }
        }
        let words = self.join_adjacent(words);
        self.emit(words, Vec::new(), Vec::new(), false);
        self.flush(mark);
    }

    /// A `variable_assignment` as `(name, value)`, the value with quotes removed.
    pub(crate) fn assignment(&mut self, node: Node<'t>) -> (Text<'s>, Text<'s>) {
        let mut name = Cow::Borrowed("");
        let mut value = Cow::Borrowed("");
        for (field, child) in children(node) {
            match field {
                Some("name") => {
                    // A subscript is arithmetic to bash, never a subshell, and an unquoted blank
                    // ends the word: `a[( x)]=1` runs `x)]=1`, `a[$(h x)]=1` runs `x)]=1`.
                    if kind(child) == Kind::Subscript
                        && (kids(child).any(|k| kind(k) == Kind::Subshell) || has_unquoted_blank(self.text(child)))
                    {
                        self.out.hazard(Hazard::ParseError);
                    }
                    self.scan(child);
                    self.quoted_substitutions(child);
                    name = Cow::Borrowed(self.text(child));
                    // bash's table of aliases: an entry set is an alias whose uses are not seen.
                    if name.split('[').next() == Some("BASH_ALIASES") {
                        self.out.hazard(Hazard::AliasedCommand { name: "BASH_ALIASES".to_owned() });
                    }
                    if !is_assigned_name(&name) {
                        // tree-sitter reads `-x=1` as an assignment; bash runs it as a command.
                        self.out.hazard(Hazard::UnknownConstruct { kind: "assignment_name".to_owned() });
                    }
                }
                Some("value") => {
                    value = self.word(child).value;
                    self.quoted_substitutions(child);
                }
                _ => {}
            }
        }
        (name, value)
    }

    /// Lists the `$(…)` and backticks written quoted in an assigned name or value
    /// (`a['$(…)']=1`, `x='a[$(…)]'`): bash runs one when it evaluates the subscript, or the
    /// value later as arithmetic, an indirect name or a prompt (`${!x}`, `[[ $x -eq 1 ]]`,
    /// `PS4`). A reading that may run them lists them, so a deny rule on them holds.
    pub(crate) fn quoted_substitutions(&mut self, node: Node<'t>) {
        let text = self.text(node);
        if has_substitution_text(text) && self.text_substitutions(node, text) {
            self.out.hazard(Hazard::CommandSubstitution);
        }
    }

    /// The [`Word`] a word-like node stands for.
    pub fn word(&mut self, node: Node<'t>) -> Word<'s> {
        self.word_of(node, kind(node))
    }

    /// [`Walker::word`] of a node whose kind is read already.
    pub(crate) fn word_of(&mut self, node: Node<'t>, node_kind: Kind) -> Word<'s> {
        let (start, end) = (node.start_byte(), node.end_byte());
        let mut word = Word::at(start, end);
        self.word_part_of(node, node_kind, self.slice(start, end), &mut word);
        word
    }

    /// Appends the value of a word-like node to `word`.
    pub(crate) fn word_part(&mut self, node: Node<'t>, word: &mut Word<'s>) {
        self.word_part_of(node, kind(node), self.text(node), word);
    }

    /// [`Walker::word_part`] of a node whose kind and text are read already.
    pub(crate) fn word_part_of(&mut self, node: Node<'t>, node_kind: Kind, text: &'s str, word: &mut Word<'s>) {
        // A word, command name or concatenation of nothing but plain characters is its text,
        // whatever pieces tree-sitter made of it: no need to visit them.
        if self.clean
            && matches!(node_kind, Kind::Word | Kind::CommandName | Kind::Concatenation | Kind::Number)
            && is_plain(text)
        {
            word.push_unquoted(text);
            return;
        }
        if !self.enter(node) {
            word.push_opaque(text);
            word.expansion = true;
            return;
        }
        match node_kind {
            Kind::Word => {
                // tree-sitter sometimes makes one token of words a blank separates (`} {`), or
                // of a line's end and the next line's word.
                if has_unescaped_blank(text) {
                    self.out.hazard(Hazard::ParseError);
                }
                self.unquoted_word(text, word);
            }
            Kind::RawString => {
                let body = text.strip_prefix('\'').unwrap_or(text);
                word.push_quoted(body.strip_suffix('\'').unwrap_or(body));
            }
            Kind::Regex | Kind::TestOperator | Kind::VariableName | Kind::SpecialVariableName => word.push_quoted(text),
            Kind::String => self.double_quoted(node, word),
            Kind::StringContent => word.push_double_quoted(text),
            Kind::AnsiCString => {
                word.ansi_c = true;
                let body = text.strip_prefix("$'").unwrap_or(text);
                let decoded = decode_ansi_c(body.strip_suffix('\'').unwrap_or(body)).unwrap_or_else(|lossy| {
                    // Bytes that are not UTF-8: bash's word has no spelling here.
                    self.out.hazard(Hazard::ParseError);
                    lossy
                });
                // Bash keeps its own quoting bytes (CTLESC `\x01`, CTLNUL `\x7f`) in words and
                // mishandles them in places (`$'\cA\1'` in an array inside a process
                // substitution reached mkdir as another word).
                if decoded.contains(['\x01', '\x7f']) {
                    self.out.hazard(Hazard::ParseError);
                }
                word.push_decoded(decoded);
            }
            Kind::TranslatedString => {
                // tree-sitter reads `$ ""` as `$""`; bash's `$` there is a word of its own.
                if text.as_bytes().get(1) != Some(&b'"') {
                    self.out.hazard(Hazard::ParseError);
                }
                word.expansion = true;
                for child in kids(node) {
                    if child.is_named() {
                        self.word_part(child, word);
                    }
                }
            }
            Kind::Concatenation | Kind::CommandName => {
                let mut position = node.start_byte();
                let mut children = kids(node).peekable();
                while let Some(child) = children.next() {
                    let gap = self.slice(position, child.start_byte());
                    // A blank between the pieces ends the word to bash (`>. ``t` is `>.` and a
                    // command ``` ``t ```): tree-sitter read two words as one.
                    if has_unescaped_blank(gap) {
                        self.out.hazard(Hazard::ParseError);
                    }
                    word.push_unquoted(gap);
                    if child.is_named() {
                        self.word_part(child, word);
                    } else {
                        let text = self.text(child);
                        // tree-sitter leaves a `$` before a double-quoted string (`rm$""`) and an
                        // empty backtick substitution (`r``m`) as pieces of their own: to bash the
                        // `$` opens a translated string (`$""`) and the backticks substitute
                        // nothing; neither is a character of the word.
                        let translated = text == "$"
                            && children.peek().is_some_and(|next| {
                                kind(*next) == Kind::String && next.start_byte() == child.end_byte()
                            });
                        let empty_backticks = text.len() >= 2
                            && text.starts_with('`')
                            && text.ends_with('`')
                            && text[1..text.len() - 1].bytes().all(|b| b == b' ' || b == b'\t');
                        if translated || empty_backticks {
                            word.expansion = true;
                        } else if text == "$$" {
                            // tree-sitter gives a `$$` that ends a word (`>}$$`) as a piece of
                            // its own: bash expands it to its process id.
                            word.expansion = true;
                            word.push_opaque(text);
                        } else {
                            if has_unescaped_blank(text) {
                                self.out.hazard(Hazard::ParseError);
                            }
                            word.push_unquoted(text);
                        }
                    }
                    position = child.end_byte();
                }
                word.push_unquoted(self.slice(position, node.end_byte()));
            }
            Kind::SimpleExpansion => {
                // tree-sitter reads `$ i`, `$<newline>h` and `$\<newline><newline>h` as `$i`
                // and `$h`; bash's `$` there is literal, and the newline ends the command.
                if blank_after_dollar(text) {
                    self.out.hazard(Hazard::ParseError);
                }
                word.expansion = true;
                word.push_opaque(text);
            }
            Kind::Expansion => {
                word.expansion = true;
                word.push_opaque(text);
                // A subscript (`${a['$(id)']}`) or offset is arithmetic: bash runs what is
                // quoted there; tree-sitter also misses a backtick in a pattern (`${a#`id`}`).
                if has_substitution_text(text) {
                    self.text_substitutions(node, text);
                }
                self.scan(node);
            }
            Kind::ArithmeticExpansion => {
                word.expansion = true;
                word.push_opaque(text);
                self.arithmetic(node);
            }
            Kind::CommandSubstitution | Kind::ProcessSubstitution => {
                word.expansion = true;
                word.push_opaque(text);
                self.scan(node);
            }
            Kind::Number if node.named_child_count() > 0 => {
                word.expansion = true;
                word.push_opaque(text);
                self.scan(node);
            }
            Kind::Number => word.push_unquoted(text),
            Kind::BraceExpression | Kind::ExtglobPattern => {
                word.glob = true;
                word.push_opaque(text);
            }
            Kind::Array => {
                word.push_opaque(text);
                self.scan(node);
            }
            _ if !node.is_named() => word.push_unquoted(text),
            Kind::Error => {
                // Already a parse error; its text is not a word bash would see.
                word.expansion = true;
                word.push_opaque(text);
                self.scan(node);
            }
            _ => {
                self.out.hazard(Hazard::UnknownConstruct { kind: kind_of(node).to_owned() });
                word.expansion = true;
                word.push_opaque(text);
                self.scan(node);
            }
        }
        self.leave();
    }

    /// Appends the text of an unquoted word token. An empty backtick substitution that
    /// tree-sitter left in it (`r``m`, `.``t`) substitutes nothing to bash: the word is read
    /// without it (and marked as holding an expansion); a backtick it left that opens a
    /// command is not read as bash reads it.
    fn unquoted_word(&mut self, text: &'s str, word: &mut Word<'s>) {
        // tree-sitter keeps a `$$` that ends a word as characters of it (`>}$$`): bash expands
        // it to its process id. Any other expansion inside one token is not read at all.
        match expanding_dollar(text) {
            Some(b'$') => word.expansion = true,
            Some(_) => self.out.hazard(Hazard::ParseError),
            None => {}
        }
        let mut rest = text;
        while let Some(at) = unescaped_backtick(rest) {
            if rest.as_bytes().get(at + 1) != Some(&b'`') {
                self.out.hazard(Hazard::ParseError);
                break;
            }
            word.push_unquoted(&rest[..at]);
            word.expansion = true;
            rest = &rest[at + 2..];
        }
        word.push_unquoted(rest);
    }

    /// Appends a double-quoted string: literal parts decoded, expansions as written. A `$(…)`
    /// or backtick in its text that tree-sitter did not parse as a substitution is listed from
    /// the text.
    pub(crate) fn double_quoted(&mut self, node: Node<'t>, word: &mut Word<'s>) {
        let text = self.text(node);
        if has_substitution_text(text) {
            self.text_substitutions(node, text);
        }
        let mut position = node.start_byte();
        for child in kids(node) {
            word.push_double_quoted(self.slice(position, child.start_byte()));
            if kind(child) == Kind::StringContent || !child.is_named() {
                let text = self.text(child);
                // tree-sitter puts the blanks of a string without other content (`" "`) in
                // its closing quote.
                word.push_double_quoted(if kind(child) == Kind::DoubleQuote {
                    text.trim_end_matches('"')
                } else {
                    text
                });
            } else {
                self.word_part(child, word);
            }
            position = child.end_byte();
        }
        word.push_double_quoted(self.slice(position, node.end_byte()));
    }
}

/// The character after the first unescaped `$` of an unquoted word's text that starts an
/// expansion there (a name, a digit, a special parameter, a brace, parenthesis or quote); a `$`
/// before anything else is a character of the word to bash (`echo a$` prints `a$`).
fn expanding_dollar(text: &str) -> Option<u8> {
    let bytes = text.as_bytes();
    let mut escaped = false;
    for (at, &b) in bytes.iter().enumerate() {
        match b {
            b'$' if !escaped => {
                let next = *bytes.get(at + 1)?;
                if next.is_ascii_alphanumeric() || b"_{('\"$?#-!@*".contains(&next) {
                    return Some(next);
                }
            }
            b'\\' => {
                escaped = !escaped;
                continue;
            }
            _ => {}
        }
        escaped = false;
    }
    None
}

/// The offset of the first backtick in `text` that no backslash escapes.
fn unescaped_backtick(text: &str) -> Option<usize> {
    let mut escaped = false;
    for (at, b) in text.bytes().enumerate() {
        match b {
            b'`' if !escaped => return Some(at),
            b'\\' => escaped = !escaped,
            _ => escaped = false,
        }
    }
    None
}

/// Whether a blank follows the `$` of `text` once bash has removed its line continuations
/// (`\<newline>`): there bash's `$` is literal, where tree-sitter skipped the blank and read
/// the name after it as the variable's.
fn blank_after_dollar(text: &str) -> bool {
    let mut rest = text.as_bytes().get(1..).unwrap_or_default();
    while let Some(after) = rest.strip_prefix(b"\\\n") {
        rest = after;
    }
    rest.first().is_some_and(u8::is_ascii_whitespace)
}
