//! The tree-sitter parser: one per thread, reused, each parse bounded in time.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

/// How long one parse may run before it is cancelled (and reported as a parse error).
pub(super) const PARSE_BUDGET: Duration = Duration::from_millis(500);

thread_local! {
    /// The thread's parser, created on first use; `None` inside if the language failed to load.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// A parser with the Bash language set, or `None` if the language cannot be loaded.
fn new_parser() -> Option<Parser> {
    let language: tree_sitter::Language = tree_sitter_bash::LANGUAGE.into();
    let mut parser = Parser::new();
    parser.set_language(&language).ok()?;
    Some(parser)
}

/// Parses `src` as Bash, giving up after [`PARSE_BUDGET`] or at `deadline`, whichever is
/// earlier. `None` when the parse was cancelled or the parser is unavailable.
pub(super) fn parse(src: &str, deadline: Instant) -> Option<Tree> {
    super::shared::count_parse();
    let deadline = deadline.min(Instant::now() + PARSE_BUDGET);
    PARSER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            if slot.is_none() {
                *slot = new_parser();
            }
            let parser = slot.as_mut()?;
            parse_with(parser, src, deadline)
        }
        // Re-entered on this thread (not expected): use a parser of its own.
        Err(_) => parse_with(&mut new_parser()?, src, deadline),
    })
}

/// Runs one bounded parse on `parser`, leaving it ready for the next one.
fn parse_with(parser: &mut Parser, src: &str, deadline: Instant) -> Option<Tree> {
    let bytes = src.as_bytes();
    let mut input = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
    let mut progress =
        |_: &ParseState| if Instant::now() >= deadline { ControlFlow::Break(()) } else { ControlFlow::Continue(()) };
    let options = ParseOptions::new().progress_callback(&mut progress);
    let tree = parser.parse_with_options(&mut input, None, Some(options));
    if tree.is_none() {
        // A cancelled parse leaves state behind that the next parse would resume (a
        // finished one leaves the parser ready).
        parser.reset();
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parse cut off by its deadline leaves the thread's parser ready for the next one.
    #[test]
    fn a_cancelled_parse_does_not_spoil_the_next() {
        let long = "echo a && ".repeat(20_000) + "true";
        assert!(parse(&long, Instant::now()).is_none(), "a parse past its deadline is cancelled");
        let tree = parse("echo hi | wc -c", Instant::now() + PARSE_BUDGET).expect("parsed");
        let root = tree.root_node();
        assert!(!root.has_error());
        assert_eq!(
            root.to_sexp(),
            "(program (pipeline (command name: (command_name (word)) argument: (word)) (command name: (command_name (word)) argument: (word))))"
        );
    }
}
