//! What the pipeline adds: a no-op tool through all seven steps (no hooks) against calling
//! it directly, and ten concurrency-safe 50 ms calls in one message against one.
//!
//! `cargo bench -p toolgate-pipeline --bench overhead`
//!
//! A measured run (`--bench`) then also alternates batches of the two single calls round by
//! round and prints that table (`interleaved_seven_steps`, `interleaved_direct_call`), which
//! `cargo xtask bench` reads for its row 5a: load that changes between divan's blocks moves
//! their ratio, not the interleaved one.

use std::time::Duration;

use serde_json::json;
use toolgate_core::{PermissionMode, ToolBuilder, ToolContext, ToolOutput, ToolPool};
use toolgate_pipeline::{Session, ToolCall};

#[path = "../../../bench/interleave.rs"]
mod interleave;

fn main() {
    divan::main();
    if std::env::args().any(|a| a == "--bench") {
        interleaved();
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap_or_else(|e| panic!("runtime: {e}"))
}

fn noop() -> toolgate_core::DynTool {
    ToolBuilder::new("Noop")
        .schema(json!({"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": false}))
        .call(|_, _| async { Ok(ToolOutput::text("ok")) })
        .build()
}

fn session() -> Session {
    Session::builder()
        .pool(ToolPool::builder().builtin(noop()).build())
        .cwd("/tmp")
        .mode(PermissionMode::BypassPermissions)
        .build()
}

#[divan::bench]
fn direct_call(bencher: divan::Bencher) {
    let rt = runtime();
    let tool = noop();
    let ctx = ToolContext::new("/tmp");
    let input = json!({"n": 1});
    bencher.bench_local(|| rt.block_on(tool.call(input.clone(), &ctx)));
}

#[divan::bench]
fn seven_steps(bencher: divan::Bencher) {
    let rt = runtime();
    let session = session();
    bencher.bench_local(|| rt.block_on(session.run_message(vec![ToolCall::new("t", "Noop", json!({"n": 1}))])));
}

/// The two single calls, in batches of 200, alternated round by round.
fn interleaved() {
    let rt = runtime();
    let (tool, ctx, input, session) = (noop(), ToolContext::new("/tmp"), json!({"n": 1}), session());
    let direct = || drop(divan::black_box(rt.block_on(tool.call(input.clone(), &ctx))));
    let piped =
        || drop(divan::black_box(rt.block_on(session.run_message(vec![ToolCall::new("t", "Noop", json!({"n": 1}))]))));
    let [ours, theirs] = interleave::alternate(300, 200, &piped, &direct);
    interleave::print("interleaved", &mut [("interleaved_seven_steps", ours), ("interleaved_direct_call", theirs)]);
}

fn sleeper() -> toolgate_core::DynTool {
    ToolBuilder::new("Sleep")
        .concurrency_safe(true)
        .call(|_, _| async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok(ToolOutput::text("slept"))
        })
        .build()
}

#[divan::bench(args = [1, 10], sample_count = 10, sample_size = 1)]
fn concurrent_50ms_calls(bencher: divan::Bencher, n: usize) {
    let rt = runtime();
    let session = Session::builder()
        .pool(ToolPool::builder().builtin(sleeper()).build())
        .cwd("/tmp")
        .mode(PermissionMode::BypassPermissions)
        .build();
    bencher.bench_local(|| {
        let calls = (0..n).map(|i| ToolCall::new(format!("t{i}"), "Sleep", json!({}))).collect();
        rt.block_on(session.run_message(calls))
    });
}
