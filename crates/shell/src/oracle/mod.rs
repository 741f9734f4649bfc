//! A differential oracle: each command line runs in real bash inside a sandbox, and what bash
//! ran and changed is compared with what [`analyze`] lists.
//!
//! - [`sandbox`] runs a batch of lines in one bubblewrap sandbox with recording shims, a
//!   not-found handler and xtrace, and compares the files each may change with the fixtures;
//!   [`driver`] runs inside it, one line after another, each in fresh folders; [`record`]
//!   reads what was recorded;
//! - [`compare`] is the property (every execution listed, every write listed, a read-only line
//!   changes nothing and runs only read-only programs) and its matcher;
//! - [`generate`] makes lines from a grammar and by mutating known lines; [`minimise`] shrinks a
//!   diverging line before it is reported;
//! - `regressions.jsonl` holds lines that diverged once (`{"command": …, "found": …}`); the gate
//!   tests run them all, and a bounded generated run, and fail listing every divergence;
//! - `pending.jsonl` holds divergences a long run found that no fix has closed yet, in the same
//!   form: only the ignored [`pending_divergences`] runs them; each moves to
//!   `regressions.jsonl` with the fix that closes it.
//!
//! `cargo xtask fuzz shell --minutes N` runs the long, ignored test ([`oracle_long_run`]).

mod compare;
mod driver;
mod generate;
mod minimise;
mod record;
mod sandbox;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use compare::{Divergence, Kind, Verdict};
use record::Execution;
use sandbox::SandboxError;

use super::analyze;

/// How many worker threads run sandboxes.
const THREADS: usize = 2;

/// How many lines one sandbox runs.
const BATCH: usize = 100;

/// How many lines the gate test generates.
const GATE_COMMANDS: usize = 3000;

/// The gate test's seed.
const GATE_SEED: u64 = 0x7001_6a7e;

/// How many candidate lines one minimisation may try.
const MINIMISE_BUDGET: usize = 120;

/// How many diverging lines of one kind are minimised.
const PER_KIND: usize = 2;

/// How many diverging lines are minimised at most, besides the ones always minimised.
const MAX_MINIMISED: usize = 24;

/// The regressions file, beside this module.
const REGRESSIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/oracle/regressions.jsonl");

/// Divergences found and not yet closed, in the form of [`REGRESSIONS`].
const PENDING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/oracle/pending.jsonl");

/// One line checked against bash.
#[derive(Debug, Clone)]
struct Checked {
    /// The line.
    command: String,
    /// How the run compares with the analysis.
    verdict: Verdict,
    /// What bash ran.
    executions: Vec<Execution>,
    /// What the analysis listed: each command's wrappers and argv, then writes and hazards.
    listed: Vec<String>,
}

impl Checked {
    /// The kinds of its divergences.
    fn kinds(&self) -> BTreeSet<Kind> {
        match &self.verdict {
            Verdict::Diverges(ds) => ds.iter().map(|d| d.kind.clone()).collect(),
            _ => BTreeSet::new(),
        }
    }
}

/// Runs `command` in the sandbox and compares the run with its analysis.
fn check(command: &str) -> Result<Checked, SandboxError> {
    check_batch(&[command.to_owned()]).pop().unwrap_or_else(|| Err(SandboxError::Setup("no result".into())))
}

/// Runs `commands` in one sandbox and compares each run with its analysis.
fn check_batch(commands: &[String]) -> Vec<Result<Checked, SandboxError>> {
    let analyses: Vec<_> = commands.iter().map(|c| analyze(c)).collect();
    let mut names = BTreeSet::new();
    for (command, analysis) in commands.iter().zip(&analyses) {
        names.extend(shim_names(command, analysis));
    }
    let runs = sandbox::run_batch(commands, &names);
    commands
        .iter()
        .zip(&analyses)
        .zip(runs)
        .map(|((command, analysis), run)| {
            let run = run?;
            let verdict = compare::verdict(analysis, &run);
            Ok(Checked { command: command.clone(), verdict, executions: run.executions, listed: listed(analysis) })
        })
        .collect()
}

/// What the analysis listed: each command's wrappers and argv, then writes and hazards.
fn listed(analysis: &super::BashAnalysis<'_>) -> Vec<String> {
    let mut listed: Vec<String> = analysis
        .commands
        .iter()
        .map(|c| {
            let argv = c.argv.iter().map(|w| compare::quote(w)).collect::<Vec<_>>().join(" ");
            if c.wrappers.is_empty() { format!("`{argv}`") } else { format!("`{argv}` (in {})", c.wrappers.join(" ")) }
        })
        .collect();
    listed.extend(
        analysis.writes.iter().map(|w| format!("write {:?}{}", w.path, if w.dynamic { " (dynamic)" } else { "" })),
    );
    listed.extend(analysis.hazards.iter().map(|h| format!("hazard: {h}")));
    listed
}

/// The names to shim for `command`: the generator's programs, every listed command's name and
/// wrappers, and every word of the text that could be a program's name.
fn shim_names(command: &str, analysis: &super::BashAnalysis<'_>) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = generate::VOCABULARY.iter().map(|&n| n.to_owned()).collect();
    for listed in &analysis.commands {
        for word in listed.argv.first().into_iter().chain(&listed.wrappers) {
            names.insert(word.rsplit('/').next().unwrap_or(word).to_owned());
        }
    }
    let is_name = |c: char| c.is_ascii_alphanumeric() || "_.+-".contains(c);
    names.extend(command.split(|c| !is_name(c)).filter(|w| !w.is_empty()).take(400).map(str::to_owned));
    names
}

/// Checks every line in batches of [`BATCH`] on [`THREADS`] threads; results in the order of
/// `commands`.
fn check_all(commands: &[String]) -> Vec<Result<Checked, SandboxError>> {
    let batches: Vec<&[String]> = commands.chunks(BATCH).collect();
    on_threads(&batches, |batch| check_batch(batch)).into_iter().flatten().collect()
}

/// `work` on each of `items`, on [`THREADS`] threads, each taking the next item when it is
/// done with one; results in the order of `items`.
fn on_threads<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let result = work(item);
                    results.lock().unwrap_or_else(|e| e.into_inner()).insert(i, result);
                }
            });
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner()).into_values().collect()
}

/// A diverging line, minimised.
#[derive(Debug, Clone)]
struct Finding {
    /// The line as first found.
    original: String,
    /// The minimised line, checked again.
    minimised: Checked,
}

impl Finding {
    /// The finding for a report: the line, its divergences, what bash ran, what was listed.
    fn report(&self) -> String {
        let Verdict::Diverges(divergences) = &self.minimised.verdict else { return String::new() };
        let mut out = format!("- {:?}", self.minimised.command);
        if self.original != self.minimised.command {
            out.push_str(&format!("  (minimised from {:?})", self.original));
        }
        for d in divergences {
            out.push_str(&format!("\n    diverges: {}", d.what));
        }
        let ran: Vec<String> = self.minimised.executions.iter().map(compare::describe).collect();
        out.push_str(&format!(
            "\n    bash ran: {}",
            if ran.is_empty() { "nothing".to_owned() } else { ran.join(", ") }
        ));
        let listed = &self.minimised.listed;
        out.push_str(&format!(
            "\n    analysis: {}",
            if listed.is_empty() { "nothing".to_owned() } else { listed.join(", ") }
        ));
        out
    }

    /// A short description of the divergence class, for `regressions.jsonl`.
    fn found(&self) -> String {
        match &self.minimised.verdict {
            Verdict::Diverges(ds) => ds.iter().map(|d: &Divergence| d.what.clone()).collect::<Vec<_>>().join("; "),
            _ => String::new(),
        }
    }
}

/// What a batch of lines showed.
#[derive(Debug, Default)]
struct Summary {
    /// How many lines ran.
    commands: usize,
    /// How many timed out undecided.
    undecided: usize,
    /// How many could not be checked (bash did not start, a record was unreadable).
    unchecked: usize,
    /// The diverging lines, minimised and without duplicates.
    findings: Vec<Finding>,
    /// How many diverging lines were left unminimised (beyond [`MAX_MINIMISED`]).
    more: usize,
}

/// Checks `commands`, then minimises diverging lines: every one of `always` (lines known to
/// diverge, such as the regressions), and the shortest [`PER_KIND`] of each divergence kind.
/// A sandbox that cannot run is an error, and so is a line of `always` that could not be run.
fn explore(commands: &[String], always: &BTreeSet<String>) -> Result<Summary, SandboxError> {
    let mut summary = Summary { commands: commands.len(), ..Summary::default() };
    let mut diverging = Vec::new();
    let started = Instant::now();
    let results = check_all(commands);
    eprintln!("oracle: {} lines checked in {:.1?}", commands.len(), started.elapsed());
    for (command, result) in commands.iter().zip(results) {
        let checked = match result {
            Ok(checked) => checked,
            Err(e @ SandboxError::Bwrap(_)) => return Err(e),
            // A line that must be checked (a regression case) is never skipped.
            Err(e) if always.contains(command) => return Err(e),
            Err(e) => {
                eprintln!("oracle: could not check {command:?}: {e}");
                summary.unchecked += 1;
                continue;
            }
        };
        match checked.verdict {
            Verdict::Undecided => summary.undecided += 1,
            Verdict::Agrees => {}
            Verdict::Diverges(_) => diverging.push(checked),
        }
    }
    diverging.sort_by_key(|c| c.command.len());
    let mut per_kind: BTreeMap<Kind, usize> = BTreeMap::new();
    let mut extra = 0;
    let diverged = diverging.len();
    let chosen: Vec<Checked> = diverging
        .into_iter()
        .filter(|c| {
            if always.contains(&c.command) {
                return true;
            }
            let fresh = c.kinds().into_iter().any(|kind| {
                let seen = per_kind.entry(kind).or_default();
                *seen += 1;
                *seen <= PER_KIND
            });
            extra += usize::from(fresh);
            fresh && extra <= MAX_MINIMISED
        })
        .collect();
    summary.more = diverged - chosen.len();
    let originals: Vec<String> = chosen.iter().map(|c| c.command.clone()).collect();
    let minimised = minimise_all(&chosen);
    let mut seen = BTreeSet::new();
    for (original, minimised) in originals.into_iter().zip(minimised) {
        if seen.insert(minimised.command.clone()) {
            summary.findings.push(Finding { original, minimised });
        }
    }
    Ok(summary)
}

/// Minimises each diverging line, keeping the first kind of its divergence, on [`THREADS`]
/// threads.
fn minimise_all(chosen: &[Checked]) -> Vec<Checked> {
    on_threads(chosen, |checked| {
        let target = checked.kinds().into_iter().next();
        let mut last = checked.clone();
        let small = minimise::minimise(&checked.command, MINIMISE_BUDGET, |candidate| match check(candidate) {
            Ok(c) if target.as_ref().is_some_and(|t| c.kinds().contains(t)) => {
                last = c;
                true
            }
            _ => false,
        });
        if last.command == small { last } else { check(&small).unwrap_or(last) }
    })
}

/// One line of `regressions.jsonl`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Regression {
    /// The command line.
    command: String,
    /// What divergence it showed when it was found.
    found: String,
}

/// The committed regression cases.
fn regressions() -> Vec<Regression> {
    cases(REGRESSIONS)
}

/// The cases of a file in the form of [`REGRESSIONS`] (a missing file holds none).
fn cases(path: &str) -> Vec<Regression> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && path == PENDING => String::new(),
        Err(e) => panic!("cannot read {path}: {e}"),
    };
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("bad line in {path}: {e}: {line}")))
        .collect()
}

/// The lines mutations start from: the regressions, the table cases and the fuzz seeds.
fn mutation_sources(regressions: &[Regression]) -> Vec<String> {
    let mut sources: Vec<String> = regressions.iter().map(|r| r.command.clone()).collect();
    sources.extend(super::tests::case_and_seed_sources());
    sources
}

/// The report of a summary.
fn report(summary: &Summary) -> String {
    let mut out = format!(
        "{} commands, {} divergences ({} undecided after the time limit; {} more diverging lines not minimised)",
        summary.commands,
        summary.findings.len(),
        summary.undecided,
        summary.more
    );
    for finding in &summary.findings {
        out.push('\n');
        out.push_str(&finding.report());
    }
    out
}

/// Checks `commands` (the regression cases first, all of them minimised and none skipped) and
/// fails with the report of every divergence.
fn assert_agrees(label: &str, commands: &[String], regressions: &[Regression]) {
    let started = Instant::now();
    let always: BTreeSet<String> = regressions.iter().map(|r| r.command.clone()).collect();
    let summary = explore(commands, &always).unwrap_or_else(|e| panic!("the oracle's sandbox cannot run: {e}"));
    let report = report(&summary);
    eprintln!("oracle {label}: {report}\n(in {:.1?})", started.elapsed());
    assert!(summary.findings.is_empty(), "bash ran or changed what the analysis does not list:\n{report}");
    // A line that cannot be checked proves nothing: a few are lines that stop bash itself, more
    // is a broken harness, which must not pass as agreement.
    assert!(
        summary.unchecked * 100 <= commands.len(),
        "{} of {} lines could not be checked in the sandbox",
        summary.unchecked,
        commands.len()
    );
}

/// The gate: every committed regression case agrees with bash.
#[test]
fn every_regression_case_runs_in_bash_only_what_the_analysis_lists() {
    let regressions = regressions();
    let commands: Vec<String> = regressions.iter().map(|r| r.command.clone()).collect();
    assert_agrees("regressions", &commands, &regressions);
}

/// The divergences waiting for a fix: `--ignored` shows which of them still diverge (a fixed
/// one moves to `regressions.jsonl`).
#[test]
#[ignore = "the pending divergences fail until fixed; the gate runs the regressions"]
fn pending_divergences() {
    let pending = cases(PENDING);
    let commands: Vec<String> = pending.iter().map(|r| r.command.clone()).collect();
    assert_agrees("pending", &commands, &pending);
}

/// The gate's generated run: [`GATE_COMMANDS`] lines from [`GATE_SEED`] (the grammar, and
/// mutations of the regressions, table cases and fuzz seeds) agree with bash, as does every
/// regression case. About half a minute on 2 cores.
#[test]
fn oracle_finds_nothing_bash_runs_unseen() {
    let regressions = regressions();
    let mut commands: Vec<String> = regressions.iter().map(|r| r.command.clone()).collect();
    commands.extend(generate::commands(GATE_SEED, GATE_COMMANDS, &mutation_sources(&regressions)));
    assert_agrees("gate", &commands, &regressions);
}

/// The driver that runs a batch inside the sandbox: started by [`sandbox`] as this binary with
/// `--exact` and `--ignored`, never by hand.
#[test]
#[ignore = "the oracle's in-sandbox driver, started by its sandbox"]
fn oracle_sandbox_driver() {
    if let Err(e) = driver::drive() {
        panic!("the oracle driver stopped: {e}");
    }
}

/// The seed of a long run's `batch`-th batch of lines. Spread by an odd multiplier, so that
/// runs started from nearby seeds (two at once, a second apart) never share a batch: with
/// `seed + batch`, a run from `s + 1` repeated every batch of a run from `s` but its first.
fn batch_seed(seed: u64, batch: u64) -> u64 {
    seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(batch)
}

/// Runs from seeds a second or a thousand apart (as `cargo xtask fuzz shell` takes them from
/// the clock) share no batch over 10,000 batches each (four million lines).
#[test]
fn long_runs_from_nearby_seeds_share_no_batch() {
    let start = 1_796_400_001;
    let batches = |seed: u64| (0..10_000).map(move |batch| batch_seed(seed, batch));
    let first: BTreeSet<u64> = batches(start).collect();
    for other in [start + 1, start + 2, start + 1_000, start - 1] {
        assert!(batches(other).all(|b| !first.contains(&b)), "seeds {start} and {other} share a batch");
    }
}

/// The long run: generated lines for `TOOLGATE_ORACLE_MINUTES` minutes (default 1), or until
/// `TOOLGATE_ORACLE_LINES` lines have run when that is set (however long they take), from
/// `TOOLGATE_ORACLE_SEED` (default the gate's); prints its progress every 20,000 lines on
/// stderr, then `N commands, M divergences`, and appends new minimised divergences to
/// `regressions.jsonl`.
#[test]
#[ignore = "long: run by `cargo xtask fuzz shell --minutes N`"]
fn oracle_long_run() {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse::<u64>().ok());
    let minutes = env("TOOLGATE_ORACLE_MINUTES").unwrap_or(1);
    let seed = env("TOOLGATE_ORACLE_SEED").unwrap_or(GATE_SEED);
    let lines = env("TOOLGATE_ORACLE_LINES").and_then(|n| usize::try_from(n).ok());
    let deadline = Instant::now() + Duration::from_secs(minutes * 60);
    let started = Instant::now();
    let regressions = regressions();
    let known: BTreeSet<String> = regressions.iter().map(|r| r.command.clone()).collect();
    let sources = mutation_sources(&regressions);
    let mut all: Vec<String> = Vec::new();
    let mut undecided = 0;
    let mut diverging_kinds: BTreeMap<Kind, Vec<String>> = BTreeMap::new();
    let mut batch = 0;
    // Run in batches until the time is up, keeping the shortest lines of each kind.
    while lines.map_or_else(|| Instant::now() < deadline, |lines| all.len() < lines) {
        let commands = generate::commands(batch_seed(seed, batch), 400, &sources);
        batch += 1;
        for (command, result) in commands.iter().zip(check_all(&commands)) {
            let checked = match result {
                Ok(checked) => checked,
                Err(e @ SandboxError::Bwrap(_)) => panic!("the oracle's sandbox cannot run: {e}"),
                // A line whose records are unreadable (it may have run `ulimit -f 0`) decides
                // nothing; it counts as undecided.
                Err(e) => {
                    undecided += 1;
                    eprintln!("oracle: could not check {command:?}: {e}");
                    continue;
                }
            };
            match &checked.verdict {
                Verdict::Undecided => undecided += 1,
                Verdict::Agrees => {}
                Verdict::Diverges(_) => {
                    eprintln!("oracle: diverges: {:?}", checked.command);
                    for kind in checked.kinds() {
                        let lines = diverging_kinds.entry(kind).or_default();
                        lines.push(checked.command.clone());
                        lines.sort_by_key(String::len);
                        lines.truncate(PER_KIND * 2);
                    }
                }
            }
        }
        let before = all.len();
        all.extend(commands);
        if before / 20_000 != all.len() / 20_000 {
            let diverging: usize = diverging_kinds.values().map(Vec::len).sum();
            let seconds = started.elapsed().as_secs();
            eprintln!("oracle: {} lines in {seconds} s, {undecided} undecided, {diverging} diverging", all.len());
        }
    }
    let lines: BTreeSet<String> = diverging_kinds.into_values().flatten().collect();
    let lines: Vec<String> = lines.into_iter().collect();
    let mut summary = explore(&lines, &lines.iter().cloned().collect()).unwrap_or_else(|e| panic!("sandbox: {e}"));
    summary.commands = all.len();
    summary.undecided = undecided;
    println!("{}", report(&summary));
    let new: Vec<String> = summary
        .findings
        .iter()
        .filter(|f| !known.contains(&f.minimised.command))
        .map(|f| Regression { command: f.minimised.command.clone(), found: f.found() })
        .filter_map(|r| serde_json::to_string(&r).ok())
        .collect();
    if !new.is_empty() {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new().append(true).open(REGRESSIONS).unwrap();
        for line in &new {
            writeln!(file, "{line}").unwrap();
        }
        println!("appended {} new divergences to {REGRESSIONS}", new.len());
    }
}
