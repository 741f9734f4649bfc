//! Limits where a model or a peer controls size: regex programs in Grep, nesting in the
//! Bash analyser, glob expansion, and what a model's input may make a tool load. Each
//! limit fails closed with an error the model can act on, never a crash, a hang or
//! unbounded memory. (Hook output and MCP results are capped in `faults` and in
//! toolgate-mcp's `faults` tests; request bodies of the MCP server there too.)

use std::time::Duration;

use serde_json::json;
use toolgate_core::PermissionMode;
use toolgate_pipeline::{Session, ToolCall, ToolResultBlock};
use toolgate_shell::{Hazard, analyze, is_read_only};

fn text(r: &ToolResultBlock) -> String {
    r.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("\n")
}

fn session(root: &std::path::Path) -> Session {
    Session::builder()
        .cwd(root)
        .mode(PermissionMode::BypassPermissions)
        .builtin_tools(toolgate_builtin::all_builtin_tools())
        .build()
}

async fn run(session: &Session, calls: Vec<ToolCall>) -> Vec<ToolResultBlock> {
    tokio::time::timeout(Duration::from_secs(120), session.run_message(calls)).await.expect("the message finished")
}

/// A pattern whose compiled program would take gigabytes, and one nested past the parser's
/// limit, are refused with a hint; an ordinary pattern still works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grep_refuses_regex_programs_over_the_size_and_nest_limits() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "aaaa\n").unwrap();
    let session = session(dir.path());
    let deep = format!("{}a{}", "(".repeat(400), ")".repeat(400));
    let results = run(
        &session,
        vec![
            ToolCall::new("1", "Grep", json!({"pattern": "(((a{100}){100}){100}){100}"})),
            ToolCall::new("2", "Grep", json!({"pattern": "\\w{1000}\\w{1000}\\w{1000}"})),
            ToolCall::new("3", "Grep", json!({"pattern": deep})),
            ToolCall::new("4", "Grep", json!({"pattern": "a+", "output_mode": "count"})),
        ],
    )
    .await;
    for r in &results[..3] {
        let shown = text(r);
        assert!(r.is_error, "{shown}");
        assert!(shown.contains("limit"), "{shown}");
        assert!(shown.contains("too large") || shown.contains("nest"), "{shown}");
    }
    assert!(!results[3].is_error, "{}", text(&results[3]));
}

/// Every shape of deep nesting, 5,000 levels deep, is analysed on a thread with a 1 MiB
/// stack (half of a tokio worker's) without overflowing it, and is never read-only.
#[test]
fn the_bash_analyser_caps_nesting_and_fails_closed() {
    const N: usize = 5_000;
    let shapes: Vec<(&str, String)> = vec![
        ("command substitution", format!("echo {}x{}", "$(echo ".repeat(N), ")".repeat(N))),
        ("subshells", format!("{}ls{}", "(".repeat(N), ")".repeat(N))),
        ("groups", format!("{}ls;{}", "{ ".repeat(N), " }".repeat(N))),
        ("backticks in quotes", format!("echo \"{}\"", "$(echo \"".repeat(N) + &"\")".repeat(N))),
        ("arithmetic", format!("echo $(({}1{}))", "(".repeat(N), ")".repeat(N))),
        ("if", format!("{}ls{}", "if true; then ".repeat(N), "; fi".repeat(N))),
        ("pipeline", vec!["cat"; N].join(" | ")),
        ("process substitution", format!("cat {}x{}", "<(cat ".repeat(N), ")".repeat(N))),
    ];
    let handle = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            shapes
                .into_iter()
                .map(|(name, command)| {
                    let analysis = analyze(&command);
                    (name, is_read_only(&analysis), analysis.hazards)
                })
                .collect::<Vec<_>>()
        })
        .unwrap();
    let outcomes = handle.join().expect("the analyser did not overflow a 1 MiB stack");
    for (name, read_only, hazards) in outcomes {
        if name == "pipeline" {
            // Wide, not deep: 5,000 commands are fine, and too long to be auto-approved.
            assert!(hazards.iter().any(|h| matches!(h, Hazard::TooLong { .. })), "{name}: {hazards:?}");
        }
        assert!(!read_only, "{name} must never be read-only");
        assert!(!hazards.is_empty(), "{name}: a hazard says why");
    }
}

/// A glob over a large tree lists at most 100 paths and says it truncated; a pattern of
/// many alternatives compiles or is refused, without hanging.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn glob_expansion_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..300 {
        std::fs::write(dir.path().join(format!("f{i}.txt")), "").unwrap();
    }
    let session = session(dir.path());
    let braces = format!("{{{}}}", (0..2_000).map(|i| format!("f{i}.txt")).collect::<Vec<_>>().join(","));
    let nested = format!("{}f1.txt{}", "{a,".repeat(200), "}".repeat(200));
    let results = run(
        &session,
        vec![
            ToolCall::new("1", "Glob", json!({"pattern": "**/*.txt"})),
            ToolCall::new("2", "Glob", json!({"pattern": braces})),
            ToolCall::new("3", "Glob", json!({"pattern": nested})),
        ],
    )
    .await;
    let listed = text(&results[0]);
    assert_eq!(listed.lines().filter(|l| l.ends_with(".txt")).count(), 100, "{listed}");
    assert!(listed.contains("100 most recently modified of 300"), "{listed}");
    let listed = text(&results[1]);
    assert!(results[1].is_error || listed.lines().filter(|l| l.ends_with(".txt")).count() <= 100, "{listed}");
    assert_eq!(results.len(), 3);
}

/// Read of a file far larger than its output limit reads a window, not the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_of_a_huge_file_is_a_window() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("huge.log");
    {
        use std::io::Write as _;
        let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
        for i in 0..2_000_000 {
            writeln!(out, "line {i} of a file far larger than any result").unwrap();
        }
        // One line of 50 MB without a newline at the end.
        out.write_all(&vec![b'z'; 50 * 1024 * 1024]).unwrap();
    }
    let session = session(dir.path());
    let results = run(
        &session,
        vec![
            ToolCall::new("1", "Read", json!({"file_path": file})),
            ToolCall::new("2", "Read", json!({"file_path": file, "offset": 2_000_001, "limit": 1})),
        ],
    )
    .await;
    for r in &results {
        assert!(text(r).len() <= 200_000, "{} bytes", text(r).len());
    }
}
