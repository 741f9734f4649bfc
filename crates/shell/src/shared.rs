//! One analysis per call: the steps that look at a Bash call's command (the batch planner
//! asking whether it is read-only, the permission decision, the sandbox, the reading of its
//! exit status) share the analysis the first of them made.
//!
//! The analysis is a function of the command text alone, so the latest few are kept by text,
//! process-wide (a message's calls may be looked at from more than one thread).

use std::cell::Cell;
use std::sync::{Arc, Mutex, PoisonError};

use super::{BashAnalysis, analyze};

/// How many analyses are kept: a message's calls, each looked at by a few steps.
const KEPT: usize = 16;

/// Commands longer than this are analysed afresh each time, so the kept ones stay small.
const MAX_KEPT_BYTES: usize = 16 * 1024;

/// The latest analyses, oldest first.
static RECENT: Mutex<Vec<(Arc<str>, Arc<BashAnalysis<'static>>)>> = Mutex::new(Vec::new());

thread_local! {
    /// How many command strings this thread has parsed.
    static PARSES: Cell<u64> = const { Cell::new(0) };
}

/// The analysis of `command`, shared with the other steps of its call: one of the latest
/// analyses when it was of the same text, otherwise a new one, kept for them.
///
/// ```
/// use std::sync::Arc;
/// use toolgate_shell::{analyze, analyze_shared};
///
/// let first = analyze_shared("git status && cargo test");
/// assert!(Arc::ptr_eq(&first, &analyze_shared("git status && cargo test")));
/// assert_eq!(*first, analyze("git status && cargo test"));
/// ```
pub fn analyze_shared(command: &str) -> Arc<BashAnalysis<'static>> {
    if let Some(kept) = recent_analysis(command) {
        return kept;
    }
    let analysis = Arc::new(analyze(command).into_owned());
    if command.len() <= MAX_KEPT_BYTES {
        let mut recent = RECENT.lock().unwrap_or_else(PoisonError::into_inner);
        if !recent.iter().any(|(text, _)| **text == *command) {
            if recent.len() >= KEPT {
                recent.remove(0);
            }
            recent.push((command.into(), analysis.clone()));
        }
    }
    analysis
}

/// The analysis of `command` if one of the latest [`analyze_shared`] made is of that text.
///
/// ```
/// use toolgate_shell::{analyze_shared, recent_analysis};
///
/// assert!(recent_analysis("ls -la target/doc").is_none());
/// let made = analyze_shared("ls -la target/doc");
/// assert_eq!(recent_analysis("ls -la target/doc"), Some(made));
/// ```
pub fn recent_analysis(command: &str) -> Option<Arc<BashAnalysis<'static>>> {
    let recent = RECENT.lock().unwrap_or_else(PoisonError::into_inner);
    recent.iter().rev().find(|(text, _)| **text == *command).map(|(_, analysis)| analysis.clone())
}

/// How many command strings this thread has parsed so far, nested ones (`bash -c '…'`)
/// included: how a host checks that the steps of a call share one analysis.
///
/// ```
/// use toolgate_shell::{analyze, parses_on_this_thread};
///
/// let before = parses_on_this_thread();
/// analyze("bash -c 'echo hi'");
/// assert_eq!(parses_on_this_thread() - before, 2);
/// ```
pub fn parses_on_this_thread() -> u64 {
    PARSES.with(Cell::get)
}

/// Counts one parse on this thread.
pub(super) fn count_parse() {
    PARSES.with(|parses| parses.set(parses.get() + 1));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_commands_are_not_kept_and_the_oldest_go_first() {
        let long = format!("echo {}", "x".repeat(MAX_KEPT_BYTES));
        let _ = analyze_shared(&long);
        assert!(recent_analysis(&long).is_none());
        let first = "echo the first of many";
        let _ = analyze_shared(first);
        for k in 0..KEPT {
            let _ = analyze_shared(&format!("echo {k} after the first"));
        }
        assert!(recent_analysis(first).is_none(), "pushed out by {KEPT} newer ones");
    }
}
