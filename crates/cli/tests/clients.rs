//! The configuration snippets of `docs/mcp-clients.md` start a working server: each JSON
//! snippet's stdio `command` and `args` are run as an MCP client would run them (`toolgate`
//! being the binary under test, `/path/to/project` a temporary project), and the server must
//! answer `initialize` and list its tools. The TOML and YAML snippets must name the same
//! command and arguments as the JSON ones.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{Value, json};
use toolgate_core::CancellationToken;
use toolgate_core::process::ProcessSpec;

/// The fenced blocks of the document, with their language.
fn snippets(doc: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if let Some(lang) = line.strip_prefix("```").filter(|l| !l.is_empty()) {
            let body: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
            out.push((lang.to_owned(), body.join("\n")));
        }
    }
    out
}

#[tokio::test]
async fn every_documented_client_configuration_starts_a_working_server() {
    let doc = include_str!("../../../docs/mcp-clients.md");
    let all = snippets(doc);
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("notes.txt"), "hello\n").unwrap();
    let mut stdio = 0;
    for (_, body) in all.iter().filter(|(lang, _)| lang == "json") {
        let config: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
        let server = &config["mcpServers"]["toolgate"];
        if server["type"] == "http" {
            assert!(server["url"].as_str().unwrap().ends_with("/mcp"), "{body}");
            continue;
        }
        assert_eq!(server["command"], "toolgate", "{body}");
        let args: Vec<String> = server["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().replace("/path/to/project", &project.path().display().to_string()))
            .collect();
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "docs", "version": "1"}}});
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let input = format!("{init}\n{initialized}\n{list}\n");
        let run = ProcessSpec::exec(env!("CARGO_BIN_EXE_toolgate"), &args)
            .cwd(project.path())
            .env("HOME", project.path())
            .env("TOOLGATE_NO_PROMPT", "1")
            .stdin(input.into_bytes())
            .timeout(Duration::from_secs(30))
            .run(&CancellationToken::new())
            .await
            .unwrap();
        let out = run.stdout.text().into_owned();
        let answers: Vec<Value> = out.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        let tools = answers.iter().find(|a| a["id"] == 1).unwrap_or_else(|| panic!("no tools/list answer: {out}"));
        let names: Vec<&str> =
            tools["result"]["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
        assert!(names.contains(&"Read") && names.contains(&"Bash"), "{names:?}");
        stdio += 1;
    }
    assert_eq!(stdio, 3, "Claude Desktop, Claude Code and Cursor");
    let toml = &all.iter().find(|(lang, _)| lang == "toml").unwrap().1;
    assert!(toml.contains("command = \"toolgate\"") && toml.contains("args = [\"mcp\", \"serve\"]"), "{toml}");
    let yaml = &all.iter().find(|(lang, _)| lang == "yaml").unwrap().1;
    assert!(yaml.contains("cmd: toolgate") && yaml.contains("args: [mcp, serve]"), "{yaml}");
}
