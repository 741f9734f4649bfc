//! The nine operations on typescript-language-server, a file changed on disk, a crashed
//! server restarted, and every server process gone after shutdown.

use serde_json::{Value, json};
use toolgate_core::CancellationToken;
use toolgate_core::process::ProcessSpec;

use crate::support::{Project, eventually, group_members, is_dead, servers, text, ts_server, tsls};

fn at(op: &str, file: &str, line: u32, character: u32) -> Value {
    json!({"operation": op, "filePath": file, "line": line, "character": character})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_nine_operations_answer_with_workspace_paths_and_one_based_positions() {
    let Some(bin) = tsls() else { return };
    let project = Project::new();
    let (servers, tool) = servers([ts_server(&bin)]);
    let ctx = project.ctx();

    // `greet(name)` in shout, line 7: the definition is in the same file.
    assert_eq!(
        text(&tool, at("goToDefinition", "src/greet.ts", 7, 10), &ctx).await,
        "Defined in src/greet.ts:2:17\n  export function greet(name: string): string {"
    );
    // `s.area()` in main.ts resolves to the interface method in another file (absolute
    // paths work as well as relative ones).
    let main = project.path("src/main.ts").display().to_string();
    assert_eq!(
        text(&tool, at("goToDefinition", &main, 7, 34), &ctx).await,
        "Defined in src/shapes.ts:2:3\n  area(): number;"
    );
    assert_eq!(
        text(&tool, at("findReferences", "src/greet.ts", 2, 17), &ctx).await,
        "Found 4 references across 2 files:\n\
         \nsrc/greet.ts:\
         \n  2:17: export function greet(name: string): string {\
         \n  7:10: return greet(name).toUpperCase();\n\
         \nsrc/main.ts:\
         \n  1:10: import { greet, shout } from './greet';\
         \n  7:17: journal.add(greet('area'), s.area());"
    );
    assert_eq!(
        text(&tool, at("hover", "src/greet.ts", 2, 17), &ctx).await,
        "Hover information at 2:17:\n\n```typescript\nfunction greet(name: string): string\n```\nSays hello."
    );
    assert_eq!(
        text(&tool, at("documentSymbol", "src/shapes.ts", 1, 1), &ctx).await,
        "Symbols in src/shapes.ts:\
         \n  Shape (Interface) - Line 1\
         \n    area (Method) - Line 2\
         \n  Square (Class) - Line 5\
         \n    constructor (Constructor) - Line 6\
         \n    side (Property) - Line 6\
         \n    area (Method) - Line 7\
         \n  Circle (Class) - Line 12\
         \n    constructor (Constructor) - Line 13\
         \n    radius (Property) - Line 13\
         \n    area (Method) - Line 14"
    );
    let mut symbols = at("workspaceSymbol", "src/main.ts", 1, 1);
    symbols["query"] = json!("Circle");
    assert_eq!(
        text(&tool, symbols, &ctx).await,
        "Found 1 symbol matching \"Circle\" in 1 file:\n\nsrc/shapes.ts:\n  Circle (Class) - 12:1"
    );
    assert_eq!(
        text(&tool, at("goToImplementation", "src/shapes.ts", 2, 3), &ctx).await,
        "Found 2 implementations:\
         \n  src/shapes.ts:7:3: area(): number {\
         \n  src/shapes.ts:14:3: area(): number {"
    );
    assert_eq!(
        text(&tool, at("prepareCallHierarchy", "src/greet.ts", 2, 17), &ctx).await,
        "Call hierarchy item: greet (Function) - src/greet.ts:2:17"
    );
    assert_eq!(
        text(&tool, at("incomingCalls", "src/greet.ts", 2, 17), &ctx).await,
        "Found 2 callers of greet:\n\
         \nsrc/greet.ts:\
         \n  shout (Function) - 6:17 [calls at 7:10]\n\
         \nsrc/main.ts:\
         \n  main (Function) - 4:17 [calls at 7:17]"
    );
    let outgoing = text(&tool, at("outgoingCalls", "src/greet.ts", 6, 17), &ctx).await;
    assert!(
        outgoing.starts_with("shout calls 2 functions:\n")
            && outgoing.contains("\nsrc/greet.ts:\n  greet (Function) - 2:17 [called at 7:10]"),
        "{outgoing}"
    );
    // toUpperCase lives in TypeScript's own library, outside the workspace: absolute path.
    assert!(outgoing.contains("lib.es5.d.ts:\n  toUpperCase (Method)"), "{outgoing}");

    // One server for the workspace, initialized once, for all of that.
    let running = servers.running().await;
    assert_eq!(running.len(), 1, "{running:?}");
    assert_eq!(running[0].root, project.root());
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_changed_on_disk_is_sent_again() {
    let Some(bin) = tsls() else { return };
    let project = Project::new();
    let (servers, tool) = servers([ts_server(&bin)]);
    let ctx = project.ctx();
    let before = text(&tool, at("documentSymbol", "src/greet.ts", 1, 1), &ctx).await;
    assert_eq!(before, "Symbols in src/greet.ts:\n  greet (Function) - Line 2\n  shout (Function) - Line 6");
    // A new function at the top moves the others down; the server must see the new text.
    project.write(
        "src/greet.ts",
        &format!("export function wave(): string {{\n  return greet('all');\n}}\n\n{}", crate::support::GREET_TS),
    );
    assert_eq!(
        text(&tool, at("documentSymbol", "src/greet.ts", 1, 1), &ctx).await,
        "Symbols in src/greet.ts:\n  wave (Function) - Line 1\n  greet (Function) - Line 6\n  shout (Function) - Line 10"
    );
    assert_eq!(
        text(&tool, at("goToDefinition", "src/greet.ts", 2, 10), &ctx).await,
        "Defined in src/greet.ts:6:17\n  export function greet(name: string): string {"
    );
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_is_restarted_by_the_next_call() {
    let Some(bin) = tsls() else { return };
    let project = Project::new();
    let (servers, tool) = servers([ts_server(&bin)]);
    let ctx = project.ctx();
    let hover = at("hover", "src/greet.ts", 2, 17);
    let first = text(&tool, hover.clone(), &ctx).await;
    let pid = servers.running().await[0].pid.unwrap();
    let killed = ProcessSpec::exec("kill", ["-KILL", &pid.to_string()])
        .cwd(project.root())
        .run(&CancellationToken::new())
        .await
        .unwrap();
    assert!(killed.status.success(), "{killed:?}");
    assert!(eventually(|| is_dead(pid)).await, "server {pid} survived SIGKILL");

    assert_eq!(text(&tool, hover, &ctx).await, first, "the next call restarts the server");
    let running = servers.running().await;
    assert_eq!(running.len(), 1);
    assert_ne!(running[0].pid, Some(pid));
    assert!(eventually(|| group_members(pid).is_empty()).await, "the old server's group is gone");
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_leaves_no_server_process_behind() {
    let Some(bin) = tsls() else { return };
    let project = Project::new();
    let (servers, tool) = servers([ts_server(&bin)]);
    let ctx = project.ctx();
    // Three first calls at once share one server.
    let calls =
        [at("hover", "src/greet.ts", 2, 17), at("hover", "src/main.ts", 4, 17), at("hover", "src/shapes.ts", 5, 14)];
    let (a, b, c) = tokio::join!(
        text(&tool, calls[0].clone(), &ctx),
        text(&tool, calls[1].clone(), &ctx),
        text(&tool, calls[2].clone(), &ctx)
    );
    assert!(a.contains("function greet") && b.contains("function main") && c.contains("class Square"), "{a}\n{b}\n{c}");
    let running = servers.running().await;
    assert_eq!(running.len(), 1, "{running:?}");
    let pid = running[0].pid.unwrap();
    // typescript-language-server runs tsserver processes in its group.
    let members = group_members(pid);
    assert!(members.len() >= 2, "expected the server and its tsserver in group {pid}: {members:?}");

    servers.shutdown().await;
    assert!(servers.running().await.is_empty());
    assert!(eventually(|| members.iter().all(|p| is_dead(*p))).await, "left behind: {:?}", group_members(pid));
    let after = crate::support::error(&tool, calls[0].clone(), &ctx).await;
    assert!(after.message().contains("shut down"), "{}", after.to_model_text());
}
