//! The tree walker: statements, words and redirections into commands, writes and hazards.
//!
//! [`Output`] accumulates the analysis across nested sources (a `bash -c` string is parsed and
//! walked into the same output); a [`Walker`] walks one syntax tree over its source text.
//! Command emission and wrapper stripping live in `wrappers.rs`.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use tree_sitter::Node;

use super::coarse;
use super::kind::{Kind, kind, kind_of};
use super::plain::{self, Statement};
use super::reread::{self, Reading};
use super::word::{Word, decode_ansi_c, is_identifier};
use super::{Hazard, RedirectWrite, SimpleCommand, Text, parse};

/// How deep the walker follows the syntax tree (statements and words together, across
/// nested sources) before it stops and reports `too_deep`.
const MAX_DEPTH: usize = 150;

/// How many command strings and payloads may nest (`bash -c "bash -c '…'"`, `xargs find -exec`)
/// before the analyser stops and reports `too_deep`.
pub(super) const MAX_NESTING: usize = 12;

/// The most hazards one analysis lists.
pub(super) const MAX_HAZARDS: usize = 64;

/// How many times one analysis parses a source again after respelling a token that
/// tree-sitter-bash would end elsewhere than bash ([`reread`]); past that the line is a parse
/// error.
const MAX_REREADS: usize = 16;

/// The time budget of one whole analysis, nested parses included.
const ANALYSIS_BUDGET: Duration = Duration::from_secs(2);

/// The analysis being accumulated.
pub(super) struct Output<'s> {
    /// Simple commands found so far, in source order.
    pub commands: Vec<SimpleCommand<'s>>,
    /// Redirect writes found so far.
    pub writes: Vec<RedirectWrite<'s>>,
    /// Input redirections from files found so far.
    pub reads: Vec<Text<'s>>,
    /// Hazards found so far, each once.
    pub hazards: Vec<Hazard>,
    /// Whether a `cd` to somewhere other than `.` has been seen (for [`Hazard::CdThenGit`]).
    pub changed_dir: bool,
    /// How many command strings and payloads enclose the current position.
    pub nesting: usize,
    /// Whether the current position reads a pipe: inside a pipeline stage after the first
    /// (a shell there with no script reads the text the stage before prints).
    pub piped: bool,
    /// The names of the aliases defined so far (`alias ll='ls -l'`).
    pub aliases: Vec<String>,
    /// Whether a line of plain words is read without its syntax tree ([`plain::line`]); off
    /// only where that reading is compared with the tree's.
    pub plain: bool,
    /// How many sources were parsed again after a respelling ([`MAX_REREADS`]).
    rereads: usize,
    /// Whether the source being walked (not one nested in it) was found not read as bash
    /// reads it ([`Hazard::ParseError`]): then [`coarse`] reads it too.
    unsure: bool,
    /// How deep the walkers are in their trees, summed across nested sources.
    depth: usize,
    /// When every parse must be over.
    deadline: Instant,
}

impl<'s> Output<'s> {
    /// An empty analysis with a fresh time budget.
    pub fn new() -> Self {
        Output {
            commands: Vec::new(),
            writes: Vec::new(),
            reads: Vec::new(),
            hazards: Vec::new(),
            changed_dir: false,
            nesting: 0,
            piped: false,
            aliases: Vec::new(),
            plain: true,
            rereads: 0,
            unsure: false,
            depth: 0,
            deadline: Instant::now() + ANALYSIS_BUDGET,
        }
    }

    /// Records `hazard` unless it is already recorded, or [`MAX_HAZARDS`] are (one is enough
    /// to stop auto-approval; the cap keeps pathological input linear).
    pub fn hazard(&mut self, hazard: Hazard) {
        self.unsure |= hazard == Hazard::ParseError;
        if self.hazards.len() < MAX_HAZARDS && !self.hazards.contains(&hazard) {
            self.hazards.push(hazard);
        }
    }

    /// Records the "nesting too deep" construct.
    pub fn too_deep(&mut self) {
        self.hazard(Hazard::UnknownConstruct { kind: "too_deep".to_owned() });
    }

    /// Parses `src` and walks it into this output.
    pub fn analyze_source(&mut self, src: &'s str) {
        if src.contains("\\\r") {
            self.analyze_detached(&escaped_carriage_returns(src));
        } else {
            self.walk_source(src);
        }
    }

    /// Analyses `src`, a string the analysis made rather than a part of the source, into an
    /// output of its own (with this one's state) whose findings then move here, owned.
    fn analyze_detached(&mut self, src: &str) {
        let mut inner = Output {
            commands: Vec::new(),
            writes: Vec::new(),
            reads: Vec::new(),
            hazards: std::mem::take(&mut self.hazards),
            changed_dir: self.changed_dir,
            nesting: self.nesting,
            piped: self.piped,
            aliases: std::mem::take(&mut self.aliases),
            plain: self.plain,
            rereads: self.rereads,
            unsure: false,
            depth: self.depth,
            deadline: self.deadline,
        };
        inner.walk_source(src);
        self.hazards = inner.hazards;
        self.aliases = inner.aliases;
        self.changed_dir = inner.changed_dir;
        self.rereads = inner.rereads;
        self.commands.extend(inner.commands.into_iter().map(|command| -> SimpleCommand<'s> { command.into_owned() }));
        self.writes.extend(inner.writes.into_iter().map(|write| -> RedirectWrite<'s> { write.into_owned() }));
        self.reads.extend(inner.reads.into_iter().map(|read| -> Text<'s> { super::owned(read) }));
    }

    /// Parses `src` as it is and walks it into this output.
    fn walk_source(&mut self, src: &'s str) {
        // `a\<newline>#` is `a#` to bash (the continuation goes, the `#` is inside a word);
        // tree-sitter starts a comment there, which would hide the rest of the line.

        if self.plain
            && let Some(statements) = plain::line(src)
            && self.depth + plain_depth(&statements) < MAX_DEPTH
        {
            super::shared::count_parse();
            self.walk_plain(src, statements);
            return;
        }
        let outer_unsure = std::mem::replace(&mut self.unsure, false);
        // `a\<newline>#` is `a#` to bash (the continuation goes, the `#` is inside a word);
        // tree-sitter starts a comment there, which would hide the rest of the line.
        if continued_into_a_hash(src) {
            self.hazard(Hazard::ParseError);
        }
        self.walk_tree(src);
        if self.unsure {
            self.walk_coarse(src);
        }
        self.unsure = outer_unsure;
    }

    /// Parses `src` and walks its tree into this output.
    fn walk_tree(&mut self, src: &'s str) {
        let Some(tree) = parse::parse(src, self.deadline) else {
            self.hazard(Hazard::ParseError);
            return;
        };
        let root = tree.root_node();
        match reread::check(root, src) {
            Reading::Agrees => {}
            Reading::Rewritten(respelt) if self.rereads < MAX_REREADS => {
                self.rereads += 1;
                self.analyze_detached(&respelt);
                return;
            }
            Reading::Rewritten(_) | Reading::Unsure => self.hazard(Hazard::ParseError),
        }
        let clean = !root.has_error();
        if !clean {
            self.hazard(Hazard::ParseError);
        }
        let mut walker = Walker { src, clean, out: self, pending: Vec::new(), stdin: None, scripts: Vec::new() };
        walker.statement(root);
        walker.run_scripts();
    }

    /// Lists the commands of [`coarse`]'s reading of `src`, a line not read as bash reads it,
    /// so that a deny rule that any reading would match still denies it.
    fn walk_coarse(&mut self, src: &'s str) {
        let mut walker = Walker { src, clean: false, out: self, pending: Vec::new(), stdin: None, scripts: Vec::new() };
        for command in coarse::commands(src) {
            walker.emit(coarse::words(command), Vec::new(), Vec::new(), false);
        }
    }

    /// Lists the statements of a plain line of `src` as the walk of its tree would.
    fn walk_plain(&mut self, src: &'s str, statements: Vec<Statement<'s>>) {
        let depth = plain_depth(&statements);
        let outer = self.piped;
        self.depth += depth;
        let mut walker = Walker { src, clean: true, out: self, pending: Vec::new(), stdin: None, scripts: Vec::new() };
        for statement in statements {
            walker.out.piped = outer || statement.piped;
            walker.emit(statement.words, statement.assignments, Vec::new(), false);
        }
        self.piped = outer;
        self.depth -= depth;
    }

    /// Analyses `src`, a command string run by a shell (`bash -c`, `eval`, `trap`), and puts
    /// `wrappers` in front of the wrappers of every command found in it.
    pub fn analyze_nested(&mut self, src: Text<'s>, wrappers: &[Text<'s>]) {
        if self.nesting >= MAX_NESTING {
            self.too_deep();
            return;
        }
        self.nesting += 1;
        let first = self.commands.len();
        match src {
            Cow::Borrowed(src) => self.analyze_source(src),
            Cow::Owned(src) => self.analyze_detached(&src),
        }
        for command in self.commands.iter_mut().skip(first) {
            let mut all = wrappers.to_vec();
            all.append(&mut command.wrappers);
            command.wrappers = all;
        }
        self.nesting -= 1;
    }
}

/// How deep the tree of a plain line's statements would be at most: the program, a list or
/// pipeline per operator, the command. Nested command strings are bounded from there, as
/// they would be under the tree.
fn plain_depth(statements: &[Statement<'_>]) -> usize {
    2 + statements.len()
}

/// How many characters of a word a hazard quotes.
const EXCERPT_CHARS: usize = 200;

/// `text`, cut to [`EXCERPT_CHARS`] characters (with `…`) so hazards stay small.
pub(super) fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Nodes with at most this many children are read by index, without allocating; larger ones
/// (where reading by index would cost quadratic time) through a cursor into a vector.
const INDEXED_CHILDREN: u32 = 16;

/// The children of `node` with their field names, in order.
pub(super) fn children<'t>(node: Node<'t>) -> Children<'t> {
    let count = node.child_count();
    if count <= INDEXED_CHILDREN {
        return Children::Indexed { node, next: 0, count, fields: true };
    }
    let mut listed = Vec::with_capacity(count as usize);
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            listed.push((cursor.field_name(), cursor.node()));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    Children::Listed(listed.into_iter())
}

/// The children of `node`, in order, without their field names (which cost a lookup each).
pub(super) fn kids<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let count = node.child_count();
    let children = if count <= INDEXED_CHILDREN {
        Children::Indexed { node, next: 0, count, fields: false }
    } else {
        children(node)
    };
    children.map(|(_, child)| child)
}

/// An iterator over a node's children and their field names.
pub(super) enum Children<'t> {
    /// Read one by one from the node.
    Indexed {
        /// The parent.
        node: Node<'t>,
        /// The index of the next child.
        next: u32,
        /// How many children the parent has.
        count: u32,
        /// Whether to look the field names up.
        fields: bool,
    },
    /// Collected up front.
    Listed(std::vec::IntoIter<(Option<&'t str>, Node<'t>)>),
}

impl<'t> Iterator for Children<'t> {
    type Item = (Option<&'t str>, Node<'t>);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Children::Indexed { node, next, count, fields } => {
                while *next < *count {
                    let index = *next;
                    *next += 1;
                    if let Some(child) = node.child(index) {
                        let field = if *fields { node.field_name_for_child(index) } else { None };
                        return Some((field, child));
                    }
                }
                None
            }
            Children::Listed(listed) => listed.next(),
        }
    }
}

/// The field a child of a `command` node fills (`name`, `argument` or `redirect`), read from
/// its kind where tree-sitter-bash fixes it, since asking tree-sitter for a child's field scans
/// the node's children each time. `after_name`: whether the command name came before it.
///
/// tree-sitter-bash's `command` is: assignments and redirects, the `name` (a
/// `command_name`), then `argument`s (any word), `redirect`s (`file_redirect`,
/// `herestring_redirect`) and unfielded subshells, with comments anywhere. Anonymous children
/// (`$`, `=~`) and anything else are asked of tree-sitter.
///
/// `clean`: the tree has no ERROR or MISSING node (tree-sitter says so of the root), so
/// `child` need not be asked.
#[cfg(test)]
pub(super) fn command_field<'t>(
    command: Node<'t>,
    index: usize,
    child: Node<'t>,
    after_name: bool,
    clean: bool,
) -> Option<&'t str> {
    command_field_of(command, index, child, kind(child), child.is_named(), after_name, clean)
}

/// [`command_field`] with the child's kind and namedness already read.
fn command_field_of<'t>(
    command: Node<'t>,
    index: usize,
    child: Node<'t>,
    child_kind: Kind,
    named: bool,
    after_name: bool,
    clean: bool,
) -> Option<&'t str> {
    if !named || (!clean && (child.is_error() || child.is_missing())) {
        return u32::try_from(index).ok().and_then(|i| command.field_name_for_child(i));
    }
    match child_kind {
        Kind::CommandName => Some("name"),
        Kind::FileRedirect | Kind::HerestringRedirect => Some("redirect"),
        Kind::Subshell | Kind::Comment | Kind::VariableAssignment => None,
        kind if after_name && is_word(kind) => Some("argument"),
        _ => u32::try_from(index).ok().and_then(|i| command.field_name_for_child(i)),
    }
}

/// Node kinds that are one shell word: what a command's argument may be.
fn is_word(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Word
            | Kind::String
            | Kind::RawString
            | Kind::Concatenation
            | Kind::Number
            | Kind::SimpleExpansion
            | Kind::Expansion
            | Kind::CommandSubstitution
            | Kind::ProcessSubstitution
            | Kind::ArithmeticExpansion
            | Kind::AnsiCString
            | Kind::TranslatedString
            | Kind::BraceExpression
            | Kind::Regex
    )
}

/// Node kinds that are words or expressions: walked only for the substitutions inside them.
fn is_expression(kind: Kind) -> bool {
    is_word(kind)
        || matches!(
            kind,
            Kind::BinaryExpression
                | Kind::UnaryExpression
                | Kind::TernaryExpression
                | Kind::PostfixExpression
                | Kind::ParenthesizedExpression
                | Kind::Subscript
                | Kind::VariableName
                | Kind::SpecialVariableName
                | Kind::TestOperator
                | Kind::ExtglobPattern
                | Kind::Array
                | Kind::StringContent
                | Kind::CommandName
                | Kind::FileDescriptor
                | Kind::HeredocBody
                | Kind::HeredocContent
                | Kind::HeredocStart
                | Kind::HeredocEnd
        )
}

/// The text a here-document or here-string feeds to a command's standard input.
pub(super) enum Stdin<'s> {
    /// Known text (a here-document body, a static here-string).
    Static(Text<'s>),
    /// A here-string with an expansion.
    Dynamic,
}

/// Walks one syntax tree over its source text into an [`Output`].
pub(super) struct Walker<'s, 't, 'o> {
    /// The source text the tree was parsed from.
    pub src: &'s str,
    /// Whether the tree has no ERROR or MISSING node anywhere (then no node need be asked).
    clean: bool,
    /// Where findings go.
    pub out: &'o mut Output<'s>,
    /// Substitutions met in words, walked once the command holding them has been listed.
    pending: Vec<Node<'t>>,
    /// The here-document or here-string of the command being listed, so that a shell reading
    /// its script from standard input (`bash <<EOF`) has that script analysed.
    pub stdin: Option<Stdin<'s>>,
    /// The backtick substitutions of here-document bodies met, analysed once the command the
    /// here-document feeds has been listed.
    scripts: Vec<String>,
}

impl<'s, 't> Walker<'s, 't, '_> {
    /// The source text between two byte offsets (empty if they are not valid).
    pub fn slice(&self, start: usize, end: usize) -> &'s str {
        self.src.get(start..end).unwrap_or_default()
    }

    /// The source text of `node`.
    fn text(&self, node: Node<'t>) -> &'s str {
        self.slice(node.start_byte(), node.end_byte())
    }

    /// Enters one tree level; `false` (with the `too_deep` hazard) when the limit is reached.
    fn enter(&mut self, node: Node<'t>) -> bool {
        if !self.clean && (node.is_missing() || node.is_error()) {
            self.out.hazard(Hazard::ParseError);
        }
        if self.out.depth >= MAX_DEPTH {
            self.out.too_deep();
            return false;
        }
        self.out.depth += 1;
        true
    }

    /// Leaves a tree level entered with [`Walker::enter`].
    fn leave(&mut self) {
        self.out.depth = self.out.depth.saturating_sub(1);
    }

    /// Walks the substitutions recorded since `mark`.
    pub fn flush(&mut self, mark: usize) {
        while self.pending.len() > mark {
            let nodes = self.pending.split_off(mark);
            for node in nodes {
                self.substitution(node);
            }
        }
    }

    /// Walks the statements inside a command or process substitution; those of an output
    /// one (`>(sh)`) read what is written to it.
    fn substitution(&mut self, node: Node<'t>) {
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

    fn statement_inner(&mut self, node: Node<'t>) {
        // The kinds nearly every command line is made of; the rest out of line.
        match kind(node) {
            Kind::Pipeline => self.pipeline(node),
            Kind::Program
            | Kind::List
            | Kind::Subshell
            | Kind::DoGroup
            | Kind::ElseClause
            | Kind::ElifClause
            | Kind::IfStatement
            | Kind::WhileStatement
            | Kind::Error => {
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
    fn other_statement(&mut self, node: Node<'t>, kind: Kind) {
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
                for (field, child) in children(node) {
                    match field {
                        Some("name") => {}
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
            }
            Kind::TestCommand => {
                // `[[`, `]]`, `[` and `]` are what they are only as words of their own:
                // `[[-f a ]]`, `[[\ x ]]` and `[-f a ]` run a command named `[[-f`, `[[ x`, `[-f`.
                let bytes = self.text(node).as_bytes();
                let blank = |b: Option<&u8>| b.is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n'));
                let (open, close) = if bytes.starts_with(b"[[") { (2, 3) } else { (1, 2) };
                let opened = !bytes.starts_with(b"[") || blank(bytes.get(open));
                let closed =
                    !bytes.ends_with(b"]") || blank(bytes.len().checked_sub(close).and_then(|at| bytes.get(at)));
                // `[` is a command to bash: a `|`, `;`, `&`, parenthesis or redirection inside
                // ends or redirects it (`[ -f x | rm y ]` runs `rm y ]`), where tree-sitter
                // reads one test.
                let single = !bytes.starts_with(b"[[") && has_unquoted_operator(bytes);
                if !opened || !closed || single {
                    self.out.hazard(Hazard::ParseError);
                }
                let mut words = Vec::new();
                self.test_words(node, &mut words);
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

    /// Walks every named child of `node` as a statement.
    /// The stages of a pipeline: every one after the first reads a pipe.
    fn pipeline(&mut self, node: Node<'t>) {
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

    fn named_statements(&mut self, node: Node<'t>) {
        for child in kids(node) {
            if child.is_named() {
                self.statement(child);
            }
        }
    }

    /// Records a hazard when a redirect carried words that no simple command can take.
    fn no_extra_words(&mut self, extra: &[Word<'s>]) {
        if !extra.is_empty() {
            self.out.hazard(Hazard::UnknownConstruct { kind: "redirect_arguments".to_owned() });
        }
    }

    /// Lists a statement made only of assignments as a command with an empty argv.
    fn assignments_only(&mut self, node: Node<'t>, assignments: Vec<(Text<'s>, Text<'s>)>) {
        let carried = super::wrappers::carried_commands(&assignments, &[]);
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
    fn arithmetic(&mut self, node: Node<'t>) {
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
    fn text_substitutions(&mut self, node: Node<'t>, text: &str) {
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
                    self.scripts.extend(bounded(self.out, scripts));
                    return;
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
                if backticks_inside(text) {
                    self.out.hazard(Hazard::ParseError);
                }
                // Inside backticks bash removes the backslash of `\\`, `\$` and `` \` `` before
                // it parses the command; tree-sitter keeps it. Such a command is read from the
                // text bash parses.
                // A carriage return, vertical tab or form feed is a character of a word to bash
                // and a blank to tree-sitter: the text is read again, where it is respelt.
                let odd_blank = text.contains(['\r', '\x0b', '\x0c']);
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
    fn command(&mut self, node: Node<'t>, extra: Vec<Word<'s>>) {
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
                Some("name") => words.push(self.word_of(child, child_kind)),
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
                    if self.text(child) == "$"
                        && child
                            .next_sibling()
                            .is_some_and(|next| kind(next) == Kind::String && next.start_byte() == child.end_byte())
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
                is_shell_assignment(self.slice(word.start, word.end)).then(|| super::wrappers::as_assignment(word))?
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
    fn join_adjacent(&mut self, words: Vec<Word<'s>>) -> Vec<Word<'s>> {
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
    fn deferred(&mut self, nodes: Vec<Node<'t>>) {
        for node in nodes {
            let outer = self.out.piped;
            self.out.piped |= kind(node) == Kind::Pipeline;
            self.statement(node);
            self.out.piped = outer;
        }
    }

    /// A `redirected_statement`: its redirects, then its body.
    fn redirected(&mut self, node: Node<'t>) {
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
            Some(body) => {
                self.no_extra_words(&extra);
                self.statement(body);
            }
            None => self.no_extra_words(&extra),
        }
        self.stdin = None;
        self.deferred(deferred);
        self.run_scripts();
    }

    /// Walks a list or pipeline whose redirects bash applies to its last command only: the
    /// commands before it as they are, the last one with `stdin` and the `extra` words.
    fn redirected_last(&mut self, node: Node<'t>, stdin: Option<Stdin<'s>>, extra: Vec<Word<'s>>) {
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
    fn run_scripts(&mut self) {
        for script in std::mem::take(&mut self.scripts) {
            self.out.analyze_nested(Cow::Owned(script), &[]);
        }
    }

    /// One redirect: records writes, collects words that belong to the command (`extra`) and
    /// statements to walk after it (`deferred`, from `cat <<EOF | sh` and `<<EOF && rm x`).
    fn redirect(&mut self, node: Node<'t>, extra: &mut Vec<Word<'s>>, deferred: &mut Vec<Node<'t>>) {
        if !self.enter(node) {
            return;
        }
        match kind(node) {
            Kind::FileRedirect => {
                let mut operator = "";
                let mut destinations = Vec::new();
                for (field, child) in children(node) {
                    match field {
                        Some("destination") => destinations.push(child),
                        Some("descriptor") => {}
                        _ if !child.is_named() => operator = self.text(child),
                        _ => self.statement(child),
                    }
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
                    self.redirect_target(operator, word);
                }
            }
            Kind::HeredocRedirect => {
                // tree-sitter takes `wc -<<E` as a `-<<` operator: to bash it is a word `-`
                // and `<<E`.
                if self.text(node).starts_with("-<<") {
                    self.out.hazard(Hazard::ParseError);
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
                            self.stdin = Some(Stdin::Static(Cow::Borrowed(body)));
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

    /// Records the write, if any, of a redirect with `operator` to `target`.
    fn redirect_target(&mut self, operator: &str, target: Word<'s>) {
        match operator {
            ">" | ">|" | "&>" => self.write(target, false),
            ">>" | "&>>" => self.write(target, true),
            // `>&N` duplicates a descriptor; `>&word` with any other word writes to a file.
            ">&" if target.is_static() && is_descriptor(&target.value) => {}
            ">&" => self.write(target, false),
            "<&" if target.is_static() && is_descriptor(&target.value) => {}
            "<" | "<&" => {
                // Standard input from a file named at run time (`sh < <(curl …)`).
                if !target.is_static() && self.stdin.is_none() {
                    self.stdin = Some(Stdin::Dynamic);
                }
                self.out.reads.push(target.value);
            }
            other => self.out.hazard(Hazard::UnknownConstruct { kind: format!("redirect {other}") }),
        }
    }

    /// Records a write to `target` unless it is an exempt device.
    fn write(&mut self, target: Word<'s>, append: bool) {
        let dynamic = target.expansion || target.glob || target.tilde;
        if !dynamic && is_exempt_device(&target.value) {
            return;
        }
        self.out.writes.push(RedirectWrite { path: target.value, append, dynamic });
    }

    /// The words of a `[ … ]` or `[[ … ]]` test, brackets and operators included.
    fn test_words(&mut self, node: Node<'t>, words: &mut Vec<Word<'s>>) {
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

    /// `export`/`declare`/`local`/`readonly`/`typeset`/`unset` as a command with the keyword
    /// first.
    fn declaration(&mut self, node: Node<'t>) {
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
    fn assignment(&mut self, node: Node<'t>) -> (Text<'s>, Text<'s>) {
        let mut name = Cow::Borrowed("");
        let mut value = Cow::Borrowed("");
        for (field, child) in children(node) {
            match field {
                Some("name") => {
                    self.scan(child);
                    name = Cow::Borrowed(self.text(child));
                    if !is_assigned_name(&name) {
                        // tree-sitter reads `-x=1` as an assignment; bash runs it as a command.
                        self.out.hazard(Hazard::UnknownConstruct { kind: "assignment_name".to_owned() });
                    }
                }
                Some("value") => value = self.word(child).value,
                _ => {}
            }
        }
        (name, value)
    }

    /// The [`Word`] a word-like node stands for.
    pub fn word(&mut self, node: Node<'t>) -> Word<'s> {
        self.word_of(node, kind(node))
    }

    /// [`Walker::word`] of a node whose kind is read already.
    fn word_of(&mut self, node: Node<'t>, node_kind: Kind) -> Word<'s> {
        let (start, end) = (node.start_byte(), node.end_byte());
        let mut word = Word::at(start, end);
        self.word_part_of(node, node_kind, self.slice(start, end), &mut word);
        word
    }

    /// Appends the value of a word-like node to `word`.
    fn word_part(&mut self, node: Node<'t>, word: &mut Word<'s>) {
        self.word_part_of(node, kind(node), self.text(node), word);
    }

    /// [`Walker::word_part`] of a node whose kind and text are read already.
    fn word_part_of(&mut self, node: Node<'t>, node_kind: Kind, text: &'s str, word: &mut Word<'s>) {
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
                word.push_unquoted(text);
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
                word.push_decoded(decode_ansi_c(body.strip_suffix('\'').unwrap_or(body)));
            }
            Kind::TranslatedString => {
                word.expansion = true;
                for child in kids(node) {
                    if child.is_named() {
                        self.word_part(child, word);
                    }
                }
            }
            Kind::Concatenation | Kind::CommandName => {
                let mut position = node.start_byte();
                for child in kids(node) {
                    word.push_unquoted(self.slice(position, child.start_byte()));
                    if child.is_named() {
                        self.word_part(child, word);
                    } else {
                        word.push_unquoted(self.text(child));
                    }
                    position = child.end_byte();
                }
                word.push_unquoted(self.slice(position, node.end_byte()));
            }
            Kind::SimpleExpansion => {
                // tree-sitter reads `$ i` and `$<newline>h` as `$i`; bash's `$` there is literal.
                if text.as_bytes().get(1).is_some_and(u8::is_ascii_whitespace) {
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

    /// Appends a double-quoted string: literal parts decoded, expansions as written. A `$(…)`
    /// or backtick in its text that tree-sitter did not parse as a substitution is listed from
    /// the text.
    fn double_quoted(&mut self, node: Node<'t>, word: &mut Word<'s>) {
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

/// Whether `text`, a word as written, is an assignment to bash: an unquoted name, then `=`.
pub(super) fn is_shell_assignment(text: &str) -> bool {
    text.split_once('=').is_some_and(|(name, _)| {
        // `NAME=`, `NAME+=`, `NAME[…]=` (the subscript unquoted in the text).
        let name = name.strip_suffix('+').unwrap_or(name);
        let name = name.strip_suffix(']').and_then(|n| n.split_once('[')).map_or(name, |(base, _)| base);
        is_identifier(name)
    })
}

/// Whether `name`, the name of an assignment as tree-sitter reads it, is one bash assigns
/// to: an identifier, maybe with a subscript (`a[1]`).
fn is_assigned_name(name: &str) -> bool {
    is_identifier(name.split_once('[').map_or(name, |(base, _)| base))
}

/// Whether `text` is made only of characters that mean nothing to the shell inside a word
/// (letters, digits and `-_./+:,=`): no quote, escape, expansion, glob, brace, tilde or
/// operator.
pub(super) fn is_plain(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b'+' | b':' | b',' | b'='))
}

/// Whether the gap between two words of one command holds a newline that is not part of a
/// line continuation (`\` then newline).
fn ends_a_line(gap: &str) -> bool {
    let bytes = gap.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| b == b'\n' && (i == 0 || bytes[i - 1] != b'\\'))
}

/// How many substitutions one piece of text may yield to be read from the text; past that
/// (`read 'a[$(a[$(a[$(…'`, each one holding all the next) the reading would grow with the
/// square of the line.
const MAX_TEXT_SCRIPTS: usize = 8;

/// `scripts` found in a text, or none and a hazard that hides what runs when there are more
/// than [`MAX_TEXT_SCRIPTS`].
pub(super) fn bounded(out: &mut Output<'_>, scripts: Vec<String>) -> Vec<String> {
    if scripts.len() > MAX_TEXT_SCRIPTS {
        out.too_deep();
        return Vec::new();
    }
    scripts
}

/// Whether a backtick substitution's text (`` `…` ``) holds an unescaped backtick before its
/// closing one.
fn backticks_inside(text: &str) -> bool {
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
fn has_unquoted_operator(text: &[u8]) -> bool {
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
fn continued_into_a_hash(src: &str) -> bool {
    src.match_indices("\\\n#").any(|(at, _)| src[..at].bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 0)
}

/// Whether an unquoted word's text holds a space, tab or newline that no backslash escapes.
fn has_unescaped_blank(text: &str) -> bool {
    let mut escaped = false;
    for b in text.bytes() {
        if !escaped && matches!(b, b' ' | b'\t' | b'\n') {
            return true;
        }
        escaped = !escaped && b == b'\\';
    }
    false
}

/// Whether `text` contains a backtick or a `$(` that does not open an arithmetic `$((`.
pub(super) fn has_substitution_text(text: &str) -> bool {
    text.contains('`') || text.match_indices("$(").any(|(at, _)| !text[at + 2..].starts_with('('))
}

/// The commands of the backtick substitutions in the text of a here-document body whose
/// delimiter is unquoted, with the escapes bash removes inside backticks (`\\`, `` \` ``,
/// `\$`) removed. An unclosed backtick runs to the end of the body.
pub(super) fn backtick_scripts(body: &str) -> Vec<String> {
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
fn escaped_carriage_returns(src: &str) -> String {
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
pub(super) fn dollar_paren_scripts(body: &str, found: &[(usize, usize)]) -> Vec<String> {
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

/// The first variable an arithmetic expression names (or `$` for an expansion), skipping
/// numbers in any base (`0x1f`, `2#101`, `64#_@`).
pub(super) fn arithmetic_name(text: &str) -> Option<&str> {
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

/// Whether a static `>&` target is a descriptor (`2`, `-`, `3-`) rather than a file.
fn is_descriptor(value: &str) -> bool {
    let digits = value.strip_suffix('-').unwrap_or(value);
    value == "-" || (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a write to `path` is exempt: `/dev/null`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`.
pub(crate) fn is_exempt_device(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr")
        || path.strip_prefix("/dev/fd/").is_some_and(|fd| !fd.is_empty() && fd.bytes().all(|b| b.is_ascii_digit()))
}
