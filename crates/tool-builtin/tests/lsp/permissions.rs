//! The LSP tool under the real permission engine: it reads, so `Read(...)` rules govern
//! the file it is asked about (its normalized, absolute `filePath`), and reads inside the
//! working directories need no approval.

use serde_json::{Value, json};
use toolgate_builtin::lsp::ServerConfig;
use toolgate_core::{DynTool, PermissionBehavior, RuleSource};
use toolgate_permissions::{LoadedSettings, PermissionEngine, SettingsFile};

use crate::support::{Project, servers};

fn engine(project: &Project, rules: Value) -> PermissionEngine {
    let mut loaded = LoadedSettings::default();
    loaded.add(SettingsFile {
        source: RuleSource::ProjectSettings,
        origin: project.path(".claude/settings.json").display().to_string(),
        anchor: project.root(),
        value: json!({"permissions": rules}),
    });
    let (settings, diagnostics) = loaded.permissions();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    PermissionEngine::builder(settings).home(None).cwd(project.root()).build()
}

fn decide(engine: &PermissionEngine, project: &Project, tool: &DynTool, file: &str) -> (PermissionBehavior, String) {
    let ctx = project.ctx();
    let input = json!({"operation": "hover", "filePath": file, "line": 1, "character": 1});
    let normalized = tool.normalize_input(&input, &ctx);
    assert!(normalized["filePath"].as_str().unwrap().starts_with('/'), "{normalized}");
    let evaluation = engine.evaluate(tool.as_ref(), &normalized, &ctx, None);
    (evaluation.decision.behavior, evaluation.decision.reason.kind().to_owned())
}

#[test]
fn read_rules_govern_the_file_asked_about() {
    let project = Project::new();
    project.write("secrets/keys.ts", "export const key = 1;\n");
    let (_servers, tool) =
        servers([ServerConfig::new("typescript", "typescript-language-server", ["--stdio"], [(".ts", "typescript")])]);
    let input = json!({"operation": "findReferences", "filePath": "src/greet.ts", "line": 2, "character": 17});
    assert!(tool.is_read_only(&input) && tool.is_concurrency_safe(&input));

    let denied = engine(&project, json!({"deny": ["Read(./secrets/**)"]}));
    assert_eq!(decide(&denied, &project, &tool, "secrets/keys.ts"), (PermissionBehavior::Deny, "rule".to_owned()));
    assert_eq!(
        decide(&denied, &project, &tool, "src/../secrets/keys.ts"),
        (PermissionBehavior::Deny, "rule".to_owned())
    );
    // The first call starts the server: no read on its own (see the next test).
    assert_eq!(decide(&denied, &project, &tool, "src/greet.ts"), (PermissionBehavior::Ask, "default".to_owned()));
    // A bare LSP deny removes the tool; an LSP(...) rule is a Read-style path rule too.
    let by_name = engine(&project, json!({"deny": ["LSP(./src/main.ts)"]}));
    assert_eq!(decide(&by_name, &project, &tool, "src/main.ts"), (PermissionBehavior::Deny, "rule".to_owned()));
    let allowed = engine(&project, json!({"deny": ["LSP(./src/main.ts)"], "allow": ["LSP"]}));
    assert_eq!(decide(&allowed, &project, &tool, "src/greet.ts"), (PermissionBehavior::Allow, "rule".to_owned()));
    // Outside the working directories a read is not automatic.
    let none = engine(&project, json!({}));
    let outside = decide(&none, &project, &tool, "/etc/hostname.ts");
    assert_ne!(outside.0, PermissionBehavior::Allow, "{outside:?}");
}

/// Starting a language server is execution (rust-analyzer runs build scripts and proc macros):
/// the first call for a server and workspace asks, naming the command, unless a rule or a mode
/// approves it; once the server runs, calls to it are reads again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn starting_a_language_server_is_not_a_read() {
    let Some(server) = crate::support::fake_server("config") else { return };
    let project = Project::new();
    project.write("src/a.fake", "x\n");
    let (servers, tool) = servers([server]);
    let none = engine(&project, json!({}));
    let ctx = project.ctx();
    let input = json!({"operation": "hover", "filePath": "src/a.fake", "line": 1, "character": 1});
    let normalized = tool.normalize_input(&input, &ctx);
    let first = none.evaluate(tool.as_ref(), &normalized, &ctx, None).decision;
    assert_eq!(first.behavior, PermissionBehavior::Ask);
    assert!(
        first.message.contains("starts the language server `node ") && first.message.contains("fake-server.js"),
        "{}",
        first.message
    );
    let suggested = none.evaluate(tool.as_ref(), &normalized, &ctx, None).suggestions;
    assert_eq!(suggested, ["LSP"], "the rule that approves starting it");
    // A Read rule approves reads, not the program: only a rule naming LSP does.
    let read_rule = engine(&project, json!({"allow": ["Read(/src/**)"]}));
    assert_eq!(read_rule.evaluate(tool.as_ref(), &normalized, &ctx, None).decision.behavior, PermissionBehavior::Ask);
    let lsp_rule = engine(&project, json!({"allow": ["LSP(/src/**)"]}));
    assert_eq!(lsp_rule.evaluate(tool.as_ref(), &normalized, &ctx, None).decision.behavior, PermissionBehavior::Allow);
    let mut bypass = project.ctx();
    bypass.permission_mode = toolgate_core::PermissionMode::BypassPermissions;
    assert_eq!(none.evaluate(tool.as_ref(), &normalized, &bypass, None).decision.behavior, PermissionBehavior::Allow);
    // Approved once (here: called directly), the running server is read from without asking.
    let _ = crate::support::call(&tool, input, &ctx).await;
    assert_eq!(servers.running().await.len(), 1);
    assert_eq!(decide(&none, &project, &tool, "src/a.fake"), (PermissionBehavior::Allow, "tool".to_owned()));
    servers.shutdown().await;
}

/// An approval to start a server for a workspace is remembered where the servers keep
/// approvals: a later session (new servers, none running) starts the same command for the same
/// workspace without asking, while another workspace, or the same server with another command
/// line, asks again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_start_is_remembered_for_that_server_and_project() {
    let Some(server) = crate::support::fake_server("config") else { return };
    let project = Project::new();
    project.write("src/a.fake", "x\n");
    let record = tempfile::tempdir().unwrap();
    let approvals = toolgate_builtin::lsp::LspApprovals::at(record.path().join("lsp-approved.json"));
    let session = |config: ServerConfig| {
        let servers = std::sync::Arc::new(
            toolgate_builtin::lsp::LspServers::new(toolgate_builtin::lsp::LspConfig::with_servers([config]))
                .with_approvals(approvals.clone()),
        );
        let tool = toolgate_builtin::lsp::tool_with(servers.clone());
        (servers, tool)
    };
    let none = engine(&project, json!({}));
    let (first, tool) = session(server.clone());
    assert_eq!(decide(&none, &project, &tool, "src/a.fake").0, PermissionBehavior::Ask);
    // Approved (here: called directly), the server starts, and the approval is kept.
    let input = json!({"operation": "hover", "filePath": "src/a.fake", "line": 1, "character": 1});
    let _ = crate::support::call(&tool, input, &project.ctx()).await;
    assert_eq!(first.running().await.len(), 1);
    first.shutdown().await;

    let (later, tool) = session(server.clone());
    assert!(later.running().await.is_empty());
    assert_eq!(decide(&none, &project, &tool, "src/a.fake"), (PermissionBehavior::Allow, "tool".to_owned()));

    let other = Project::new();
    other.write("src/a.fake", "x\n");
    assert_eq!(decide(&engine(&other, json!({})), &other, &tool, "src/a.fake").0, PermissionBehavior::Ask);
    let mut changed = server;
    changed.args.push("--extra".into());
    let (_changed, tool) = session(changed);
    assert_eq!(decide(&none, &project, &tool, "src/a.fake").0, PermissionBehavior::Ask);
}
