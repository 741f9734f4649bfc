//! SendMessage, TeamCreate and TeamDelete on the in-process and the folder bus.

use std::sync::Arc;

use serde_json::json;
use toolgate_builtin::{AgentServices, FolderBus, InProcessBus, MessageBus, ProcessSubagentRunner, SubagentType};
use toolgate_core::PermissionMode;

use crate::support::{Dirs, err, ok};

#[tokio::test]
async fn messages_reach_named_agents_and_unknown_recipients_are_refused() {
    let dirs = Dirs::new();
    let bus = Arc::new(InProcessBus::new("main"));
    let runner = ProcessSubagentRunner::new("cat >/dev/null; echo ready", vec![SubagentType::general_purpose()]);
    let services = AgentServices::new().bus(bus.clone()).runner(Arc::new(runner));
    // Default mode, no prompter: none of these tools prompts.
    let session = dirs.session(services, PermissionMode::Default);

    // A named subagent joins the bus.
    ok(&session, "Agent", json!({"description": "Helper", "prompt": "stand by", "name": "helper"})).await;

    let sent = ok(
        &session,
        "SendMessage",
        json!({"to": "helper", "message": "please review src/lib.rs", "summary": "review request"}),
    )
    .await;
    assert_eq!(sent, "Message sent to helper's inbox");
    let inbox = bus.receive("helper").unwrap();
    assert_eq!(inbox.len(), 1);
    assert_eq!(inbox[0].from, "main");
    assert_eq!(inbox[0].message, json!("please review src/lib.rs"));
    assert_eq!(inbox[0].summary.as_deref(), Some("review request"));

    ok(&session, "SendMessage", json!({"to": "helper", "message": {"type": "shutdown_request"}})).await;
    assert_eq!(bus.receive("helper").unwrap()[0].message, json!({"type": "shutdown_request"}));

    let text = err(&session, "SendMessage", json!({"to": "ghost", "message": "hello?"})).await;
    assert_eq!(
        text,
        "no agent named `ghost` is on the message bus; known agents: helper, main\n\
         send to one of the known agents, or start one with the Agent tool and a name"
    );
    let text = err(&session, "SendMessage", json!({"to": "helper", "message": 42})).await;
    assert!(text.contains("message must be text or an object, got a number"), "{text}");
    let text = err(&session, "SendMessage", json!({"to": " ", "message": "x"})).await;
    assert!(text.contains("to is empty") && text.contains("\"*\""), "{text}");
    let text = err(&session, "SendMessage", json!({"to": "helper"})).await;
    assert!(text.contains("message"), "{text}");

    let broadcast = ok(&session, "SendMessage", json!({"to": "*", "message": "stand-up in 5"})).await;
    assert_eq!(broadcast, "Message broadcast to 1 agent(s): helper");
}

#[tokio::test]
async fn teams_gather_named_agents_and_delete_them_together() {
    let dirs = Dirs::new();
    let bus = Arc::new(InProcessBus::new("main"));
    let runner = ProcessSubagentRunner::new("cat >/dev/null; echo ok", vec![SubagentType::general_purpose()]);
    let session = dirs.session(AgentServices::new().bus(bus.clone()).runner(Arc::new(runner)), PermissionMode::Default);

    let text = err(&session, "TeamDelete", json!({})).await;
    assert!(text.contains("you do not lead a team") && text.contains("TeamCreate"), "{text}");
    ok(&session, "TeamCreate", json!({"team_name": "crew", "description": "refactor the parser"})).await;
    let text = err(&session, "TeamCreate", json!({"team_name": "other"})).await;
    assert!(text.contains("you already lead the team `crew`") && text.contains("TeamDelete"), "{text}");
    let text = err(&session, "TeamCreate", json!({"team_name": "no spaces"})).await;
    assert!(text.contains("cannot be a team name"), "{text}");

    ok(&session, "Agent", json!({"description": "Worker", "prompt": "work", "name": "worker"})).await;
    let worker = bus.members().unwrap().into_iter().find(|m| m.name == "worker").unwrap();
    assert_eq!(worker.team.as_deref(), Some("crew"));
    assert_eq!(worker.agent_type.as_deref(), Some("general-purpose"));

    let deleted = ok(&session, "TeamDelete", json!({})).await;
    assert_eq!(deleted, "Team `crew` deleted; removed teammates: worker.");
    let text = err(&session, "SendMessage", json!({"to": "worker", "message": "still there?"})).await;
    assert!(text.contains("no agent named `worker`"), "{text}");
}

#[tokio::test]
async fn the_folder_bus_delivers_to_another_process_handle() {
    let dirs = Dirs::new();
    let folder = dirs.session.join("messages");
    let bus = Arc::new(FolderBus::open(&folder, "main").unwrap());
    let session = dirs.session(AgentServices::new().bus(bus), PermissionMode::Default);

    // Another process (here: another handle on the same folder) registers a teammate.
    let other = FolderBus::open(&folder, "reviewer").unwrap();
    ok(&session, "SendMessage", json!({"to": "reviewer", "message": "the diff is ready"})).await;
    let files: Vec<_> = std::fs::read_dir(folder.join("inbox/reviewer")).unwrap().collect();
    assert_eq!(files.len(), 1, "one JSON file per message");
    let got = other.receive("reviewer").unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].message, json!("the diff is ready"));
    assert!(other.receive("reviewer").unwrap().is_empty());

    let text = err(&session, "SendMessage", json!({"to": "nobody", "message": "x"})).await;
    assert!(text.contains("known agents: main, reviewer"), "{text}");
}

#[tokio::test]
async fn without_a_bus_the_message_tools_are_not_offered() {
    let dirs = Dirs::new();
    let session = dirs.session(AgentServices::new(), PermissionMode::BypassPermissions);
    for name in ["SendMessage", "TeamCreate", "TeamDelete"] {
        assert!(session.pool().get(name).is_none(), "{name} offered without a bus");
    }
}
