//! The layered decision: rules, safety, hooks, modes, classifier and person, with the
//! reason for every outcome.
//!
//! [`PermissionEngine::evaluate`] runs the synchronous layers in Claude Code's order:
//!
//! 1. a PreToolUse hook's deny, or a tool-wide deny rule → **deny**;
//! 2. a tool-wide ask rule → **ask**;
//! 3. the call's content: content deny rules → **deny**; the tool's own refusal →
//!    **deny**; content ask rules, critical `rm`, a tool that needs a person, protected
//!    paths → **ask** (in every mode);
//! 4. a hook's allow or ask; plan mode's refusal of edits and non-read-only commands; the
//!    tool's own allow or ask; reads inside the working directories and read-only commands
//!    → **allow**; `acceptEdits` for edits inside the working directories → **allow**;
//! 5. `bypassPermissions` → **allow**;
//! 6. tool-wide and content allow rules → **allow**;
//! 7. otherwise → **ask**; and `dontAsk` turns every ask into **deny**.
//!
//! [`PermissionEngine::decide`] then settles an ask: the classifier (only for asks no rule
//! or safety check forced), PermissionRequest hooks, then the person through a
//! [`Prompter`]; with no person, a denial naming the rule that would allow the call.

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use globset::Candidate;
use serde_json::Value;
use toolgate_core::{
    BoxFuture, DecisionReason, PermissionBehavior, PermissionCheck, PermissionDecision, PermissionMode, RuleSource,
    Tool, ToolContext, canonical_tool_name,
};

use crate::bash::{BashAnalysis, Hazard, SimpleCommand, Text, analyze, is_read_only_command};
use crate::bash_paths::{
    Bases, MAX_WALKED, basename, glob_may_name_hidden, operands, option_paths, read_operands, recursion,
    sed_edits_only_operands, walk_below,
};
use crate::prompt::{PromptAnswer, PromptRequest, Prompter, persist_allow_rules, suggest_rules_with};
use crate::real_path::Resolver;
use crate::rule_index::{CommandIndex, PathHits, RuleBook, ToolRules};
use crate::rules::{CompiledRule, Family, Spec, home_dir};
use crate::settings::{Diagnostic, PermissionSettings, RuleEntry};
use crate::{Classifier, ClassifierRequest, ClassifierVerdict, critical_rm_reason, protected_path_reason};

/// What a PreToolUse hook decided, as the engine needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookVerdict {
    /// Allow, ask or deny.
    pub behavior: PermissionBehavior,
    /// The hook's reason.
    pub reason: Option<String>,
    /// Which hook (its command).
    pub hook: String,
    /// Whether the hook also rewrote the input (lets a user-interaction tool skip its prompt).
    pub updated_input: bool,
}

/// What a PermissionRequest hook decided at the prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestHookVerdict {
    /// Allow or deny.
    pub behavior: PermissionBehavior,
    /// Shown to the model on deny.
    pub message: Option<String>,
    /// Which hook.
    pub hook: String,
    /// A replacement input (allow only).
    pub updated_input: Option<Value>,
}

/// PermissionRequest hooks, run where a prompt would be shown. `toolgate-hooks` provides
/// the implementation; the pipeline wires it in.
pub trait PermissionRequestHooks: Send + Sync {
    /// The hooks' verdict for this call, or `None` when no hook decided.
    fn run<'a>(
        &'a self,
        tool_name: &'a str,
        input: &'a Value,
        suggestions: &'a [String],
    ) -> BoxFuture<'a, Option<RequestHookVerdict>>;
}

/// One layer's verdict, for [`Evaluation::explain`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerVerdict {
    /// The layer.
    pub layer: &'static str,
    /// What it said.
    pub verdict: String,
}

/// Why an ask is an ask: whether a classifier may settle it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AskKind {
    /// Nothing decided: a classifier, hook or person may.
    Open,
    /// A rule, hook, tool or safety check demands a person.
    Forced,
    /// Critical: only a person, never a hook or classifier.
    PersonOnly,
}

/// The result of the synchronous layers.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The decision.
    pub decision: PermissionDecision,
    /// Each layer's verdict, in order.
    pub trace: Vec<LayerVerdict>,
    /// Rules that would allow the call, generalised (at most 5).
    pub suggestions: Vec<String>,
    ask: AskKind,
}

impl Evaluation {
    /// Every layer's verdict, one per line.
    pub fn explain(&self) -> String {
        self.trace.iter().map(|l| format!("{}: {}", l.layer, l.verdict)).collect::<Vec<_>>().join("\n")
    }
}

/// The final decision, with a replacement input when a PermissionRequest hook gave one.
#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    /// The decision.
    pub decision: PermissionDecision,
    /// A replacement input to validate and run instead.
    pub updated_input: Option<Value>,
    /// The layers' verdicts.
    pub trace: Vec<LayerVerdict>,
}

/// The permission engine. Build it once per session from the merged settings.
///
/// ```
/// use serde_json::json;
/// use toolgate_core::{PermissionBehavior, ToolBuilder, ToolContext};
/// use toolgate_permissions::{LoadedSettings, PermissionEngine, SettingsFile};
///
/// let mut loaded = LoadedSettings::default();
/// loaded.add(SettingsFile {
///     source: toolgate_core::RuleSource::ProjectSettings,
///     origin: "/repo/.claude/settings.json".into(),
///     anchor: "/repo".into(),
///     value: json!({"permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Bash(rm:*)"]}}),
/// });
/// let (settings, _) = loaded.permissions();
/// let engine = PermissionEngine::builder(settings).build();
/// let bash = ToolBuilder::new("Bash").build();
/// let ctx = ToolContext::new("/repo");
/// let ok = engine.evaluate(&*bash, &json!({"command": "npm run test -- -w"}), &ctx, None);
/// assert_eq!(ok.decision.behavior, PermissionBehavior::Allow);
/// let smuggled = engine.evaluate(&*bash, &json!({"command": "npm run test; rm -rf x"}), &ctx, None);
/// assert_eq!(smuggled.decision.behavior, PermissionBehavior::Deny);
/// assert_eq!(smuggled.decision.reason.kind(), "rule");
/// ```
pub struct PermissionEngine {
    rules: RwLock<RuleBook>,
    diagnostics: Vec<Diagnostic>,
    home: Option<PathBuf>,
    disable_bypass: bool,
    classifier: Option<Arc<dyn Classifier>>,
    prompter: Option<Arc<dyn Prompter>>,
    request_hooks: Option<Arc<dyn PermissionRequestHooks>>,
    local_settings: Option<PathBuf>,
    settings: PermissionSettings,
}

/// Builds a [`PermissionEngine`].
pub struct PermissionEngineBuilder {
    settings: PermissionSettings,
    home: Option<PathBuf>,
    classifier: Option<Arc<dyn Classifier>>,
    prompter: Option<Arc<dyn Prompter>>,
    request_hooks: Option<Arc<dyn PermissionRequestHooks>>,
    local_settings: Option<PathBuf>,
    cwd: Option<PathBuf>,
}

impl PermissionEngineBuilder {
    /// The home directory (`~/` rules, critical paths); `$HOME` by default.
    #[must_use]
    pub fn home(mut self, home: Option<PathBuf>) -> Self {
        self.home = home;
        self
    }

    /// The start directory relative rules are compiled against; each call's context cwd
    /// by default (the project root).
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// A classifier for asks nothing else settled.
    #[must_use]
    pub fn classifier(mut self, classifier: Arc<dyn Classifier>) -> Self {
        self.classifier = Some(classifier);
        self
    }

    /// The person.
    #[must_use]
    pub fn prompter(mut self, prompter: Arc<dyn Prompter>) -> Self {
        self.prompter = Some(prompter);
        self
    }

    /// PermissionRequest hooks.
    #[must_use]
    pub fn request_hooks(mut self, hooks: Arc<dyn PermissionRequestHooks>) -> Self {
        self.request_hooks = Some(hooks);
        self
    }

    /// Where "always allow" answers are saved (`.claude/settings.local.json`).
    #[must_use]
    pub fn local_settings(mut self, path: impl Into<PathBuf>) -> Self {
        self.local_settings = Some(path.into());
        self
    }

    /// The engine, with rules compiled once.
    pub fn build(self) -> PermissionEngine {
        let mut diagnostics = Vec::new();
        let rules = self
            .settings
            .rules
            .iter()
            .cloned()
            .map(|entry| {
                // Relative specifiers are anchored at the start directory; without one,
                // at the directory the rule's settings source anchors `/` rules.
                let start = self.cwd.clone().unwrap_or_else(|| entry.anchor.clone());
                CompiledRule::compile(entry, &start, self.home.as_deref(), &mut diagnostics)
            })
            .collect();
        PermissionEngine {
            rules: RwLock::new(RuleBook::new(rules)),
            diagnostics,
            home: self.home,
            disable_bypass: self.settings.disable_bypass,
            classifier: self.classifier,
            prompter: self.prompter,
            request_hooks: self.request_hooks,
            local_settings: self.local_settings,
            settings: self.settings,
        }
    }
}

/// Commands `acceptEdits` approves when every path they touch is inside the working
/// directories.
const ACCEPT_EDITS_COMMANDS: &[&str] = &["mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"];

/// Environment assignments an allow rule may look past (`NODE_ENV=test npm test`).
const SAFE_ENV: &[&str] = &[
    "NODE_ENV",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "CI",
    "DEBUG",
];

/// What the content layer found.
#[derive(Debug, Default)]
struct Content<'r> {
    deny: Option<(&'r RuleEntry, String)>,
    ask: Option<(&'r RuleEntry, String)>,
    critical: Option<String>,
    protected: Option<String>,
    auto_allow: Option<DecisionReason>,
    accept_edits_ok: bool,
    allow_rule: Option<&'r RuleEntry>,
    read_only: bool,
    bash_hazard: Option<String>,
    analysis: Option<BashAnalysis<'r>>,
}

impl PermissionEngine {
    /// A builder from merged settings.
    pub fn builder(settings: PermissionSettings) -> PermissionEngineBuilder {
        PermissionEngineBuilder {
            settings,
            home: home_dir(),
            classifier: None,
            prompter: None,
            request_hooks: None,
            local_settings: None,
            cwd: None,
        }
    }

    /// Problems found while compiling rules.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The merged settings the engine was built from.
    pub fn settings(&self) -> &PermissionSettings {
        &self.settings
    }

    /// Whether a bare deny rule removes this tool from the model's list.
    pub fn removes_tool(&self, tool_name: &str) -> bool {
        let name = canonical_tool_name(tool_name);
        self.read_rules()
            .rules
            .iter()
            .any(|r| r.behavior() == PermissionBehavior::Deny && r.is_bare() && r.names_tool(name) && r.param.is_none())
    }

    fn read_rules(&self) -> std::sync::RwLockReadGuard<'_, RuleBook> {
        self.rules.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds rules for the rest of the session (e.g. "allow" answers).
    pub fn add_session_rules(&self, rules: &[String], behavior: PermissionBehavior, cwd: &Path) {
        let mut diagnostics = Vec::new();
        let compiled: Vec<CompiledRule> = rules
            .iter()
            .filter_map(|text| text.parse().ok().map(|rule| (text, rule)))
            .map(|(text, rule)| {
                let entry = RuleEntry {
                    rule,
                    text: text.clone(),
                    behavior,
                    source: RuleSource::Session,
                    origin: "session".to_owned(),
                    anchor: cwd.to_path_buf(),
                };
                CompiledRule::compile(entry, cwd, self.home.as_deref(), &mut diagnostics)
            })
            .collect();
        self.rules.write().unwrap_or_else(PoisonError::into_inner).extend(compiled);
    }

    /// Runs the synchronous layers for a call with a validated, normalized input.
    pub fn evaluate(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        hook: Option<&HookVerdict>,
    ) -> Evaluation {
        let name = canonical_tool_name(tool.name());
        let mut trace = Vec::new();
        let mut mode = ctx.permission_mode;
        if mode == PermissionMode::BypassPermissions && self.disable_bypass {
            trace.push(LayerVerdict { layer: "mode", verdict: "bypassPermissions is disabled by settings".into() });
            mode = PermissionMode::Default;
        }
        let book = self.read_rules();
        let rules = book.rules.as_slice();
        // The content layer's view of the call (for Bash, the analysis), computed once and
        // used only past the tool-wide rules.
        let content_cell: std::cell::OnceCell<Content<'_>> = std::cell::OnceCell::new();
        // The rules that name this tool (indexed once per tool, not scanned per call).
        let tool_rules = book.for_tool(name);
        let relevant = || tool_rules.relevant.iter().map(|&i| &rules[i]);
        let content = || content_cell.get_or_init(|| self.content(&book, &tool_rules, name, tool, input, ctx));
        // Suggestions are only needed for an ask.
        let suggestions_cell = std::cell::OnceCell::new();
        let suggestions = || {
            suggestions_cell.get_or_init(|| {
                let analysis = content_cell.get().and_then(|c| c.analysis.as_ref());
                suggest_rules_with(name, tool, input, ctx, analysis)
            })
        };
        let finish = |behavior, reason, message: String, ask, mut trace: Vec<LayerVerdict>| {
            let (behavior, reason, message) = if behavior == PermissionBehavior::Ask && mode == PermissionMode::DontAsk
            {
                trace.push(LayerVerdict { layer: "mode", verdict: "dontAsk turns the ask into a deny".into() });
                (
                    PermissionBehavior::Deny,
                    DecisionReason::Mode { mode },
                    format!("{message} (dontAsk mode denies every call that would ask)"),
                )
            } else {
                (behavior, reason, message)
            };
            let mut verdict = String::with_capacity(behavior.as_str().len() + 2 + message.len());
            verdict.push_str(behavior.as_str());
            verdict.push_str(": ");
            verdict.push_str(&message);
            trace.push(LayerVerdict { layer: "result", verdict });
            let suggestions = if behavior == PermissionBehavior::Ask { suggestions().clone() } else { Vec::new() };
            Evaluation { decision: PermissionDecision::new(behavior, reason, message), trace, suggestions, ask }
        };
        let rule_reason = |e: &RuleEntry| DecisionReason::Rule { rule: e.text.clone(), source: e.origin.clone() };

        // 1. hook deny, tool-wide deny.
        if let Some(h) = hook.filter(|h| h.behavior == PermissionBehavior::Deny) {
            let why = h.reason.clone().unwrap_or_else(|| "a PreToolUse hook denied the call".into());
            trace.push(LayerVerdict { layer: "hook", verdict: format!("deny: {why}") });
            return finish(
                PermissionBehavior::Deny,
                DecisionReason::Hook { hook: h.hook.clone(), reason: h.reason.clone() },
                why,
                AskKind::Forced,
                trace,
            );
        }
        let tool_wide = |behavior| relevant().find(|r| r.behavior() == behavior && r.is_bare() && r.param.is_none());
        if let Some(r) = tool_wide(PermissionBehavior::Deny) {
            trace.push(LayerVerdict {
                layer: "deny rules",
                verdict: format!("{} denies every {name} call", r.entry.text),
            });
            let msg = format!("{name} is denied by the rule {} in {}", r.entry.text, r.entry.origin);
            return finish(PermissionBehavior::Deny, rule_reason(&r.entry), msg, AskKind::Forced, trace);
        }
        // 2. tool-wide ask.
        if let Some(r) = tool_wide(PermissionBehavior::Ask) {
            trace.push(LayerVerdict {
                layer: "ask rules",
                verdict: format!("{} asks for every {name} call", r.entry.text),
            });
            let msg = format!("{name} needs approval: rule {} in {}", r.entry.text, r.entry.origin);
            return finish(PermissionBehavior::Ask, rule_reason(&r.entry), msg, AskKind::Forced, trace);
        }

        // 3. content.
        let content = content();
        if let Some((entry, detail)) = &content.deny {
            trace.push(LayerVerdict { layer: "deny rules", verdict: detail.clone() });
            let msg = format!("{detail}: denied by the rule {} in {}", entry.text, entry.origin);
            return finish(PermissionBehavior::Deny, rule_reason(entry), msg, AskKind::Forced, trace);
        }
        let own = tool.check_permissions(input, ctx);
        if own != PermissionCheck::Passthrough {
            trace.push(LayerVerdict { layer: "tool", verdict: format!("{own:?}") });
        }
        if let PermissionCheck::Deny { detail } = &own {
            return finish(
                PermissionBehavior::Deny,
                DecisionReason::Tool { detail: detail.clone() },
                detail.clone(),
                AskKind::Forced,
                trace,
            );
        }
        if let Some((entry, detail)) = &content.ask {
            trace.push(LayerVerdict { layer: "ask rules", verdict: detail.clone() });
            let msg = format!("{detail}: needs approval by the rule {} in {}", entry.text, entry.origin);
            return finish(PermissionBehavior::Ask, rule_reason(entry), msg, AskKind::Forced, trace);
        }
        if let Some(detail) = &content.critical {
            trace.push(LayerVerdict { layer: "safety", verdict: detail.clone() });
            let msg = format!("{detail}; only a person can approve this");
            return finish(
                PermissionBehavior::Ask,
                DecisionReason::Safety { detail: detail.clone() },
                msg,
                AskKind::PersonOnly,
                trace,
            );
        }
        let hook_allow = hook.filter(|h| h.behavior == PermissionBehavior::Allow);
        if tool.requires_user_interaction() && !hook_allow.is_some_and(|h| h.updated_input) {
            let detail = format!("{name} needs a person to answer it");
            return finish(
                PermissionBehavior::Ask,
                DecisionReason::Tool { detail: detail.clone() },
                detail,
                AskKind::PersonOnly,
                trace,
            );
        }
        if let Some(detail) = &content.protected
            && hook_allow.is_none()
        {
            trace.push(LayerVerdict { layer: "safety", verdict: detail.clone() });
            let msg = format!("{detail}; writes there are never approved automatically");
            return finish(
                PermissionBehavior::Ask,
                DecisionReason::Safety { detail: detail.clone() },
                msg,
                AskKind::Forced,
                trace,
            );
        }

        // 4. hooks, plan mode, the tool's own opinion, automatic approvals.
        if let Some(h) = hook {
            let reason = DecisionReason::Hook { hook: h.hook.clone(), reason: h.reason.clone() };
            let why = h.reason.clone().unwrap_or_default();
            match h.behavior {
                PermissionBehavior::Allow => {
                    trace.push(LayerVerdict { layer: "hook", verdict: "allow".into() });
                    let msg = format!("allowed by a PreToolUse hook{}", suffix(&why));
                    return finish(PermissionBehavior::Allow, reason, msg, AskKind::Open, trace);
                }
                PermissionBehavior::Ask => {
                    trace.push(LayerVerdict { layer: "hook", verdict: "ask".into() });
                    let msg = format!("a PreToolUse hook asks for approval{}", suffix(&why));
                    return finish(PermissionBehavior::Ask, reason, msg, AskKind::Forced, trace);
                }
                PermissionBehavior::Deny => {}
            }
        }
        let family = Family::of(name);
        if mode == PermissionMode::Plan && matches!(family, Family::Edit | Family::Bash) && !content.read_only {
            let msg = format!(
                "plan mode allows only read-only work; {name} would change files. Present the plan with ExitPlanMode first"
            );
            return finish(PermissionBehavior::Deny, DecisionReason::Mode { mode }, msg, AskKind::Forced, trace);
        }
        match own {
            PermissionCheck::Allow { detail } => {
                return finish(
                    PermissionBehavior::Allow,
                    DecisionReason::Tool { detail: detail.clone() },
                    detail,
                    AskKind::Open,
                    trace,
                );
            }
            PermissionCheck::Ask { detail } => {
                return finish(
                    PermissionBehavior::Ask,
                    DecisionReason::Tool { detail: detail.clone() },
                    detail,
                    AskKind::Forced,
                    trace,
                );
            }
            _ => {}
        }
        if let Some(reason) = &content.auto_allow {
            let detail = match reason {
                DecisionReason::Tool { detail } | DecisionReason::Classifier { reason: detail, .. } => detail.clone(),
                other => other.kind().to_owned(),
            };
            trace.push(LayerVerdict { layer: "automatic", verdict: detail.clone() });
            return finish(PermissionBehavior::Allow, reason.clone(), detail, AskKind::Open, trace);
        }
        if mode == PermissionMode::AcceptEdits && content.accept_edits_ok {
            let msg = "acceptEdits mode allows edits inside the working directories".to_owned();
            return finish(PermissionBehavior::Allow, DecisionReason::Mode { mode }, msg, AskKind::Open, trace);
        }
        // 5. bypass.
        if mode == PermissionMode::BypassPermissions {
            let msg = "bypassPermissions mode allows the call".to_owned();
            return finish(PermissionBehavior::Allow, DecisionReason::Mode { mode }, msg, AskKind::Open, trace);
        }
        // 6. allow rules.
        if let Some(r) = tool_wide(PermissionBehavior::Allow) {
            let msg = format!("allowed by the rule {} in {}", r.entry.text, r.entry.origin);
            return finish(PermissionBehavior::Allow, rule_reason(&r.entry), msg, AskKind::Open, trace);
        }
        if let Some(entry) = &content.allow_rule {
            let msg = format!("allowed by the rule {} in {}", entry.text, entry.origin);
            return finish(PermissionBehavior::Allow, rule_reason(entry), msg, AskKind::Open, trace);
        }
        // 7. nothing decided.
        let msg = match (&content.bash_hazard, suggestions().first()) {
            (Some(hazard), _) => format!("{} needs approval: {hazard}", tool.render_use(input)),
            (None, Some(rule)) => {
                format!("{} needs approval; the rule {rule} would allow it", tool.render_use(input))
            }
            (None, None) => format!("{} needs approval", tool.render_use(input)),
        };
        finish(PermissionBehavior::Ask, DecisionReason::Default, msg, AskKind::Open, trace)
    }

    /// Runs every layer, settling an ask through the classifier, PermissionRequest hooks
    /// and the person.
    pub async fn decide(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        hook: Option<&HookVerdict>,
    ) -> Decided {
        let mut eval = self.evaluate(tool, input, ctx, hook);
        if eval.decision.behavior != PermissionBehavior::Ask {
            return Decided { decision: eval.decision, updated_input: None, trace: eval.trace };
        }
        let name = canonical_tool_name(tool.name()).to_owned();
        if eval.ask == AskKind::Open
            && let Some(classifier) = &self.classifier
        {
            let request = ClassifierRequest {
                tool_name: name.clone(),
                input: input.clone(),
                summary: tool.to_classifier_input(input),
                cwd: ctx.cwd.clone(),
            };
            let verdict = classifier.classify(&request).await;
            let label = classifier.name().to_owned();
            eval.trace.push(LayerVerdict { layer: "classifier", verdict: format!("{verdict:?}") });
            match verdict {
                ClassifierVerdict::Allow { reason } => {
                    let decision = PermissionDecision::new(
                        PermissionBehavior::Allow,
                        DecisionReason::Classifier { classifier: label, reason: reason.clone() },
                        format!("allowed by the {} classifier: {reason}", classifier.name()),
                    );
                    return Decided { decision, updated_input: None, trace: eval.trace };
                }
                ClassifierVerdict::Deny { reason } => {
                    let decision = PermissionDecision::new(
                        PermissionBehavior::Deny,
                        DecisionReason::Classifier { classifier: label, reason: reason.clone() },
                        format!("denied by the {} classifier: {reason}", classifier.name()),
                    );
                    return Decided { decision, updated_input: None, trace: eval.trace };
                }
                _ => {}
            }
        }
        if eval.ask != AskKind::PersonOnly
            && let Some(hooks) = &self.request_hooks
            && let Some(verdict) = hooks.run(&name, input, &eval.suggestions).await
        {
            eval.trace
                .push(LayerVerdict { layer: "permission request hook", verdict: format!("{}", verdict.behavior) });
            let reason = DecisionReason::Hook { hook: verdict.hook.clone(), reason: verdict.message.clone() };
            let message = verdict.message.clone().unwrap_or_else(|| match verdict.behavior {
                PermissionBehavior::Allow => "allowed by a PermissionRequest hook".to_owned(),
                _ => "denied by a PermissionRequest hook".to_owned(),
            });
            let behavior = if verdict.behavior == PermissionBehavior::Allow {
                PermissionBehavior::Allow
            } else {
                PermissionBehavior::Deny
            };
            let decision = PermissionDecision::new(behavior, reason, message);
            return Decided { decision, updated_input: verdict.updated_input, trace: eval.trace };
        }
        let Some(prompter) = &self.prompter else {
            let hint = match eval.suggestions.first() {
                Some(rule) if eval.ask == AskKind::Open => {
                    format!(" To allow it, add \"{rule}\" to permissions.allow in .claude/settings.local.json.")
                }
                _ => String::new(),
            };
            let decision = PermissionDecision::new(
                PermissionBehavior::Deny,
                eval.decision.reason.clone(),
                format!("{}. No one is available to approve it, so it was denied.{hint}", eval.decision.message),
            );
            eval.trace.push(LayerVerdict { layer: "user", verdict: "no prompter: deny".into() });
            return Decided { decision, updated_input: None, trace: eval.trace };
        };
        let request = PromptRequest {
            tool_name: name.clone(),
            summary: tool.render_use(input),
            input: input.clone(),
            message: eval.decision.message.clone(),
            reason: eval.decision.reason.clone(),
            suggestions: if eval.ask == AskKind::PersonOnly { Vec::new() } else { eval.suggestions.clone() },
        };
        let answer = prompter.prompt(&request).await;
        eval.trace.push(LayerVerdict { layer: "user", verdict: format!("{answer:?}") });
        let decision = match answer {
            PromptAnswer::AllowOnce => PermissionDecision::new(
                PermissionBehavior::Allow,
                DecisionReason::User { remembered: false },
                "allowed once by the user",
            ),
            PromptAnswer::AllowAlways => {
                let rules = request.suggestions.clone();
                self.add_session_rules(&rules, PermissionBehavior::Allow, &ctx.cwd);
                let saved = match &self.local_settings {
                    Some(path) if !rules.is_empty() => match persist_allow_rules(path, &rules) {
                        Ok(()) => format!("; saved {} to {}", rules.join(", "), path.display()),
                        Err(e) => format!("; could not save the rule: {e}"),
                    },
                    _ => String::new(),
                };
                PermissionDecision::new(
                    PermissionBehavior::Allow,
                    DecisionReason::User { remembered: true },
                    format!("allowed by the user{saved}"),
                )
            }
            PromptAnswer::Deny { feedback } => PermissionDecision::new(
                PermissionBehavior::Deny,
                DecisionReason::User { remembered: false },
                match feedback {
                    Some(f) => format!("the user denied this call: {f}"),
                    None => "the user denied this call".to_owned(),
                },
            ),
        };
        Decided { decision, updated_input: None, trace: eval.trace }
    }

    /// The content layer for one call.
    fn content<'b>(
        &self,
        book: &'b RuleBook,
        tool_rules: &ToolRules,
        name: &str,
        tool: &dyn Tool,
        input: &'b Value,
        ctx: &ToolContext,
    ) -> Content<'b> {
        let rules = book.rules.as_slice();
        let mut content = Content::default();
        let mut paths = Paths::new(&ctx.cwd, &ctx.roots);
        let schema = tool.input_schema();
        // Parameter rules (deny/ask) apply to any tool.
        for r in tool_rules.params.iter().map(|&i| &rules[i]) {
            if r.param_matches(name, schema, input) == Some(true) {
                let param = r.param.as_ref().map_or("", |(p, _)| p.as_str());
                let detail = format!("{name} with {param} = {}", input.get(param).unwrap_or(&Value::Null));
                let slot = if r.behavior() == PermissionBehavior::Deny { &mut content.deny } else { &mut content.ask };
                if slot.is_none() {
                    *slot = Some((&r.entry, detail));
                }
            }
        }
        let content_rules = |behavior: PermissionBehavior| {
            tool_rules.relevant.iter().map(|&i| &rules[i]).filter(move |r| r.behavior() == behavior && !r.is_bare())
        };
        match Family::of(name) {
            Family::Read | Family::Edit => {
                let is_edit = Family::of(name) == Family::Edit;
                let target = tool.permission_target(input).map_or_else(|| ctx.cwd.clone(), |t| ctx.resolve_path(t));
                let forms = paths.forms(&target);
                let shown = target.display().to_string();
                let matches_any =
                    |r: &CompiledRule| matches!(&r.spec, Spec::Path(p) if forms.iter().any(|f| p.matches(f)));
                let matches_all =
                    |r: &CompiledRule| matches!(&r.spec, Spec::Path(p) if forms.iter().all(|f| p.matches(f)));
                if content.deny.is_none()
                    && let Some(r) = content_rules(PermissionBehavior::Deny).find(|r| matches_any(r))
                {
                    content.deny = Some((&r.entry, format!("{name} of {shown}")));
                }
                if content.ask.is_none()
                    && let Some(r) = content_rules(PermissionBehavior::Ask).find(|r| matches_any(r))
                {
                    content.ask = Some((&r.entry, format!("{name} of {shown}")));
                }
                let inside = paths.inside(&forms);
                content.allow_rule =
                    content_rules(PermissionBehavior::Allow).find(|r| matches_all(r)).map(|r| &r.entry);
                if is_edit {
                    content.protected = forms.iter().find_map(|f| protected_path_reason(f));
                    content.accept_edits_ok = inside;
                } else {
                    content.read_only = true;
                    if inside {
                        content.auto_allow = Some(DecisionReason::Tool {
                            detail: "reads inside the working directories need no approval".into(),
                        });
                    }
                }
            }
            Family::Bash => {
                let command = input.get("command").and_then(Value::as_str).unwrap_or_default();
                let analysis = analyze(command);
                self.bash_content(book, &tool_rules.commands, &analysis, ctx, &mut paths, &mut content);
                content.analysis = Some(analysis);
            }
            Family::Web | Family::Named | Family::Other => {
                if let Some(target) = tool.permission_target(input) {
                    let hit = |r: &&CompiledRule| match &r.spec {
                        Spec::Domain(d) => d.matches(&target),
                        Spec::Command(c) => c.matches(&target),
                        _ => false,
                    };
                    if content.deny.is_none()
                        && let Some(r) = content_rules(PermissionBehavior::Deny).find(hit)
                    {
                        content.deny = Some((&r.entry, format!("{name}({target})")));
                    }
                    if content.ask.is_none()
                        && let Some(r) = content_rules(PermissionBehavior::Ask).find(hit)
                    {
                        content.ask = Some((&r.entry, format!("{name}({target})")));
                    }
                    content.allow_rule = content_rules(PermissionBehavior::Allow).find(hit).map(|r| &r.entry);
                }
                content.read_only = tool.is_read_only(input);
            }
            Family::Mcp => content.read_only = tool.is_read_only(input),
        }
        content
    }

    /// The Bash part of the content layer: every subcommand on its own.
    fn bash_content<'b>(
        &self,
        book: &'b RuleBook,
        commands: &CommandIndex,
        analysis: &BashAnalysis,
        ctx: &ToolContext,
        paths: &mut Paths<'_>,
        content: &mut Content<'b>,
    ) {
        let rules = book.rules.as_slice();
        let path_rules = book.paths();

        // Deny and ask rules fire on any subcommand, in any of its spellings. The spellings
        // are kept: forms[0] (the words joined) is what allow rules match too.
        let spellings: Vec<CommandForms<'_>> = analysis.commands.iter().map(command_forms).collect();
        for (cmd, forms) in analysis.commands.iter().zip(&spellings) {
            for (behavior, slot) in
                [(PermissionBehavior::Deny, &mut content.deny), (PermissionBehavior::Ask, &mut content.ask)]
            {
                if slot.is_some() {
                    continue;
                }
                let (spellings, len) = forms.spellings();
                if let Some(r) = commands.find(rules, behavior, &spellings[..len]) {
                    *slot = Some((&r.entry, format!("the command `{}`", cmd.text)));
                }
            }
        }

        // A deny decides the call: nothing else in the content layer is looked at.
        if content.deny.is_some() {
            return;
        }

        // Each command's read-only verdict, computed once (the whole is read-only when every
        // command is and nothing else is in the way).
        let read_only: Vec<bool> = analysis.commands.iter().map(is_read_only_command).collect();
        let mut all_read_only =
            analysis.hazards.is_empty() && analysis.writes.is_empty() && read_only.iter().all(|&r| r);
        let mut accept_ok = analysis.hazards.is_empty();
        let mut rule_ok = analysis.hazards.is_empty();
        let mut allowing_rule: Option<&RuleEntry> = None;

        let home = self.home.as_deref();
        // Relative paths are relative to the working directory or to wherever a `cd` in the
        // command went; a path is checked in each of them.
        let bases = Bases::of(analysis, &ctx.cwd, home);
        // Output redirections are writes, checked as Edit(path).
        for write in &analysis.writes {
            // `~/x` is only a home-relative path; anything else dynamic cannot be checked.
            let tilde_only =
                write.path.strip_prefix("~/").is_some_and(|rest| !rest.contains(['$', '*', '?', '[', '`', '~', '{']));
            let forms = if write.dynamic && !tilde_only { None } else { bases.paths(&write.path, home) };
            let Some(forms) = forms.map(|targets| paths.forms_of(&targets)) else {
                accept_ok = false;
                rule_ok = false;
                content
                    .bash_hazard
                    .get_or_insert_with(|| format!("the redirection target `{}` is not static", write.path));
                continue;
            };
            let candidates = candidates(&forms);
            let hits = path_rules.hits(rules, &candidates);
            content.path_rules(&hits, "Edit", "writing", &forms);
            if let Some(reason) = forms.iter().find_map(|f| protected_path_reason(f)) {
                content.protected.get_or_insert(reason);
            }
            accept_ok &= paths.inside(&forms);
            match path_rules.all(rules, "Edit", PermissionBehavior::Allow, &candidates) {
                Some(r) => {
                    allowing_rule.get_or_insert(&r.entry);
                }
                None => rule_ok = false,
            }
        }

        // Input redirections (`< file`) are reads, checked as Read(path).
        for read in &analysis.reads {
            let Some(forms) = bases.glob_paths(read, home).map(|targets| paths.forms_of(&targets)) else {
                all_read_only = false;
                accept_ok = false;
                rule_ok = false;
                continue;
            };
            let hits = path_rules.hits(rules, &candidates(&forms));
            content.path_rules(&hits, "Read", "reading", &forms);
            if !paths.inside(&forms) {
                // A read outside: allow rules vouch for commands, not for what they read.
                all_read_only = false;
                accept_ok = false;
                rule_ok = false;
            }
        }

        // A `mv` or `cp` changes where later paths of the same line lead (a relative symlink
        // moved elsewhere points elsewhere): acceptEdits takes nothing naming a path after one.
        let first_move =
            analysis.commands.iter().position(|c| matches!(c.argv.first().map(|p| basename(p)), Some("mv" | "cp")));
        if first_move.is_some() && !(analysis.writes.is_empty() && analysis.reads.is_empty()) {
            accept_ok = false;
        }
        for (index, ((cmd, forms), &command_read_only)) in
            analysis.commands.iter().zip(&spellings).zip(&read_only).enumerate()
        {
            let program = cmd.argv.first().map(|p| basename(p)).unwrap_or_default();
            if first_move.is_some_and(|at| index > at) && !operands(cmd).is_empty() {
                accept_ok = false;
            }
            // The paths an argument names (a glob: what it matches now).
            let word_paths =
                |word: &str| if cmd.has_glob { bases.glob_paths(word, home) } else { bases.paths(word, home) };
            // Critical rm, judged on each path the operand may name and on the real path
            // behind it (`rm -rf link/repo` where the link leads to the working directory's
            // parent).
            if matches!(program, "rm" | "rmdir") {
                for arg in operands(cmd) {
                    if let Some(reason) = critical_rm_reason(arg, &ctx.cwd, home) {
                        content.critical.get_or_insert(reason);
                        continue;
                    }
                    let Some(targets) = word_paths(arg) else {
                        content.critical.get_or_insert_with(|| {
                            format!("`{program} {arg}` removes a path that is only known at run time")
                        });
                        continue;
                    };
                    let cwd_forms = paths.forms(&ctx.cwd);
                    for form in paths.forms_of(&targets) {
                        let shown = form.to_string_lossy();
                        if let Some(reason) = cwd_forms.iter().find_map(|cwd| critical_rm_reason(&shown, cwd, home)) {
                            content.critical.get_or_insert(format!("{reason} (`{arg}` leads to {shown})"));
                        }
                    }
                }
            }
            // The files a read-only command reads are Read targets (outside the working
            // directories it is not read-only any more); `cd` only has to stay inside. The
            // operands of any command that is not read-only may be read or written (`tee f`,
            // `sed -i … f`, `cp f …`), so Read and Edit deny and ask rules both hold against
            // them.
            let (args, families): (Vec<&str>, &[&'static str]) = if !command_read_only {
                (operands(cmd), &["Read", "Edit"])
            } else if matches!(program, "cd" | "pushd") {
                (operands(cmd), &[])
            } else {
                match read_operands(cmd, program) {
                    Some(args) => (args, &["Read"]),
                    None => (Vec::new(), &[]),
                }
            };
            for arg in args {
                let Some(forms) = word_paths(arg).map(|targets| paths.forms_of(&targets)) else {
                    // A path known only at run time: not read-only, and not an edit
                    // acceptEdits can vouch for.
                    all_read_only = false;
                    accept_ok = false;
                    rule_ok &= !command_read_only;
                    continue;
                };
                if !families.is_empty() {
                    let hits = path_rules.hits(rules, &candidates(&forms));
                    for &family in families {
                        let verb = if family == "Read" { "reading" } else { "writing" };
                        content.path_rules(&hits, family, verb, &forms);
                    }
                }
                if command_read_only && !paths.inside(&forms) {
                    // A read (or a `cd`) outside the working directories: acceptEdits only covers
                    // edits inside them, and an allow rule for another command of the line does
                    // not vouch for it (`cd /tmp/other && npm test`).
                    all_read_only = false;
                    accept_ok = false;
                    rule_ok = false;
                }
            }
            // A recursive read (`grep -r`, `rg`) reads every file below its folders: each is
            // checked against the Read rules that deny or ask (when there are any).
            if command_read_only && let Some(recursion) = recursion(cmd, program) {
                for root in recursion.roots {
                    // Walked from the folder as written, `.` and `..` removed (rules match that
                    // form).
                    let below = word_paths(root).and_then(|targets| {
                        let mut all = Vec::new();
                        for target in targets {
                            let lexical = paths.forms(&target).swap_remove(0);
                            // No rule can match below it: nothing to walk.
                            if path_rules.restrict_reads_below(rules, &lexical) {
                                all.extend(walk_below(&lexical, recursion.filtered, MAX_WALKED)?);
                            }
                        }
                        Some(all)
                    });
                    let Some(below) = below else {
                        all_read_only = false;
                        accept_ok = false;
                        rule_ok = false;
                        content.bash_hazard.get_or_insert_with(|| {
                            format!(
                                "`{program}` reads more files below `{root}` than are checked against the Read rules"
                            )
                        });
                        continue;
                    };
                    for path in below {
                        let forms = [path];
                        let hits = path_rules.hits(rules, &candidates(&forms));
                        let verb = format!("`{program}` reading");
                        content.path_rules(&hits, "Read", &verb, &forms);
                    }
                }
            }
            // acceptEdits: simple file commands on paths inside the working dirs.
            if !command_read_only {
                // (Only acceptEdits mode reads the verdict: other modes skip the paths.)
                let edits_ok = accept_ok
                    && ctx.permission_mode == PermissionMode::AcceptEdits
                    && ACCEPT_EDITS_COMMANDS.contains(&program)
                    && !cmd.has_expansion
                    && cmd.wrappers.is_empty()
                    && (program != "sed" || sed_edits_only_operands(cmd))
                    && !(cmd.has_glob && operands(cmd).iter().any(|a| glob_may_name_hidden(a)))
                    && option_paths(cmd).is_some_and(|options| {
                        operands(cmd).into_iter().chain(options.iter().map(String::as_str)).all(|a| {
                            word_paths(a).map(|targets| paths.forms_of(&targets)).is_some_and(|forms| {
                                paths.inside(&forms) && forms.iter().all(|f| protected_path_reason(f).is_none())
                            })
                        })
                    });
                accept_ok &= edits_ok;
                // Allow rules: every command not read-only must be matched.
                let env_ok = cmd.assignments.iter().all(|(k, _)| SAFE_ENV.contains(&&**k) || k.starts_with("LC_"));
                let matched = commands.find(rules, PermissionBehavior::Allow, &[&forms.joined, &cmd.text]);
                match matched {
                    Some(r) if env_ok && !cmd.has_expansion => {
                        allowing_rule.get_or_insert(&r.entry);
                    }
                    _ => rule_ok = false,
                }
            }
        }
        for hazard in &analysis.hazards {
            match hazard {
                Hazard::CdThenGit => {
                    content.critical.get_or_insert_with(|| {
                        "`cd` to another directory followed by `git` could run a different repository's hooks"
                            .to_owned()
                    });
                }
                Hazard::RmGlobUnderVariable { arg } => {
                    content.critical.get_or_insert_with(|| {
                        format!("`rm {arg}` removes everything under a variable that may be empty (then it is /)")
                    });
                }
                other => {
                    content.bash_hazard.get_or_insert_with(|| hazard_text(other));
                }
            }
        }
        content.read_only = all_read_only;
        if all_read_only {
            content.auto_allow = Some(DecisionReason::Classifier {
                classifier: "static-bash".into(),
                reason: "read-only command".into(),
            });
        }
        content.accept_edits_ok = accept_ok && !analysis.commands.is_empty();
        if rule_ok && (allowing_rule.is_some() || all_read_only) {
            content.allow_rule = allowing_rule;
        }
    }
}

fn suffix(why: &str) -> String {
    if why.is_empty() { String::new() } else { format!(": {why}") }
}

/// The paths of one decision: their forms through one [`Resolver`] (each directory entry
/// looked up once per decision), and the working directories' forms, computed when a path
/// must first be checked against them.
struct Paths<'a> {
    resolver: Resolver,
    roots: &'a [PathBuf],
    root_forms: Option<Vec<PathBuf>>,
}

impl<'a> Paths<'a> {
    fn new(cwd: &Path, roots: &'a [PathBuf]) -> Self {
        Self { resolver: Resolver::new(cwd), roots, root_forms: None }
    }

    /// `path` as written (normalised) and the real path behind it, when that differs.
    fn forms(&mut self, path: &Path) -> Vec<PathBuf> {
        self.resolver.forms(path)
    }

    /// The forms of each of `targets` (the paths one word may name), each form once.
    fn forms_of(&mut self, targets: &[PathBuf]) -> Vec<PathBuf> {
        if let [target] = targets {
            return self.resolver.forms(target);
        }
        let mut all = Vec::new();
        for target in targets {
            for form in self.resolver.forms(target) {
                if !all.contains(&form) {
                    all.push(form);
                }
            }
        }
        all
    }

    /// Whether every form lies inside one of the working directories (in any of their forms).
    fn inside(&mut self, forms: &[PathBuf]) -> bool {
        let Self { resolver, roots, root_forms } = self;
        let root_forms = root_forms.get_or_insert_with(|| roots.iter().flat_map(|r| resolver.forms(r)).collect());
        forms.iter().all(|f| root_forms.iter().any(|r| f.starts_with(r)))
    }
}

impl<'r> Content<'r> {
    /// Notes the first deny and the first ask rule of `family` among `hits` (the path rules
    /// matching `forms`, one path's forms), unless one is noted already: "`verb` PATH".
    fn path_rules(&mut self, hits: &PathHits<'r>, family: &str, verb: &str, forms: &[PathBuf]) {
        for (behavior, slot) in [(PermissionBehavior::Deny, &mut self.deny), (PermissionBehavior::Ask, &mut self.ask)] {
            if slot.is_none()
                && let Some(r) = hits.first(family, behavior)
            {
                *slot = Some((&r.entry, format!("{verb} {}", shown_form(r, forms))));
            }
        }
    }
}

/// The form of a path a path rule matched, for messages (the first form when none did).
fn shown_form(rule: &CompiledRule, forms: &[PathBuf]) -> String {
    let matched = forms.iter().find(|f| matches!(&rule.spec, Spec::Path(p) if p.matches(f)));
    matched.or(forms.first()).map(|f| f.display().to_string()).unwrap_or_default()
}

/// The forms of a path as glob candidates, to match them against many path rules.
fn candidates(forms: &[PathBuf]) -> Vec<Candidate<'_>> {
    forms.iter().map(Candidate::new).collect()
}

/// The spellings a deny or ask rule is tried against: the words joined, the source text,
/// and the words with the program's directory dropped (`/bin/rm` is `rm`) and git's global
/// options dropped (`git --no-pager push` is `git push`).
struct CommandForms<'a> {
    /// The words joined by spaces (what allow rules match, with the source text).
    joined: String,
    /// The source text.
    text: &'a str,
    /// The words joined, the program by its basename and without git's global options,
    /// when that differs.
    bare: Option<String>,
}

impl CommandForms<'_> {
    /// The distinct spellings (the source text is often the words joined).
    fn spellings(&self) -> ([&str; 3], usize) {
        let mut out = [self.joined.as_str(), "", ""];
        let mut len = 1;
        for extra in [Some(self.text), self.bare.as_deref()].into_iter().flatten() {
            if !out[..len].contains(&extra) {
                out[len] = extra;
                len += 1;
            }
        }
        (out, len)
    }
}

fn command_forms<'c>(cmd: &'c SimpleCommand<'_>) -> CommandForms<'c> {
    let bare = cmd.argv.first().and_then(|first| {
        let program = basename(first);
        let skip = if program == "git" { git_global_options(&cmd.argv[1..]) } else { 0 };
        if program == &**first && skip == 0 {
            return None;
        }
        let mut joined = program.to_owned();
        for word in &cmd.argv[1 + skip..] {
            joined.push(' ');
            joined.push_str(word);
        }
        Some(joined)
    });
    CommandForms { joined: cmd.argv.join(" "), text: &cmd.text, bare }
}

/// How many of `args` (git's arguments) are global options before the subcommand
/// (`--no-pager`, `-P`, `-C DIR`, `-c k=v`, `--git-dir=DIR` …).
fn git_global_options(args: &[Text<'_>]) -> usize {
    const WITH_VALUE: &[&str] =
        &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"];
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        if !arg.starts_with('-') || arg == "--" {
            break;
        }
        at += if WITH_VALUE.contains(&&**arg) { 2 } else { 1 };
    }
    at.min(args.len())
}

fn hazard_text(hazard: &Hazard) -> String {
    match hazard {
        Hazard::TooLong { len } => format!("the command is {len} characters long, over the 10,000 that are analysed"),
        Hazard::ParseError => "the command could not be parsed".to_owned(),
        Hazard::CommandSubstitution => "the command contains a command substitution".to_owned(),
        Hazard::ProcessSubstitution => "the command contains a process substitution".to_owned(),
        Hazard::ParameterExpansion => "the command contains a ${...} expansion".to_owned(),
        Hazard::DynamicCommandName { text } => format!("the command name `{text}` is only known at run time"),
        Hazard::DynamicEval { command } => format!("`{command}` runs text that is only known at run time"),
        Hazard::AnsiCQuoting => "the command name uses $'...' quoting".to_owned(),
        Hazard::UnknownConstruct { kind } => format!("the command uses a construct ({kind}) that is not analysed"),
        Hazard::ArithmeticName { name } => {
            format!("arithmetic evaluates `{name}`, whose value could run a command (`a[$(cmd)]`)")
        }
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
