//! Grep and Glob against `rg` and `fdfind` on one large deterministic tree.
//!
//! Run with `cargo bench -p toolgate-builtin --bench search`. The tree (30,000 source-like
//! files plus 1,000 ignored build files, a `.git` directory and a `.gitignore`) is written
//! once under `target/bench-search-tree-v1` and reused. Each query is timed three ways:
//!
//! - `ours_library`: the tool's `call` in this process (no process start-up);
//! - `ours_process`: this bench binary re-run as a child that makes the same call and
//!   prints the text, so it pays a process start like `rg` does;
//! - `rg_process` / `fd_process`: the reference program, through the process helper
//!   (`fd_with_stat_process`: fd made to stat every match, as Glob does to sort by mtime;
//!   `rg_files_sorted_process`: the `rg --files --sort=modified` Claude Code's Glob runs).
//!
//! After the divan table, the same queries run interleaved (ours library, ours process,
//! reference, rotating) for 15 rounds, and the medians, minimums and ratios are printed:
//! interleaving keeps load from other processes from favouring one side.
//!
//! `process_floor` times starting `rg --version`, the fixed cost inside every `*_process`
//! number. Before timing, the bench checks that both sides find the same files.
//!
//! `cargo xtask bench` (rows 1 and 2) runs this bench on its own corpus through three
//! environment variables: `TOOLGATE_BENCH_TREE` (the tree to search, used as is),
//! `TOOLGATE_BENCH_PATTERN` (instead of `handle_request`) and `TOOLGATE_SEARCH_PAIRED=0`
//! (no interleaved table; xtask times the processes itself).
//!
//! Without `--bench` (`cargo test --benches`, as the gate's `bench-smoke` step runs it)
//! the checks and every bench run once on a tree of 20 files, so the bench cannot rot.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Value, json};
use toolgate_core::process::ProcessSpec;
use toolgate_core::{CancellationToken, DynTool, ToolContext};

/// The first argument that makes this binary a one-call child instead of a bench.
const CHILD_FLAG: &str = "--toolgate-search-child";

/// The identifier in roughly 2% of the files, the pattern of the Grep benches unless
/// `TOOLGATE_BENCH_PATTERN` names another.
fn needle() -> &'static str {
    static NEEDLE: OnceLock<String> = OnceLock::new();
    NEEDLE.get_or_init(|| std::env::var("TOOLGATE_BENCH_PATTERN").unwrap_or_else(|_| "handle_request".to_owned()))
}

/// Ends the bench with a message (benches do not unwrap).
fn or_die<T, E: Display>(result: Result<T, E>, what: &str) -> T {
    match result {
        Ok(value) => value,
        Err(err) => panic!("{what}: {err}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(CHILD_FLAG) {
        child(&args[2..]);
        return;
    }
    verify();
    // Without `--bench`, divan runs each bench once (on the small test tree).
    divan::main();
    if measuring() && std::env::var("TOOLGATE_SEARCH_PAIRED").as_deref() != Ok("0") {
        paired();
    }
}

/// One query measured three ways, interleaved round by round so that load from other
/// processes hits all three alike; prints medians, minimums and the ratios to the reference.
fn paired() {
    const ROUNDS: usize = 15;
    let ctx = ToolContext::new(tree());
    let (grep, glob) = (find_tool("Grep"), find_tool("Glob"));
    type Run<'a> = Box<dyn Fn() -> String + 'a>;
    let mut queries: Vec<(&str, &str, [Run<'_>; 3])> = Vec::new();
    for (name, mode, rg_extra) in [
        ("grep files_with_matches", "files_with_matches", vec!["-l", needle()]),
        ("grep content -C 2", "content", vec!["-n", "-C", "2", needle()]),
        ("grep count", "count", vec!["-c", needle()]),
    ] {
        let input = grep_input(mode);
        let rg_args = rg_grep_args(&rg_extra);
        let (grep, ctx, input2) = (&grep, &ctx, input.clone());
        queries.push((
            name,
            "rg",
            [
                Box::new(move || run_ours(grep, ctx, &input)),
                Box::new(move || run_ours_process("Grep", &input2)),
                Box::new(move || run_process("rg", &rg_args)),
            ],
        ));
    }
    for (name, stat) in [("glob **/*.rs", false), ("glob **/*.rs, fd stats", true)] {
        let glob_input = json!({"pattern": "**/*.rs"});
        let (glob, ctx_ref) = (&glob, &ctx);
        let glob_input2 = glob_input.clone();
        let fd = fd_args(stat);
        queries.push((
            name,
            "fdfind",
            [
                Box::new(move || run_ours(glob, ctx_ref, &glob_input)),
                Box::new(move || run_ours_process("Glob", &glob_input2)),
                Box::new(move || run_process("fdfind", &fd)),
            ],
        ));
    }
    println!("\ninterleaved, {ROUNDS} rounds (median / min, ms; ratio = ours / reference):");
    println!(
        "{:<34} {:>15} {:>15} {:>15} {:>13} {:>13}",
        "query", "ours library", "ours process", "reference", "lib/ref", "process/ref"
    );
    for (name, reference, runs) in &queries {
        if (*reference == "rg" && !on_path("rg")) || (*reference == "fdfind" && !on_path("fdfind")) {
            continue;
        }
        let mut times: [Vec<f64>; 3] = Default::default();
        for round in 0..ROUNDS {
            for k in 0..3 {
                let which = (round + k) % 3;
                let started = std::time::Instant::now();
                divan::black_box(runs[which]());
                times[which].push(started.elapsed().as_secs_f64() * 1e3);
            }
        }
        let stats: Vec<(f64, f64)> = times
            .iter_mut()
            .map(|t| {
                t.sort_by(f64::total_cmp);
                (t[t.len() / 2], t[0])
            })
            .collect();
        let cell = |(median, min): (f64, f64)| format!("{median:.1} / {min:.1}");
        println!(
            "{:<34} {:>15} {:>15} {:>15} {:>13} {:>13}",
            format!("{name} ({reference})"),
            cell(stats[0]),
            cell(stats[1]),
            cell(stats[2]),
            format!("{:.2} / {:.2}", stats[0].0 / stats[2].0, stats[0].1 / stats[2].1),
            format!("{:.2} / {:.2}", stats[1].0 / stats[2].0, stats[1].1 / stats[2].1),
        );
    }
}

/// Child mode: `CHILD_FLAG TOOL INPUT_JSON ROOT` makes one call and prints its text.
fn child(args: &[String]) {
    let [tool, input, root] = args else { panic!("usage: {CHILD_FLAG} TOOL INPUT_JSON ROOT") };
    let input: Value = or_die(serde_json::from_str(input), "child input");
    let runtime = or_die(tokio::runtime::Builder::new_current_thread().enable_all().build(), "runtime");
    let ctx = ToolContext::new(root);
    let out = or_die(runtime.block_on(find_tool(tool).call(input, &ctx)), "child call");
    println!("{}", out.to_text());
}

fn find_tool(name: &str) -> DynTool {
    match toolgate_builtin::all_builtin_tools().into_iter().find(|t| t.name() == name) {
        Some(tool) => tool,
        None => panic!("no tool {name}"),
    }
}

/// Whether this run is a real measurement (`cargo bench`) rather than a test run.
fn measuring() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// The shared multi-thread runtime.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| or_die(tokio::runtime::Builder::new_multi_thread().enable_all().build(), "runtime"))
}

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: &[&str] = &[
    "let", "mut", "value", "result", "config", "parse", "request", "response", "buffer", "index", "count", "error",
    "return", "self", "match", "some", "none", "ok", "err", "string", "vector", "map", "insert", "remove", "update",
    "client", "server", "session", "token", "cache", "state", "event", "handler", "queue", "stream", "reader",
    "writer",
];

const EXTENSIONS: &[&str] = &["rs", "rs", "rs", "py", "ts", "js", "md", "txt", "json", "toml"];

/// The tree to search: `TOOLGATE_BENCH_TREE` as is, else one written here once (20
/// files when not measuring, 31,000 when measuring). Returns its root.
fn tree() -> &'static Path {
    static TREE: OnceLock<PathBuf> = OnceLock::new();
    TREE.get_or_init(|| {
        if let Some(given) = std::env::var_os("TOOLGATE_BENCH_TREE") {
            return toolgate_core::normalize_path(&or_die(std::path::absolute(PathBuf::from(given)), "tree path"));
        }
        let (name, dirs, subdirs, files) =
            if measuring() { ("bench-search-tree-v1", 30, 25, 40) } else { ("bench-search-tree-test-v1", 2, 2, 5) };
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"), PathBuf::from);
        let root = toolgate_core::normalize_path(&or_die(std::path::absolute(target.join(name)), "tree path"));
        if !root.join(".complete").exists() {
            write_tree(&root, dirs, subdirs, files);
        }
        root
    })
}

fn write_tree(root: &Path, dirs: u64, subdirs: u64, files: u64) {
    eprintln!("writing the bench tree under {} ...", root.display());
    let _ = std::fs::remove_dir_all(root);
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            or_die(std::fs::create_dir_all(parent), "create dir");
        }
        or_die(std::fs::write(&path, text), "write file");
    };
    let mut rng = Lcg(0x5eed);
    write(".gitignore", "build/\n*.tmp\n");
    write(".git/HEAD", "ref: refs/heads/main\n");
    write(".git/config", "[core]\n\thandle_request = 1\n");
    for d in 0..dirs {
        for s in 0..subdirs {
            for f in 0..files {
                let ext = EXTENSIONS[rng.below(EXTENSIONS.len() as u64) as usize];
                let rel = format!("pkg{d:02}/mod{s:02}/file{f:03}.{ext}");
                let mut text = String::new();
                let lines = 20 + rng.below(60);
                let needle_at = if rng.below(50) == 0 { Some(rng.below(lines)) } else { None };
                for line in 0..lines {
                    let indent = "    ".repeat(rng.below(3) as usize);
                    text.push_str(&indent);
                    for _ in 0..(3 + rng.below(8)) {
                        text.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
                        text.push(' ');
                    }
                    if needle_at == Some(line) {
                        text.push_str("fn handle_request(req: Request) -> Response {");
                    }
                    text.push('\n');
                }
                write(&rel, &text);
            }
        }
    }
    for i in 0..(dirs * 33) {
        write(&format!("build/out{i:04}.rs"), "fn handle_request() {}\n");
    }
    write(".complete", "");
}

/// The flags Claude Code passes to rg for Grep.
fn rg_grep_args(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["--no-config", "--hidden", "--max-columns", "500"].map(String::from).to_vec();
    for vcs in [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"] {
        args.extend(["--glob".to_owned(), format!("!{vcs}")]);
    }
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    args.push(tree().display().to_string());
    args
}

/// The fd command line matching Glob `**/*.rs` (hidden, no ignore files, no .git).
///
/// fd neither reads mtimes nor sorts; with `stat`, a time filter that keeps every file
/// (`--changed-before 2999-01-01`) makes it stat each match, as Glob must for its
/// newest-first order, which is the like-for-like comparison.
fn fd_args(stat: bool) -> Vec<String> {
    let args = ["--glob", "--hidden", "--no-ignore", "--case-sensitive", "--type", "f", "--exclude", ".git"];
    let mut args: Vec<String> = args.map(String::from).to_vec();
    if stat {
        args.extend(["--changed-before".to_owned(), "2999-01-01".to_owned()]);
    }
    args.extend(["*.rs".to_owned(), tree().display().to_string()]);
    args
}

/// The command Claude Code's Glob runs (single-threaded: `--sort` turns off parallelism).
fn rg_files_args() -> Vec<String> {
    let args = ["--no-config", "--files", "--glob", "**/*.rs", "--sort=modified", "--no-ignore", "--hidden"];
    let mut args: Vec<String> = args.map(String::from).to_vec();
    args.push(tree().display().to_string());
    args
}

/// Runs a program to completion and returns its stdout.
fn run_process(program: &str, args: &[String]) -> String {
    let spec = ProcessSpec::exec(program, args.iter().cloned())
        .cwd(tree())
        .output_cap(256 * 1024 * 1024)
        .timeout(Duration::from_secs(120));
    let outcome = or_die(runtime().block_on(spec.run(&CancellationToken::new())), program);
    outcome.stdout.text().into_owned()
}

/// Runs our tool in a child process (this binary in child mode).
fn run_ours_process(tool: &str, input: &Value) -> String {
    let exe = or_die(std::env::current_exe(), "current exe").display().to_string();
    let args = vec![CHILD_FLAG.to_owned(), tool.to_owned(), input.to_string(), tree().display().to_string()];
    run_process(&exe, &args)
}

/// Calls our tool in this process.
fn run_ours(tool: &DynTool, ctx: &ToolContext, input: &Value) -> String {
    or_die(runtime().block_on(tool.call(input.clone(), ctx)), "call").to_text()
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

fn sorted(lines: impl Iterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = lines.filter(|l| !l.is_empty()).collect();
    v.sort();
    v
}

/// Checks that both sides find the same files before anything is timed.
fn verify() {
    let root = tree();
    let ctx = ToolContext::new(root);
    if on_path("rg") {
        let ours = run_ours(&find_tool("Grep"), &ctx, &grep_input("files_with_matches"));
        let ours = sorted(ours.lines().skip(1).map(str::to_owned));
        // Grep prints paths relative to the working directory (the tree), rg as it was given them.
        let prefix = format!("{}/", root.display());
        let relative = |line: &str| line.strip_prefix(&prefix).unwrap_or(line).to_owned();
        let theirs = sorted(run_process("rg", &rg_grep_args(&["-l", needle()])).lines().map(relative));
        assert_eq!(ours, theirs, "Grep and rg -l disagree");
        eprintln!("verified: Grep files_with_matches = rg -l ({} files)", ours.len());
        let ours = run_ours(&find_tool("Grep"), &ctx, &grep_input("count"));
        let theirs = run_process("rg", &rg_grep_args(&["-c", needle()]));
        let ours = sorted(ours.lines().take_while(|l| !l.is_empty()).map(str::to_owned));
        assert_eq!(ours, sorted(theirs.lines().map(relative)), "Grep count and rg -c disagree");
        let ours = run_ours(&find_tool("Grep"), &ctx, &grep_input("content"));
        let theirs = run_process("rg", &rg_grep_args(&["-n", "-C", "2", needle()]));
        eprintln!("content: ours {} lines, rg {} lines", ours.lines().count(), theirs.lines().count());
    }
    if on_path("fdfind") {
        let input = json!({"pattern": "**/*.rs"});
        let out = or_die(runtime().block_on(find_tool("Glob").call(input, &ctx)), "glob");
        let total = out.structured.as_ref().and_then(|s| s["totalMatches"].as_u64()).unwrap_or_default();
        let theirs = run_process("fdfind", &fd_args(false)).lines().count() as u64;
        let with_stat = run_process("fdfind", &fd_args(true)).lines().count() as u64;
        assert_eq!(theirs, with_stat, "fd's time filter must keep every file");
        assert_eq!(total, theirs, "Glob and fdfind disagree on the number of files");
        eprintln!("verified: Glob **/*.rs = fdfind -g '*.rs' ({total} files; Glob prints the newest 100)");
    }
}

fn grep_input(mode: &str) -> Value {
    match mode {
        "content" => json!({"pattern": needle(), "output_mode": "content", "-C": 2, "head_limit": 0}),
        mode => json!({"pattern": needle(), "output_mode": mode, "head_limit": 0}),
    }
}

/// One Grep query timed three ways.
macro_rules! grep_group {
    ($group:ident, $mode:literal, $rg:expr) => {
        mod $group {
            use super::*;

            #[divan::bench(sample_count = 20)]
            fn ours_library(bencher: divan::Bencher) {
                let (tool, ctx, input) = (find_tool("Grep"), ToolContext::new(tree()), grep_input($mode));
                bencher.bench_local(|| run_ours(&tool, &ctx, &input));
            }

            #[divan::bench(sample_count = 20)]
            fn ours_process(bencher: divan::Bencher) {
                let input = grep_input($mode);
                bencher.bench_local(|| run_ours_process("Grep", &input));
            }

            #[divan::bench(sample_count = 20)]
            fn rg_process(bencher: divan::Bencher) {
                if !on_path("rg") {
                    return;
                }
                let args = rg_grep_args(&$rg);
                bencher.bench_local(|| run_process("rg", &args));
            }
        }
    };
}

grep_group!(grep_files_with_matches, "files_with_matches", ["-l", needle()]);
grep_group!(grep_content_context_2, "content", ["-n", "-C", "2", needle()]);
grep_group!(grep_count, "count", ["-c", needle()]);

/// Glob `**/*.rs` timed against fd (parallel, unsorted) and Claude Code's rg command.
mod glob_rs_files {
    use super::*;

    #[divan::bench(sample_count = 20)]
    fn ours_library(bencher: divan::Bencher) {
        let (tool, ctx, input) = (find_tool("Glob"), ToolContext::new(tree()), json!({"pattern": "**/*.rs"}));
        bencher.bench_local(|| run_ours(&tool, &ctx, &input));
    }

    #[divan::bench(sample_count = 20)]
    fn ours_process(bencher: divan::Bencher) {
        let input = json!({"pattern": "**/*.rs"});
        bencher.bench_local(|| run_ours_process("Glob", &input));
    }

    #[divan::bench(sample_count = 20)]
    fn fd_process(bencher: divan::Bencher) {
        if !on_path("fdfind") {
            return;
        }
        let args = fd_args(false);
        bencher.bench_local(|| run_process("fdfind", &args));
    }

    #[divan::bench(sample_count = 20)]
    fn fd_with_stat_process(bencher: divan::Bencher) {
        if !on_path("fdfind") {
            return;
        }
        let args = fd_args(true);
        bencher.bench_local(|| run_process("fdfind", &args));
    }

    #[divan::bench(sample_count = 20)]
    fn rg_files_sorted_process(bencher: divan::Bencher) {
        if !on_path("rg") {
            return;
        }
        let args = rg_files_args();
        bencher.bench_local(|| run_process("rg", &args));
    }
}

/// The fixed cost of starting a process through the helper: `rg --version`.
#[divan::bench(sample_count = 50)]
fn process_floor(bencher: divan::Bencher) {
    if !on_path("rg") {
        return;
    }
    let args = vec!["--version".to_owned()];
    bencher.bench_local(|| run_process("rg", &args));
}
