//! Statements: lists, pipelines, compound commands, simple commands and their gaps.

use std::borrow::Cow;

use tree_sitter::Node;

use super::*;
use crate::kind::{Kind, kind, kind_of};
use crate::word::{Word, arithmetic_name, has_substitution_text, never_a_command_name};
use crate::{Hazard, SimpleCommand, Text};

impl<'s, 't, 'o> Walker<'s, 't, 'o> {
    /// Walks the statements inside a command or process substitution; those of an output
    /// one (`>(sh)`) read what is written to it.
    pub(crate) fn substitution(&mut self, node: Node<'t>) {
        if !self.enter(node) {
            return;
        }
        let outer = self.out.piped;
        self.out.piped |= kind(node) == Kind::ProcessSubstitution && self.text(node).starts_with('>');
        for (field, child) in children(node) {
            if field == Some("redirect") {
                let mut extra = Vec::new();
                let mut deferred = Vec::new();
                self.redirect(child, &mut extra, &mut deferred);
                self.no_extra_words(&extra);
                self.deferred(deferred);
            } else if child.is_named() {
                self.statement(child);
            }
        }
        self.out.piped = outer;
        self.leave();
    }

    /// Walks one statement (or any node in statement position).
    pub fn statement(&mut self, node: Node<'t>) {
        if !self.enter(node) {
            return;
        }
        let mark = self.pending.len();
        self.statement_inner(node);
        self.flush(mark);
        self.leave();
    }

    pub(crate) fn statement_inner(&mut self, node: Node<'t>) {
        self.gaps(node);
        // The kinds nearly every command line is made of; the rest out of line.
        match kind(node) {
            Kind::Pipeline => self.pipeline(node),
            Kind::Program | Kind::List | Kind::Subshell | Kind::Error => {
                if kids(node).any(|k| !k.is_named() && self.text(k) == "&") {
                    self.out.hazard(Hazard::Background);
                }
                self.named_statements(node);
            }
            Kind::DoGroup | Kind::ElseClause | Kind::ElifClause | Kind::IfStatement | Kind::WhileStatement => {
                self.keywords_stand_alone(node);
                self.named_statements(node);
            }
            Kind::Command => self.command(node, Vec::new()),
            Kind::RedirectedStatement => self.redirected(node),
            Kind::NegatedCommand => {
                // `!` negates only as a word of its own: `!}` is a command's name to bash.
                if !self.text(node).as_bytes().get(1).is_some_and(u8::is_ascii_whitespace) {
                    self.out.hazard(Hazard::ParseError);
                }
                self.named_statements(node);
            }
            Kind::Comment => {}
            kind => self.other_statement(node, kind),
        }
    }

    /// [`Walker::statement_inner`] for the kinds that are not simple commands, lists or
    /// pipelines.
    #[inline(never)]
    pub(crate) fn other_statement(&mut self, node: Node<'t>, kind: Kind) {
        if matches!(
            kind,
            Kind::CompoundStatement
                | Kind::ForStatement
                | Kind::CStyleForStatement
                | Kind::CaseStatement
                | Kind::FunctionDefinition
        ) {
            self.keywords_stand_alone(node);
        }
        match kind {
            Kind::CompoundStatement if node.child(0).is_some_and(|open| self::kind(open) == Kind::DoubleParen) => {
                self.arithmetic(node)
            }
            Kind::CompoundStatement => self.named_statements(node),
            Kind::ForStatement => {
                let mark = self.pending.len();
                for (field, child) in children(node) {
                    match field {
                        Some("variable") => {}
                        Some("value") => {
                            self.word(child);
                        }
                        _ if child.is_named() => {
                            // Substitutions in the list run before the body.
                            self.flush(mark);
                            self.statement(child);
                        }
                        _ => {}
                    }
                }
            }
            Kind::CStyleForStatement => {
                for (field, child) in children(node) {
                    if field == Some("body") {
                        self.statement(child);
                    } else if child.is_named() {
                        self.arithmetic(child);
                    }
                }
            }
            Kind::CaseStatement | Kind::CaseItem => {
                let mark = self.pending.len();
                for (field, child) in children(node) {
                    if field == Some("value") {
                        self.word(child);
                    } else if child.is_named() {
                        self.flush(mark);
                        self.statement(child);
                    }
                }
            }
            Kind::FunctionDefinition => {
                let shells = self.out.stdin_shells;
                let first = self.out.commands.len();
                let mut name = None;
                for (field, child) in children(node) {
                    match field {
                        Some("name") => name = Some(self.text(child)),
                        Some("redirect") => {
                            let mut extra = Vec::new();
                            let mut deferred = Vec::new();
                            self.redirect(child, &mut extra, &mut deferred);
                            self.no_extra_words(&extra);
                            self.deferred(deferred);
                        }
                        _ if child.is_named() => self.statement(child),
                        _ => {}
                    }
                }
                if let Some(name) = name {
                    let calls = self.out.commands[first..]
                        .iter()
                        .filter_map(|command| command.argv.first().map(|name| name.to_string()))
                        .collect();
                    let reads_stdin = self.out.stdin_shells > shells;
                    self.out.functions.push(Function { name: name.to_owned(), reads_stdin, calls });
                }
            }
            Kind::TestCommand => {
                // `[[`, `]]`, `[` and `]` are what they are only as words of their own:
                // `[[-f a ]]`, `[[\ x ]]` and `[-f a ]` run a command named `[[-f`, `[[ x`, `[-f`,
                // and `[ -f a\ ]` tests `a ]`, a blank after a backslash being part of a word.
                let bytes = self.text(node).as_bytes();
                let blank = |b: Option<&u8>| b.is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n'));
                let (open, close) = if bytes.starts_with(b"[[") { (2, 3) } else { (1, 2) };
                let opened = !bytes.starts_with(b"[") || blank(bytes.get(open));
                let closed = !bytes.ends_with(b"]")
                    || bytes.len().checked_sub(close).is_some_and(|at| {
                        let escapes = bytes[..at].iter().rev().take_while(|&&b| b == b'\\').count();
                        blank(bytes.get(at)) && escapes % 2 == 0
                    });
                // `[` is a command to bash: a `|`, `;`, `&`, parenthesis or redirection inside
                // ends or redirects it (`[ -f x | rm y ]` runs `rm y ]`), where tree-sitter
                // reads one test.
                let single = !bytes.starts_with(b"[[") && has_unquoted_operator(bytes);
                if !opened || !closed || single {
                    self.out.hazard(Hazard::ParseError);
                }
                // Tokens tree-sitter splits with no blank between are one word (`[ -fa\\ ]`
                // tests `-fa\`, found by the oracle).
                let mut words = Vec::new();
                self.test_words(node, &mut words);
                let words = self.join_adjacent(words);
                self.emit(words, Vec::new(), Vec::new(), false);
            }
            Kind::DeclarationCommand | Kind::UnsetCommand => self.declaration(node),
            Kind::VariableAssignment => {
                let assignment = self.assignment(node);
                self.assignments_only(node, vec![assignment]);
            }
            Kind::VariableAssignments => {
                let mut assignments = Vec::new();
                for child in kids(node) {
                    if self::kind(child) == Kind::VariableAssignment {
                        assignments.push(self.assignment(child));
                    } else if child.is_named() {
                        self.statement(child);
                    }
                }
                self.assignments_only(node, assignments);
            }
            Kind::FileRedirect | Kind::HeredocRedirect | Kind::HerestringRedirect => {
                let mut extra = Vec::new();
                let mut deferred = Vec::new();
                self.redirect(node, &mut extra, &mut deferred);
                self.no_extra_words(&extra);
                self.deferred(deferred);
            }
            kind if is_expression(kind) => self.scan(node),
            _ => {
                self.out.hazard(Hazard::UnknownConstruct { kind: kind_of(node).to_owned() });
                self.named_statements(node);
            }
        }
    }

    /// Marks a parse error where a reserved word of `node` (`{`, `then`, `esac` …) touches the
    /// text before or after it: bash reads `{b`, `else}` and `}#` as words, not as syntax.
    pub(crate) fn keywords_stand_alone(&mut self, node: Node<'t>) {
        let bytes = self.src.as_bytes();
        let separates = |b: Option<&u8>| {
            b.is_none_or(|b| matches!(b, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'))
        };
        for child in kids(node).filter(|child| !child.is_named()) {
            let (start, end) = (child.start_byte(), child.end_byte());
            let token = self.slice(start, end);
            let reserved =
                matches!(token, "{" | "}") || (!token.is_empty() && token.bytes().all(|b| b.is_ascii_lowercase()));
            if reserved && (!separates(bytes.get(end)) || !separates(start.checked_sub(1).and_then(|at| bytes.get(at))))
            {
                self.out.hazard(Hazard::ParseError);
            }
        }
    }

    /// Marks a parse error where the text between two children of `node` (a statement) is
    /// not read by bash as tree-sitter reads it: a character tree-sitter dropped (`wc - <<E`
    /// loses `-`, `-<newline>R=` loses `-`, `\ q` its escaped blank), tokens only a line
    /// continuation separates (bash joins `>h\<newline>h` into one word), a word right after a
    /// redirect target (`>}\t` writes `}t`), a comment glued to the text before it (`a=()#`,
    /// which bash does not read as a comment), and any space inside an assignment
    /// (`a[$(r)] =5`).
    pub(crate) fn gaps(&mut self, node: Node<'t>) {
        let node_kind = kind(node);
        if !is_container(node_kind) {
            return;
        }
        let bytes = self.src.as_bytes();
        // The root's node may start after text tree-sitter skipped, and end before some.
        let (mut at, end) =
            if node_kind == Kind::Program { (0, bytes.len()) } else { (node.start_byte(), node.end_byte()) };
        let mut previous: Option<Kind> = None;
        let mut wrong = false;
        for child in kids(node).chain(std::iter::once(node)) {
            let last = child == node;
            let start = if last { end } else { child.start_byte() };
            if let Some(gap) = bytes.get(at..start) {
                let child_kind = kind(child);
                let words =
                    node_kind == Kind::Command && previous.is_some_and(is_word_or_name) && is_word_or_name(child_kind);
                wrong |= match gap_reading(gap) {
                    Gap::Token => true,
                    // The walker joins a command's words a continuation glues (`r\<newline>m`).
                    Gap::Continuation => !words,
                    Gap::Empty if last => false,
                    Gap::Empty => {
                        matches!(previous, Some(Kind::FileRedirect | Kind::HerestringRedirect))
                            && is_word_or_name(child_kind)
                    }
                    Gap::Blank => node_kind == Kind::VariableAssignment,
                };
                wrong |= !last
                    && child_kind == Kind::Comment
                    && start > 0
                    && !matches!(bytes[start - 1], b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(');
            }
            at = at.max(child.end_byte());
            previous = Some(kind(child));
        }
        if wrong {
            self.out.hazard(Hazard::ParseError);
        }
    }

    /// The stages of a pipeline: every one after the first reads a pipe.
    pub(crate) fn pipeline(&mut self, node: Node<'t>) {
        let outer = self.out.piped;
        let mut first = true;
        for child in kids(node) {
            if child.is_named() {
                self.out.piped = outer || !first;
                first = false;
                self.statement(child);
            }
        }
        self.out.piped = outer;
    }

    /// Walks every named child of `node` as a statement.
    pub(crate) fn named_statements(&mut self, node: Node<'t>) {
        for child in kids(node) {
            if child.is_named() {
                self.statement(child);
            }
        }
    }

    /// Records a hazard when a redirect carried words that no simple command can take.
    pub(crate) fn no_extra_words(&mut self, extra: &[Word<'s>]) {
        if !extra.is_empty() {
            self.out.hazard(Hazard::UnknownConstruct { kind: "redirect_arguments".to_owned() });
        }
    }

    /// Lists a statement made only of assignments as a command with an empty argv.
    pub(crate) fn assignments_only(&mut self, node: Node<'t>, assignments: Vec<(Text<'s>, Text<'s>)>) {
        let carried = crate::wrappers::carried_commands(&assignments, &[]);
        self.out.commands.push(SimpleCommand {
            argv: Vec::new(),
            text: Cow::Borrowed(self.text(node)),
            assignments,
            wrappers: Vec::new(),
            has_expansion: false,
            has_glob: false,
            glob_words: Vec::new(),
            static_words: 0,
            wrapped: None,
        });
        self.command_variables(carried);
    }

    /// Walks an arithmetic context (`$((…))`, `((…))`, `for ((…))`). Bash evaluates array
    /// subscripts there, and runs a `$(…)` found inside one even when it came from a quoted
    /// string, so any `$(` or backtick in the text is a substitution.
    pub(crate) fn arithmetic(&mut self, node: Node<'t>) {
        let text = self.text(node);
        let inner = text.trim_start_matches(['$', '(', '[']).trim_end_matches([')', ']']);
        if has_substitution_text(text) {
            self.out.hazard(Hazard::CommandSubstitution);
            self.text_substitutions(node, text);
        } else if let Some(name) = arithmetic_name(inner) {
            self.out.hazard(Hazard::ArithmeticName { name: excerpt(name) });
        }
        self.scan(node);
    }

    /// Lists the commands of the substitutions in the text of an arithmetic context, a `${…}`
    /// expansion or a string that tree-sitter did not parse as substitutions (quoted in
    /// arithmetic or a subscript, a backtick in a pattern, a `$(` it read as text).
    pub(crate) fn text_substitutions(&mut self, node: Node<'t>, text: &str) -> bool {
        let mut found = Vec::new();
        let mut backticks = false;
        let mut cursor = node.walk();
        loop {
            let current = cursor.node();
            if kind(current) == Kind::CommandSubstitution {
                found.push((current.start_byte() - node.start_byte(), current.end_byte() - node.start_byte()));
                backticks |= self.text(current).starts_with('`');
            } else if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    let mut scripts = dollar_paren_scripts(text, &found);
                    if !backticks {
                        scripts.extend(backtick_scripts(text));
                    }
                    let scripts = bounded(self.out, scripts);
                    let any = !scripts.is_empty();
                    self.scripts.extend(scripts);
                    return any;
                }
            }
        }
    }

    /// Walks `node` only for the substitutions and `${..}` expansions inside it.
    pub fn scan(&mut self, node: Node<'t>) {
        if !self.enter(node) {
            return;
        }
        match kind(node) {
            Kind::CommandSubstitution => {
                self.out.hazard(Hazard::CommandSubstitution);
                // Bash ends a backtick substitution at its first unescaped backtick; tree-sitter
                // reads `a``b` as one, where bash runs `a` and `b`.
                let text = self.text(node);
                // tree-sitter may start the node at a `$` before the backtick: to bash that `$`
                // is a character of the word, and the substitution starts at the backtick.
                let text = text.strip_prefix('$').filter(|rest| rest.starts_with('`')).unwrap_or(text);
                if backticks_inside(text) {
                    self.out.hazard(Hazard::ParseError);
                }
                // Inside backticks bash removes the backslash of `\\`, `\$` and `` \` `` before
                // it parses the command; tree-sitter keeps it. Such a command is read from the
                // text bash parses.
                // A carriage return, vertical tab or form feed is a character of a word to bash
                // and a blank to tree-sitter: the text is read again, where it is respelt.
                let odd_blank = text.contains(['\r', '\x0b', '\x0c']);
                // A backslash-newline inside backticks is not read as tree-sitter reads it
                // (`` `cat'\\<newline>'` `` runs `cat`).
                if text.starts_with('`') && text.contains("\\\n") {
                    self.out.hazard(Hazard::ParseError);
                }
                if text.starts_with('`') && (text.contains('\\') || odd_blank) {
                    self.scripts.extend(backtick_scripts(text));
                } else if odd_blank && let Some(inner) = text.strip_prefix("$(").and_then(|t| t.strip_suffix(')')) {
                    self.scripts.push(inner.to_owned());
                } else {
                    self.pending.push(node);
                }
            }
            Kind::ProcessSubstitution => {
                self.out.hazard(Hazard::ProcessSubstitution);
                self.pending.push(node);
            }
            kind => {
                if kind == Kind::Expansion {
                    self.out.hazard(Hazard::ParameterExpansion);
                }
                for child in kids(node) {
                    if child.is_named() {
                        self.scan(child);
                    }
                }
            }
        }
        self.leave();
    }

    /// One `command` node: its assignments, words and redirects, then the command itself.
    /// `extra` are words that tree-sitter put after a redirect target (`echo > f hi`): in bash
    /// they are arguments of this command.
    pub(crate) fn command(&mut self, node: Node<'t>, extra: Vec<Word<'s>>) {
        // Inside a quoted `$( )` tree-sitter skips an escaped blank before a command
        // (`"$(\ q)"`): to bash it starts the name (bash runs ` q`).
        if self.slice(0, node.start_byte()).trim_end_matches([' ', '\t']).ends_with('\\') {
            self.out.hazard(Hazard::ParseError);
        }
        let mark = self.pending.len();
        // At most one word per child (and the extra ones): allocated once.
        let mut words = Vec::with_capacity(node.child_count() as usize + extra.len());
        let mut assignments = Vec::new();
        let mut deferred = Vec::new();
        // The `$` of a `$"…"` translated string, which tree-sitter gives as a word of its own.
        let mut translated_start = None;
        let mut named = false;
        for (index, child) in kids(node).enumerate() {
            let child_kind = kind(child);
            if child_kind == Kind::VariableAssignment {
                // `a=()s`: a word glued to an assignment is not what tree-sitter makes of it.
                if child.next_sibling().is_some_and(|next| next.start_byte() == child.end_byte() && next.is_named()) {
                    self.out.hazard(Hazard::ParseError);
                }
                assignments.push(self.assignment(child));
                continue;
            }
            let child_named = child.is_named();
            let field = command_field_of(node, index, child, child_kind, child_named, named, self.clean);
            named |= field == Some("name");
            match field {
                Some("redirect") => {
                    let mut prefix_extra = Vec::new();
                    self.redirect(child, &mut prefix_extra, &mut deferred);
                    self.no_extra_words(&prefix_extra);
                }
                // tree-sitter reads the `0` of `0<t rm x` as the command's name and `rm x` as
                // words after the redirect's target: to bash the `0` is the redirect's
                // descriptor, and `rm` (the first of those words) is the name.
                Some("name") if is_descriptor_number(self.text(child)) && glued_to_a_redirect(child, node) => {
                    if super::text::continues_a_word(self.slice(0, child.start_byte())) {
                        self.out.hazard(Hazard::ParseError);
                    }
                    named = false;
                }
                Some("name") => {
                    // `esac`, `fi`, `}` … are never a command's name to bash.
                    if never_a_command_name(self.text(child)) {
                        self.out.hazard(Hazard::ParseError);
                    }
                    words.push(self.word_of(child, child_kind));
                }
                // tree-sitter reads the `0` of `cat 0<f` as an argument: to bash it is the
                // redirect's descriptor.
                Some("argument") if child_kind == Kind::Number && glued_to_a_redirect(child, node) => {
                    // After a line continuation the digits end the word before instead
                    // (`cp c\<newline>2>c` runs `cp c2`).
                    if super::text::continues_a_word(self.slice(0, child.start_byte())) {
                        self.out.hazard(Hazard::ParseError);
                    }
                }
                Some("argument") if child_named => {
                    let mut word = self.word_of(child, child_kind);
                    if let Some(start) = translated_start.take() {
                        word.expansion = true;
                        word.start = start;
                    }
                    words.push(word);
                }
                Some("argument") => {
                    // A bare `$` right before a string is `$"…"`, a translated string.
                    // (`alias $"x"=y` has the string first in a concatenation.)
                    if self.text(child) == "$"
                        && self.src.as_bytes().get(child.end_byte()) == Some(&b'"')
                        && child.next_sibling().is_some_and(|next| next.start_byte() == child.end_byte())
                    {
                        translated_start = Some(child.start_byte());
                        continue;
                    }
                    words.push(Word::literal(self.text(child), child.start_byte(), child.end_byte()));
                }
                _ if child_kind == Kind::Subshell => {
                    self.out.hazard(Hazard::UnknownConstruct { kind: "command_subshell".to_owned() });
                    deferred.push(child);
                }
                _ if !child_named || child_kind == Kind::Comment => {}
                _ => {
                    self.out.hazard(Hazard::UnknownConstruct { kind: kind_of(child).to_owned() });
                    deferred.push(child);
                }
            }
        }
        let mut words = self.join_adjacent(words);
        words.extend(extra);
        // tree-sitter reads `_=1` in front of a command as the command's name, and the
        // assignments after it as arguments; bash assigns them all and runs the word after.
        let leading: Vec<_> = words
            .iter()
            .map_while(|word| {
                is_shell_assignment(self.slice(word.start, word.end)).then(|| crate::wrappers::as_assignment(word))?
            })
            .collect();
        if !leading.is_empty() {
            words.drain(..leading.len());
            assignments.extend(leading);
        }
        let words = self.brace_expanded(self.join_continuations(words));
        self.emit(words, assignments, Vec::new(), false);
        self.stdin = None;
        self.flush(mark);
        self.deferred(deferred);
    }

    /// Joins a command's words that tree-sitter split where bash does not: two tokens with
    /// nothing between them are one word to bash (`ls ''\7` runs `ls 7`, `diff t<(l)` one
    /// argument). A newline between two of its words (outside a line continuation) means
    /// tree-sitter carried the command past the end of its line, where bash ends it: the
    /// reading is not bash's, so the line is a parse error.
    pub(crate) fn join_adjacent(&mut self, words: Vec<Word<'s>>) -> Vec<Word<'s>> {
        let split = |pair: &[Word<'s>]| {
            pair[0].end == pair[1].start
                || (pair[0].end < pair[1].start && ends_a_line(self.slice(pair[0].end, pair[1].start)))
        };
        if !words.windows(2).any(split) {
            return words;
        }
        let mut joined: Vec<Word<'s>> = Vec::with_capacity(words.len());
        for word in words {
            match joined.last_mut() {
                Some(previous) if previous.end == word.start => previous.join(word),
                Some(previous) => {
                    if previous.end < word.start && ends_a_line(self.slice(previous.end, word.start)) {
                        self.out.hazard(Hazard::ParseError);
                    }
                    joined.push(word);
                }
                None => joined.push(word),
            }
        }
        joined
    }

    /// Walks the statements a command's redirects held back. A pipeline among them continues
    /// the command's own (`cat <<EOF | sh`): each of its stages reads a pipe.
    pub(crate) fn deferred(&mut self, nodes: Vec<Node<'t>>) {
        for node in nodes {
            let outer = self.out.piped;
            self.out.piped |= kind(node) == Kind::Pipeline;
            self.statement(node);
            self.out.piped = outer;
        }
    }
}

/// Whether `text` is digits only, as a redirect's descriptor is.
fn is_descriptor_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `number`, an argument of `command`, is directly followed by a file redirect (in the
/// command, or the first of the statement, pipeline or list it ends: `a|b 0<t`): then it is
/// that redirect's descriptor. `&>` and `&>>` take none (`ls 2&>f` runs `ls 2`).
fn glued_to_a_redirect(number: Node<'_>, command: Node<'_>) -> bool {
    let mut next = number.next_sibling();
    let mut up = Some(command);
    while next.is_none() {
        let Some(node) = up.filter(|node| node.end_byte() == number.end_byte()) else { break };
        next = node.next_sibling();
        up = node.parent();
    }
    next.is_some_and(|next| {
        let operator = (0..next.child_count()).filter_map(|i| next.child(i)).find(|c| !c.is_named()).map(|c| c.kind());
        matches!(kind(next), Kind::FileRedirect | Kind::HeredocRedirect | Kind::HerestringRedirect)
            && next.start_byte() == number.end_byte()
            && !matches!(operator, Some("&>" | "&>>"))
    })
}
