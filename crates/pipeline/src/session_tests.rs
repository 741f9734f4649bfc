//! Session tests: step order, ordering and overlap under concurrency, sibling abort,
//! cancellation, panics, budgets and hook rewrites. Time is coordinated with barriers,
//! channels and counters, never sleeps.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Barrier;
use toolgate_core::{
    BoxFuture, CancellationToken, ContextChange, InterruptBehavior, PermissionBehavior, PermissionMode, ResultLimit,
    ToolBuilder, ToolError, ToolOutput, ToolPool,
};
use toolgate_permissions::{HookVerdict, PermissionEngine, PromptAnswer, PromptRequest, Prompter};

use super::*;
use crate::{HookCall, HookDispatch, PostHookOutcome, PreHookOutcome, ToolCall};

type Log = Arc<Mutex<Vec<String>>>;

fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn entries(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

fn strict(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// A hook fake that records what it saw and answers from a script.
struct Hooks {
    log: Log,
    pre: Box<dyn Fn(&Value) -> PreHookOutcome + Send + Sync>,
    post: PostHookOutcome,
}

impl HookDispatch for Hooks {
    fn pre_tool_use<'a>(&'a self, call: HookCall<'a>) -> BoxFuture<'a, PreHookOutcome> {
        self.log.lock().unwrap().push(format!("pre {} {}", call.tool_name, call.input));
        let out = (self.pre)(call.input);
        Box::pin(async move { out })
    }
    fn post_tool_use<'a>(&'a self, call: HookCall<'a>, response: &'a Value, _: u64) -> BoxFuture<'a, PostHookOutcome> {
        self.log.lock().unwrap().push(format!("post {} {response}", call.tool_name));
        let out = self.post.clone();
        Box::pin(async move { out })
    }
    fn post_tool_use_failure<'a>(
        &'a self,
        call: HookCall<'a>,
        error: &'a str,
        _: bool,
        _: u64,
    ) -> BoxFuture<'a, PostHookOutcome> {
        self.log.lock().unwrap().push(format!("failure {} {error}", call.tool_name));
        Box::pin(async { PostHookOutcome::default() })
    }
}

struct RecordingPrompter(Log, PromptAnswer);
impl Prompter for RecordingPrompter {
    fn prompt<'a>(&'a self, request: &'a PromptRequest) -> BoxFuture<'a, PromptAnswer> {
        self.0.lock().unwrap().push(format!("prompt {}", request.summary));
        let a = self.1.clone();
        Box::pin(async move { a })
    }
}

fn recording_tool(name: &'static str, log: &Log) -> toolgate_core::DynTool {
    let log = log.clone();
    ToolBuilder::new(name)
        .schema(strict(json!({"n": {"type": "integer", "minimum": 0}}), &["n"]))
        .call(move |input, _| {
            let log = log.clone();
            async move {
                log.lock().unwrap().push(format!("call {name} {input}"));
                Ok(ToolOutput::text(format!("{name} got {}", input["n"])))
            }
        })
        .build()
}

fn session(pool: ToolPool) -> SessionBuilder {
    Session::builder().pool(pool).cwd("/tmp").mode(PermissionMode::BypassPermissions).message_budget(200_000)
}

fn text(r: &ToolResultBlock) -> String {
    r.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn steps_run_in_order_and_invalid_input_never_reaches_hooks_or_the_prompter() {
    let log = log();
    let pool = ToolPool::builder().builtin(recording_tool("Count", &log)).build();
    let hooks = Arc::new(Hooks {
        log: log.clone(),
        pre: Box::new(|_| PreHookOutcome::default()),
        post: PostHookOutcome::default(),
    });
    let engine = PermissionEngine::builder(Default::default())
        .cwd("/tmp")
        .prompter(Arc::new(RecordingPrompter(log.clone(), PromptAnswer::AllowOnce)))
        .build();
    let s = session(pool).engine(engine).hooks(hooks).mode(PermissionMode::Default).build();
    let results = s
        .run_message(vec![
            ToolCall::new("1", "Count", json!({"n": "not a number"})),
            ToolCall::new("2", "Count", json!({"n": -1})),
            ToolCall::new("3", "Count", json!({"n": "7"})),
        ])
        .await;
    assert!(results[0].is_error && results[1].is_error && !results[2].is_error);
    assert_eq!(
        entries(&log),
        ["pre Count {\"n\":7}", "prompt Count({\"n\":7})", "call Count {\"n\":7}", "post Count \"Count got 7\""],
        "only the valid call reached hooks, the prompt and the tool, in step order"
    );
}

#[tokio::test]
async fn results_keep_call_order_when_calls_finish_out_of_order() {
    // Each call waits for the next one's signal, so they finish last-to-first.
    let n = 5;
    let gates: Vec<Arc<tokio::sync::Notify>> = (0..=n).map(|_| Arc::new(tokio::sync::Notify::new())).collect();
    let gates = Arc::new(gates);
    let tool = {
        let gates = gates.clone();
        ToolBuilder::new("Wait")
            .schema(strict(json!({"i": {"type": "integer"}}), &["i"]))
            .concurrency_safe(true)
            .call(move |input, _| {
                let gates = gates.clone();
                async move {
                    let i = usize::try_from(input["i"].as_u64().unwrap_or(0)).unwrap_or(0);
                    if i + 1 < gates.len() - 1 {
                        gates[i + 1].notified().await;
                    }
                    gates[i].notify_one();
                    Ok(ToolOutput::text(format!("done {i}")))
                }
            })
            .build()
    };
    let s = session(ToolPool::builder().builtin(tool).build()).build();
    let calls = (0..n).map(|i| ToolCall::new(format!("t{i}"), "Wait", json!({"i": i}))).collect();
    let results = tokio::time::timeout(Duration::from_secs(20), s.run_message(calls)).await.expect("calls overlapped");
    let got: Vec<String> = results.iter().map(text).collect();
    assert_eq!(got, (0..n).map(|i| format!("done {i}")).collect::<Vec<_>>());
    assert_eq!(results.iter().map(|r| r.tool_use_id.as_str()).collect::<Vec<_>>(), ["t0", "t1", "t2", "t3", "t4"]);
}

#[tokio::test]
async fn safe_calls_overlap_and_unsafe_calls_never_do() {
    let barrier = Arc::new(Barrier::new(3));
    let safe = {
        let barrier = barrier.clone();
        ToolBuilder::new("Safe")
            .concurrency_safe(true)
            .call(move |_, _| {
                let barrier = barrier.clone();
                async move {
                    barrier.wait().await;
                    Ok(ToolOutput::text("met"))
                }
            })
            .build()
    };
    let in_flight = Arc::new(AtomicUsize::new(0));
    let max_seen = Arc::new(AtomicUsize::new(0));
    let unsafe_tool = {
        let (in_flight, max_seen) = (in_flight.clone(), max_seen.clone());
        ToolBuilder::new("Unsafe")
            .call(move |_, _| {
                let (in_flight, max_seen) = (in_flight.clone(), max_seen.clone());
                async move {
                    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    max_seen.fetch_max(now, Ordering::SeqCst);
                    tokio::task::yield_now().await;
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    Ok(ToolOutput::text("alone"))
                }
            })
            .build()
    };
    let s = session(ToolPool::builder().builtin(safe).builtin(unsafe_tool).build()).build();
    let mut calls: Vec<ToolCall> = (0..3).map(|i| ToolCall::new(format!("s{i}"), "Safe", json!({}))).collect();
    calls.extend((0..6).map(|i| ToolCall::new(format!("u{i}"), "Unsafe", json!({}))));
    let results =
        tokio::time::timeout(Duration::from_secs(20), s.run_message(calls)).await.expect("safe calls overlapped");
    assert!(results.iter().all(|r| !r.is_error));
    assert_eq!(max_seen.load(Ordering::SeqCst), 1, "unsafe calls ran one at a time");
}

#[tokio::test]
async fn the_concurrency_bound_holds() {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let max_seen = Arc::new(AtomicUsize::new(0));
    let tool = {
        let (in_flight, max_seen) = (in_flight.clone(), max_seen.clone());
        ToolBuilder::new("Safe")
            .concurrency_safe(true)
            .call(move |_, _| {
                let (in_flight, max_seen) = (in_flight.clone(), max_seen.clone());
                async move {
                    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    max_seen.fetch_max(now, Ordering::SeqCst);
                    for _ in 0..10 {
                        tokio::task::yield_now().await;
                    }
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    Ok(ToolOutput::text("ok"))
                }
            })
            .build()
    };
    let s = session(ToolPool::builder().builtin(tool).build()).max_concurrency(3).build();
    let calls = (0..12).map(|i| ToolCall::new(format!("{i}"), "Safe", json!({}))).collect();
    s.run_message(calls).await;
    assert!(max_seen.load(Ordering::SeqCst) <= 3);
}

fn bash_fake() -> toolgate_core::DynTool {
    ToolBuilder::new("Bash")
        .schema(strict(json!({"command": {"type": "string"}}), &["command"]))
        .concurrency_safe(true)
        .interrupt_behavior(InterruptBehavior::Cancel)
        .call(|input, ctx| async move {
            match input["command"].as_str() {
                Some("fail") => Err(ToolError::io("Exit code 1")),
                _ => {
                    ctx.cancel.cancelled().await;
                    Ok(ToolOutput::text("should have been cancelled"))
                }
            }
        })
        .build()
}

#[tokio::test]
async fn a_failing_bash_call_cancels_its_running_siblings() {
    let s = session(ToolPool::builder().builtin(bash_fake()).build()).build();
    let results = tokio::time::timeout(
        Duration::from_secs(20),
        s.run_message(vec![
            ToolCall::new("a", "Bash", json!({"command": "wait"})),
            ToolCall::new("b", "Bash", json!({"command": "fail"})),
            ToolCall::new("c", "Bash", json!({"command": "wait"})),
        ]),
    )
    .await
    .expect("siblings were cancelled");
    assert!(text(&results[1]).contains("Exit code 1"));
    for r in [&results[0], &results[2]] {
        assert!(r.is_error);
        assert!(text(r).contains("cancelled because a Bash call running beside it failed"), "{}", text(r));
    }
}

#[tokio::test]
async fn user_cancellation_stops_running_calls_and_skips_the_rest() {
    let started = Arc::new(tokio::sync::Notify::new());
    let tool = {
        let started = started.clone();
        ToolBuilder::new("Slow")
            .interrupt_behavior(InterruptBehavior::Cancel)
            .call(move |_, ctx| {
                let started = started.clone();
                async move {
                    started.notify_one();
                    ctx.cancel.cancelled().await;
                    Ok(ToolOutput::text("unreachable"))
                }
            })
            .build()
    };
    let s = session(ToolPool::builder().builtin(tool).build()).build();
    let cancel = CancellationToken::new();
    let run = {
        let (s, cancel) = (s.clone(), cancel.clone());
        tokio::spawn(async move {
            s.run_message_with(
                vec![ToolCall::new("1", "Slow", json!({})), ToolCall::new("2", "Slow", json!({}))],
                cancel,
                None,
            )
            .await
        })
    };
    started.notified().await;
    cancel.cancel();
    let results = tokio::time::timeout(Duration::from_secs(20), run).await.unwrap().unwrap();
    assert!(text(&results[0]).contains("cancelled by the user before it finished"));
    assert!(text(&results[1]).contains("cancelled by the user before it started"));
}

#[tokio::test]
async fn a_panicking_tool_fails_alone() {
    let boom = ToolBuilder::new("Boom")
        .call(|_, _| async move {
            let v: Vec<u8> = Vec::new();
            // Index out of bounds on purpose: a bug inside a tool.
            Ok(ToolOutput::text(format!("{}", v[usize::from(v.is_empty())])))
        })
        .build();
    let log = log();
    let s = session(ToolPool::builder().builtin(boom).builtin(recording_tool("Count", &log)).build()).build();
    let results =
        s.run_message(vec![ToolCall::new("1", "Boom", json!({})), ToolCall::new("2", "Count", json!({"n": 1}))]).await;
    assert!(results[0].is_error && text(&results[0]).contains("internal error"));
    assert_eq!(text(&results[1]), "Count got 1");
    assert_eq!(s.stats()["Boom"].errors["internal"], 1);
}

/// A call alone in its batch runs in the message's task, calls of a concurrent batch in
/// tasks of their own: either way a panic fails only its call.
#[tokio::test]
async fn a_panic_fails_only_its_call_alone_or_among_concurrent_calls() {
    let boom = |name: &'static str, safe: bool| {
        ToolBuilder::new(name).concurrency_safe(safe).call(|_, _| async { panic!("a bug inside the tool") }).build()
    };
    let fine = ToolBuilder::new("Fine").concurrency_safe(true).call(|_, _| async { Ok(ToolOutput::text("fine")) });
    let pool = ToolPool::builder().builtin(boom("Alone", false)).builtin(boom("Among", true)).builtin(fine.build());
    let s = session(pool.build()).build();
    let results = s
        .run_message(vec![
            ToolCall::new("1", "Alone", json!({})),
            ToolCall::new("2", "Among", json!({})),
            ToolCall::new("3", "Fine", json!({})),
        ])
        .await;
    for (result, name) in results.iter().zip(["Alone", "Among"]) {
        assert!(result.is_error, "{result:?}");
        assert!(text(result).contains(&format!("{name} failed with an internal error")), "{}", text(result));
    }
    assert_eq!(text(&results[2]), "fine");
    // The session goes on.
    let again = s.run_message(vec![ToolCall::new("4", "Fine", json!({}))]).await;
    assert_eq!(text(&again[0]), "fine");
}

#[tokio::test]
async fn the_message_budget_persists_the_largest_results() {
    let big = |name: &'static str, size: usize| {
        ToolBuilder::new(name)
            .concurrency_safe(true)
            .max_result_size_chars(ResultLimit::Chars(100_000))
            .call(move |_, _| async move { Ok(ToolOutput::text("x".repeat(size))) })
            .build()
    };
    let dir = tempfile::tempdir().unwrap();
    let pool = ToolPool::builder().builtin(big("Small", 30_000)).builtin(big("Large", 45_000)).build();
    let s = session(pool).results_dir(dir.path()).message_budget(60_000).build();
    let results =
        s.run_message(vec![ToolCall::new("s", "Small", json!({})), ToolCall::new("l", "Large", json!({}))]).await;
    assert_eq!(text(&results[0]).len(), 30_000, "the smaller result stays inline");
    assert!(text(&results[1]).starts_with("<persisted-output>"));
    assert_eq!(std::fs::read_to_string(dir.path().join("l.txt")).unwrap().len(), 45_000);
}

#[tokio::test]
async fn updated_input_is_validated_again_and_permission_sees_it() {
    let log = log();
    let pool = ToolPool::builder().builtin(recording_tool("Count", &log)).build();
    let rewrite_to = |v: Value| {
        Box::new(move |_: &Value| PreHookOutcome { updated_input: Some(v.clone()), ..Default::default() })
            as Box<dyn Fn(&Value) -> PreHookOutcome + Send + Sync>
    };
    let good =
        Arc::new(Hooks { log: log.clone(), pre: rewrite_to(json!({"n": 42})), post: PostHookOutcome::default() });
    let s = session(pool).hooks(good).build();
    let r = s.run_message(vec![ToolCall::new("1", "Count", json!({"n": 1}))]).await;
    assert_eq!(text(&r[0]), "Count got 42");

    let pool = ToolPool::builder().builtin(recording_tool("Count", &log)).build();
    let bad =
        Arc::new(Hooks { log: log.clone(), pre: rewrite_to(json!({"n": "x"})), post: PostHookOutcome::default() });
    let s = session(pool).hooks(bad).build();
    let r = s.run_message(vec![ToolCall::new("1", "Count", json!({"n": 1}))]).await;
    assert!(r[0].is_error && text(&r[0]).contains("rewrote the input into one that is invalid"), "{}", text(&r[0]));
}

#[tokio::test]
async fn hook_decisions_combine_with_rules() {
    let log = log();
    let deny_hook = Arc::new(Hooks {
        log: log.clone(),
        pre: Box::new(|_| PreHookOutcome {
            decision: Some(HookVerdict {
                behavior: PermissionBehavior::Deny,
                reason: Some("not on Fridays".into()),
                hook: "policy.sh".into(),
                updated_input: false,
            }),
            ..Default::default()
        }),
        post: PostHookOutcome::default(),
    });
    let s = session(ToolPool::builder().builtin(recording_tool("Count", &log)).build()).hooks(deny_hook).build();
    let r = s.run_message(vec![ToolCall::new("1", "Count", json!({"n": 1}))]).await;
    assert!(r[0].is_error && text(&r[0]).contains("not on Fridays"));
    assert!(!entries(&log).iter().any(|l| l.starts_with("call")));

    let blocked = Arc::new(Hooks {
        log: log.clone(),
        pre: Box::new(|_| PreHookOutcome { blocked: Some("exit 2: forbidden path".into()), ..Default::default() }),
        post: PostHookOutcome::default(),
    });
    let s = session(ToolPool::builder().builtin(recording_tool("Count", &log)).build()).hooks(blocked).build();
    let r = s.run_message(vec![ToolCall::new("1", "Count", json!({"n": 1}))]).await;
    assert!(text(&r[0]).contains("A PreToolUse hook blocked this call: exit 2: forbidden path"));
}

#[tokio::test]
async fn post_hooks_add_context_block_and_replace_output() {
    let log = log();
    let hooks = Arc::new(Hooks {
        log: log.clone(),
        pre: Box::new(|_| PreHookOutcome { additional_context: vec!["from pre".into()], ..Default::default() }),
        post: PostHookOutcome {
            blocked: Some("lint failed".into()),
            updated_output: Some(json!("replaced")),
            ..Default::default()
        },
    });
    let s = session(ToolPool::builder().builtin(recording_tool("Count", &log)).build()).hooks(hooks).build();
    let r = s.run_message(vec![ToolCall::new("1", "Count", json!({"n": 1}))]).await;
    let t = text(&r[0]);
    assert!(t.starts_with("replaced"), "{t}");
    assert!(t.contains("from pre") && t.contains("PostToolUse hook feedback: lint failed"), "{t}");
}

#[tokio::test]
async fn context_changes_apply_after_the_batch_in_order() {
    let cd = ToolBuilder::new("Cd")
        .schema(strict(json!({"to": {"type": "string"}}), &["to"]))
        .call(|input, ctx| async move {
            let to = input["to"].as_str().unwrap_or_default().to_owned();
            Ok(ToolOutput::text(format!("was {}", ctx.cwd.display()))
                .with_context_change(ContextChange::Cwd(to.into())))
        })
        .build();
    let s = session(ToolPool::builder().builtin(cd).build()).build();
    let r = s
        .run_message(vec![ToolCall::new("1", "Cd", json!({"to": "/a"})), ToolCall::new("2", "Cd", json!({"to": "/b"}))])
        .await;
    assert_eq!(text(&r[0]), "was /tmp");
    assert_eq!(text(&r[1]), "was /a");
    assert_eq!(s.cwd(), std::path::PathBuf::from("/b"));
}

#[tokio::test]
async fn events_and_stats() {
    let log = log();
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink: EventSink = {
        let seen = seen.clone();
        Arc::new(move |e: Event| {
            let label = match e {
                Event::CallStarted { .. } => "started".to_owned(),
                Event::PermissionDecided { decision, .. } => format!("permission {}", decision.behavior),
                Event::CallFinished { error_kind, .. } => format!("finished {error_kind:?}"),
                other => format!("{other:?}"),
            };
            seen.lock().unwrap().push(label);
        })
    };
    let s = session(ToolPool::builder().builtin(recording_tool("Count", &log)).build()).build();
    s.run_message_with(vec![ToolCall::new("1", "Count", json!({"n": 1}))], CancellationToken::new(), Some(sink)).await;
    assert_eq!(*seen.lock().unwrap(), ["started", "permission allow", "finished None"]);
    assert_eq!(s.stats()["Count"].calls, 1);
}

#[tokio::test]
async fn model_facing_error_texts() {
    let log = log();
    let deny_all = {
        let mut loaded = toolgate_permissions::LoadedSettings::default();
        loaded.add_cli_rules(PermissionBehavior::Deny, &["Count(n:13)".to_owned()], std::path::Path::new("/tmp"));
        let (settings, _) = loaded.permissions();
        PermissionEngine::builder(settings).cwd("/tmp").build()
    };
    let failing = ToolBuilder::new("Fails")
        .call(|_, _| async {
            Err(ToolError::not_found("/tmp/missing.txt does not exist").with_hint("Did you mean /tmp/missing.md?"))
        })
        .build();
    let pool = ToolPool::builder().builtin(recording_tool("Count", &log)).builtin(failing).build();
    let s = session(pool).engine(deny_all).build();
    let results = s
        .run_message(vec![
            ToolCall::new("1", "Cuont", json!({})),
            ToolCall::new("2", "Count", json!({"n": "x", "extra": 1})),
            ToolCall::new("3", "Count", json!({"n": 13})),
            ToolCall::new("4", "Fails", json!({})),
        ])
        .await;
    let all: Vec<String> = results.iter().map(text).collect();
    insta::assert_snapshot!(all.join("\n---\n"));
}

#[tokio::test]
async fn model_facing_texts_of_cancellation_panics_and_hook_blocks() {
    let boom = ToolBuilder::new("Boom").call(|_, _| async { panic!("a bug inside the tool") }).build();
    let log = log();
    let blocked = Arc::new(Hooks {
        log: log.clone(),
        pre: Box::new(|input| {
            if input["n"] == 2 {
                PreHookOutcome { blocked: Some("builds are frozen until Monday".into()), ..Default::default() }
            } else {
                PreHookOutcome::default()
            }
        }),
        post: PostHookOutcome::default(),
    });
    let pool = ToolPool::builder().builtin(boom).builtin(recording_tool("Count", &log)).build();
    let s = session(pool).hooks(blocked).build();
    let mut texts: Vec<String> = s
        .run_message(vec![ToolCall::new("1", "Boom", json!({})), ToolCall::new("2", "Count", json!({"n": 2}))])
        .await
        .iter()
        .map(text)
        .collect();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let cancelled = s.run_message_with(vec![ToolCall::new("3", "Count", json!({"n": 1}))], cancel, None).await;
    texts.push(text(&cancelled[0]));
    insta::assert_snapshot!(texts.join("\n---\n"));
}

/// A fork has its own cwd, file-state cache and app state, and the host's services as
/// `services` changed them; the pool and the engine stay shared.
#[tokio::test]
async fn a_fork_keeps_its_state_apart_and_shares_the_pool() {
    let cd = ToolBuilder::new("Cd")
        .schema(strict(json!({"to": {"type": "string"}}), &["to"]))
        .call(|input, ctx| async move {
            let to = input["to"].as_str().unwrap_or_default().to_owned();
            ctx.file_state.record_read(std::path::Path::new(&to), b"x", None, false);
            ctx.app_state.set(to.clone());
            let service = ctx.extensions.get::<String>().map(|s| (*s).clone()).unwrap_or_default();
            Ok(ToolOutput::text(format!("was {} with {service}", ctx.cwd.display()))
                .with_context_change(ContextChange::Cwd(to.into())))
        })
        .build();
    let mut services = toolgate_core::Extensions::default();
    services.insert("base service".to_owned());
    let base = session(ToolPool::builder().builtin(cd).build()).extensions(services).build();
    let a = base.fork("a", |ext| ext.insert("a's service".to_owned()));
    let b = base.fork("b", |_| {});
    assert!(Arc::ptr_eq(&a.pool(), &base.pool()) && Arc::ptr_eq(a.engine(), b.engine()));
    let r = a.run_message(vec![ToolCall::new("1", "Cd", json!({"to": "/a"}))]).await;
    assert_eq!(text(&r[0]), "was /tmp with a's service");
    let r = b.run_message(vec![ToolCall::new("1", "Cd", json!({"to": "/b"}))]).await;
    assert_eq!(text(&r[0]), "was /tmp with base service");
    assert_eq!((a.cwd(), b.cwd(), base.cwd()), ("/a".into(), "/b".into(), "/tmp".into()));
    assert!(a.file_state().get(std::path::Path::new("/a")).is_some());
    assert!(b.file_state().get(std::path::Path::new("/a")).is_none());
    assert!(base.file_state().get(std::path::Path::new("/a")).is_none());
    assert_eq!(a.context().app_state.get::<String>().as_deref(), Some("/a"));
    assert_eq!(b.context().app_state.get::<String>().as_deref(), Some("/b"));
    assert_eq!(base.context().app_state.get::<String>(), None);
    assert_eq!(a.results().dir(), base.results().dir().join("a"));
}

/// When the deferred tools change (an MCP server connected late or changed its tools), the
/// next message's last result tells the model once, so it knows to look them up.
#[tokio::test]
async fn a_change_of_the_deferred_tools_is_told_to_the_model_once() {
    let mcp = |name: &str| ToolBuilder::new(name).description("an MCP tool").build();
    let echo = ToolBuilder::new("Echo").call(|_, _| async move { Ok(ToolOutput::text("hi")) }).read_only(true).build();
    let pool = ToolPool::builder()
        .builtin(echo)
        .builtin(toolgate_core::ToolSearchTool::shared())
        .mcps([mcp("mcp__s__a")])
        .build();
    assert!(pool.is_deferred("mcp__s__a"));
    let session = Session::builder().pool(pool).cwd("/tmp").mode(PermissionMode::BypassPermissions).build();
    let texts = |results: Vec<ToolResultBlock>| -> Vec<String> {
        results[0].content.iter().filter_map(|b| b.as_text().map(str::to_owned)).collect()
    };
    let call = || vec![ToolCall::new("t", "Echo", json!({}))];
    assert_eq!(texts(session.run_message(call()).await), ["hi"], "nothing changed yet");
    session.set_mcp_tools([mcp("mcp__s__b"), mcp("mcp__s__c")]);
    assert_eq!(
        texts(session.run_message(call()).await),
        [
            "hi",
            "<system-reminder>\nThe deferred tools changed: now available through ToolSearch: mcp__s__b, mcp__s__c; \
             no longer available: mcp__s__a.\n</system-reminder>"
        ]
    );
    assert_eq!(texts(session.run_message(call()).await), ["hi"], "told once");
    // A host whose client hears of tool changes another way (`mcp serve`) turns it off.
    session.tell_deferred_changes(false);
    session.set_mcp_tools([mcp("mcp__s__d")]);
    assert_eq!(texts(session.run_message(call()).await), ["hi"]);
}
