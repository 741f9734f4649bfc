//! Redirections: their targets, here-documents and here-strings, and what they feed.

use std::borrow::Cow;

use tree_sitter::Node;

use super::*;
use crate::kind::{Kind, kind, kind_of};
use crate::word::{Word, is_identifier};
use crate::{Hazard, RedirectWrite};

impl<'s, 't, 'o> Walker<'s, 't, 'o> {
    /// A `redirected_statement`: its redirects, then its body.
    pub(crate) fn redirected(&mut self, node: Node<'t>) {
        let mut extra = Vec::new();
        let mut deferred = Vec::new();
        let mut body = None;
        self.stdin = None;
        for (field, child) in children(node) {
            if field == Some("body") {
                body = Some(child);
            } else if matches!(kind(child), Kind::FileRedirect | Kind::HeredocRedirect | Kind::HerestringRedirect) {
                self.redirect(child, &mut extra, &mut deferred);
            } else if child.is_named() {
                self.statement(child);
            }
        }
        match body {
            // `command` lists the body with `self.stdin` set by its here-document, if any.
            Some(body) if kind(body) == Kind::Command => self.command(body, extra),
            // `a && sh <<EOF`, `a | sh <<EOF`: tree-sitter gives the redirects to the whole list
            // or pipeline, bash to its last command.
            Some(body) if matches!(kind(body), Kind::List | Kind::Pipeline) => {
                let stdin = self.stdin.take();
                self.redirected_last(body, stdin, extra);
            }
            // Every command of a compound one may read its input (`if …; then sh; fi <<<'…'`).
            Some(body) => {
                self.no_extra_words(&extra);
                let outer = std::mem::replace(&mut self.inherited, self.stdin.clone());
                self.statement(body);
                self.inherited = outer;
            }
            None => self.no_extra_words(&extra),
        }
        self.stdin = None;
        self.deferred(deferred);
        self.run_scripts();
    }

    /// Walks a list or pipeline whose redirects bash applies to its last command only: the
    /// commands before it as they are, the last one with `stdin` and the `extra` words.
    pub(crate) fn redirected_last(&mut self, node: Node<'t>, stdin: Option<Stdin<'s>>, extra: Vec<Word<'s>>) {
        if !self.enter(node) {
            self.no_extra_words(&extra);
            return;
        }
        let mark = self.pending.len();
        let parts: Vec<Node<'t>> = kids(node).filter(|k| k.is_named() && kind(*k) != Kind::Comment).collect();
        let pipeline = kind(node) == Kind::Pipeline;
        let outer = self.out.piped;
        if let Some((last, before)) = parts.split_last() {
            for (at, part) in before.iter().enumerate() {
                self.out.piped = outer || (pipeline && at > 0);
                self.statement(*part);
            }
            self.out.piped = outer || (pipeline && !before.is_empty());
            match kind(*last) {
                Kind::Command => {
                    self.stdin = stdin;
                    self.command(*last, extra);
                }
                Kind::List | Kind::Pipeline => self.redirected_last(*last, stdin, extra),
                _ => {
                    self.no_extra_words(&extra);
                    self.stdin = stdin;
                    self.statement(*last);
                }
            }
        }
        self.stdin = None;
        self.out.piped = outer;
        self.flush(mark);
        self.leave();
    }

    /// Analyses the here-document backtick substitutions recorded so far.
    pub(crate) fn run_scripts(&mut self) {
        for script in std::mem::take(&mut self.scripts) {
            self.out.analyze_nested(Cow::Owned(script), &[]);
        }
    }

    /// One redirect: records writes, collects words that belong to the command (`extra`) and
    /// statements to walk after it (`deferred`, from `cat <<EOF | sh` and `<<EOF && rm x`).
    pub(crate) fn redirect(&mut self, node: Node<'t>, extra: &mut Vec<Word<'s>>, deferred: &mut Vec<Node<'t>>) {
        if !self.enter(node) {
            return;
        }
        match kind(node) {
            Kind::FileRedirect => {
                let mut operator = "";
                let mut destinations = Vec::new();
                // The descriptor written, if not the operator's own (`None`: one the shell picks).
                // tree-sitter reads the `{name}` of `exec {name}<file` as a word before the
                // redirect.
                let mut fd = descriptor_before(self.slice(0, node.start_byte()));
                let mut descriptor_child = false;
                for (field, child) in children(node) {
                    match field {
                        Some("destination") => destinations.push(child),
                        Some("descriptor") => {
                            // A descriptor is digits or `{name}`; tree-sitter also takes `-3` of
                            // `touch -3>e`, which bash passes as a word.
                            let descriptor = self.text(child);
                            let named = descriptor.strip_prefix('{').and_then(|d| d.strip_suffix('}'));
                            if !(descriptor.bytes().all(|b| b.is_ascii_digit()) || named.is_some_and(is_identifier)) {
                                self.out.hazard(Hazard::ParseError);
                            }
                            // After a line continuation the digits end the word before
                            // (`cp c\<newline>2>c` runs `cp c2`), which tree-sitter reads as
                            // the redirect's descriptor.
                            if super::text::continues_a_word(self.slice(0, child.start_byte())) {
                                self.out.hazard(Hazard::ParseError);
                            }
                            fd = Some(descriptor.parse::<u32>().ok());
                            descriptor_child = true;
                        }
                        _ if !child.is_named() => operator = self.text(child),
                        _ => self.statement(child),
                    }
                }
                // The target is one word to bash: pieces tree-sitter split at nothing (`>}\t`,
                // `>$E\h`), at a line continuation (`<''\<newline>O`) or at a line's end
                // (`<''<newline>\<newline>EOF`) are not its reading.
                let split = destinations.windows(2).any(|pair| {
                    let gap = self.slice(pair[0].end_byte(), pair[1].start_byte());
                    !matches!(gap_reading(gap.as_bytes()), Gap::Blank) || ends_a_line(gap)
                });
                // bash removes the quotes of a `>&` or `<&` target twice (`>&k\\w` writes `kw`,
                // `>&'".bashrc"'` writes `.bashrc`): a target with quotes inside quotes or a
                // backslash is not read as bash reads it.
                let duplicating = matches!(operator, ">&" | "<&")
                    && destinations.first().is_some_and(|target| {
                        let text = self.text(*target);
                        text.contains('\\') || (text.contains('\'') && text.contains('"'))
                    });
                if split || duplicating {
                    self.out.hazard(Hazard::ParseError);
                }
                // `&>` and `&>>` take no descriptor: to bash `ls 2&>f` runs `ls 2`.
                if descriptor_child && matches!(operator, "&>" | "&>>") {
                    self.out.hazard(Hazard::ParseError);
                }
                let closes = matches!(operator, "<&-" | ">&-");
                let (target, rest) = match destinations.split_first() {
                    Some((first, rest)) if !closes => (Some(*first), rest),
                    _ => (None, &destinations[..]),
                };
                for word in rest {
                    let word = self.word(*word);
                    extra.push(word);
                }
                if let Some(target) = target {
                    let word = self.word(target);
                    self.redirect_target(operator, word, fd);
                }
            }
            Kind::HeredocRedirect => {
                // tree-sitter may take the word before the operator into it (`wc -<<E` and
                // `rm -rf<<E` have a `-<<` and a `-rf<<` operator): to bash those are words
                // (`-`, `-rf`) and `<<E`. An operator spelt otherwise than `<<` or `<<-` is not
                // read as bash reads it.
                let mut cursor = node.walk();
                let misread = node
                    .children(&mut cursor)
                    .any(|child| matches!(child.kind(), "<<" | "<<-") && self.text(child) != child.kind());
                if misread || self.text(node).starts_with("-<<") {
                    self.out.hazard(Hazard::ParseError);
                }
                // bash 5.2 loses the `;` after a here-document inside `$( )` or `<( )`
                // (`<(c <<E<newline>E<newline>a;b)` runs `a b`): what follows one there is not
                // read as tree-sitter reads it. A here-document that ends its substitution
                // (`"$(cat <<'EOF' … EOF<newline>)"`) is read alike.
                if let Some(substitution) = enclosing_substitution(node) {
                    let rest = self.slice(node.end_byte(), substitution.end_byte().saturating_sub(1));
                    if !rest.trim().is_empty() {
                        self.out.hazard(Hazard::ParseError);
                    }
                }
                // A quoted delimiter (`<<'EOF'`, `<<"EOF"`, `<<\EOF`) turns expansion off in
                // the body.
                let mut expands = true;
                for (field, child) in children(node) {
                    match field {
                        Some("redirect") => self.redirect(child, extra, deferred),
                        Some("argument") => {
                            let word = self.word(child);
                            extra.push(word);
                        }
                        Some("right") => deferred.push(child),
                        _ if kind(child) == Kind::Pipeline => deferred.push(child),
                        _ if kind(child) == Kind::HeredocStart => {
                            expands = !self.text(child).contains(['\'', '"', '\\']);
                        }
                        _ if kind(child) == Kind::HeredocBody => {
                            let body = self.text(child);
                            let strip_tabs = self.text(node).starts_with("<<-");
                            self.stdin = Some(Stdin::Static(heredoc_text(body, expands, strip_tabs)));
                            self.scan(child);
                            if expands {
                                // tree-sitter-bash leaves backticks in a body as text; bash runs them.
                                // The substitutions tree-sitter found are walked already.
                                let found: Vec<(usize, usize)> = kids(child)
                                    .filter(|k| kind(*k) == Kind::CommandSubstitution)
                                    .map(|k| (k.start_byte() - child.start_byte(), k.end_byte() - child.start_byte()))
                                    .collect();
                                let mut scripts = backtick_scripts(body);
                                scripts.extend(dollar_paren_scripts(body, &found));
                                if !scripts.is_empty() {
                                    self.out.hazard(Hazard::CommandSubstitution);
                                }
                                self.scripts.extend(scripts);
                            }
                        }
                        _ if child.is_error() => self.statement(child),
                        _ => {}
                    }
                }
            }
            Kind::HerestringRedirect => {
                for (field, child) in children(node) {
                    if child.is_named() && field != Some("descriptor") {
                        let word = self.word(child);
                        self.stdin = Some(if word.is_static() { Stdin::Static(word.value) } else { Stdin::Dynamic });
                    }
                }
            }
            _ => {
                self.out.hazard(Hazard::UnknownConstruct { kind: kind_of(node).to_owned() });
                self.scan(node);
            }
        }
        self.leave();
    }

    /// Records the write, if any, of a redirect with `operator` to `target`, on descriptor
    /// `fd` (`None`: the operator's own; `Some(None)`: one the shell picks).
    pub(crate) fn redirect_target(&mut self, operator: &str, target: Word<'s>, fd: Option<Option<u32>>) {
        match operator {
            ">" | ">|" | "&>" => self.write(target, false),
            ">>" | "&>>" => self.write(target, true),
            // `>&N` and `<&N` duplicate a descriptor (which may then refer to a file opened for
            // reading: `0<t 3<&0`); `>&word` with any other word writes to a file.
            ">&" | "<&" if target.is_static() && is_descriptor(&target.value) => self.out.fds_duplicated = true,
            ">&" => self.write(target, false),
            "<" | "<&" => {
                // Standard input from a file named at run time (`sh < <(curl …)`).
                if !target.is_static() && self.stdin.is_none() {
                    self.stdin = Some(Stdin::Dynamic);
                }
                let dynamic = target.expansion || target.glob || target.tilde;
                self.out.fd_reads.push((fd.unwrap_or(Some(0)), target.value.clone(), dynamic));
                self.out.reads.push(target.value);
            }
            other => self.out.hazard(Hazard::UnknownConstruct { kind: format!("redirect {other}") }),
        }
    }

    /// Records a write to `target` unless it is an exempt device; one through a descriptor's
    /// device is a write to the files that descriptor was opened on for reading, if any.
    pub(crate) fn write(&mut self, target: Word<'s>, append: bool) {
        let dynamic = target.expansion || target.glob || target.tilde;
        if !dynamic && is_exempt_device(&target.value) {
            if let Some(fd) = device_descriptor(&target.value) {
                self.out.fd_writes.push((fd, append));
            }
            return;
        }
        self.out.writes.push(RedirectWrite { path: target.value, append, dynamic });
    }

    /// The words of a `[ … ]` or `[[ … ]]` test, brackets and operators included.
    pub(crate) fn test_words(&mut self, node: Node<'t>, words: &mut Vec<Word<'s>>) {
        if !self.enter(node) {
            return;
        }
        for child in kids(node) {
            if !child.is_named() {
                words.push(Word::literal(self.text(child), child.start_byte(), child.end_byte()));
                continue;
            }
            match kind(child) {
                Kind::BinaryExpression
                | Kind::UnaryExpression
                | Kind::ParenthesizedExpression
                | Kind::TernaryExpression
                | Kind::PostfixExpression => self.test_words(child, words),
                Kind::RedirectedStatement => {
                    self.out.hazard(Hazard::UnknownConstruct { kind: "test_redirect".to_owned() });
                    self.statement(child);
                }
                _ => {
                    let word = self.word(child);
                    words.push(word);
                }
            }
        }
        self.leave();
    }
}

/// The descriptor a word glued to a redirect names, which tree-sitter reads as a word before
/// it (`before` is the source up to the redirect): `Some(None)` for the `{name}` of
/// `exec {name}<file`, `Some(Some(0))` for the `0` of `cat 0<file`; `None` otherwise.
fn descriptor_before(before: &str) -> Option<Option<u32>> {
    let starts_a_word = |start: &str| start.chars().next_back().is_none_or(char::is_whitespace);
    let digits = before.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        let (start, number) = before.split_at(before.len() - digits);
        return starts_a_word(start).then(|| number.parse().ok());
    }
    let inside = before.strip_suffix('}')?;
    let name_len = inside.bytes().rev().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    let (start, name) = inside.split_at(inside.len() - name_len);
    let start = start.strip_suffix('{')?;
    (is_identifier(name) && starts_a_word(start)).then_some(None)
}
