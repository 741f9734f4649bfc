//! Table tests of the layered decision: grammar in context, precedence, modes, paths,
//! hooks, and Bash calls including adversarial ones.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolgate_core::{
    BoxFuture, PermissionBehavior, PermissionCheck, PermissionMode, RuleSource, Tool, ToolContext, ToolError,
    ToolOutput,
};

use super::*;
use crate::{LoadedSettings, SettingsFile};

use PermissionBehavior::{Allow, Ask, Deny};

/// A tool with a name, a schema and Claude Code's permission target for its family.
struct T {
    name: &'static str,
    schema: Value,
    own: PermissionCheck,
    user: bool,
    read_only: bool,
}

fn tool(name: &'static str) -> T {
    let schema = json!({"type": "object", "properties": {
        "command": {}, "file_path": {}, "url": {}, "model": {}, "subagent_type": {}, "run_in_background": {}
    }});
    T { name, schema, own: PermissionCheck::Passthrough, user: false, read_only: false }
}

impl Tool for T {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> Cow<'_, str> {
        "test tool".into()
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn is_read_only(&self, _: &Value) -> bool {
        self.read_only
    }
    fn requires_user_interaction(&self) -> bool {
        self.user
    }
    fn check_permissions(&self, _: &Value, _: &ToolContext) -> PermissionCheck {
        self.own.clone()
    }
    fn permission_target(&self, input: &Value) -> Option<String> {
        match self.name {
            "WebFetch" => input["url"].as_str().map(|u| u.split('/').nth(2).unwrap_or_default().to_owned()),
            "Agent" => input["subagent_type"].as_str().map(str::to_owned),
            "Bash" => input["command"].as_str().map(str::to_owned),
            _ => input["file_path"].as_str().map(str::to_owned),
        }
    }
    /// The file path, read by a `Read`-family tool and written by an `Edit`-family one.
    fn targets(&self, input: &Value) -> Vec<toolgate_core::Target> {
        let access = match Family::of(self.name) {
            Family::Read => toolgate_core::Access::Read { walked: false },
            Family::Edit => toolgate_core::Access::Write,
            _ => return Vec::new(),
        };
        input["file_path"].as_str().map(|p| toolgate_core::Target::new(p, access)).into_iter().collect()
    }
    fn call<'a>(&'a self, _: Value, _: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::text("ran")) })
    }
    fn render_use(&self, input: &Value) -> String {
        format!("{}({input})", self.name)
    }
}

fn settings(value: Value) -> PermissionSettings {
    settings_at(value, Path::new("/repo"))
}

fn settings_at(value: Value, anchor: &Path) -> PermissionSettings {
    let mut loaded = LoadedSettings::default();
    loaded.add(SettingsFile {
        source: RuleSource::ProjectSettings,
        origin: "/repo/.claude/settings.json".into(),
        anchor: anchor.to_path_buf(),
        value,
    });
    let (settings, diags) = loaded.permissions();
    assert!(diags.is_empty(), "{diags:?}");
    settings
}

fn project_engine() -> PermissionEngine {
    let s = settings(json!({"permissions": {
        "allow": ["Bash(npm run test:*)", "Bash(git commit:*)", "Bash(cargo build:*)", "Edit(/src/**)",
                  "WebFetch(domain:docs.rs)", "mcp__github__get_*", "Read(~/notes/**)"],
        "deny": ["Bash(rm:*)", "Bash(curl:*)", "Read(./.env)", "Read(./secrets/**)", "Edit(/Cargo.lock)",
                 "WebFetch(domain:*.evil.com)", "mcp__danger", "Agent(model:opus)", "WebSearch"],
        "ask": ["Bash(git push:*)", "Edit(migrations/**)", "Skill"],
    }}));
    PermissionEngine::builder(s).home(Some("/home/u".into())).cwd("/repo").build()
}

/// An engine for a session in `/repo` whose project settings allow `Bash(PREFIX:*)` for each
/// of `prefixes`.
fn engine_allowing(prefixes: &[&str]) -> PermissionEngine {
    let rules: Vec<String> = prefixes.iter().map(|c| format!("Bash({c}:*)")).collect();
    let s = settings(json!({"permissions": {"allow": rules}}));
    PermissionEngine::builder(s).home(Some("/home/u".into())).cwd("/repo").build()
}

fn empty_engine() -> PermissionEngine {
    PermissionEngine::builder(PermissionSettings::default()).home(Some("/home/u".into())).cwd("/repo").build()
}

fn ctx(mode: PermissionMode) -> ToolContext {
    let mut c = ToolContext::new("/repo");
    c.permission_mode = mode;
    c
}

fn check(
    engine: &PermissionEngine,
    t: &T,
    input: Value,
    mode: PermissionMode,
    hook: Option<&HookVerdict>,
) -> (PermissionBehavior, &'static str) {
    let e = engine.evaluate(t, &input, &ctx(mode), hook);
    (e.decision.behavior, e.decision.reason.kind())
}

use PermissionMode::{AcceptEdits, BypassPermissions as Bypass, Default as Dflt, DontAsk, Plan};

mod bash;
mod paths;
mod readings;
mod targets;

/// Asserts that a deny rule denies `command` in every mode.
fn denied_by_a_rule_in_every_mode(engine: &PermissionEngine, command: &str) {
    for mode in [Dflt, AcceptEdits, Plan, DontAsk, Bypass] {
        let decision = check(engine, &tool("Bash"), json!({"command": command}), mode, None);
        assert_eq!(decision, (Deny, "rule"), "{command:?} {mode}");
    }
}

/// Asserts that `command` asks for safety in `bypassPermissions` and with a hook's approval;
/// returns the message of the first.
fn never_approved_automatically(engine: &PermissionEngine, command: &str) -> String {
    let bash = tool("Bash");
    let input = json!({"command": command});
    let hook = HookVerdict { behavior: Allow, reason: None, hook: "h".into(), updated_input: false };
    assert_eq!(check(engine, &bash, input.clone(), Dflt, Some(&hook)), (Ask, "safety"), "{command}");
    let e = engine.evaluate(&bash, &input, &ctx(Bypass), None);
    assert_eq!((e.decision.behavior, e.decision.reason.kind()), (Ask, "safety"), "{command}");
    e.decision.message
}

/// Asserts that `bypassPermissions` allows each of `commands`.
fn bypassed(engine: &PermissionEngine, commands: &[&str]) {
    for command in commands {
        assert_eq!(
            check(engine, &tool("Bash"), json!({"command": command}), Bypass, None),
            (Allow, "mode"),
            "{command}"
        );
    }
}

#[test]
fn other_families() {
    let engine = project_engine();
    let web = tool("WebFetch");
    assert_eq!(check(&engine, &web, json!({"url": "https://docs.rs/x"}), Dflt, None), (Allow, "rule"));
    assert_eq!(check(&engine, &web, json!({"url": "https://a.b.evil.com/"}), Bypass, None), (Deny, "rule"));
    assert_eq!(check(&engine, &web, json!({"url": "https://example.com/"}), Dflt, None), (Ask, "default"));
    assert_eq!(check(&engine, &tool("mcp__github__get_issue"), json!({}), Dflt, None), (Allow, "rule"));
    assert_eq!(check(&engine, &tool("mcp__github__create_issue"), json!({}), Dflt, None), (Ask, "default"));
    assert_eq!(check(&engine, &tool("mcp__danger__x"), json!({}), Bypass, None), (Deny, "rule"));
    assert!(engine.removes_tool("mcp__danger__x") && engine.removes_tool("WebSearch"));
    assert!(!engine.removes_tool("Bash") && !engine.removes_tool("Read"));
    let agent = tool("Agent");
    assert_eq!(check(&engine, &agent, json!({"model": "opus"}), Bypass, None), (Deny, "rule"));
    assert_eq!(check(&engine, &tool("Task"), json!({"model": "opus"}), Dflt, None), (Deny, "rule"));
    assert_eq!(check(&engine, &agent, json!({"model": "haiku"}), Dflt, None), (Ask, "default"));
    assert_eq!(check(&engine, &tool("Skill"), json!({}), Bypass, None), (Ask, "rule"));
    assert_eq!(check(&engine, &tool("WebSearch"), json!({}), Bypass, None), (Deny, "rule"));
}

#[test]
fn the_tools_own_opinion_and_user_interaction() {
    let engine = empty_engine();
    let mut allow = tool("ToolSearch");
    allow.own = PermissionCheck::Allow { detail: "loads definitions".into() };
    assert_eq!(check(&engine, &allow, json!({}), DontAsk, None), (Allow, "tool"));
    let mut refuse = tool("Thing");
    refuse.own = PermissionCheck::Deny { detail: "no".into() };
    assert_eq!(check(&engine, &refuse, json!({}), Bypass, None), (Deny, "tool"));
    let mut ask_user = tool("AskUserQuestion");
    ask_user.user = true;
    ask_user.read_only = true;
    assert_eq!(check(&engine, &ask_user, json!({}), Bypass, None), (Ask, "tool"));
    assert_eq!(check(&engine, &ask_user, json!({}), DontAsk, None), (Deny, "mode"));
    let answered = HookVerdict { behavior: Allow, reason: None, hook: "h".into(), updated_input: true };
    assert_eq!(check(&engine, &ask_user, json!({}), Dflt, Some(&answered)), (Allow, "hook"));
}

#[test]
fn hooks_combine_with_rules() {
    let engine = project_engine();
    let bash = tool("Bash");
    let hook = |behavior| HookVerdict {
        behavior,
        reason: Some("policy".into()),
        hook: "check.sh".into(),
        updated_input: false,
    };
    assert_eq!(check(&engine, &bash, json!({"command": "ls"}), Dflt, Some(&hook(Deny))), (Deny, "hook"));
    assert_eq!(check(&engine, &bash, json!({"command": "npm run test"}), Bypass, Some(&hook(Deny))), (Deny, "hook"));
    assert_eq!(check(&engine, &bash, json!({"command": "npm install"}), Dflt, Some(&hook(Allow))), (Allow, "hook"));
    assert_eq!(check(&engine, &bash, json!({"command": "git push"}), Dflt, Some(&hook(Allow))), (Ask, "rule"));
    assert_eq!(check(&engine, &bash, json!({"command": "rm x"}), Dflt, Some(&hook(Allow))), (Deny, "rule"));
    assert_eq!(check(&engine, &bash, json!({"command": "ls"}), Dflt, Some(&hook(Ask))), (Ask, "hook"));
    assert_eq!(check(&engine, &bash, json!({"command": "ls"}), Bypass, Some(&hook(Ask))), (Ask, "hook"));
    let edit = tool("Edit");
    assert_eq!(
        check(&engine, &edit, json!({"file_path": "/repo/.git/config"}), Dflt, Some(&hook(Allow))),
        (Allow, "hook")
    );
}

#[test]
fn disabled_bypass_falls_back_to_default() {
    let s = settings(json!({"permissions": {"disableBypassPermissionsMode": "disable"}}));
    let engine = PermissionEngine::builder(s).cwd("/repo").build();
    let e = engine.evaluate(&tool("Bash"), &json!({"command": "npm install"}), &ctx(Bypass), None);
    assert_eq!(e.decision.behavior, Ask);
    assert!(e.explain().contains("bypassPermissions is disabled"), "{}", e.explain());
}

#[test]
fn every_decision_explains_itself() {
    let engine = project_engine();
    let e = engine.evaluate(&tool("Bash"), &json!({"command": "git status; rm -rf x"}), &ctx(Dflt), None);
    let explained = e.explain();
    assert!(explained.contains("deny rules"), "{explained}");
    assert!(e.decision.message.contains("Bash(rm:*)") && e.decision.message.contains("/repo/.claude/settings.json"));
    assert!(explained.lines().last().unwrap().starts_with("result: deny"));
}

struct Recorder(Mutex<Vec<PromptRequest>>, PromptAnswer);
impl Prompter for Recorder {
    fn prompt<'a>(&'a self, request: &'a PromptRequest) -> BoxFuture<'a, PromptAnswer> {
        self.0.lock().unwrap().push(request.clone());
        let answer = self.1.clone();
        Box::pin(async move { answer })
    }
}

struct FixedClassifier(ClassifierVerdict, Mutex<usize>);
impl Classifier for FixedClassifier {
    fn name(&self) -> &str {
        "fixed"
    }
    fn classify<'a>(&'a self, _: &'a ClassifierRequest) -> BoxFuture<'a, ClassifierVerdict> {
        *self.1.lock().unwrap() += 1;
        let v = self.0.clone();
        Box::pin(async move { v })
    }
}

#[tokio::test]
async fn without_a_person_an_ask_is_a_denial_naming_the_rule() {
    let engine = project_engine();
    let d = engine.decide(&tool("Bash"), &json!({"command": "npm install lodash"}), &ctx(Dflt), None).await;
    assert_eq!(d.decision.behavior, Deny);
    assert!(d.decision.message.contains("\"Bash(npm install:*)\""), "{}", d.decision.message);
}

#[tokio::test]
async fn always_allow_is_saved_and_remembered() {
    let tmp = tempfile::tempdir().unwrap();
    let local = tmp.path().join(".claude/settings.local.json");
    let recorder = Arc::new(Recorder(Mutex::new(Vec::new()), PromptAnswer::AllowAlways));
    let engine = PermissionEngine::builder(PermissionSettings::default())
        .cwd("/repo")
        .prompter(recorder.clone())
        .local_settings(&local)
        .build();
    let bash = tool("Bash");
    let d = engine.decide(&bash, &json!({"command": "make test && npm run lint"}), &ctx(Dflt), None).await;
    assert_eq!(d.decision.behavior, Allow);
    assert_eq!(recorder.0.lock().unwrap()[0].suggestions, ["Bash(make test:*)", "Bash(npm run lint:*)"]);
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&local).unwrap()).unwrap();
    assert_eq!(saved["permissions"]["allow"], json!(["Bash(make test:*)", "Bash(npm run lint:*)"]));
    let again = engine.evaluate(&bash, &json!({"command": "make test -j4"}), &ctx(Dflt), None);
    assert_eq!(again.decision.behavior, Allow);
}

#[tokio::test]
async fn the_classifier_settles_only_open_asks() {
    let classifier = Arc::new(FixedClassifier(ClassifierVerdict::Allow { reason: "fine".into() }, Mutex::new(0)));
    let s = settings(json!({"permissions": {"ask": ["Bash(git push:*)"]}}));
    let engine = PermissionEngine::builder(s).cwd("/repo").classifier(classifier.clone()).build();
    let bash = tool("Bash");
    let d = engine.decide(&bash, &json!({"command": "npm install"}), &ctx(Dflt), None).await;
    assert_eq!((d.decision.behavior, d.decision.reason.kind()), (Allow, "classifier"));
    // The explanation runs from the synchronous layers' ask to the classifier's answer.
    let lines: Vec<String> = d.explain().lines().map(str::to_owned).collect();
    assert!(lines[0].starts_with("evaluation: ask: Bash("), "{lines:?}");
    assert!(lines[1].starts_with("classifier: Allow"), "{lines:?}");
    assert_eq!(lines[2], "result: allow: allowed by the fixed classifier: fine (reason: classifier)", "{lines:?}");
    let d = engine.decide(&bash, &json!({"command": "git push"}), &ctx(Dflt), None).await;
    assert_eq!(d.decision.behavior, Deny, "an explicit ask rule is not the classifier's to settle");
    let d = engine.decide(&bash, &json!({"command": "rm -rf /"}), &ctx(Dflt), None).await;
    assert_eq!(d.decision.behavior, Deny);
    // Nor what a rule or the critical-path check may catch once it runs.
    for command in ["$CMD -rf /", "git push $F", "curl -s x | sh"] {
        let d = engine.decide(&bash, &json!({"command": command}), &ctx(Dflt), None).await;
        assert_eq!(d.decision.behavior, Deny, "{command}");
    }
    assert_eq!(*classifier.1.lock().unwrap(), 1);
}

struct RequestHook(Option<RequestHookVerdict>);
impl PermissionRequestHooks for RequestHook {
    fn run<'a>(&'a self, _: &'a str, _: &'a Value, _: &'a [String]) -> BoxFuture<'a, Option<RequestHookVerdict>> {
        let v = self.0.clone();
        Box::pin(async move { v })
    }
}

#[tokio::test]
async fn permission_request_hooks_answer_where_a_prompt_would_be() {
    let verdict = RequestHookVerdict {
        behavior: Allow,
        message: None,
        hook: "approve.sh".into(),
        updated_input: Some(json!({"command": "npm install --ignore-scripts"})),
    };
    let engine = PermissionEngine::builder(PermissionSettings::default())
        .cwd("/repo")
        .request_hooks(Arc::new(RequestHook(Some(verdict))))
        .build();
    let d = engine.decide(&tool("Bash"), &json!({"command": "npm install"}), &ctx(Dflt), None).await;
    assert_eq!((d.decision.behavior, d.decision.reason.kind()), (Allow, "hook"));
    assert_eq!(d.updated_input, Some(json!({"command": "npm install --ignore-scripts"})));
    let d = engine.decide(&tool("Bash"), &json!({"command": "rm -rf ~"}), &ctx(Dflt), None).await;
    assert_eq!(d.decision.behavior, Deny, "critical paths are never hook-approved");
}

#[tokio::test]
async fn a_person_can_deny_with_feedback() {
    let recorder = Arc::new(Recorder(Mutex::new(Vec::new()), PromptAnswer::Deny { feedback: Some("use pnpm".into()) }));
    let engine = PermissionEngine::builder(PermissionSettings::default()).cwd("/repo").prompter(recorder).build();
    let d = engine.decide(&tool("Bash"), &json!({"command": "npm install"}), &ctx(Dflt), None).await;
    assert_eq!((d.decision.behavior, d.decision.reason.kind()), (Deny, "user"));
    assert!(d.decision.message.ends_with("use pnpm"));
}
