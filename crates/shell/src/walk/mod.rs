//! The tree walker: statements, words and redirections into commands, writes and hazards.
//!
//! [`Output`] accumulates the analysis across nested sources (a `bash -c` string is parsed and
//! walked into the same output); a [`Walker`] walks one syntax tree over its source text.
//! `statements.rs` walks statements, `redirects.rs` redirections, `words.rs` words, `emit.rs`
//! lists a simple command (wrappers stripped by what `wrappers/` knows), `text.rs` scans
//! text the tree leaves whole.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use tree_sitter::Node;

use super::coarse;
use super::kind::Kind;
use super::plain::{self, Statement};
use super::reread::{self, Reading};
use super::{Hazard, RedirectWrite, SimpleCommand, Text, parse};

mod emit;
mod redirects;
mod statements;
mod text;
mod words;

pub use text::is_exempt_device;
pub(crate) use text::*;

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
    /// Descriptors opened on files for reading (`3<file`; `None`: a descriptor the shell
    /// picks, `{name}<file`), with the file and whether its
    /// name is known only at run time.
    pub fd_reads: Vec<(Option<u32>, Text<'s>, bool)>,
    /// Writes through a descriptor's device (`>/dev/fd/3`, `>/dev/stdout`): the descriptor, and
    /// whether they append. Each is a write to every file [`Self::fd_reads`] opened on it
    /// anywhere in the line ([`Self::finish`]).
    pub fd_writes: Vec<(u32, bool)>,
    /// Whether a descriptor was duplicated (`3<&0`, `2>&1`): then a write through any
    /// descriptor's device may reach any file opened for reading.
    pub fds_duplicated: bool,
    /// Whether a `cd` to somewhere other than `.` has been seen (for [`Hazard::CdThenGit`]).
    pub changed_dir: bool,
    /// How many command strings and payloads enclose the current position.
    pub nesting: usize,
    /// Whether the current position reads a pipe: inside a pipeline stage after the first
    /// (a shell there with no script reads the text the stage before prints).
    pub piped: bool,
    /// The names of the aliases defined so far (`alias ll='ls -l'`).
    pub aliases: Vec<String>,
    /// The functions defined so far.
    pub functions: Vec<Function>,
    /// How many shells reading their script from standard input were met so far.
    pub stdin_shells: usize,
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
            fd_reads: Vec::new(),
            fd_writes: Vec::new(),
            fds_duplicated: false,
            changed_dir: false,
            nesting: 0,
            piped: false,
            aliases: Vec::new(),
            functions: Vec::new(),
            stdin_shells: 0,
            plain: true,
            rereads: 0,
            unsure: false,
            depth: 0,
            deadline: Instant::now() + ANALYSIS_BUDGET,
        }
    }

    /// The writes of [`Self::fd_writes`], as writes to the files their descriptors were opened
    /// on: opening `/dev/fd/N` opens again the file descriptor N refers to, for writing.
    pub fn finish(&mut self) {
        for &(fd, append) in &self.fd_writes {
            for (read_fd, path, dynamic) in &self.fd_reads {
                if self.fds_duplicated || read_fd.is_none_or(|read_fd| read_fd == fd) {
                    self.writes.push(RedirectWrite { path: path.clone(), append, dynamic: *dynamic });
                }
            }
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
            fd_reads: Vec::new(),
            fd_writes: std::mem::take(&mut self.fd_writes),
            fds_duplicated: self.fds_duplicated,
            changed_dir: self.changed_dir,
            nesting: self.nesting,
            piped: self.piped,
            aliases: std::mem::take(&mut self.aliases),
            functions: std::mem::take(&mut self.functions),
            stdin_shells: self.stdin_shells,
            plain: self.plain,
            rereads: self.rereads,
            unsure: false,
            depth: self.depth,
            deadline: self.deadline,
        };
        inner.walk_source(src);
        self.hazards = inner.hazards;
        self.aliases = inner.aliases;
        self.functions = inner.functions;
        self.stdin_shells = inner.stdin_shells;
        self.changed_dir = inner.changed_dir;
        self.rereads = inner.rereads;
        self.commands.extend(inner.commands.into_iter().map(|command| -> SimpleCommand<'s> { command.into_owned() }));
        self.writes.extend(inner.writes.into_iter().map(|write| -> RedirectWrite<'s> { write.into_owned() }));
        self.reads.extend(inner.reads.into_iter().map(|read| -> Text<'s> { super::owned(read) }));
        self.fd_reads.extend(inner.fd_reads.into_iter().map(|(fd, path, dynamic)| (fd, super::owned(path), dynamic)));
        self.fd_writes = inner.fd_writes;
        self.fds_duplicated = inner.fds_duplicated;
    }

    /// Parses `src` as it is and walks it into this output.
    fn walk_source(&mut self, src: &'s str) {
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
        let mut walker = Walker::new(src, clean, self);
        walker.statement(root);
        walker.run_scripts();
    }

    /// Lists the commands of [`coarse`]'s reading of `src`, a line not read as bash reads it,
    /// so that a deny rule that any reading would match still denies it.
    fn walk_coarse(&mut self, src: &'s str) {
        let mut walker = Walker::new(src, false, self);
        for command in coarse::commands(src) {
            walker.emit(coarse::words(command), Vec::new(), Vec::new(), false);
        }
    }

    /// Lists the statements of a plain line of `src` as the walk of its tree would.
    fn walk_plain(&mut self, src: &'s str, statements: Vec<Statement<'s>>) {
        let depth = plain_depth(&statements);
        let outer = self.piped;
        self.depth += depth;
        let mut walker = Walker::new(src, true, self);
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
    command_field_of(command, index, child, crate::kind::kind(child), child.is_named(), after_name, clean)
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

/// A function the command line defines, as far as its calls matter.
#[derive(Debug)]
pub(super) struct Function {
    /// Its name.
    name: String,
    /// Whether its body runs a shell that reads its script from standard input (`f() { sh; }`).
    reads_stdin: bool,
    /// The names of the commands its body runs (some may be functions defined later).
    calls: Vec<String>,
}

impl Output<'_> {
    /// Whether calling `name`, a function defined so far, may run a shell on the caller's
    /// standard input: its body runs one, or calls a function that does (`g() { f; }`,
    /// `f() { sh; }`, whichever was defined first).
    pub(super) fn function_reads_stdin(&self, name: &str) -> bool {
        if self.functions.is_empty() {
            return false;
        }
        let mut seen: Vec<&str> = Vec::new();
        let mut next = vec![name];
        while let Some(name) = next.pop() {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name);
            for function in self.functions.iter().filter(|f| f.name == name) {
                if function.reads_stdin {
                    return true;
                }
                next.extend(function.calls.iter().map(String::as_str));
            }
        }
        false
    }
}

/// The text a here-document or here-string feeds to a command's standard input.
#[derive(Clone)]
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
    /// The standard input of the compound command being walked (`if …; fi <<<'…'`), which
    /// every command inside it may read.
    pub inherited: Option<Stdin<'s>>,
    /// The backtick substitutions of here-document bodies met, analysed once the command the
    /// here-document feeds has been listed.
    scripts: Vec<String>,
}

impl<'s, 't, 'o> Walker<'s, 't, 'o> {
    /// A walker of `src` into `out`; `clean` when its tree has no ERROR or MISSING node.
    fn new(src: &'s str, clean: bool, out: &'o mut Output<'s>) -> Self {
        Walker { src, clean, out, pending: Vec::new(), stdin: None, inherited: None, scripts: Vec::new() }
    }
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
}
