//! Test counts read from the runners' own summaries.
//!
//! `cargo test` prints one `test result:` line per test binary, including every bin
//! target and doc-test run that has no test ("0 passed"), so its closing line (the last
//! doc-test run's) says little about what ran before it. nextest prints one summary
//! that counts the tests it ran. xtask sums what the runners report and prints it as
//! `N passed, N failed[, N skipped]`.

use std::fmt;
use std::ops::AddAssign;

/// How many tests passed, failed and were skipped (nextest) or ignored (libtest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Tests that passed.
    pub(crate) passed: u64,
    /// Tests that failed, timed out or could not be started.
    pub(crate) failed: u64,
    /// Tests that were skipped or ignored.
    pub(crate) skipped: u64,
}

impl AddAssign for Counts {
    fn add_assign(&mut self, other: Counts) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
    }
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)?;
        if self.skipped > 0 {
            write!(f, ", {} skipped", self.skipped)?;
        }
        Ok(())
    }
}

/// Reads nextest's closing summary, e.g.
/// `Summary [   0.012s] 12 tests run: 11 passed (1 slow), 1 failed, 2 skipped`.
///
/// Returns `None` when the output holds no summary (the run never reached one).
pub(crate) fn parse_nextest(output: &str) -> Option<Counts> {
    let text = strip_ansi(output);
    // The last summary wins: nextest prints one, after every test has finished.
    let line = text.lines().rev().find(|line| line.contains(" tests run:") || line.contains(" test run:"))?;
    let (_, tally) = line.split_once("run:")?;
    let mut counts = Counts::default();
    for (count, label) in tally_items(&without_parentheses(tally)) {
        if label == "passed" {
            counts.passed += count;
        } else if label == "skipped" {
            counts.skipped += count;
        } else if label.contains("fail") || label.contains("timed out") {
            counts.failed += count;
        }
    }
    Some(counts)
}

/// Sums libtest's `test result: ok. 3 passed; 0 failed; 1 ignored; …` lines, one per
/// test binary or doc-test run; `ignored` counts as skipped.
///
/// Returns `None` when the output holds no such line.
pub(crate) fn parse_libtest(output: &str) -> Option<Counts> {
    let text = strip_ansi(output);
    let mut total: Option<Counts> = None;
    for line in text.lines() {
        let Some((_, rest)) = line.split_once("test result:") else {
            continue;
        };
        // "ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s"
        let Some((_, tally)) = rest.split_once('.') else {
            continue;
        };
        let mut counts = Counts::default();
        for item in tally.split(';') {
            let mut words = item.split_whitespace();
            let (Some(count), Some(label)) = (words.next(), words.next()) else {
                continue;
            };
            let Ok(count) = count.parse::<u64>() else {
                continue;
            };
            match label {
                "passed" => counts.passed += count,
                "failed" => counts.failed += count,
                "ignored" => counts.skipped += count,
                _ => {}
            }
        }
        *total.get_or_insert_with(Counts::default) += counts;
    }
    total
}

/// Splits `11 passed, 1 timed out, 2 skipped` into `(11, "passed")`, `(1, "timed out")`
/// and `(2, "skipped")`, ignoring items that do not start with a number.
fn tally_items(tally: &str) -> impl Iterator<Item = (u64, String)> + '_ {
    tally.split(',').filter_map(|item| {
        let item = item.trim();
        let (count, label) = item.split_once(char::is_whitespace)?;
        let count = count.parse::<u64>().ok()?;
        Some((count, label.trim().to_owned()))
    })
}

/// Drops parenthesised asides such as `(1 slow, 2 flaky)`, commas and all.
fn without_parentheses(text: &str) -> String {
    let mut depth = 0_usize;
    text.chars()
        .filter(|&c| match c {
            '(' => {
                depth += 1;
                false
            }
            ')' => {
                depth = depth.saturating_sub(1);
                false
            }
            _ => depth == 0,
        })
        .collect()
}

/// Removes ANSI escape sequences (`ESC [ … letter`), in case the runner colours its output.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, then one final byte in '@'..='~'.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(passed: u64, failed: u64, skipped: u64) -> Counts {
        Counts { passed, failed, skipped }
    }

    #[test]
    fn nextest_summary_all_passed() {
        let out = "        PASS [   0.004s] toolgate-tests::integration tidy::x\n\
                   ────────────\n     Summary [   0.012s] 12 tests run: 12 passed, 0 skipped\n";
        assert_eq!(parse_nextest(out), Some(counts(12, 0, 0)));
    }

    #[test]
    fn nextest_summary_with_failures_asides_and_colour() {
        let out = "\u{1b}[32;1m     Summary\u{1b}[0m [   1.5s] \u{1b}[1m14\u{1b}[0m tests run: \
                   \u{1b}[1m10\u{1b}[0m \u{1b}[32;1mpassed\u{1b}[0m (1 slow, 2 flaky), \
                   2 failed, 1 timed out, 1 exec failed, 3 skipped\n";
        assert_eq!(parse_nextest(out), Some(counts(10, 4, 3)));
    }

    #[test]
    fn nextest_summary_single_test_and_cancelled_run() {
        assert_eq!(parse_nextest("Summary [ 0.1s] 1 test run: 1 passed, 0 skipped"), Some(counts(1, 0, 0)));
        assert_eq!(
            parse_nextest("Summary [ 0.1s] 3/10 tests run: 2 passed, 1 failed, 4 skipped"),
            Some(counts(2, 1, 4))
        );
    }

    #[test]
    fn nextest_without_summary_is_none() {
        assert_eq!(parse_nextest("error: could not compile `toolgate-core`\n"), None);
    }

    #[test]
    fn libtest_lines_are_summed_including_empty_binaries() {
        let out = "running 3 tests\n\
                   test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\
                   \n   Doc-tests toolgate_core\n\
                   test result: FAILED. 4 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.31s\n\
                   test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        assert_eq!(parse_libtest(out), Some(counts(7, 2, 1)));
    }

    #[test]
    fn libtest_without_result_is_none() {
        assert_eq!(parse_libtest("   Compiling xtask v0.1.0\n"), None);
    }

    #[test]
    fn display_shows_skipped_only_when_some() {
        assert_eq!(counts(5, 0, 0).to_string(), "5 passed, 0 failed");
        assert_eq!(counts(5, 1, 2).to_string(), "5 passed, 1 failed, 2 skipped");
    }
}
