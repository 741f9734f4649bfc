//! The crash test: a child process rewrites a large file in a loop, in turn with Edit,
//! Write, MultiEdit and ApplyPatch, and is killed with SIGKILL at a random moment, 50
//! times; after every kill the file holds one whole generation of content, never a mix or
//! a cut, and the next process to write there removes what the kills left behind. Every other
//! kill is aimed inside a write (just after its temporary file appears), since a moment
//! picked at random mostly falls outside the short time a write takes.
//!
//! The child is this test binary itself, re-run through the process helper with
//! `--exact crash::crash_child` and [`CHILD_ENV`] naming the file; without that variable
//! (every ordinary run) `crash_child` returns at once.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::json;
use tokio::io::{AsyncBufReadExt as _, BufReader};
use toolgate_core::ToolContext;
use toolgate_core::process::ProcessSpec;

use crate::common::{Fixture, tool};

/// Set in the child's environment to the file it rewrites.
const CHILD_ENV: &str = "TOOLGATE_FILES_CRASH_CHILD";

/// Lines of the rewritten file (about 1.7 MB).
const LINES: usize = 50_000;

/// How many times the child is killed.
const ROUNDS: usize = 50;

/// The whole content of generation `g`: every line names it, so any mix of two
/// generations, or a cut, is visible.
fn content(g: u64) -> String {
    let mut out = String::with_capacity(LINES * 36);
    let _ = writeln!(out, "generation {g}.");
    for i in 0..LINES {
        let _ = writeln!(out, "line {i} of generation {g}.");
    }
    out
}

/// The generation named on the first line of `bytes`.
fn generation_of(bytes: &[u8]) -> Option<u64> {
    let first = bytes.split(|&b| b == b'\n').next()?;
    std::str::from_utf8(first).ok()?.strip_prefix("generation ")?.strip_suffix('.')?.parse().ok()
}

/// An envelope patch that turns generation `from` into generation `to`: one hunk
/// replacing every line.
fn whole_file_patch(path: &Path, from: u64, to: u64) -> String {
    let mut patch = format!("*** Begin Patch\n*** Update File: {}\n@@\n", path.display());
    for line in content(from).lines() {
        let _ = writeln!(patch, "-{line}");
    }
    for line in content(to).lines() {
        let _ = writeln!(patch, "+{line}");
    }
    patch.push_str("*** End Patch\n");
    patch
}

/// Child mode (see the module docs).
#[test]
fn crash_child() {
    let Some(path) = std::env::var_os(CHILD_ENV).map(PathBuf::from) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        let ctx = ToolContext::new(path.parent().unwrap());
        let (read, edit, write) = (tool("Read"), tool("Edit"), tool("Write"));
        let (multi_edit, apply_patch) = (tool("MultiEdit"), tool("ApplyPatch"));
        read.call(json!({"file_path": path, "limit": 1}), &ctx).await.unwrap();
        let mut generation = generation_of(&std::fs::read(&path).unwrap()).unwrap();
        let mut stdout = std::io::stdout();
        for step in 0u64.. {
            let next = generation + 1;
            let (old, new) = (format!("generation {generation}."), format!("generation {next}."));
            match step % 4 {
                0 => {
                    let input = json!({"file_path": path, "old_string": old, "new_string": new, "replace_all": true});
                    edit.call(input, &ctx).await.unwrap();
                }
                1 => {
                    write.call(json!({"file_path": path, "content": content(next)}), &ctx).await.unwrap();
                }
                2 => {
                    let edits = json!([{"old_string": old, "new_string": new, "replace_all": true}]);
                    multi_edit.call(json!({"file_path": path, "edits": edits}), &ctx).await.unwrap();
                }
                _ => {
                    apply_patch.call(json!({"patch": whole_file_patch(&path, generation, next)}), &ctx).await.unwrap();
                }
            }
            generation = next;
            writeln!(stdout, "gen {generation}").unwrap();
            stdout.flush().unwrap();
        }
    });
}

/// A small xorshift generator: random kill moments without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The names of the temporary files beside the target.
fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".toolgate-tmp") || n.ends_with(".toolgate-bak"))
        .collect()
}

/// Returns as soon as a temporary file appears that was not there when it was called
/// (one a kill left behind earlier does not count), or after ten seconds.
async fn wait_for_new_temp_file(dir: &Path) {
    let before = temp_files(dir);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        if temp_files(dir).iter().any(|n| !before.contains(n)) {
            return;
        }
        tokio::task::yield_now().await;
    }
}

fn parse_gen(line: &str) -> Option<u64> {
    line.strip_prefix("gen ")?.trim().parse().ok()
}

fn check(path: &Path, acked: u64, round: usize, seed: u64) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    let g = generation_of(&bytes).unwrap_or_else(|| panic!("round {round} (seed {seed}): the first line is damaged"));
    assert!(
        bytes == content(g).as_bytes(),
        "round {round} (seed {seed}): the file is not a whole generation {g} ({} bytes)",
        bytes.len()
    );
    // Every acknowledged write is on disk; at most one more landed before the kill.
    assert!(g == acked || g == acked + 1, "round {round} (seed {seed}): generation {g} after {acked} was acknowledged");
    g
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_and_edits_survive_sigkill_at_random_moments() {
    let fx = Fixture::new();
    let path = fx.path("big.txt");
    std::fs::write(&path, content(0)).unwrap();
    let exe = std::env::current_exe().unwrap();
    let seed = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1) | 1;
    let mut rng = Rng(seed);
    let mut generation = 0;
    for round in 0..ROUNDS {
        let mut child = ProcessSpec::exec(&exe, ["--exact", "crash::crash_child", "--nocapture", "--test-threads=1"])
            .cwd(fx.root())
            .env(CHILD_ENV, &path)
            .discard_stderr()
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.take_stdout().unwrap()).lines();
        // Wait until the child is in its loop (one write done), then kill it at a random
        // moment of the following writes.
        let mut acked = loop {
            let line = tokio::time::timeout(Duration::from_secs(120), lines.next_line()).await;
            match line {
                Ok(Ok(Some(line))) => {
                    if let Some(g) = parse_gen(&line) {
                        break g;
                    }
                }
                other => panic!("round {round}: the child stopped before its first write: {other:?}"),
            }
        };
        if round % 2 == 0 {
            // Any moment: reading, replacing, writing, renaming.
            tokio::time::sleep(Duration::from_micros(rng.next() % 60_000)).await;
        } else {
            // Inside a write: once its temporary file appears, within the next millisecond.
            wait_for_new_temp_file(&fx.root()).await;
            std::thread::sleep(Duration::from_micros(rng.next() % 1_000));
        }
        child.kill();
        child.wait().await.unwrap();
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(g) = parse_gen(&line) {
                acked = g;
            }
        }
        generation = check(&path, acked, round, seed);
    }
    assert!(generation >= ROUNDS as u64, "the child made too little progress: generation {generation}");
    // What a kill can leave behind is a temporary file or backup beside the target, never
    // another name.
    let names = || -> Vec<String> {
        std::fs::read_dir(fx.root()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
    };
    let mut interrupted = 0;
    for name in names() {
        assert!(
            name == "big.txt"
                || (name.starts_with(".big.txt.")
                    && (name.ends_with(".toolgate-tmp") || name.ends_with(".toolgate-bak"))),
            "{name}"
        );
        interrupted += usize::from(name != "big.txt");
    }
    // Each leftover is a kill that landed in the middle of a write.
    eprintln!("{interrupted} of {ROUNDS} kills interrupted a write (seed {seed}); generation {generation}");
    // The next start: this process's first write into the directory sweeps them away.
    let ctx = ToolContext::new(fx.root());
    tool("Read").call(json!({"file_path": path, "limit": 1}), &ctx).await.unwrap();
    let input = json!({"file_path": path, "old_string": format!("generation {generation}."), "new_string": "final.", "replace_all": true});
    tool("Edit").call(input, &ctx).await.unwrap();
    assert_eq!(names(), ["big.txt"], "no temporary file or backup is left after the next write");
}
