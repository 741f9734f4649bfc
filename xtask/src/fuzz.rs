//! `cargo xtask fuzz [--seconds N] [TARGET…]`: runs each cargo-fuzz target of `fuzz/`
//! for N seconds (default 60) and prints how many inputs each one ran.
//!
//! `cargo xtask fuzz shell [--minutes N | --lines N]` is a target of its own, not cargo-fuzz:
//! the Bash analysis's differential oracle (`crates/shell/src/oracle/`), which runs generated
//! command lines in real bash inside bubblewrap for N minutes (default 5), or N lines however
//! long they take, from a seed taken from the clock (runs started a second apart share no
//! line, so two at once use both cores), prints `N commands, M divergences` with each minimised
//! divergence, and appends new ones to the oracle's `regressions.jsonl`.
//!
//! The targets live in the `fuzz/` crate (excluded from the workspace, built with nightly
//! by `cargo +nightly fuzz`). Each run reads the committed seeds in `fuzz/seeds/TARGET/`
//! and keeps what it learns in `fuzz/corpus/TARGET/` (ignored by git), so the committed
//! seeds stay small. A crash stops the run: libFuzzer saves the input under
//! `fuzz/artifacts/TARGET/`, and it becomes a regression test beside the code it broke.

use std::path::Path;
use std::process::ExitCode;

use crate::cmd::{self, Cmd, Output};

/// Every fuzz target, in the order they run.
pub(crate) const TARGETS: &[&str] = &[
    "bash_analyze",
    "rule_parse_match",
    "settings_parse",
    "mcp_config_parse",
    "hook_output_parse",
    "schema_validate",
    "patch_parse",
    "read_window",
];

/// Seconds per target when `--seconds` is not given.
const DEFAULT_SECONDS: u64 = 60;

/// Minutes of `cargo xtask fuzz shell` when `--minutes` is not given.
const DEFAULT_SHELL_MINUTES: u64 = 5;

/// Parses the arguments after `fuzz` and runs the targets.
pub(crate) fn run(args: &[&str]) -> ExitCode {
    if let ["shell", rest @ ..] = args {
        return shell(rest);
    }
    let mut seconds = DEFAULT_SECONDS;
    let mut chosen: Vec<&str> = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let value = match *arg {
            "--seconds" => rest.next().copied(),
            other if other.starts_with("--seconds=") => Some(other.trim_start_matches("--seconds=")),
            other if TARGETS.contains(&other) => {
                chosen.push(other);
                continue;
            }
            other => {
                eprintln!("xtask fuzz: unknown argument `{other}`; targets are {}", TARGETS.join(", "));
                return ExitCode::from(2);
            }
        };
        match value.and_then(|v| v.parse().ok()) {
            Some(n) => seconds = n,
            None => {
                eprintln!("xtask fuzz: --seconds needs a whole number of seconds");
                return ExitCode::from(2);
            }
        }
    }
    if chosen.is_empty() {
        chosen = TARGETS.to_vec();
    }
    let fuzz_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut report = Vec::new();
    for target in chosen {
        let corpus = fuzz_dir.join("corpus").join(target);
        let seeds = fuzz_dir.join("seeds").join(target);
        if let Err(e) = std::fs::create_dir_all(&corpus) {
            eprintln!("xtask fuzz: cannot create {}: {e}", corpus.display());
            return ExitCode::FAILURE;
        }
        let command = Cmd::rustup_cargo()
            .args(["+nightly", "fuzz", "run", "--fuzz-dir"])
            .args([fuzz_dir.as_os_str(), Path::new(target).as_os_str(), corpus.as_os_str(), seeds.as_os_str()])
            .args(["--", &format!("-max_total_time={seconds}"), "-print_final_stats=1"]);
        eprintln!("::: xtask fuzz: {}", command.display());
        let finished = match cmd::run(&command, Output::Tee) {
            Ok(finished) => finished,
            Err(e) => {
                eprintln!("xtask fuzz: {e:#} (is cargo-fuzz installed? `cargo install cargo-fuzz`)");
                return ExitCode::FAILURE;
            }
        };
        let runs = executions(&finished.captured);
        if !finished.success {
            eprintln!("xtask fuzz: {target} failed after {runs:?} runs; the input is under fuzz/artifacts/{target}/");
            return ExitCode::FAILURE;
        }
        report.push((target, runs));
    }
    println!("target                 executions  seconds");
    for (target, runs) in report {
        let runs = runs.map_or_else(|| "?".to_owned(), |n| n.to_string());
        println!("{target:<22} {runs:>10}  {seconds:>7}");
    }
    ExitCode::SUCCESS
}

/// `cargo xtask fuzz shell [--minutes N | --lines N]`: the oracle's ignored long-run test, in
/// release, with `TOOLGATE_ORACLE_MINUTES` (or `TOOLGATE_ORACLE_LINES`, a count of generated
/// lines however long they take) and a seed from the clock in `TOOLGATE_ORACLE_SEED`.
fn shell(args: &[&str]) -> ExitCode {
    let limit = match args {
        [] => Some(("MINUTES", DEFAULT_SHELL_MINUTES)),
        [flag @ ("--minutes" | "--lines"), n] => n.parse().ok().map(|n| (limit_name(flag), n)),
        [flag] => flag.split_once('=').and_then(|(flag, n)| match flag {
            "--minutes" | "--lines" => n.parse().ok().map(|n| (limit_name(flag), n)),
            _ => None,
        }),
        _ => None,
    };
    let Some((limit, count)) = limit else {
        eprintln!("xtask fuzz shell: usage: cargo xtask fuzz shell [--minutes N | --lines N] (N a whole number)");
        return ExitCode::from(2);
    };
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let command = Cmd::cargo()
        .args(["test", "--release", "-p", "toolgate-shell", "--lib", "oracle::oracle_long_run"])
        .args(["--", "--ignored", "--exact", "--nocapture"])
        .env(format!("TOOLGATE_ORACLE_{limit}"), count.to_string())
        .env("TOOLGATE_ORACLE_SEED", seed.to_string());
    eprintln!("::: xtask fuzz shell: {count} {}, seed {seed}: {}", limit.to_lowercase(), command.display());
    let finished = match cmd::run(&command, Output::Tee) {
        Ok(finished) => finished,
        Err(e) => {
            eprintln!("xtask fuzz shell: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    match shell_summary(&finished.captured) {
        Some(line) => println!("shell (seed {seed}): {line}"),
        None => eprintln!("xtask fuzz shell: the oracle printed no summary"),
    }
    if finished.success { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// The oracle's variable for a limit flag: `--lines` counts lines, `--minutes` time.
fn limit_name(flag: &str) -> &'static str {
    if flag == "--lines" { "LINES" } else { "MINUTES" }
}

/// The oracle's `N commands, M divergences …` line.
fn shell_summary(output: &str) -> Option<&str> {
    output.lines().find(|line| line.contains(" commands, ") && line.contains(" divergences"))
}

/// The number of inputs libFuzzer ran, from its final `stat::number_of_executed_units`
/// line (or its `Done N runs` line).
fn executions(output: &str) -> Option<u64> {
    output.lines().rev().find_map(|line| {
        if let Some(rest) = line.strip_prefix("stat::number_of_executed_units:") {
            return rest.trim().parse().ok();
        }
        line.strip_prefix("Done ").and_then(|rest| rest.split_whitespace().next()).and_then(|n| n.parse().ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn executions_come_from_the_final_stats() {
        let out = "#1024 pulse cov: 10\nDone 5000 runs in 2 second(s)\nstat::number_of_executed_units: 5012\n";
        assert_eq!(executions(out), Some(5012));
        assert_eq!(executions("Done 77 runs in 1 second(s)\n"), Some(77));
        assert_eq!(executions("nothing"), None);
    }

    #[test]
    fn the_shell_summary_is_the_oracles_count_line() {
        let out = "running 1 test\n4000 commands, 2 divergences (1 undecided after the time limit)\n- \"x\"\n";
        assert_eq!(shell_summary(out), Some("4000 commands, 2 divergences (1 undecided after the time limit)"));
        assert_eq!(shell_summary("test result: ok"), None);
    }
}
