//! One no-op hook through the [`HookRunner`] versus `sh -c true` through the process
//! helper directly: what the runner adds on top of spawning the process.
//!
//! Run with `cargo bench -p toolgate-hooks`.

use serde_json::json;
use toolgate_core::CancellationToken;
use toolgate_core::process::ProcessSpec;
use toolgate_hooks::{CommonInput, HookRunner, HookSource, HooksConfig, PreToolUseInput};

fn main() {
    divan::main();
}

fn runtime() -> tokio::runtime::Runtime {
    match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => panic!("no tokio runtime: {e}"),
    }
}

fn project() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => panic!("no temp dir: {e}"),
    }
}

/// `sh -c true` spawned, waited for and reaped through the process helper.
#[divan::bench]
fn process_helper_sh_true(bencher: divan::Bencher<'_, '_>) {
    let rt = runtime();
    let dir = project();
    let cancel = CancellationToken::new();
    let spec = ProcessSpec::shell("true").cwd(dir.path());
    bencher.bench_local(|| rt.block_on(spec.run(&cancel)));
}

/// A `PreToolUse` hook running `true`, through the whole runner: select, serialize the
/// input, spawn with stdin, read, combine the outcome.
#[divan::bench]
fn runner_noop_hook(bencher: divan::Bencher<'_, '_>) {
    let rt = runtime();
    let dir = project();
    let settings =
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}});
    let config = HooksConfig::builder().add(HookSource::project("/bench/.claude/settings.json"), &settings).build();
    let runner = HookRunner::new(config, dir.path());
    let input = PreToolUseInput {
        common: CommonInput::new("bench", "/bench/t.jsonl", dir.path().to_string_lossy()),
        tool_name: "Bash".into(),
        tool_input: json!({"command": "npm test", "description": "Run tests"}),
        tool_use_id: "toolu_bench".into(),
    };
    let cancel = CancellationToken::new();
    bencher.bench_local(|| rt.block_on(runner.pre_tool_use(&input, &cancel)));
}
