//! The planning tools through a whole session, with the services toolgate ships
//! ([`FileTaskStore`], [`PlanFile`]) and a scripted person ([`Scripted`]) standing in for the
//! terminal: tasks and their dependencies across two sessions on one directory, plan mode
//! changing what the permission engine allows, questions answered, Sleep cancelled,
//! TodoWrite's one-in-progress rule, and bad inputs as errors with hints.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolgate_builtin::{
    Answer, FileTaskStore, PlanDecision, PlanFile, PlanReview, Question, QuestionsOutcome, TaskStore, UserDialog,
};
use toolgate_core::{BoxFuture, CancellationToken, Extensions, PermissionMode, ToolErrorKind};
use toolgate_permissions::{PromptAnswer, PromptRequest, Prompter};
use toolgate_pipeline::{Event, Session, ToolCall, ToolResultBlock};

fn text(r: &ToolResultBlock) -> String {
    r.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("\n")
}

/// A person answering from a script, recording what they were shown.
#[derive(Default)]
struct Scripted {
    answers: Mutex<VecDeque<QuestionsOutcome>>,
    verdicts: Mutex<VecDeque<PlanDecision>>,
    asked: Mutex<Vec<Vec<Question>>>,
    reviewed: Mutex<Vec<PlanReview>>,
}

impl Scripted {
    fn answering(answers: impl IntoIterator<Item = QuestionsOutcome>) -> Arc<Self> {
        let s = Self::default();
        s.answers.lock().unwrap().extend(answers);
        Arc::new(s)
    }

    fn judging(verdicts: impl IntoIterator<Item = PlanDecision>) -> Arc<Self> {
        let s = Self::default();
        s.verdicts.lock().unwrap().extend(verdicts);
        Arc::new(s)
    }
}

impl UserDialog for Scripted {
    fn ask<'a>(&'a self, questions: &'a [Question]) -> BoxFuture<'a, QuestionsOutcome> {
        self.asked.lock().unwrap().push(questions.to_vec());
        let next = self.answers.lock().unwrap().pop_front();
        Box::pin(async move { next.unwrap_or(QuestionsOutcome::Unavailable { reason: "script ran out".into() }) })
    }

    fn review_plan<'a>(&'a self, review: &'a PlanReview) -> BoxFuture<'a, PlanDecision> {
        self.reviewed.lock().unwrap().push(review.clone());
        let next = self.verdicts.lock().unwrap().pop_front();
        Box::pin(async move { next.unwrap_or(PlanDecision::Unavailable { reason: "script ran out".into() }) })
    }
}

/// A person who approves every permission prompt once, counting them.
#[derive(Default)]
struct Approver(Mutex<Vec<String>>);

impl Prompter for Approver {
    fn prompt<'a>(&'a self, request: &'a PromptRequest) -> BoxFuture<'a, PromptAnswer> {
        self.0.lock().unwrap().push(request.tool_name.clone());
        Box::pin(async { PromptAnswer::AllowOnce })
    }
}

/// The services a host supplies, rooted in `session_dir`.
fn services(session_dir: &Path, dialog: Option<Arc<Scripted>>) -> Extensions {
    let mut services = Extensions::default();
    services.insert::<Arc<dyn TaskStore>>(Arc::new(FileTaskStore::new(session_dir)));
    services.insert(PlanFile::in_session_dir(session_dir));
    if let Some(dialog) = dialog {
        services.insert::<Arc<dyn UserDialog>>(dialog);
    }
    services
}

fn session(project: &Path, services: Extensions) -> toolgate_pipeline::SessionBuilder {
    let tools = toolgate_builtin::with_planning_services(toolgate_builtin::all_builtin_tools(), &services);
    Session::builder().cwd(project).builtin_tools(tools).extensions(services)
}

async fn call(session: &Session, name: &str, input: Value) -> ToolResultBlock {
    session.run_message(vec![ToolCall::new("t", name, input)]).await.remove(0)
}

/// An error result whose text names `what` and carries a hint on a line of its own.
#[track_caller]
fn assert_error_with_hint(r: &ToolResultBlock, what: &str) {
    let t = text(r);
    assert!(r.is_error, "expected an error, got: {t}");
    assert!(t.contains(what), "expected {what:?} in: {t}");
    assert!(t.lines().count() >= 2, "expected a hint line in: {t}");
}

#[tokio::test]
async fn task_dependencies_persist_across_two_sessions_on_one_dir() {
    let project = tempfile::tempdir().unwrap();
    let session_dir = tempfile::tempdir().unwrap();
    {
        let first = session(project.path(), services(session_dir.path(), None)).build();
        for subject in ["Design schema", "Write migration", "Ship it"] {
            let r = call(&first, "TaskCreate", json!({"subject": subject, "description": "d"})).await;
            assert!(!r.is_error, "{}", text(&r));
        }
        let r = call(&first, "TaskUpdate", json!({"taskId": "2", "addBlockedBy": ["1"], "addBlocks": ["3"]})).await;
        assert_eq!(text(&r), "Updated task #2: now blocks #3, now blocked by #1.");
        // #3 waits on #2, which waits on #1: #3 blocking #1 would close the circle.
        let r = call(&first, "TaskUpdate", json!({"taskId": "3", "addBlocks": ["1"], "status": "in_progress"})).await;
        assert_error_with_hint(&r, "cycle");
        // Nothing of the refused update was saved, not even the status.
        let r = call(&first, "TaskList", json!({})).await;
        assert_eq!(
            text(&r),
            "#1 [pending] Design schema\n#2 [pending] Write migration [blocked by #1]\n#3 [pending] Ship it [blocked by #2]"
        );
    }

    // A new process: a new store and a new session on the same directory.
    let second = session(project.path(), services(session_dir.path(), None)).build();
    let r = call(&second, "TaskUpdate", json!({"taskId": "1", "status": "completed", "owner": "alice"})).await;
    assert!(!r.is_error, "{}", text(&r));
    let r = call(&second, "TaskGet", json!({"taskId": "2"})).await;
    assert_eq!(
        text(&r),
        "Task #2: Write migration\nStatus: pending\nDescription: d\nBlocked by: #1 (done)\nBlocks: #3"
    );
    let r = call(&second, "TaskUpdate", json!({"taskId": "2", "status": "deleted"})).await;
    assert_eq!(text(&r), "Task #2 deleted.");
    let r = call(&second, "TaskCreate", json!({"subject": "Announce", "description": ""})).await;
    assert_eq!(text(&r), "Task #4 created: Announce", "ids are never reused");
    let r = call(&second, "TaskList", json!({})).await;
    assert_eq!(text(&r), "#1 [completed] Design schema (owner: alice)\n#3 [pending] Ship it\n#4 [pending] Announce");
    let r = call(&second, "TaskGet", json!({"taskId": "2"})).await;
    assert!(r.is_error && text(&r).contains("there is no task #2 (existing tasks: #1, #3, #4)"), "{}", text(&r));
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(session_dir.path().join("tasks.json")).unwrap()).unwrap();
    assert_eq!(stored["nextId"], 5);
    assert_eq!(stored["tasks"][1]["blockedBy"], json!([]), "deleting #2 removed its edges");
}

#[tokio::test]
async fn plan_mode_changes_what_the_engine_allows_until_the_plan_is_approved() {
    let project = tempfile::tempdir().unwrap();
    let session_dir = tempfile::tempdir().unwrap();
    let dialog = Scripted::judging([
        PlanDecision::Rejected { feedback: Some("also migrate the old rows".into()) },
        PlanDecision::Approved { mode: None },
    ]);
    let session = session(project.path(), services(session_dir.path(), Some(dialog.clone())))
        .mode(PermissionMode::AcceptEdits)
        .build();
    let target = project.path().join("out.txt");
    let write = |n: u32| json!({"file_path": target, "content": format!("version {n}\n")});

    assert!(!call(&session, "Write", write(1)).await.is_error, "acceptEdits allows edits in the project");
    let r = call(&session, "ExitPlanMode", json!({"plan": "x"})).await;
    assert_error_with_hint(&r, "the session is in acceptEdits mode");

    let r = call(&session, "EnterPlanMode", json!({})).await;
    assert!(!r.is_error && text(&r).contains("plan.md"), "{}", text(&r));
    assert_eq!(session.mode(), PermissionMode::Plan);
    let r = call(&session, "Write", write(2)).await;
    assert!(r.is_error && text(&r).contains("plan mode allows only read-only work"), "{}", text(&r));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "version 1\n");

    let r = call(&session, "ExitPlanMode", json!({"plan": "1. Add the column\n2. Backfill"})).await;
    assert_error_with_hint(&r, "did not approve the plan");
    assert!(text(&r).contains("also migrate the old rows"), "{}", text(&r));
    assert_eq!(session.mode(), PermissionMode::Plan, "a rejected plan keeps plan mode");
    assert!(call(&session, "Write", write(3)).await.is_error);

    // Approve the plan now in the plan file (no `plan` given: the file's is presented).
    let plan_file = session_dir.path().join("plan.md");
    assert_eq!(std::fs::read_to_string(&plan_file).unwrap(), "1. Add the column\n2. Backfill\n");
    let r = call(&session, "ExitPlanMode", json!({})).await;
    assert!(!r.is_error, "{}", text(&r));
    assert_eq!(session.mode(), PermissionMode::AcceptEdits, "approval restores the mode before plan mode");
    let reviewed = dialog.reviewed.lock().unwrap().clone();
    assert_eq!(reviewed.len(), 2);
    assert_eq!(reviewed[1].plan, "1. Add the column\n2. Backfill\n");
    assert_eq!(reviewed[1].restores, PermissionMode::AcceptEdits);
    assert!(!call(&session, "Write", write(4)).await.is_error);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "version 4\n");
}

#[tokio::test]
async fn the_person_may_approve_a_plan_into_another_mode() {
    let project = tempfile::tempdir().unwrap();
    let dialog = Scripted::judging([PlanDecision::Approved { mode: Some(PermissionMode::AcceptEdits) }]);
    let session = session(project.path(), services(project.path(), Some(dialog))).build();
    assert!(!call(&session, "EnterPlanMode", json!({})).await.is_error);
    let r = call(&session, "ExitPlanMode", json!({"plan": "Do it."})).await;
    assert!(text(&r).contains("acceptEdits mode"), "{}", text(&r));
    assert_eq!(session.mode(), PermissionMode::AcceptEdits);
}

fn questions() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "Database", "options": [
            {"label": "PostgreSQL", "description": "relational"},
            {"label": "SQLite", "description": "embedded"}]},
        {"question": "Which features?", "header": "Features", "multiSelect": true, "options": [
            {"label": "Auth", "description": "log in"},
            {"label": "Search", "description": "full text"},
            {"label": "Billing", "description": "invoices"}]},
        {"question": "Where to deploy?", "header": "Deploy", "options": [
            {"label": "Cloud", "description": "managed"},
            {"label": "On-prem", "description": "our racks"}]}
    ]})
}

#[tokio::test]
async fn a_scripted_person_answers_ask_user_question() {
    let project = tempfile::tempdir().unwrap();
    let dialog = Scripted::answering([QuestionsOutcome::Answered(vec![
        Answer::pick("PostgreSQL"),
        Answer { selected: vec!["Auth".into(), "Search".into()], other: None },
        Answer::other("our own k8s cluster"),
    ])]);
    let approver = Arc::new(Approver::default());
    let session = session(project.path(), services(project.path(), Some(dialog.clone())))
        .prompter(approver.clone())
        .mode(PermissionMode::BypassPermissions)
        .build();
    let r = call(&session, "AskUserQuestion", questions()).await;
    assert_eq!(
        text(&r),
        "The user answered your questions:\n\
         - \"Which database?\" → PostgreSQL\n\
         - \"Which features?\" → Auth, Search\n\
         - \"Where to deploy?\" → our own k8s cluster\n\
         Continue with these answers in mind."
    );
    // Even bypassPermissions asked the person first.
    assert_eq!(*approver.0.lock().unwrap(), ["AskUserQuestion"]);
    let asked = dialog.asked.lock().unwrap().clone();
    let labels: Vec<&str> = asked[0][1].options.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(labels, ["Auth", "Search", "Billing", "Other"], "an Other choice is added");
    assert!(asked[0][1].options[3].free_text && asked[0][1].multi_select);
}

#[tokio::test]
async fn ask_user_question_is_denied_in_dont_ask_mode_and_without_a_person() {
    let project = tempfile::tempdir().unwrap();
    let dialog = Scripted::answering([]);
    let approver = Arc::new(Approver::default());
    let dont_ask = session(project.path(), services(project.path(), Some(dialog.clone())))
        .prompter(approver.clone())
        .mode(PermissionMode::DontAsk)
        .build();
    let r = call(&dont_ask, "AskUserQuestion", questions()).await;
    assert!(r.is_error && text(&r).contains("dontAsk"), "{}", text(&r));
    assert!(approver.0.lock().unwrap().is_empty());

    let nobody = session(project.path(), services(project.path(), Some(dialog.clone()))).build();
    let r = call(&nobody, "AskUserQuestion", questions()).await;
    assert!(r.is_error && text(&r).contains("No one is available"), "{}", text(&r));
    assert!(dialog.asked.lock().unwrap().is_empty(), "no question reached the dialog");

    // Without a dialog the tool is not offered at all.
    let without = session(project.path(), services(project.path(), None)).build();
    assert!(without.pool().get("AskUserQuestion").is_none());
    assert!(without.pool().get("EnterPlanMode").is_none(), "no plan mode nobody could approve a way out of");

    // A person who declines: an error the model can act on.
    let declining = Scripted::answering([QuestionsOutcome::Declined { feedback: Some("just pick one".into()) }]);
    let session = session(project.path(), services(project.path(), Some(declining))).prompter(approver).build();
    let r = call(&session, "AskUserQuestion", questions()).await;
    assert_error_with_hint(&r, "declined");
    assert!(text(&r).contains("just pick one"));
}

#[tokio::test]
async fn cancelling_a_sleep_returns_the_cancelled_result() {
    let project = tempfile::tempdir().unwrap();
    let session = session(project.path(), Extensions::default()).build();
    let cancel = CancellationToken::new();
    let finished = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let (cancel, finished) = (cancel.clone(), finished.clone());
        Arc::new(move |event: Event| match event {
            // The tool reports when it starts waiting: interrupt it there.
            Event::Progress(p) if p.message.starts_with("Sleeping") => cancel.cancel(),
            Event::CallFinished { error_kind, .. } => finished.lock().unwrap().push(error_kind),
            _ => {}
        })
    };
    let results = session
        .run_message_with(vec![ToolCall::new("s", "Sleep", json!({"duration_ms": 600_000}))], cancel, Some(sink))
        .await;
    assert!(results[0].is_error && text(&results[0]).contains("cancelled"), "{}", text(&results[0]));
    assert_eq!(*finished.lock().unwrap(), [Some(ToolErrorKind::Cancelled)]);
}

#[tokio::test]
async fn todo_write_keeps_at_most_one_item_in_progress() {
    let project = tempfile::tempdir().unwrap();
    let session = session(project.path(), Extensions::default()).build();
    let item = |content: &str, status: &str| json!({"content": content, "status": status, "activeForm": content});
    let r = call(&session, "TodoWrite", json!({"todos": [item("a", "in_progress"), item("b", "in_progress")]})).await;
    assert_error_with_hint(&r, "2 items are in_progress");
    let r = call(
        &session,
        "TodoWrite",
        json!({"todos": [item("a", "completed"), item("b", "in_progress"), item("c", "pending")]}),
    )
    .await;
    assert_eq!(
        text(&r),
        "Todo list updated (1 completed, 1 in progress, 1 pending):\n1. [completed] a\n2. [in_progress] b\n\
         3. [pending] c\nKeep it current: mark each item completed as soon as it is done, one item in_progress at a time."
    );
    let todos = session.context().app_state.get::<toolgate_builtin::Todos>().unwrap();
    assert_eq!(todos.0.len(), 3, "the list lives in the session's state");
}

#[tokio::test]
async fn every_bad_input_is_an_error_that_says_how_to_fix_it() {
    let project = tempfile::tempdir().unwrap();
    let dialog = Scripted::answering([]);
    let session =
        session(project.path(), services(project.path(), Some(dialog))).prompter(Arc::new(Approver::default())).build();
    let q = |header: &str, labels: &[&str]| {
        let options: Vec<Value> = labels.iter().map(|l| json!({"label": l, "description": ""})).collect();
        json!({"question": "Q?", "header": header, "options": options})
    };
    let cases: Vec<(&str, Value, &str)> = vec![
        ("AskUserQuestion", json!({"questions": []}), "questions: must have at least 1 item"),
        ("AskUserQuestion", json!({"questions": vec![q("A", &["x", "y"]); 5]}), "questions: must have at most 4 items"),
        (
            "AskUserQuestion",
            json!({"questions": [q("A header too long", &["x", "y"])]}),
            "must be at most 12 characters",
        ),
        ("AskUserQuestion", json!({"questions": [q("A", &["x"])]}), "options: must have at least 2 items"),
        ("AskUserQuestion", json!({"questions": [q("A", &["a", "b", "c", "d", "e"])]}), "must have at most 4 items"),
        ("AskUserQuestion", json!({"questions": [q("A", &["x", "Other"])]}), "reserved"),
        ("AskUserQuestion", json!({"questions": [q("A", &["x", "X"])]}), "twice"),
        ("AskUserQuestion", json!({"questions": [q("A", &["x", "y"]), q("B", &["x", "y"])]}), "repeats the question"),
        (
            "AskUserQuestion",
            json!({"questions": [q("A", &["x", "y"])], "answers": {"Nope?": "x"}}),
            "not one of the questions",
        ),
        ("TaskCreate", json!({"subject": "  ", "description": ""}), "subject is blank"),
        ("TaskCreate", json!({"description": ""}), "subject"),
        ("TaskGet", json!({"taskId": "9"}), "there is no task #9"),
        ("TaskUpdate", json!({"taskId": "1"}), "changes nothing"),
        ("TaskUpdate", json!({"taskId": "9", "status": "completed"}), "there is no task #9"),
        ("TaskUpdate", json!({"taskId": "1", "status": "done"}), "status"),
        ("TodoWrite", json!({"todos": [{"content": "a", "status": "pending"}]}), "activeForm"),
        ("TodoWrite", json!({"todos": [{"content": " ", "status": "pending", "activeForm": "x"}]}), "blank"),
        ("Sleep", json!({"duration_ms": 0}), "must be at least 1"),
        ("Sleep", json!({"duration_ms": 600_001}), "must be at most 600000"),
        ("Sleep", json!({"duration_ms": -5}), "duration_ms"),
        ("EnterPlanMode", json!({"reason": "x"}), "reason"),
        ("ExitPlanMode", json!({"plan": "x"}), "the session is in default mode"),
    ];
    // TaskUpdate #1 needs a task #1 (self-edges are refused too).
    assert!(!call(&session, "TaskCreate", json!({"subject": "one", "description": ""})).await.is_error);
    let r = call(&session, "TaskUpdate", json!({"taskId": "1", "addBlocks": ["1"]})).await;
    assert_error_with_hint(&r, "cannot block itself");
    for (tool, input, expected) in cases {
        let r = call(&session, tool, input.clone()).await;
        let t = text(&r);
        assert!(r.is_error, "{tool} {input}: expected an error, got {t}");
        assert!(t.contains(expected), "{tool} {input}: expected {expected:?} in {t}");
        // Schema errors name the field and the expectation; the tools' own checks add a hint.
        assert!(t.lines().count() >= 2, "{tool} {input}: no hint in {t}");
    }
}
