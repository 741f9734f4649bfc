//! CronCreate, CronDelete and CronList on a scheduler driven by a manual clock.

use std::sync::Arc;

use chrono::{DateTime, Duration, FixedOffset, TimeZone, Utc};
use serde_json::{Value, json};
use toolgate_builtin::{AgentServices, CronEvent, CronScheduler, MAX_JOBS, ManualClock};
use toolgate_core::PermissionMode;
use toolgate_pipeline::ToolCall;

use crate::support::{Dirs, err, error_text, ok};

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 9, 58, 0).unwrap()
}

/// A scheduler on a manual clock, reading expressions in UTC, with an optional durable file.
fn scheduler(clock: &Arc<ManualClock>, durable: Option<&std::path::Path>) -> (CronScheduler, Vec<String>) {
    let mut builder = CronScheduler::builder().clock(clock.clone()).utc_offset(FixedOffset::east_opt(0).unwrap());
    if let Some(file) = durable {
        builder = builder.durable_file(file);
    }
    builder.build()
}

fn id_in(text: &str) -> String {
    let start = text.find(" job ").unwrap() + " job ".len();
    text[start..start + 8].to_owned()
}

#[tokio::test]
async fn a_job_fires_when_the_clock_reaches_it_and_the_host_gets_the_prompt() {
    let dirs = Dirs::new();
    let clock = Arc::new(ManualClock::new(start()));
    let (cron, _) = scheduler(&clock, None);
    let mut events = cron.spawn();
    // Default mode and no prompter: scheduling is never prompted.
    let session = dirs.session(AgentServices::new().scheduler(cron.clone()), PermissionMode::Default);

    let created = ok(&session, "CronCreate", json!({"cron": "0 10 * * *", "prompt": "write the stand-up notes"})).await;
    let id = id_in(&created);
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()), "{created}");
    assert!(created.starts_with(&format!("Scheduled recurring job {id} (")), "{created}");
    assert!(created.contains("Next run: 2026-03-02 10:00 +00:00"), "{created}");
    assert!(created.contains("It expires at 2026-03-09 09:58 +00:00"), "{created}");

    let once = ok(&session, "CronCreate", json!({"cron": "1 10 * * *", "prompt": "once", "recurring": false})).await;
    let once_id = id_in(&once);

    clock.set(Utc.with_ymd_and_hms(2026, 3, 2, 10, 0, 0).unwrap());
    match events.recv().await.unwrap() {
        CronEvent::Fired { id: fired, prompt, scheduled_for, recurring, .. } => {
            assert_eq!(fired, id);
            assert_eq!(prompt, "write the stand-up notes");
            assert_eq!(scheduled_for, Utc.with_ymd_and_hms(2026, 3, 2, 10, 0, 0).unwrap());
            assert!(recurring);
        }
        other => panic!("{other:?}"),
    }
    clock.advance(Duration::minutes(1));
    match events.recv().await.unwrap() {
        CronEvent::Fired { id: fired, recurring, .. } => {
            assert_eq!(fired, once_id);
            assert!(!recurring);
        }
        other => panic!("{other:?}"),
    }

    // The one-shot job is gone; the recurring one waits for tomorrow.
    let list = ok(&session, "CronList", json!({})).await;
    assert!(
        list.starts_with(&format!("{id} — `0 10 * * *` (recurring, session-only) next: 2026-03-03 10:00")),
        "{list}"
    );
    assert!(!list.contains(&once_id), "{list}");

    ok(&session, "CronDelete", json!({"id": id})).await;
    assert_eq!(ok(&session, "CronList", json!({})).await, "No scheduled jobs.");
    let text = err(&session, "CronDelete", json!({"id": id})).await;
    assert!(text.contains(&format!("no scheduled job has the id `{id}`; there are none")), "{text}");
    assert!(text.contains("CronList"), "{text}");
}

#[tokio::test]
async fn recurring_jobs_expire_after_seven_days() {
    let clock = Arc::new(ManualClock::new(start()));
    let (cron, _) = scheduler(&clock, None);
    let job = cron.create("0 12 * * *", "daily check", true, false).unwrap();
    assert_eq!(job.expires_at, Some(start() + Duration::days(7)));

    clock.advance(Duration::days(3));
    let fired = cron.fire_due();
    assert!(matches!(&fired[..], [CronEvent::Fired { .. }]), "missed days fire once: {fired:?}");
    assert_eq!(cron.list().len(), 1);

    // Day 7: its last noon (9 March 12:00) is after the expiry (9 March 09:58).
    clock.set(Utc.with_ymd_and_hms(2026, 3, 8, 12, 0, 0).unwrap());
    let fired = cron.fire_due();
    assert!(
        matches!(&fired[..], [CronEvent::Fired { .. }, CronEvent::Expired { id, .. }] if *id == job.id),
        "{fired:?}"
    );
    assert!(cron.list().is_empty());
    assert!(cron.fire_due().is_empty());
}

#[tokio::test]
async fn a_session_holds_at_most_fifty_jobs() {
    let dirs = Dirs::new();
    let clock = Arc::new(ManualClock::new(start()));
    let (cron, _) = scheduler(&clock, None);
    let session = dirs.session(AgentServices::new().scheduler(cron.clone()), PermissionMode::BypassPermissions);
    let calls: Vec<ToolCall> = (0..=MAX_JOBS)
        .map(|i| {
            ToolCall::new(
                format!("toolu_{i}"),
                "CronCreate",
                json!({"cron": "*/5 * * * *", "prompt": format!("job {i}")}),
            )
        })
        .collect();
    let results = session.run_message(calls).await;
    assert!(results[..MAX_JOBS].iter().all(|r| !r.is_error));
    let last = &results[MAX_JOBS];
    assert!(last.is_error);
    assert_eq!(
        error_text(last),
        "this session already has 50 scheduled jobs, the most it may hold\n\
         delete jobs you no longer need with CronDelete (see CronList)"
    );
    let mut ids: Vec<String> = cron.list().into_iter().map(|(j, _)| j.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), MAX_JOBS);
    assert!(ids.iter().all(|id| id.len() == 8));
}

#[tokio::test]
async fn durable_jobs_survive_a_new_session_and_leave_with_cron_delete() {
    let dirs = Dirs::new();
    let file = dirs.root.join(".claude/scheduled_tasks.json");
    let clock = Arc::new(ManualClock::new(start()));
    let (cron, diagnostics) = scheduler(&clock, Some(&file));
    assert!(diagnostics.is_empty());
    let session = dirs.session(AgentServices::new().scheduler(cron), PermissionMode::BypassPermissions);
    let created =
        ok(&session, "CronCreate", json!({"cron": "30 9 * * 1-5", "prompt": "triage", "durable": true})).await;
    let id = id_in(&created);
    assert!(created.contains("kept across sessions"), "{created}");
    ok(&session, "CronCreate", json!({"cron": "0 * * * *", "prompt": "session only"})).await;

    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let tasks = saved["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 1, "{saved}");
    assert_eq!(tasks[0]["id"], id.as_str());
    assert_eq!(tasks[0]["cron"], "30 9 * * 1-5");
    assert_eq!(tasks[0]["prompt"], "triage");
    assert_eq!(tasks[0]["recurring"], true);

    // A new session on the same project.
    let (cron, diagnostics) = scheduler(&clock, Some(&file));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let session = dirs.session(AgentServices::new().scheduler(cron), PermissionMode::BypassPermissions);
    let list = ok(&session, "CronList", json!({})).await;
    assert!(list.starts_with(&format!("{id} — `30 9 * * 1-5` (recurring, durable)")), "{list}");
    assert!(!list.contains("session only"), "{list}");
    ok(&session, "CronDelete", json!({"id": id})).await;
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved, json!({"tasks": []}));

    // Without a durable file, durable is refused with a way forward.
    let (cron, _) = scheduler(&clock, None);
    let session = dirs.session(AgentServices::new().scheduler(cron), PermissionMode::BypassPermissions);
    let text = err(&session, "CronCreate", json!({"cron": "0 9 * * *", "prompt": "x", "durable": true})).await;
    assert!(text.contains("durable jobs are not available") && text.contains("durable: false"), "{text}");
}

#[tokio::test]
async fn a_broken_durable_file_is_reported_and_its_unreadable_entries_kept() {
    let dirs = Dirs::new();
    let file = dirs.root.join(".claude/scheduled_tasks.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let odd = json!({"id": "deadbeef", "cron": "not a cron", "prompt": "p", "recurring": true,
                     "createdAt": "2026-03-01T00:00:00Z"});
    std::fs::write(&file, json!({"tasks": [odd]}).to_string()).unwrap();
    let clock = Arc::new(ManualClock::new(start()));
    let (cron, diagnostics) = scheduler(&clock, Some(&file));
    assert_eq!(diagnostics.len(), 1);
    assert!(diagnostics[0].contains("deadbeef") && diagnostics[0].contains("kept but not run"), "{diagnostics:?}");
    cron.create("0 9 * * *", "new", true, true).unwrap();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["tasks"].as_array().unwrap().len(), 2);
    assert!(saved["tasks"].as_array().unwrap().contains(&odd));
}

#[tokio::test]
async fn invalid_expressions_are_explained() {
    let dirs = Dirs::new();
    let clock = Arc::new(ManualClock::new(start()));
    let (cron, _) = scheduler(&clock, None);
    let session = dirs.session(AgentServices::new().scheduler(cron), PermissionMode::BypassPermissions);
    let create = |expr: &str| json!({"cron": expr, "prompt": "p"});
    let hint = "write 5 space-separated fields";

    let text = err(&session, "CronCreate", create("*/5 * * *")).await;
    assert!(
        text.starts_with("`*/5 * * *` is not a valid cron expression: it has 4 fields; use exactly 5: minute"),
        "{text}"
    );
    assert!(text.contains(hint), "{text}");
    let text = err(&session, "CronCreate", create("0 */5 * * * *")).await;
    assert!(text.contains("it has 6 fields") && text.contains("seconds are not supported"), "{text}");
    let text = err(&session, "CronCreate", create("61 * * * *")).await;
    assert!(text.starts_with("`61 * * * *` is not a valid cron expression: "), "{text}");
    assert!(text.contains("minute (0-59)") && text.contains(hint), "{text}");
    let text = err(&session, "CronCreate", create("every monday")).await;
    assert!(text.contains("it has 2 fields"), "{text}");
    let text = err(&session, "CronCreate", create("")).await;
    assert!(text.contains("it is empty"), "{text}");
    let text = err(&session, "CronCreate", create("0 0 30 2 *")).await;
    assert!(text.contains("`0 0 30 2 *` never fires") && text.contains("real date"), "{text}");
    let text = err(&session, "CronCreate", create("0 0 1 1 *")).await;
    assert!(text.contains("would never fire") && text.contains("recurring: false"), "{text}");
    ok(&session, "CronCreate", json!({"cron": "0 0 1 1 *", "prompt": "new year", "recurring": false})).await;
    let text = err(&session, "CronCreate", json!({"cron": "0 9 * * *", "prompt": " "})).await;
    assert!(text.contains("prompt is empty"), "{text}");
    let text = err(&session, "CronCreate", json!({"cron": "0 9 * * *"})).await;
    assert!(text.contains("prompt"), "{text}");
    let text = err(&session, "CronDelete", json!({"id": ""})).await;
    assert!(text.contains("id is empty"), "{text}");
    let text = err(&session, "CronList", json!({"verbose": true})).await;
    assert!(text.contains("verbose"), "{text}");
}
