//! `cargo xtask bench [--quick] [--corpus DIR] [--out FILE]`: toolgate measured side by
//! side with the tools a user would pick instead, written to `bench/RESULTS.md`.
//!
//! # What runs
//!
//! 1. One build: the `toolgate` binary and the MCP test server with the release profile,
//!    and the divan benches with the bench profile (`cargo bench --no-run`, each bench
//!    named, so no library test harness is built optimised).
//! 2. The corpus (see [`corpus`]): a seeded tree of 30,000 source files (3,000 with
//!    `--quick`) and a 1 GB file of numbered lines (64 MB with `--quick`), cached under
//!    the target directory so reruns reuse them. `--corpus DIR` points rows 1 and 2 at a
//!    real tree instead (the Grep pattern is then `fn main`).
//! 3. The nine rows of issue 11, each into one or more lines of the table.
//!
//! # How each number is taken
//!
//! Two sources, chosen per row for honesty:
//!
//! - **Whole processes are timed here** (rows 1 and 2 as processes, 3 and 9): xtask spawns
//!   ours and the reference alternately (ours first in even rounds, the reference first
//!   in odd ones, so load from other sessions falls on both alike), reads both outputs to
//!   the end through pipes (never `/dev/null`: ripgrep stops at the first match when it
//!   writes there), and takes the median of N runs after one discarded warm-up run. That
//!   warm-up's output is the one compared between the two sides, once, before timing;
//!   the table's note says whether they agree. Peak memory (row 3) comes from
//!   `getrusage(RUSAGE_CHILDREN)` in a fresh `xtask __maxrss` wrapper process, so it is the
//!   one child's peak and needs neither `/usr/bin/time` nor polling `/proc`.
//! - **In-process costs come from the divan benches** (rows 1 and 2 through the tools'
//!   library entry, and rows 4–8): xtask runs `cargo bench -p CRATE --bench NAME --
//!   --color never …` and reads the median column of divan's table (see [`divan`]).
//!   xtask cannot call the libraries itself (it depends on no workspace crate), and
//!   divan's sampling is better than anything a loop here would do for microseconds.
//!
//! Nothing is installed: a row whose reference program (`rg`, `fd`/`fdfind`, `sed`) is
//! missing is shown as skipped with the reason and how to install it.
//!
//! `--quick` runs every row with fewer files, a 64 MB file, 3 process runs per side and
//! divan capped at 10 samples and one second per bench.
//!
//! `--only N` runs the rows numbered N (`--only 12`: 12a and 12b) and prints them without
//! writing `bench/RESULTS.md` unless `--out` is given. Row 12 times nothing, so alone it
//! builds only the debug `toolgate` and none of the benches, or takes the binary named by
//! `--toolgate FILE` and builds nothing.
//!
//! `--write-model-facing-scenario FILE` writes row 12's Claude Code oracle scenario and
//! stops (see `bench/model-facing/README.md`).

mod corpus;
mod divan;
mod json;
mod model_facing;
mod slow_server;
mod table;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};

use crate::cmd::{self, Cmd, Output};
use corpus::{BigFile, NEEDLE, TreeShape};
use table::{Header, Quantity, Row, Target};

/// The options of one run.
#[derive(Debug, Default)]
struct Options {
    quick: bool,
    corpus: Option<PathBuf>,
    out: Option<PathBuf>,
    /// Only the rows of this number.
    only: Option<String>,
    /// Write row 12's oracle scenario here, and run nothing.
    scenario: Option<PathBuf>,
    /// With `--only 12`: this `toolgate` binary instead of a fresh debug build (to measure
    /// one built at an earlier commit).
    toolgate: Option<PathBuf>,
}

/// A row group's measurement.
type Measure = fn(&Bench) -> Vec<Row>;

/// The row numbers `--only` takes (rows 1 and 2 are measured together).
const ROW_NUMBERS: [&str; 13] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13"];

/// Runs `cargo xtask bench` with the arguments after `bench`.
pub(crate) fn run(args: &[&str]) -> ExitCode {
    let options = match parse_args(args) {
        Ok(options) => options,
        Err(error) => {
            eprintln!("xtask bench: {error:#}\n\n{}", crate::usage());
            return ExitCode::from(crate::USAGE_EXIT);
        }
    };
    match run_with(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask bench: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args(args: &[&str]) -> anyhow::Result<Options> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match *arg {
            "--quick" => options.quick = true,
            "--corpus" => options.corpus = Some(args.next().context("--corpus needs a directory")?.into()),
            "--out" => options.out = Some(args.next().context("--out needs a file")?.into()),
            "--only" => {
                let row = args.next().context("--only needs a row number")?;
                if !ROW_NUMBERS.contains(row) {
                    bail!("--only {row}: the rows are numbered {}", ROW_NUMBERS.join(", "));
                }
                options.only = Some((*row).to_owned());
            }
            "--toolgate" => options.toolgate = Some(args.next().context("--toolgate needs a binary")?.into()),
            "--write-model-facing-scenario" => {
                options.scenario = Some(args.next().context("--write-model-facing-scenario needs a file")?.into());
            }
            other => bail!("unknown argument `{other}`"),
        }
    }
    if options.toolgate.is_some() && options.only.as_deref() != Some("12") {
        bail!("--toolgate is for --only 12, whose row times nothing");
    }
    if let Some(dir) = &options.corpus
        && !dir.is_dir()
    {
        bail!("--corpus {}: not a directory", dir.display());
    }
    Ok(options)
}

/// Where things are, and how hard to measure.
struct Bench {
    quick: bool,
    /// The workspace root.
    root: PathBuf,
    /// The cargo target directory.
    target: PathBuf,
    /// `target/release/toolgate`.
    toolgate: PathBuf,
    /// `rg`, if on `PATH`.
    rg: Option<String>,
    /// `fd` or Debian's `fdfind`, if on `PATH`.
    fd: Option<String>,
    /// `sed`, if on `PATH`.
    sed: Option<String>,
    /// Process runs per side (after one warm-up).
    runs: usize,
    /// The divan bench executables, by bench name (filled by [`Bench::build`]).
    executables: BTreeMap<String, PathBuf>,
}

fn run_with(options: &Options) -> anyhow::Result<()> {
    if let Some(file) = &options.scenario {
        let scenario = model_facing::scenario(&model_facing::text_files())?;
        std::fs::write(file, scenario).with_context(|| format!("writing {}", file.display()))?;
        eprintln!("xtask bench: wrote row 12's oracle scenario to {}", file.display());
        return Ok(());
    }
    let wanted = |row: &str| options.only.as_deref().is_none_or(|only| only == row);
    let started = Instant::now();
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().context("xtask has no parent directory")?.to_owned();
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let target = std::path::absolute(&target).context("the target directory")?;
    let only_model_facing = options.only.as_deref() == Some("12");
    let bench = Bench {
        quick: options.quick,
        toolgate: match &options.toolgate {
            Some(binary) => std::path::absolute(binary)?,
            None => target.join(if only_model_facing { "debug/toolgate" } else { "release/toolgate" }),
        },
        root,
        target,
        rg: on_path(&["rg"]),
        fd: on_path(&["fd", "fdfind"]),
        sed: on_path(&["sed"]),
        runs: if options.quick { 3 } else { 25 },
        executables: BTreeMap::new(),
    };
    let mut bench = bench;
    if options.toolgate.is_some() {
        step(&format!("no build: {} as given", bench.toolgate.display()));
    } else if only_model_facing {
        step("build (dev profile: row 12 counts characters and times nothing)");
        let build = Cmd::cargo().args(["build", "-p", "toolgate"]);
        if !cmd::run(&build, Output::Inherit)?.success {
            bail!("`{}` failed", build.display());
        }
    } else if options.only.as_deref() == Some("13") {
        step("build (release profile: row 13 times `toolgate` processes only)");
        let build = Cmd::cargo().args(["build", "--release", "-p", "toolgate"]);
        if !cmd::run(&build, Output::Inherit)?.success {
            bail!("`{}` failed", build.display());
        }
    } else {
        bench.executables = bench.build()?;
    }
    let build_seconds = started.elapsed().as_secs();

    let (tree, pattern, corpus_name) = match &options.corpus {
        Some(dir) => (std::path::absolute(dir)?, "fn main", format!("`{}` (given with --corpus)", dir.display())),
        None if !(wanted("1") || wanted("2")) => (PathBuf::new(), NEEDLE, "nothing (not run)".to_owned()),
        None => {
            let shape = if bench.quick { TreeShape::QUICK } else { TreeShape::FULL };
            let dir = bench.target.join(if bench.quick { "bench-corpus-quick" } else { "bench-corpus" });
            step(&format!("corpus: {} source files under {}", shape.source_files(), dir.display()));
            if corpus::ensure_tree(&dir, shape)? {
                eprintln!("written");
            } else {
                eprintln!("reused");
            }
            let name = format!("the generated tree ({} source files, seeded)", shape.source_files());
            (dir, NEEDLE, name)
        }
    };

    let mut rows = Vec::new();
    if wanted("1") || wanted("2") {
        rows.extend(bench.search_library(&tree, pattern));
        rows.extend(bench.search_process(&tree, pattern));
    }
    let groups: [(&str, Measure); 11] = [
        ("3", Bench::read_window),
        ("4", Bench::bash_decision),
        ("5", Bench::pipeline),
        ("6", Bench::hook),
        ("7", Bench::tool_search),
        ("8", Bench::mcp_call),
        ("10", Bench::mcp_serve),
        ("9", Bench::startup),
        ("11", Bench::claude_code_hook),
        ("12", Bench::model_facing),
        ("13", Bench::mcp_slow_server),
    ];
    for (row, measure) in groups {
        if wanted(row) {
            rows.extend(measure(&bench));
        }
    }

    let header = Header {
        commit: commit(&bench.root),
        cores: std::thread::available_parallelism().map_or(1, usize::from),
        mode: if bench.quick { "quick" } else { "full" },
        corpus: corpus_name,
        seconds: started.elapsed().as_secs(),
        build_seconds,
        load,
    };
    let text = table::render(&header, &rows);
    println!("\n{text}");
    let out = match (&options.out, &options.only) {
        (Some(out), _) => out.clone(),
        (None, Some(_)) => return Ok(()),
        (None, None) => bench.root.join("bench/RESULTS.md"),
    };
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(&out, text).with_context(|| format!("writing {}", out.display()))?;
    eprintln!("xtask bench: wrote {} in {:.0}s", out.display(), started.elapsed().as_secs_f64());
    Ok(())
}

/// Prints a step header on stderr.
fn step(what: &str) {
    eprintln!("\n==> xtask bench: {what}");
}

/// The divan benches, as (package, its directory, bench).
const BENCHES: [(&str, &str, &str); 7] = [
    ("toolgate-builtin", "crates/tool-builtin", "search"),
    ("toolgate-permissions", "crates/permissions", "decision"),
    ("toolgate-pipeline", "crates/pipeline", "overhead"),
    ("toolgate-hooks", "crates/hooks", "hook"),
    ("toolgate-core", "crates/tool-core", "toolsearch"),
    ("toolgate-mcp", "crates/tool-mcp", "adapter"),
    ("toolgate-mcp", "crates/tool-mcp", "serve"),
];

impl Bench {
    /// Builds the binaries and benches once; returns the bench executables by name.
    ///
    /// The benches are then run directly, not through `cargo bench -p CRATE`: a
    /// one-package `cargo bench` unifies features differently from this many-package
    /// build and would compile half the workspace again.
    fn build(&self) -> anyhow::Result<BTreeMap<String, PathBuf>> {
        step("build (release profile)");
        let build = Cmd::cargo().args(["build", "--release", "-p", "toolgate", "-p", "toolgate-mcp-test-server"]);
        if !cmd::run(&build, Output::Inherit)?.success {
            bail!("`{}` failed", build.display());
        }
        let mut benches = Cmd::cargo().args(["bench", "--no-run"]);
        for (package, _, _) in BENCHES {
            benches = benches.args(["-p", package]);
        }
        for (_, _, name) in BENCHES {
            benches = benches.args(["--bench", name]);
        }
        let finished = cmd::run(&benches, Output::Tee)?;
        if !finished.success {
            bail!("`{}` failed", benches.display());
        }
        // Cargo names them relative to the workspace when the target dir is inside it, and
        // each bench runs from its crate's directory.
        let executables: BTreeMap<String, PathBuf> = bench_executables(&finished.captured)
            .into_iter()
            .map(|(name, path)| (name, if path.is_absolute() { path } else { self.root.join(path) }))
            .collect();
        for (_, _, name) in BENCHES {
            if !executables.contains_key(name) {
                bail!("`{}` named no executable for the bench `{name}`", benches.display());
            }
        }
        Ok(executables)
    }

    /// Runs one divan bench and returns its medians by path.
    fn divan(&self, bench: &str, envs: &[(&str, String)], extra: &[&str]) -> anyhow::Result<Medians> {
        let (package, dir, _) =
            BENCHES.iter().find(|(_, _, name)| *name == bench).with_context(|| format!("no bench `{bench}`"))?;
        step(&format!("divan: {package} --bench {bench}"));
        let executable =
            self.executables.get(bench).with_context(|| format!("no executable for the bench `{bench}`"))?;
        // As `cargo bench` would: in the package's directory, with `--bench`.
        let mut command = Cmd::new(executable).cwd(self.root.join(dir)).args(["--bench", "--color", "never"]);
        if self.quick {
            command = command.args(["--sample-count", "10", "--max-time", "1"]);
        }
        command = command.args(extra);
        for (key, value) in envs {
            command = command.env(key, value);
        }
        let finished = cmd::run(&command, Output::Tee)?;
        if !finished.success {
            bail!("`{}` failed", command.display());
        }
        Ok(Medians { bench: format!("{package}/{bench}"), found: divan::medians(&finished.captured) })
    }

    /// Rows 1a–1c and 2a: Grep and Glob through the tools' library entry (divan, search
    /// bench) against `rg` and `fd` as processes.
    fn search_library(&self, tree: &Path, pattern: &str) -> Vec<Row> {
        let envs = [
            ("TOOLGATE_BENCH_TREE", tree.display().to_string()),
            ("TOOLGATE_BENCH_PATTERN", pattern.to_owned()),
            ("TOOLGATE_SEARCH_PAIRED", "0".to_owned()),
        ];
        let skips = ["--skip", "ours_process", "--skip", "rg_files_sorted_process", "--skip", "process_floor"];
        let grep = [
            ("1a", "files_with_matches", "grep_files_with_matches"),
            ("1b", "content -C 2", "grep_content_context_2"),
            ("1c", "count", "grep_count"),
        ];
        let medians = match self.divan("search", &envs, &skips) {
            Ok(medians) => medians,
            Err(error) => {
                let mut rows: Vec<Row> = grep
                    .iter()
                    .map(|(id, mode, _)| skipped_grep(id, &format!("Grep {mode}, library"), &error))
                    .collect();
                rows.push(skipped_grep("2a", "Glob `**/*.rs`, library", &error));
                return rows;
            }
        };
        let mut rows = Vec::new();
        for (id, mode, group) in grep {
            let what = format!("Grep {mode}, library call vs `rg` process");
            rows.push(match &self.rg {
                None => Row::skipped(id, what, Target::RatioAtMost(1.1), missing("rg")),
                Some(_) => medians.row(
                    id,
                    &what,
                    &format!("{group}/ours_library"),
                    &format!("{group}/rg_process"),
                    1.0,
                    Target::RatioAtMost(1.1),
                ),
            });
        }
        let what = "Glob `**/*.rs`, library call vs `fd` process (stat-ing matches)";
        rows.push(match &self.fd {
            None => Row::skipped("2a", what, Target::RatioAtMost(1.1), missing("fd")),
            Some(_) => {
                let row = medians.row(
                    "2a",
                    what,
                    "glob_rs_files/ours_library",
                    "glob_rs_files/fd_with_stat_process",
                    1.0,
                    Target::RatioAtMost(1.1),
                );
                match medians.found.get("glob_rs_files/fd_process") {
                    Some(plain) => row.note(format!(
                        "Glob sorts by modification time, so it must stat every match; the reference is fd made to \
                         stat too (`--changed-before 2999-01-01`). fd without stat: {}.",
                        Quantity::time(*plain).display()
                    )),
                    None => row,
                }
            }
        });
        rows
    }

    /// Rows 1d–1f and 2b: `toolgate call Grep|Glob` against `rg` and `fd`, as whole processes.
    fn search_process(&self, tree: &Path, pattern: &str) -> Vec<Row> {
        let mut rows = Vec::new();
        let grep_modes: [(&str, &str, serde_like::Json, &[&str]); 3] = [
            ("1d", "files_with_matches", serde_like::grep(pattern, "files_with_matches"), &["-l"]),
            ("1e", "content -C 2", serde_like::grep(pattern, "content"), &["-n", "-C", "2"]),
            ("1f", "count", serde_like::grep(pattern, "count"), &["-c"]),
        ];
        for (id, mode, input, flags) in grep_modes {
            let what = format!("`toolgate call Grep` {mode} vs `rg` (whole processes)");
            let Some(rg) = &self.rg else {
                rows.push(Row::skipped(id, what, Target::RatioAtMost(1.1), missing("rg")));
                continue;
            };
            step(&format!("processes: {what}"));
            let ours = self.toolgate_cmd(tree).args(["call", "Grep", &input.0]);
            let mut reference = Cmd::new(rg).cwd(tree).args(rg_grep_flags()).args(flags.iter().copied());
            reference = reference.args([pattern, &tree.display().to_string()]);
            rows.push(self.paired_row(id, what, &ours, &reference, tree, Target::RatioAtMost(1.1)));
        }
        let what = "`toolgate call Glob` `**/*.rs` vs `fd` (whole processes, fd stat-ing matches)".to_owned();
        match &self.fd {
            None => rows.push(Row::skipped("2b", what, Target::RatioAtMost(1.1), missing("fd"))),
            Some(fd) => {
                step(&format!("processes: {what}"));
                let ours = self.toolgate_cmd(tree).args(["call", "Glob", r#"{"pattern":"**/*.rs"}"#]);
                let reference = Cmd::new(fd).cwd(tree).args(fd_flags()).args(["*.rs", &tree.display().to_string()]);
                let row = self.paired_row("2b", what, &ours, &reference, tree, Target::RatioAtMost(1.1));
                let note = row.note.clone().unwrap_or_default();
                rows.push(row.note(format!(
                    "{note} Glob prints the 100 most recently modified matches (as Claude Code's Glob does), fd all \
                     of them, so fd writes more."
                )));
            }
        }
        rows
    }

    /// Row 3: a 500-line window 95% of the way into a 1 GB file (64 MB with `--quick`),
    /// `toolgate call Read` against `sed -n 'A,Bp'`; peak memory of both, and ours on an
    /// 8 MB file to show it does not grow with the file.
    fn read_window(&self) -> Vec<Row> {
        let (size, label) = if self.quick { (64 << 20, "64 MB") } else { (1 << 30, "1 GB") };
        let what = format!("`toolgate call Read` of 500 lines deep in a {label} file vs `sed -n 'A,Bp'`");
        let Some(sed) = &self.sed else {
            return vec![Row::skipped("3a", what, Target::RatioAtMost(1.0), missing("sed"))];
        };
        step(&format!("corpus: a {label} file of numbered lines"));
        let made = corpus::ensure_big_file(&self.target.join(format!("bench-read-{}m.txt", size >> 20)), size)
            .and_then(|big| Ok((big, corpus::ensure_big_file(&self.target.join("bench-read-8m.txt"), 8 << 20)?)));
        let (big, small) = match made {
            Ok(files) => files,
            Err(error) => return vec![Row::skipped("3a", what, Target::RatioAtMost(1.0), format!("{error:#}"))],
        };
        let dir = self.target.clone();
        let read = |file: &BigFile| {
            let start = file.window_start();
            let input =
                format!(r#"{{"file_path":{:?},"offset":{start},"limit":500}}"#, file.path.display().to_string());
            let sed_range = format!("{start},{}p", start + 499);
            (
                self.toolgate_cmd(&dir).args(["call", "Read", &input]),
                Cmd::new(sed).cwd(&dir).args(["-n".to_owned(), sed_range, file.path.display().to_string()]),
            )
        };
        step(&format!("processes: {what}"));
        let (ours, reference) = read(&big);
        let mut rows = vec![self.paired_row("3a", what, &ours, &reference, &dir, Target::RatioAtMost(1.0))];
        let peaks = (|| -> anyhow::Result<(u64, u64, u64)> {
            let (ours_small, _) = read(&small);
            Ok((maxrss(&ours)?, maxrss(&reference)?, maxrss(&ours_small)?))
        })();
        match peaks {
            Ok((ours_big, sed_big, ours_small)) => {
                rows.push(Row::new(
                    "3b",
                    format!("peak memory of that Read vs sed's ({label} file)"),
                    Quantity::Kilobytes(ours_big),
                    Some(Quantity::Kilobytes(sed_big)),
                    Target::None,
                ).note("Peak resident set size of the whole process (getrusage), ours including the tokio runtime, the tool pool and settings loading."));
                rows.push(Row::new(
                    "3c",
                    format!("peak memory of that Read, {label} file vs an 8 MB file"),
                    Quantity::Kilobytes(ours_big),
                    Some(Quantity::Kilobytes(ours_small)),
                    Target::RatioAtMost(1.1),
                ).note("Memory independent of file size: the ratio of our peak on the big file to our peak on an 8 MB file with the same window position."));
            }
            Err(error) => rows.push(Row::skipped("3b", "peak memory", Target::None, format!("{error:#}"))),
        }
        rows
    }

    /// Row 4: one Bash permission decision against the tree-sitter parse alone, per command
    /// (each divan sample runs the 1,000-command corpus).
    fn bash_decision(&self) -> Vec<Row> {
        let what = "one Bash permission decision (analysis + ~50 rules) vs tree-sitter parse alone, per command";
        let tree_what = "the same, over commands that need their syntax tree (not plain lines)";
        match self.divan("decision", &[], &[]) {
            Ok(m) => {
                // The interleaved table when the bench printed it, divan's blocks otherwise.
                let (ours, reference) = if m.found.contains_key("interleaved_decision") {
                    ("interleaved_decision", "interleaved_parse_only")
                } else {
                    ("decision", "parse_only")
                };
                let row = m.row("4", what, ours, reference, 1.0 / 1_000.0, Target::RatioAtMost(1.5));
                let per_command = |name: &str| {
                    m.found.get(name).map(|t| Quantity::Time(t.as_secs_f64() / 1_000.0).display().to_string())
                };
                let mut note = "Medians over a corpus of 1,000 commands (50 real-world shapes × 20 variants), \
                                divided by 1,000; the session's folder, `/repo`, does not exist."
                    .to_owned();
                if ours == "interleaved_decision" {
                    note.push_str(
                        " 200 rounds, each the whole corpus decided and the whole corpus parsed, in \
                                   alternating order.",
                    );
                    if let (Some(decision), Some(parse)) = (per_command("decision"), per_command("parse_only")) {
                        note.push_str(&format!(" Timed in separate divan blocks instead: {decision} vs {parse}."));
                    }
                    if let (Some(decision), Some(parse)) =
                        (m.found.get("paired_decision"), m.found.get("paired_parse_only"))
                    {
                        note.push_str(&format!(
                            " Each command parsed and decided next to each other (the order flipping every \
                             round, so each sees the caches the other leaves): {} vs {} per command, {:.2}×.",
                            Quantity::Time(decision.as_secs_f64() / 1_000.0).display(),
                            Quantity::Time(parse.as_secs_f64() / 1_000.0).display(),
                            decision.as_secs_f64() / parse.as_secs_f64(),
                        ));
                    }
                }
                if let Some(visit) = per_command("parse_and_visit") {
                    note.push_str(&format!(
                        " The parse plus a bare visit of every node (kind and byte range only, the floor \
                         under any walk of the tree): {visit} per command."
                    ));
                }
                if let Some(analysis) = per_command("interleaved_analysis").or_else(|| per_command("analysis")) {
                    note.push_str(&format!(" Analysis alone (no rules: the parse and walk, or a plain line's split): {analysis} per command."));
                }
                if let Some(checkout) = per_command("decision_in_checkout") {
                    note.push_str(&format!(
                        " In a folder that exists (the crate's own, so paths resolve through real folders): \
                         {checkout} per command."
                    ));
                }
                note.push_str(
                    " Lines of plain words (`git status`, `cd web && npm run build`), most of the corpus, are \
                     decided without a syntax tree; row 4b times the other commands alone.",
                );
                let tree = m
                    .row(
                        "4b",
                        tree_what,
                        "tree_lines_decision",
                        "tree_lines_parse_only",
                        1.0 / 1_000.0,
                        Target::RatioAtMost(2.0),
                    )
                    .note(
                        "1,000 commands of the corpus's shapes that are not plain lines (a glob, an \
                         expansion, a redirect, a loop …), each decision parsing its tree; interleaved as row 4."
                            .to_owned(),
                    );
                vec![row.note(note), tree]
            }
            Err(error) => vec_error("4", what, Target::RatioAtMost(1.5), &error),
        }
    }

    /// Row 5: the pipeline's overhead per call, and ten 50 ms calls in one message vs one.
    fn pipeline(&self) -> Vec<Row> {
        let overhead = "no-op tool through the seven pipeline steps vs a direct call";
        let batch = "a message of ten concurrency-safe 50 ms calls vs one";
        match self.divan("overhead", &[], &[]) {
            Ok(m) => vec![
                m.interleaved_row(
                    "5a",
                    overhead,
                    ("interleaved_seven_steps", "interleaved_direct_call"),
                    ("seven_steps", "direct_call"),
                    Target::DifferenceBelow(5e-6),
                    "300 rounds, each 200 calls through the pipeline and 200 direct calls",
                ),
                m.row(
                    "5b",
                    batch,
                    "concurrent_50ms_calls/10",
                    "concurrent_50ms_calls/1",
                    1.0,
                    Target::RatioAtMost(1.2),
                ),
            ],
            Err(error) => {
                let mut rows = vec_error("5a", overhead, Target::DifferenceBelow(5e-6), &error);
                rows.extend(vec_error("5b", batch, Target::RatioAtMost(1.2), &error));
                rows
            }
        }
    }

    /// Row 6: a no-op hook through the runner against `sh -c true` through the process helper.
    fn hook(&self) -> Vec<Row> {
        let what = "one `true` PreToolUse hook through the hook runner vs `sh -c true`";
        match self.divan("hook", &[], &[]) {
            Ok(m) => {
                vec![m.row("6", what, "runner_noop_hook", "process_helper_sh_true", 1.0, Target::RatioAtMost(1.2))]
            }
            Err(error) => vec_error("6", what, Target::RatioAtMost(1.2), &error),
        }
    }

    /// Row 7: ToolSearch over 10,000 generated MCP tools.
    fn tool_search(&self) -> Vec<Row> {
        let parts = [
            (
                "7a",
                "ToolSearch keyword query over 10,000 MCP tools",
                "query_keywords",
                Target::Below(Quantity::Time(1e-3)),
            ),
            (
                "7b",
                "ToolSearch `mcp__server` query over 10,000 MCP tools",
                "query_server",
                Target::Below(Quantity::Time(1e-3)),
            ),
            (
                "7c",
                "ToolSearch `select:` query of 3 tools out of 10,000",
                "query_select",
                Target::Below(Quantity::Time(1e-3)),
            ),
            ("7d", "pool assembly of 10,000 MCP tools", "pool_assembly", Target::Below(Quantity::Time(10e-3))),
            ("7e", "definitions export of the 10,000-tool pool (Anthropic JSON)", "definitions_export", Target::None),
        ];
        match self.divan("toolsearch", &[], &[]) {
            Ok(m) => parts.iter().map(|(id, what, path, target)| m.absolute(id, what, path, *target)).collect(),
            Err(error) => parts.iter().flat_map(|(id, what, _, target)| vec_error(id, what, *target, &error)).collect(),
        }
    }

    /// Row 8: an MCP call through toolgate against the same call made with rmcp directly.
    fn mcp_call(&self) -> Vec<Row> {
        let what = "MCP `echo` call through toolgate (adapter + pipeline) vs a direct rmcp client, stdio, same server";
        match self.divan("adapter", &[], &[]) {
            Ok(m) => vec![m.interleaved_row(
                "8",
                what,
                ("interleaved_adapter", "interleaved_direct"),
                ("adapter_and_pipeline", "direct_rmcp_call"),
                Target::RatioAtMost(1.2),
                "400 rounds, each one call through toolgate and one direct call",
            )],
            Err(error) => vec_error("8", what, Target::RatioAtMost(1.2), &error),
        }
    }

    /// Row 10: a Read served over streamable HTTP against the same Read over stdio, and
    /// Reads served to 20 HTTP sessions at once.
    fn mcp_serve(&self) -> Vec<Row> {
        match self.divan("serve", &[], &["toolgate_serve_read", "http_20_sessions"]) {
            Ok(m) => serve_rows(&m),
            Err(error) => {
                let mut rows = vec_error("10a", SERVE_WHAT.0, Target::RatioAtMost(2.0), &error);
                rows.extend(vec_error("10b", SERVE_WHAT.1, SERVE_PER_READ, &error));
                rows
            }
        }
    }

    /// Row 9: start-up, `toolgate tools` against `rg --version`.
    fn startup(&self) -> Vec<Row> {
        let what = "start-up: `toolgate tools` vs `rg --version` (whole processes)";
        let Some(rg) = &self.rg else {
            return vec![Row::skipped("9", what, Target::RatioAtMost(3.0), missing("rg"))];
        };
        step(&format!("processes: {what}"));
        let dir = self.target.join("bench-empty");
        if let Err(error) = std::fs::create_dir_all(&dir) {
            return vec![Row::skipped(
                "9",
                what,
                Target::RatioAtMost(3.0),
                format!("creating {}: {error}", dir.display()),
            )];
        }
        let ours = self.toolgate_cmd(&dir).arg("tools");
        let reference = Cmd::new(rg).cwd(&dir).arg("--version");
        let runs = if self.quick { 5 } else { 50 };
        vec![match time_pair(&ours, &reference, runs) {
            Ok((ours, reference, _)) => Row::new("9", what, Quantity::time(ours), Some(Quantity::time(reference)), Target::RatioAtMost(3.0))
                .note(format!("Median of {runs} runs each, alternating; run in an empty directory with `--no-user-settings --strict-mcp-config` (no settings, no MCP servers).")),
            Err(error) => Row::skipped("9", what, Target::RatioAtMost(3.0), format!("{error:#}")),
        }]
    }

    /// Row 11: `toolgate hook` deciding a Claude Code PreToolUse input (a trusted project with
    /// 50 rules), as a whole process, beside `true` and beside `sh -c 'cat >/dev/null'`.
    fn claude_code_hook(&self) -> Vec<Row> {
        let what = (
            "`toolgate hook`: one Claude Code PreToolUse input decided (50 rules) vs `true` (whole processes)",
            "the same vs `sh -c 'cat >/dev/null'` reading the same input",
        );
        let target = Target::Below(Quantity::Time(0.005));
        step(&format!("processes: {}", what.0));
        let input = match hook_fixture(&self.target.join("bench-hook")) {
            Ok(input) => input,
            Err(error) => return vec![Row::skipped("11a", what.0, target, format!("{error:#}"))],
        };
        let dir = input.parent().unwrap_or(&self.target).to_owned();
        let ours = Cmd::new(&self.toolgate).cwd(&dir).env("HOME", dir.join("home")).arg("hook").stdin_file(&input);
        let runs = if self.quick { 5 } else { 50 };
        let note = format!(
            "Median of {runs} runs each, alternating. The input is `git status && rm -rf build` in a trusted \
             project whose settings hold 50 rules (`deny Bash(rm:*)` among them): the hook answers deny."
        );
        let mut rows = Vec::new();
        for (id, what, reference) in [
            ("11a", what.0, Cmd::new("true").cwd(&dir)),
            ("11b", what.1, Cmd::new("sh").cwd(&dir).args(["-c", "cat >/dev/null"]).stdin_file(&input)),
        ] {
            rows.push(match time_pair(&ours, &reference, runs) {
                Ok((ours_median, reference_median, (stdout, _))) if stdout.starts_with(b"{") => {
                    Row::new(id, what, Quantity::time(ours_median), Some(Quantity::time(reference_median)), target)
                        .note(note.clone())
                }
                Ok((_, _, (stdout, _))) => Row::skipped(
                    id,
                    what,
                    target,
                    format!("`toolgate hook` did not deny: {}", String::from_utf8_lossy(&stdout)),
                ),
                Err(error) => Row::skipped(id, what, target, format!("{error:#}")),
            });
        }
        rows
    }

    /// Row 12: the characters the model reads for a fixed set of calls (see
    /// [`model_facing`]), ours against Claude Code 2.1.197's committed texts; and the core
    /// tool definitions' estimated tokens against the 5,000 the design allows.
    fn model_facing(&self) -> Vec<Row> {
        let what = (
            "model-facing characters: 8 calls (Glob, Grep in each mode, Read, Edit, Write, a failing Bash) vs Claude Code 2.1.197's texts",
            "core tool definitions (not deferred), estimated tokens (characters / 4)",
        );
        step(&format!("model-facing: {}", what.0));
        let mut rows = vec![match self.model_facing_characters() {
            Ok((ours, theirs, note)) => {
                Row::new("12a", what.0, Quantity::Characters(ours), Some(Quantity::Characters(theirs)), Target::None)
                    .note(note)
            }
            Err(error) => Row::skipped("12a", what.0, Target::None, format!("{error:#}")),
        }];
        let target = Target::Below(Quantity::Tokens(5_000));
        let dir = self.target.join("bench-empty");
        let tools = std::fs::create_dir_all(&dir)
            .context("creating the empty project")
            .and_then(|()| cmd::timed(&self.toolgate_cmd(&dir).args(["tools", "--format", "anthropic"])));
        rows.push(match tools.and_then(|out| model_facing::core_definitions(&String::from_utf8_lossy(&out.stdout))) {
            Ok((characters, per_tool)) => {
                let tools =
                    per_tool.iter().map(|(name, n)| format!("{name} {}", n.div_ceil(4))).collect::<Vec<_>>().join(", ");
                Row::new("12b", what.1, Quantity::Tokens(characters.div_ceil(4) as u64), None, target).note(format!(
                    "`toolgate tools --format anthropic` in an empty folder: {} tools not deferred, {characters} \
                     characters of compact JSON (what a request carries). Per tool: {tools}.",
                    per_tool.len()
                ))
            }
            Err(error) => Row::skipped("12b", what.1, target, format!("{error:#}")),
        });
        rows
    }

    /// Runs row 12's calls through `toolgate run` in a fresh copy of the tree; returns our
    /// characters, Claude Code's, and the note with the figures per call.
    fn model_facing_characters(&self) -> anyhow::Result<(u64, u64, String)> {
        let fixture_path = self.root.join(model_facing::FIXTURE);
        let fixture = std::fs::read_to_string(&fixture_path)
            .with_context(|| format!("reading {} (see bench/model-facing/README.md)", fixture_path.display()))?;
        let files = model_facing::text_files();
        let theirs = model_facing::claude_code_texts(&fixture, &model_facing::calls(&files)?)?;
        let dir = self.target.join("bench-model-facing");
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
        }
        let tree = dir.join("project");
        for (rel, text) in &files {
            let path = tree.join(rel);
            std::fs::create_dir_all(path.parent().unwrap_or(&tree))
                .with_context(|| format!("creating the folder of {}", path.display()))?;
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        }
        let message = dir.join("message.json");
        std::fs::write(&message, model_facing::message(&files, &tree)?)
            .with_context(|| format!("writing {}", message.display()))?;
        let run = self.toolgate_cmd(&tree).args(["--mode", "acceptEdits", "run"]).stdin_file(&message);
        let out = cmd::timed(&run)?;
        let ours = model_facing::toolgate_texts(&String::from_utf8_lossy(&out.stdout), &tree)
            .with_context(|| format!("`{}`: {}", run.display(), String::from_utf8_lossy(&out.stderr).trim()))?;
        if ours.len() != theirs.len() {
            bail!("{} results from toolgate, {} in the fixture", ours.len(), theirs.len());
        }
        let mut per_call = Vec::new();
        let (mut ours_total, mut theirs_total) = (0, 0);
        for (ours, (name, theirs)) in ours.iter().zip(&theirs) {
            let (a, b) = (ours.chars().count() as u64, theirs.chars().count() as u64);
            ours_total += a;
            theirs_total += b;
            per_call.push(format!("{name} {a} vs {b}"));
        }
        let grep_modes = ["files_with_matches", "content", "count"];
        let mut grep = grep_modes.iter();
        let per_call = per_call
            .into_iter()
            .map(|entry| match entry.strip_prefix("Grep ") {
                Some(rest) => format!("Grep {} {rest}", grep.next().unwrap_or(&"")),
                None => entry,
            })
            .collect::<Vec<_>>()
            .join(", ");
        Ok((
            ours_total,
            theirs_total,
            format!(
                "The calls of `xtask/src/bench/model_facing.rs` over a {}-file tree from the same generator \
                 (text files only), pattern `{}`, in acceptEdits; Claude Code's texts are `{}`, captured once with \
                 the oracle. Both sides' project folder counted as `{}`. Per call, ours vs Claude Code's: {per_call}.",
                files.len(),
                model_facing::PATTERN,
                model_facing::FIXTURE,
                model_facing::PROJECT,
            ),
        ))
    }

    /// `toolgate` with no user settings and no MCP servers, in `dir`.
    fn toolgate_cmd(&self, dir: &Path) -> Cmd {
        Cmd::new(&self.toolgate).cwd(dir).arg("--no-user-settings").arg("--strict-mcp-config").arg("--cwd").arg(dir)
    }

    /// Times `ours` and `reference` alternately and compares their first outputs.
    fn paired_row(&self, id: &str, what: String, ours: &Cmd, reference: &Cmd, root: &Path, target: Target) -> Row {
        match time_pair(ours, reference, self.runs) {
            Ok((ours_median, reference_median, outputs)) => {
                let check = compare_outputs(&outputs.0, &outputs.1, root);
                Row::new(id, what, Quantity::time(ours_median), Some(Quantity::time(reference_median)), target).note(
                    format!(
                        "Median of {} runs each, alternating. Output checked once before timing: {check}.",
                        self.runs
                    ),
                )
            }
            Err(error) => Row::skipped(id, what, target, format!("{error:#}")),
        }
    }
}

/// Writes row 11's trusted project (`dir/home`, `dir/project` with 50 rules) and hook input;
/// returns the input's path.
fn hook_fixture(dir: &Path) -> anyhow::Result<PathBuf> {
    let (home, project) = (dir.join("home"), dir.join("project"));
    std::fs::create_dir_all(project.join(".claude")).with_context(|| format!("creating {}", project.display()))?;
    std::fs::create_dir_all(&home).with_context(|| format!("creating {}", home.display()))?;
    let project_text = json_string(&project.display().to_string());
    std::fs::write(
        home.join(".claude.json"),
        format!(r#"{{"projects": {{{project_text}: {{"hasTrustDialogAccepted": true}}}}}}"#),
    )?;
    let allow = (0..40).map(|i| format!(r#""Bash(npm run task{i}:*)""#));
    let deny = ["rm:*", "curl:*", "wget:*", "git push:*", "sudo:*", "dd:*", "mkfs:*", "chmod:*"]
        .iter()
        .map(|r| format!(r#""Bash({r})""#))
        .chain([r#""Read(./.env)""#.to_owned(), r#""Edit(./.git/**)""#.to_owned()]);
    let settings = format!(
        r#"{{"permissions": {{"allow": [{}], "deny": [{}]}}}}"#,
        allow.collect::<Vec<_>>().join(", "),
        deny.collect::<Vec<_>>().join(", ")
    );
    std::fs::write(project.join(".claude/settings.json"), settings)?;
    let input = format!(
        r#"{{"session_id": "bench", "cwd": {project_text}, "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {{"command": "git status && rm -rf build", "description": "status"}}, "tool_use_id": "toolu_bench"}}"#
    );
    let path = dir.join("input.json");
    std::fs::write(&path, input)?;
    Ok(path)
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A bench's medians, looked up into rows.
struct Medians {
    bench: String,
    found: BTreeMap<String, Duration>,
}

impl Medians {
    /// A row of `ours` against `reference` (both divan paths), each median times `scale`.
    fn row(&self, id: &str, what: &str, ours: &str, reference: &str, scale: f64, target: Target) -> Row {
        let get = |path: &str| self.found.get(path).map(|d| Quantity::Time(d.as_secs_f64() * scale));
        match (get(ours), get(reference)) {
            (Some(o), Some(r)) => Row::new(id, what, o, Some(r), target),
            _ => Row::skipped(
                id,
                what,
                target,
                format!("{} printed no median for `{ours}` or `{reference}`", self.bench),
            ),
        }
    }

    /// A row from the bench's interleaved table (`interleaved`: ours, reference) when it
    /// printed one, naming divan's separate blocks (`blocks`) in the note; otherwise the row
    /// of the blocks.
    fn interleaved_row(
        &self,
        id: &str,
        what: &str,
        interleaved: (&str, &str),
        blocks: (&str, &str),
        target: Target,
        rounds: &str,
    ) -> Row {
        if !self.found.contains_key(interleaved.0) {
            return self.row(id, what, blocks.0, blocks.1, 1.0, target);
        }
        let row = self.row(id, what, interleaved.0, interleaved.1, 1.0, target);
        let block = |path: &str| self.found.get(path).map(|d| Quantity::Time(d.as_secs_f64()).display().to_string());
        match (block(blocks.0), block(blocks.1)) {
            (Some(ours), Some(reference)) => row.note(format!(
                "Medians of {rounds}, in alternating order. Timed in separate divan blocks instead: {ours} vs \
                 {reference}."
            )),
            _ => row,
        }
    }

    /// A row of `path` against an absolute target.
    fn absolute(&self, id: &str, what: &str, path: &str, target: Target) -> Row {
        match self.found.get(path) {
            Some(median) => Row::new(id, what, Quantity::time(*median), None, target),
            None => Row::skipped(id, what, target, format!("{} printed no median for `{path}`", self.bench)),
        }
    }
}

/// What rows 10a and 10b measure.
const SERVE_WHAT: (&str, &str) = (
    "Read served over streamable HTTP vs over stdio (`mcp serve`'s server, raw clients, same run)",
    "Reads served to 20 HTTP sessions at once, per Read (10 each an iteration, two runtime workers)",
);

/// Row 10b's target: 2,000 Reads a second.
const SERVE_PER_READ: Target = Target::Below(Quantity::Time(1.0 / 2_000.0));

/// Rows 10a and 10b from the `serve` bench's tables.
fn serve_rows(m: &Medians) -> Vec<Row> {
    let a = m.interleaved_row(
        "10a",
        SERVE_WHAT.0,
        ("interleaved_http", "interleaved_stdio"),
        ("toolgate_serve_read_http", "toolgate_serve_read"),
        Target::RatioAtMost(2.0),
        "1,000 rounds, each one HTTP Read and one stdio Read",
    );
    let b = match m.found.get("http_20_sessions") {
        Some(median) => {
            let reads = 200.0;
            Row::new("10b", SERVE_WHAT.1, Quantity::Time(median.as_secs_f64() / reads), None, SERVE_PER_READ).note(
                format!(
                    "{:.0} Reads/s: the median of 200 concurrent Reads ({} for 20 sessions × 10), every answer \
                     checked; the target is 2,000 Reads/s. Client and server share the machine.",
                    reads / median.as_secs_f64(),
                    Quantity::time(*median).display(),
                ),
            )
        }
        None => Row::skipped("10b", SERVE_WHAT.1, SERVE_PER_READ, "the serve bench printed no `http_20_sessions`"),
    };
    vec![a, b]
}

fn vec_error(id: &str, what: &str, target: Target, error: &anyhow::Error) -> Vec<Row> {
    vec![Row::skipped(id, what, target, format!("{error:#}"))]
}

fn skipped_grep(id: &str, what: &str, error: &anyhow::Error) -> Row {
    Row::skipped(id, what, Target::RatioAtMost(1.1), format!("{error:#}"))
}

/// The bench executables `cargo bench --no-run` names, from its lines
/// `Executable benches/NAME.rs (PATH)`.
fn bench_executables(output: &str) -> BTreeMap<String, PathBuf> {
    output
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("Executable benches/")?;
            let (file, path) = rest.split_once(" (")?;
            Some((file.strip_suffix(".rs")?.to_owned(), PathBuf::from(path.strip_suffix(')')?)))
        })
        .collect()
}

/// The reason a row is skipped for a missing program, with how to get it.
fn missing(program: &str) -> String {
    let how = match program {
        "rg" => "install ripgrep (`apt-get install ripgrep`, `brew install ripgrep` or `cargo install ripgrep`)",
        "fd" => {
            "install fd (`apt-get install fd-find`, which names it `fdfind`; `brew install fd`; or `cargo install fd-find`)"
        }
        _ => "install it with the system's package manager",
    };
    format!("`{program}` is not on PATH: {how}, then rerun `cargo xtask bench`")
}

/// The first of `names` found as a file in a `PATH` directory.
fn on_path(names: &[&str]) -> Option<String> {
    let paths = std::env::var_os("PATH")?;
    names.iter().find(|name| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file())).map(|n| (*n).to_owned())
}

/// The flags Claude Code passes to rg for Grep (the tool uses the same ignore rules).
fn rg_grep_flags() -> Vec<String> {
    let mut flags: Vec<String> = ["--no-config", "--hidden", "--max-columns", "500"].map(String::from).to_vec();
    for vcs in [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"] {
        flags.extend(["--glob".to_owned(), format!("!{vcs}")]);
    }
    flags
}

/// fd flags matching Glob: hidden files, no ignore files, no `.git`, files only, and a
/// time filter that keeps every file but makes fd stat each match as Glob must.
fn fd_flags() -> [&'static str; 10] {
    [
        "--glob",
        "--hidden",
        "--no-ignore",
        "--case-sensitive",
        "--type",
        "f",
        "--exclude",
        ".git",
        "--changed-before",
        "2999-01-01",
    ]
}

/// Tool inputs as JSON text (xtask has no JSON dependency; these are fixed shapes).
mod serde_like {
    /// JSON text.
    pub(super) struct Json(pub(super) String);

    /// A Grep input with `head_limit` 0 (no limit), and two lines of context for content.
    pub(super) fn grep(pattern: &str, mode: &str) -> Json {
        let context = if mode == "content" { r#","-n":true,"-C":2"# } else { "" };
        Json(format!(r#"{{"pattern":{pattern:?},"output_mode":"{mode}","head_limit":0{context}}}"#))
    }
}

/// Two medians (ours, the reference's) and the first outputs of both.
type Paired = (Duration, Duration, (Vec<u8>, Vec<u8>));

/// Runs each command once (the outputs returned), then `runs` more times alternately;
/// returns both medians and the first outputs.
fn time_pair(ours: &Cmd, reference: &Cmd, runs: usize) -> anyhow::Result<Paired> {
    let first = |cmd: &Cmd| -> anyhow::Result<Vec<u8>> {
        let out = cmd::timed(cmd)?;
        if !out.success {
            bail!("`{}` failed: {}", cmd.display(), String::from_utf8_lossy(&out.stderr).trim());
        }
        Ok(out.stdout)
    };
    let outputs = (first(ours)?, first(reference)?);
    let (mut a, mut b) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for round in 0..runs {
        let order = if round % 2 == 0 { [true, false] } else { [false, true] };
        for is_ours in order {
            let cmd = if is_ours { ours } else { reference };
            let out = cmd::timed(cmd)?;
            if !out.success {
                bail!("`{}` failed: {}", cmd.display(), String::from_utf8_lossy(&out.stderr).trim());
            }
            if is_ours { a.push(out.elapsed) } else { b.push(out.elapsed) }
        }
    }
    let a = table::median(&a).context("no runs")?;
    let b = table::median(&b).context("no runs")?;
    Ok((a, b, outputs))
}

/// The peak resident set size of one run of `cmd`, in kilobytes, through `xtask __maxrss`.
fn maxrss(cmd: &Cmd) -> anyhow::Result<u64> {
    // `/proc/self/exe` still runs this program when cargo has since replaced the file in a
    // shared target directory (then `current_exe` names a deleted path).
    let proc_exe = Path::new("/proc/self/exe");
    let exe = if proc_exe.exists() {
        proc_exe.to_owned()
    } else {
        std::env::current_exe().context("the xtask executable")?
    };
    let wrapped = cmd.wrapped(&exe, "__maxrss");
    let out = cmd::timed(&wrapped)?;
    if !out.success {
        bail!("`{}` failed: {}", wrapped.display(), String::from_utf8_lossy(&out.stderr).trim());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix(cmd::MAXRSS_PREFIX))
        .and_then(|kb| kb.trim().parse().ok())
        .with_context(|| format!("`{}` printed no peak memory", wrapped.display()))
}

/// Says whether two outputs hold the same lines, after taking toolgate's
/// persisted-output file instead of its preview, dropping `root/` prefixes, `--` group
/// separators, blank lines and Read's line-number prefixes.
fn compare_outputs(ours: &[u8], reference: &[u8], root: &Path) -> String {
    let ours = String::from_utf8_lossy(ours);
    let persisted = ours
        .lines()
        .find_map(|line| line.split_once("Full output saved to: ").map(|(_, path)| path.trim().to_owned()))
        .and_then(|path| std::fs::read_to_string(path).ok());
    let ours = persisted.as_deref().unwrap_or(&ours);
    let ours = normalized_lines(ours, root);
    let reference = normalized_lines(&String::from_utf8_lossy(reference), root);
    let (only_ours, only_reference) = multiset_difference(&ours, &reference);
    let source =
        if persisted.is_some() { " (toolgate's full output, which it saved to a file and previewed)" } else { "" };
    if only_ours.is_empty() && only_reference.is_empty() {
        return format!("the same {} lines{source}", ours.len());
    }
    let sample = |lines: &[String]| {
        lines
            .iter()
            .take(2)
            .map(|l| format!("`{}`", l.chars().take(80).collect::<String>()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text =
        format!("{} of toolgate's {} lines are the reference's{source}", ours.len() - only_ours.len(), ours.len());
    if !only_ours.is_empty() {
        text.push_str(&format!("; only toolgate's: {} (e.g. {})", only_ours.len(), sample(&only_ours)));
    }
    if !only_reference.is_empty() {
        text.push_str(&format!("; only the reference's: {} (e.g. {})", only_reference.len(), sample(&only_reference)));
    }
    text
}

/// Lines with the root prefix, `./` and a Read line-number prefix (`   12→`, `12\t`) removed.
fn normalized_lines(text: &str, root: &Path) -> Vec<String> {
    let prefix = format!("{}/", root.display());
    text.lines()
        .map(|line| line.strip_prefix(&prefix).unwrap_or(line))
        .map(|line| line.strip_prefix("./").unwrap_or(line))
        .map(|line| {
            let trimmed = line.trim_start();
            let digits = trimmed.find(|c: char| !c.is_ascii_digit()).unwrap_or(trimmed.len());
            match trimmed[digits..].strip_prefix('→').or_else(|| trimmed[digits..].strip_prefix('\t')) {
                Some(rest) if digits > 0 => rest,
                _ => line,
            }
        })
        .filter(|line| !line.trim().is_empty() && *line != "--")
        .map(str::to_owned)
        .collect()
}

/// The lines only in `a` and only in `b`, counting repeats.
fn multiset_difference(a: &[String], b: &[String]) -> (Vec<String>, Vec<String>) {
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for line in a {
        *counts.entry(line).or_default() += 1;
    }
    for line in b {
        *counts.entry(line).or_default() -= 1;
    }
    let mut only_a = Vec::new();
    let mut only_b = Vec::new();
    for (line, count) in counts {
        for _ in 0..count.max(0) {
            only_a.push(line.to_owned());
        }
        for _ in 0..(-count).max(0) {
            only_b.push(line.to_owned());
        }
    }
    (only_a, only_b)
}

/// `git rev-parse HEAD`, with `-dirty` when `git status --porcelain` lists changes.
fn commit(root: &Path) -> String {
    let git = |args: &[&str]| {
        cmd::timed(&Cmd::new("git").cwd(root).args(args))
            .ok()
            .filter(|out| out.success)
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let Some(head) = git(&["rev-parse", "HEAD"]) else { return "unknown".to_owned() };
    match git(&["status", "--porcelain", "--untracked-files=no"]) {
        Some(changes) if !changes.is_empty() => format!("{head}-dirty"),
        _ => head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serve_rows_are_read_from_the_serve_bench() {
        let output = "\
serve                        fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ http_20_sessions          21.11 ms      │ 46.96 ms      │ 25 ms         │ 27.75 ms      │ 30      │ 30
├─ toolgate_serve_read       48.32 µs      │ 3.415 ms      │ 73.33 µs      │ 132.3 µs      │ 200     │ 200
╰─ toolgate_serve_read_http  65.37 µs      │ 2.664 ms      │ 114.9 µs      │ 145.9 µs      │ 200     │ 200

interleaved             fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ interleaved_http     67.613 µs     │ 3955.145 µs   │ 120.000 µs    │ 158.098 µs    │ 1000    │ 1000
╰─ interleaved_stdio    43.288 µs     │ 3904.800 µs   │ 80.000 µs     │ 108.797 µs    │ 1000    │ 1000
";
        let m = Medians { bench: "toolgate-mcp/serve".into(), found: divan::medians(output) };
        let rows = serve_rows(&m);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].ratio().map(|r| (r * 100.0).round()), Some(150.0));
        assert_eq!(rows[0].met(), Some(true));
        assert_eq!(rows[1].ours, Some(Quantity::Time(0.025 / 200.0)));
        assert_eq!(rows[1].met(), Some(true));
        assert!(rows[1].note.as_deref().is_some_and(|n| n.starts_with("8000 Reads/s")), "{:?}", rows[1]);
    }

    #[test]
    fn arguments_are_parsed() {
        let options = parse_args(&["--quick", "--out", "/tmp/r.md"]).unwrap();
        assert!(options.quick);
        assert_eq!(options.out, Some(PathBuf::from("/tmp/r.md")));
        assert!(parse_args(&["--corpus"]).is_err());
        assert!(parse_args(&["--corpus", "/definitely/not/here"]).is_err());
        assert!(parse_args(&["--fast"]).is_err());
        assert_eq!(parse_args(&["--only", "12"]).unwrap().only.as_deref(), Some("12"));
        assert_eq!(parse_args(&["--only", "13"]).unwrap().only.as_deref(), Some("13"));
        assert!(parse_args(&["--only", "14"]).is_err());
        assert!(parse_args(&["--toolgate", "/bin/true"]).is_err(), "--toolgate needs --only 12");
    }

    #[test]
    fn outputs_compare_as_line_multisets_after_normalising() {
        let root = Path::new("/c");
        let same = compare_outputs(b"/c/a.rs:1:x\n--\n/c/b.rs-2-y\n", b"./b.rs-2-y\na.rs:1:x\n", root);
        assert_eq!(same, "the same 2 lines");
        let read =
            compare_outputs("    95→line 95: a\n    96→line 96: b\n".as_bytes(), b"line 95: a\nline 96: b\n", root);
        assert_eq!(read, "the same 2 lines");
        let differ = compare_outputs(b"Found 2 files\na.rs\nb.rs\n", b"a.rs\nb.rs\nc.rs\n", root);
        assert_eq!(
            differ,
            "2 of toolgate's 3 lines are the reference's; only toolgate's: 1 (e.g. `Found 2 files`); \
             only the reference's: 1 (e.g. `c.rs`)"
        );
    }

    #[test]
    fn bench_executables_are_read_from_cargo_output() {
        let out = "   Compiling x\n  Executable benches src/lib.rs (/t/release/deps/toolgate_mcp-1e)\n  \
                   Executable benches/adapter.rs (/t/release/deps/adapter-56)\n";
        let found = bench_executables(out);
        assert_eq!(found.len(), 1);
        assert_eq!(found["adapter"], PathBuf::from("/t/release/deps/adapter-56"));
    }

    #[test]
    fn grep_inputs_are_json() {
        assert_eq!(
            serde_like::grep("fn \"x\"", "content").0,
            r#"{"pattern":"fn \"x\"","output_mode":"content","head_limit":0,"-n":true,"-C":2}"#
        );
    }
}
