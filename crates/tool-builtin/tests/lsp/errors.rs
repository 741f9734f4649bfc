//! Every bad input and every broken server is an error the model can act on: what went
//! wrong and what to do instead. None of these needs a working server except where named.

use std::time::Duration;

use serde_json::{Value, json};
use toolgate_builtin::lsp::ServerConfig;
use toolgate_core::ToolErrorKind;

use crate::support::{Project, error, fake_server, is_dead, servers, text};

fn at(op: &str, file: &str, line: u32, character: u32) -> Value {
    json!({"operation": op, "filePath": file, "line": line, "character": character})
}

/// A server that is never started by these inputs (validation stops them first).
fn unused_server() -> ServerConfig {
    ServerConfig::new("typescript", "toolgate-test-never-started", ["--stdio"], [(".ts", "typescript")])
}

#[tokio::test]
async fn bad_inputs_are_errors_with_hints_before_any_server_starts() {
    let project = Project::new();
    project.write("notes/readme.md", "# notes\n");
    let (servers, tool) = servers([unused_server()]);
    let ctx = project.ctx();

    let e = error(&tool, at("goToTypeDefinition", "src/greet.ts", 1, 1), &ctx).await;
    assert_eq!(e.kind(), ToolErrorKind::InvalidInput);
    let text = e.to_model_text();
    assert!(
        text.contains("operation") && text.contains("\"goToDefinition\"") && text.contains("\"outgoingCalls\""),
        "{text}"
    );

    let e = error(&tool, at("hover", "src/greet.ts", 0, 1), &ctx).await;
    assert!(e.to_model_text().contains("line: must be at least 1, got 0"), "{}", e.to_model_text());
    let e = error(&tool, at("hover", "src/greet.ts", 1, 0), &ctx).await;
    assert!(e.to_model_text().contains("character: must be at least 1, got 0"), "{}", e.to_model_text());

    let e = error(&tool, json!({"operation": "hover", "filePath": "src/greet.ts", "line": 1}), &ctx).await;
    assert!(e.to_model_text().contains("missing required field 'character'"), "{}", e.to_model_text());
    let mut extra = at("hover", "src/greet.ts", 1, 1);
    extra["column"] = json!(3);
    let e = error(&tool, extra, &ctx).await;
    assert!(e.to_model_text().contains("column"), "{}", e.to_model_text());

    let e = error(&tool, at("hover", "src/greet.ts", 40, 1), &ctx).await;
    assert_eq!(e.kind(), ToolErrorKind::InvalidInput);
    assert_eq!(
        e.to_model_text(),
        format!(
            "line 40 is past the end of {}, which has 8 lines\n\
             Lines are 1-based, as editors show them: give a line from 1 to 8.",
            project.path("src/greet.ts").display()
        )
    );
    let e = error(&tool, at("findReferences", "src/greet.ts", 2, 60), &ctx).await;
    assert!(e.message().starts_with("character 60 is past the end of line 2 of "), "{}", e.message());
    assert!(e.message().ends_with("which has 45 characters"), "{}", e.message());
    assert!(e.hint().unwrap().contains("from 1 to 46"), "{:?}", e.hint());

    let e = error(&tool, at("hover", "src/gret.ts", 1, 1), &ctx).await;
    assert_eq!(e.kind(), ToolErrorKind::NotFound);
    assert!(e.message().starts_with("File does not exist: "), "{}", e.message());
    assert!(e.hint().unwrap().contains("greet.ts"), "the nearest file is suggested: {:?}", e.hint());

    let e = error(&tool, at("documentSymbol", "src", 1, 1), &ctx).await;
    assert!(e.message().ends_with("is a directory, not a file"), "{}", e.message());

    let e = error(&tool, at("hover", "notes/readme.md", 1, 1), &ctx).await;
    assert_eq!(e.kind(), ToolErrorKind::InvalidInput);
    assert_eq!(e.message(), "no language server is configured for .md files (configured: .ts → typescript)");
    assert!(e.hint().unwrap().contains("TOOLGATE_LSP_SERVERS"), "{:?}", e.hint());

    // The position is not checked where it is ignored.
    let e = error(&tool, at("documentSymbol", "src/greet.ts", 400, 400), &ctx).await;
    assert!(e.message().contains("toolgate-test-never-started"), "only the server is missing: {}", e.message());
    servers.shutdown().await;
}

#[tokio::test]
async fn a_server_that_is_not_installed_names_the_program_and_the_setting() {
    let project = Project::new();
    let (servers, tool) = servers([unused_server()]);
    let e = error(&tool, at("hover", "src/greet.ts", 2, 17), &project.ctx()).await;
    assert_eq!(e.kind(), ToolErrorKind::NotFound);
    assert_eq!(
        e.message(),
        "the language server `toolgate-test-never-started` (server `typescript`) is not installed: not found on PATH"
    );
    let hint = e.hint().unwrap();
    assert!(hint.contains("the `typescript` entry of TOOLGATE_LSP_SERVERS configures it"), "{hint}");
    assert!(hint.contains("Grep and Read"), "{hint}");
    assert!(servers.running().await.is_empty());
}

#[tokio::test]
async fn the_built_in_rust_analyzer_default_says_how_to_install_or_replace_it() {
    let project = Project::new();
    project.write("src/lib.rs", "pub fn f() {}\n");
    let mut config = toolgate_builtin::lsp::LspConfig::defaults();
    config.servers[0].command = "toolgate-test-no-rust-analyzer".into();
    let servers = std::sync::Arc::new(toolgate_builtin::lsp::LspServers::new(config));
    let tool = toolgate_builtin::lsp::tool_with(servers);
    let e = error(&tool, at("hover", "src/lib.rs", 1, 8), &project.ctx()).await;
    let hint = e.hint().unwrap();
    assert!(hint.contains("built-in default for .rs") && hint.contains("TOOLGATE_LSP_SERVERS"), "{hint}");
}

#[tokio::test]
async fn a_server_that_dies_at_start_is_reported_with_its_exit_and_stderr() {
    let project = Project::new();
    project.write("src/a.fake", "x\n");
    let dies = ServerConfig::new("dies", "sh", ["-c", "echo 'fatal: no toolchain' >&2; exit 3"], [(".fake", "fake")]);
    let (servers, tool) = servers([dies]);
    let e = error(&tool, at("hover", "src/a.fake", 1, 1), &project.ctx()).await;
    assert_eq!(e.kind(), ToolErrorKind::Io);
    let text = e.to_model_text();
    assert!(text.starts_with("the language server `dies` exited (exit code 3) while handling initialize"), "{text}");
    assert!(text.contains("fatal: no toolchain"), "{text}");
    assert!(text.contains("started again on the next call"), "{text}");
    assert!(servers.running().await.is_empty());
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_with_a_clear_message() {
    let project = Project::new();
    project.write("src/a.fake", "x\n");
    let mute = ServerConfig::new("mute", "sleep", ["600"], [(".fake", "fake")])
        .with_startup_timeout(Duration::from_millis(300));
    let (servers, tool) = servers([mute]);
    let e = error(&tool, at("hover", "src/a.fake", 1, 1), &project.ctx()).await;
    assert_eq!(e.kind(), ToolErrorKind::Timeout, "{}", e.to_model_text());
    assert_eq!(e.message(), "the language server `mute` did not answer initialize within 300 ms");
    assert!(e.hint().unwrap().contains("startupTimeout"), "{:?}", e.hint());
    assert!(servers.running().await.is_empty(), "a server that failed to start is stopped");
}

#[tokio::test]
async fn a_server_that_sends_garbage_is_reported() {
    let project = Project::new();
    project.write("src/a.fake", "x\n");
    let garbage = ServerConfig::new(
        "garbage",
        "sh",
        ["-c", "printf 'Content-Length: 5\\r\\n\\r\\nnope!'; exec cat >/dev/null"],
        [(".fake", "fake")],
    );
    let (servers, tool) = servers([garbage]);
    let e = error(&tool, at("hover", "src/a.fake", 1, 1), &project.ctx()).await;
    assert!(e.message().contains("not valid JSON"), "{}", e.to_model_text());
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_the_server_never_answers_times_out_and_the_server_stays() {
    let Some(server) = fake_server("silent-hover") else { return };
    let project = Project::new();
    project.write("src/a.fake", "x\n");
    let (servers, tool) = servers([server.with_request_timeout(Duration::from_millis(300))]);
    let e = error(&tool, at("hover", "src/a.fake", 1, 1), &project.ctx()).await;
    assert_eq!(e.kind(), ToolErrorKind::Timeout);
    assert_eq!(e.message(), "the language server `fake` did not answer textDocument/hover within 300 ms");
    assert!(e.hint().unwrap().contains("requestTimeout"), "{:?}", e.hint());
    assert_eq!(servers.running().await.len(), 1, "a slow answer is not a crash");
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_stops_waiting() {
    let Some(server) = fake_server("silent-hover") else { return };
    let project = Project::new();
    project.write("src/a.fake", "x\n");
    let (servers, tool) = servers([server]);
    let ctx = project.ctx();
    let cancel = ctx.cancel.clone();
    let (e, ()) = tokio::join!(error(&tool, at("hover", "src/a.fake", 1, 1), &ctx), async {
        // Cancel once the server is up and the hover is in flight.
        while servers.running().await.is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        cancel.cancel();
    });
    assert_eq!(e.kind(), ToolErrorKind::Cancelled);
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_operations_say_so() {
    let Some(server) = fake_server("no-features") else { return };
    let project = Project::new();
    project.write("src/a.fake", "x\n");
    let (servers, tool) = servers([server]);
    let e = error(&tool, at("incomingCalls", "src/a.fake", 1, 1), &project.ctx()).await;
    assert_eq!(e.kind(), ToolErrorKind::InvalidInput);
    assert!(e.message().starts_with("the language server `fake` does not support incomingCalls"), "{}", e.message());
    assert_eq!(e.hint(), Some("Use another operation, or Grep and Read."));
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_requests_are_answered_from_the_configured_settings() {
    let Some(server) = fake_server("config") else { return };
    let project = Project::new();
    project.write("src/a.fake", "x\n");
    let mut server = server;
    server.settings = Some(json!({"fake": {"answer": {"level": 42}}}));
    let (servers, tool) = servers([server]);
    let out = text(&tool, at("hover", "src/a.fake", 1, 1), &project.ctx()).await;
    assert_eq!(out, "Hover information at 1:1:\n\nconfigured: {\"level\":42}");
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_crashing_on_every_request_is_given_up_after_its_restarts() {
    let Some(mut server) = fake_server("crash-on-request") else { return };
    server.max_restarts = 2;
    let project = Project::new();
    project.write("src/a.fake", "x\n");
    let (servers, tool) = servers([server]);
    let ctx = project.ctx();
    let hover = at("hover", "src/a.fake", 1, 1);
    // Each call: the server crashes, is started again once, and crashes again.
    let first = error(&tool, hover.clone(), &ctx).await;
    assert!(first.message().contains("exited (exit code 3) while handling textDocument/hover"), "{}", first.message());
    assert!(first.message().contains("fake server: crashing on textDocument/hover"), "{}", first.message());
    let second = error(&tool, hover.clone(), &ctx).await;
    assert!(second.message().contains("crashed 3 times and is not restarted again"), "{}", second.to_model_text());
    let third = error(&tool, hover, &ctx).await;
    assert_eq!(third.message(), second.message(), "it stays given up");
    assert!(servers.running().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_manager_kills_its_servers() {
    let Some(server) = fake_server("config") else { return };
    let project = Project::new();
    project.write("src/a.fake", "x\n");
    let (servers, tool) = servers([server]);
    let _ = text(&tool, at("hover", "src/a.fake", 1, 1), &project.ctx()).await;
    let pid = servers.running().await[0].pid.unwrap();
    // A host that never calls shutdown still leaves nothing behind.
    drop(tool);
    drop(servers);
    assert!(crate::support::eventually(|| is_dead(pid)).await, "{pid} outlived its manager");
}
