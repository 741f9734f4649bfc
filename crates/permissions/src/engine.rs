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

use serde_json::Value;
use toolgate_core::{
    BoxFuture, DecisionReason, PermissionBehavior, PermissionCheck, PermissionDecision, PermissionMode, RuleSource,
    Tool, ToolContext, canonical_tool_name,
};
use toolgate_shell::{analyze, recent_analysis};

use crate::bash::bash_content;
use crate::content::{Analysis, Content, Paths, concat, declared_content, path_content, target_content};
use crate::prompt::{PromptAnswer, PromptRequest, Prompter, persist_allow_rules, suggest_rules_with};
use crate::real_path::Resolver;
use crate::rule_index::{RuleBook, ToolRules};
use crate::rules::{CompiledRule, Family, home_dir};
use crate::settings::{Diagnostic, PermissionSettings, RuleEntry};
use crate::{Classifier, ClassifierRequest, ClassifierVerdict};

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
    /// The verdicts of the layers that had something to say, in order (the result itself is
    /// the decision; [`Evaluation::explain`] adds it as the last line).
    pub trace: Vec<LayerVerdict>,
    /// Rules that would allow the call, generalised (at most 5).
    pub suggestions: Vec<String>,
    ask: AskKind,
}

impl Evaluation {
    /// Every layer's verdict, one per line, and last the result with the kind of its reason
    /// (`result: deny: … (reason: rule)`).
    pub fn explain(&self) -> String {
        explain(&self.trace, &self.decision)
    }
}

/// The lines of `trace`, then the result line of `decision`.
fn explain(trace: &[LayerVerdict], decision: &PermissionDecision) -> String {
    let mut out = String::new();
    for line in trace {
        out.push_str(line.layer);
        out.push_str(": ");
        out.push_str(&line.verdict);
        out.push('\n');
    }
    out.push_str("result: ");
    out.push_str(decision.behavior.as_str());
    out.push_str(": ");
    out.push_str(&decision.message);
    out.push_str(" (reason: ");
    out.push_str(decision.reason.kind());
    out.push(')');
    out
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

impl Decided {
    /// Every layer's verdict, one per line, and last the result, as [`Evaluation::explain`].
    pub fn explain(&self) -> String {
        explain(&self.trace, &self.decision)
    }
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

/// One call, as the layers see it.
#[derive(Clone, Copy)]
struct Call<'i, 'c> {
    /// The tool's canonical name.
    name: &'c str,
    tool: &'c dyn Tool,
    input: &'i Value,
    ctx: &'c ToolContext,
    hook: Option<&'c HookVerdict>,
    /// The permission mode in force (`bypassPermissions` already refused if disabled).
    mode: PermissionMode,
}

impl Call<'_, '_> {
    /// Rules that would allow the call, generalised (for an ask).
    fn suggestions(&self, content: Option<&Content<'_>>) -> Vec<String> {
        let analysis = content.and_then(|c| c.analysis.as_deref());
        let read_only = content.map(|c| c.read_only_commands.as_slice()).filter(|known| !known.is_empty());
        suggest_rules_with(self.name, self.tool, self.input, self.ctx, analysis, read_only)
    }
}

/// What the layer that decided said.
struct Verdict {
    behavior: PermissionBehavior,
    reason: DecisionReason,
    message: String,
    ask: AskKind,
    /// The rule suggestions, when the layer computed them already.
    suggestions: Option<Vec<String>>,
}

impl Verdict {
    fn new(behavior: PermissionBehavior, reason: DecisionReason, message: String, ask: AskKind) -> Self {
        Verdict { behavior, reason, message, ask, suggestions: None }
    }

    /// The ask of an ask rule: asked every time, so no rule is suggested ("always allow"
    /// would save a rule that can never win over the ask rule).
    fn asked_by_rule(reason: DecisionReason, message: String) -> Self {
        Verdict {
            suggestions: Some(Vec::new()),
            ..Verdict::new(PermissionBehavior::Ask, reason, message, AskKind::Forced)
        }
    }
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

    /// Whether a `Read` deny rule covers `path` (absolute), met in a walk of a folder by a
    /// search or a listing: the path as walked and, when it is a symbolic link (`link`), the
    /// real path behind it. Glob, Grep and LS leave such entries out (the pipeline gives them
    /// this as [`toolgate_core::HiddenPaths`]), as Claude Code hides them from Glob and Grep.
    ///
    /// ```
    /// use std::path::Path;
    /// use serde_json::json;
    /// use toolgate_core::RuleSource;
    /// use toolgate_permissions::{LoadedSettings, PermissionEngine, SettingsFile};
    ///
    /// let mut loaded = LoadedSettings::default();
    /// loaded.add(SettingsFile {
    ///     source: RuleSource::ProjectSettings,
    ///     origin: "/repo/.claude/settings.json".into(),
    ///     anchor: "/repo".into(),
    ///     value: json!({"permissions": {"deny": ["Read(./.env)", "Read(**/secrets/**)"]}}),
    /// });
    /// let engine = PermissionEngine::builder(loaded.permissions().0).cwd("/repo").build();
    /// assert!(engine.read_denies(Path::new("/repo/.env"), false));
    /// assert!(engine.read_denies(Path::new("/repo/app/secrets/key.pem"), false));
    /// assert!(!engine.read_denies(Path::new("/repo/src/main.rs"), false));
    /// ```
    pub fn read_denies(&self, path: &Path, link: bool) -> bool {
        let book = self.read_rules();
        let rules = book.paths();
        let hits = match link {
            true => rules.hits(&book.rules, &Resolver::new(path.parent().unwrap_or(path)).forms(path)),
            false => rules.hits(&book.rules, &[path]),
        };
        hits.first("Read", PermissionBehavior::Deny).is_some()
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
        // The rules that name this tool (indexed once per tool, not scanned per call).
        let tool_rules = book.for_tool(name);
        let call = Call { name, tool, input, ctx, hook, mode };
        // The content layer's view of the call (for Bash, the analysis), computed only past the
        // tool-wide rules.
        let mut content = None;
        let mut verdict = self.layers(&book, &tool_rules, &call, &mut trace, &mut content);
        // What the deny rules and the critical-path checks cannot see is approved by nothing
        // (not a mode, hook, rule or the read-only table), and no classifier settles its ask.
        if let Some(detail) = content.as_mut().and_then(|c| c.unresolved.take()) {
            match verdict.behavior {
                PermissionBehavior::Allow => {
                    let message = format!("{} needs approval: {detail}", tool.render_use(input));
                    trace.push(LayerVerdict { layer: "safety", verdict: detail.clone() });
                    let reason = DecisionReason::Safety { detail };
                    verdict = Verdict::new(PermissionBehavior::Ask, reason, message, AskKind::Forced);
                }
                PermissionBehavior::Ask if verdict.ask == AskKind::Open => verdict.ask = AskKind::Forced,
                _ => {}
            }
        }
        let Verdict { mut behavior, mut reason, mut message, ask, suggestions } = verdict;
        if behavior == PermissionBehavior::Ask && mode == PermissionMode::DontAsk {
            trace.push(LayerVerdict { layer: "mode", verdict: "dontAsk turns the ask into a deny".into() });
            behavior = PermissionBehavior::Deny;
            reason = DecisionReason::Mode { mode };
            message.push_str(" (dontAsk mode denies every call that would ask)");
        }
        let suggestions = if behavior == PermissionBehavior::Ask {
            suggestions.unwrap_or_else(|| call.suggestions(content.as_ref()))
        } else {
            Vec::new()
        };
        Evaluation { decision: PermissionDecision::new(behavior, reason, message), trace, suggestions, ask }
    }

    /// The layers of [`PermissionEngine::evaluate`], in order, up to the first that decides.
    fn layers<'b>(
        &self,
        book: &'b RuleBook,
        tool_rules: &ToolRules,
        call: &Call<'b, '_>,
        trace: &mut Vec<LayerVerdict>,
        content_slot: &mut Option<Content<'b>>,
    ) -> Verdict {
        let Call { name, tool, input, ctx, hook, mode } = *call;
        let rules = book.rules.as_slice();
        let rule_reason = |e: &RuleEntry| DecisionReason::Rule { rule: e.text.clone(), source: e.origin.clone() };

        // 1. hook deny, tool-wide deny.
        if let Some(h) = hook.filter(|h| h.behavior == PermissionBehavior::Deny) {
            let why = h.reason.clone().unwrap_or_else(|| "a PreToolUse hook denied the call".into());
            trace.push(LayerVerdict { layer: "hook", verdict: format!("deny: {why}") });
            let reason = DecisionReason::Hook { hook: h.hook.clone(), reason: h.reason.clone() };
            return Verdict::new(PermissionBehavior::Deny, reason, why, AskKind::Forced);
        }
        if let Some(r) = tool_rules.tool_wide(rules, PermissionBehavior::Deny) {
            trace.push(LayerVerdict {
                layer: "deny rules",
                verdict: format!("{} denies every {name} call", r.entry.text),
            });
            let msg = format!("{name} is denied by the rule {} in {}", r.entry.text, r.entry.origin);
            return Verdict::new(PermissionBehavior::Deny, rule_reason(&r.entry), msg, AskKind::Forced);
        }
        // 2. tool-wide ask.
        if let Some(r) = tool_rules.tool_wide(rules, PermissionBehavior::Ask) {
            trace.push(LayerVerdict {
                layer: "ask rules",
                verdict: format!("{} asks for every {name} call", r.entry.text),
            });
            let msg = format!("{name} needs approval: rule {} in {}", r.entry.text, r.entry.origin);
            return Verdict::asked_by_rule(rule_reason(&r.entry), msg);
        }

        // 3. content.
        let content = content_slot.insert(self.content(book, tool_rules, name, tool, input, ctx));
        if let Some((entry, detail)) = content.deny.take() {
            let msg = concat(&[&detail, ": denied by the rule ", &entry.text, " in ", &entry.origin]);
            trace.push(LayerVerdict { layer: "deny rules", verdict: detail });
            return Verdict::new(PermissionBehavior::Deny, rule_reason(entry), msg, AskKind::Forced);
        }
        let own = tool.check_permissions(input, ctx);
        if own != PermissionCheck::Passthrough {
            trace.push(LayerVerdict { layer: "tool", verdict: format!("{own:?}") });
        }
        if let PermissionCheck::Deny { detail } = &own {
            let reason = DecisionReason::Tool { detail: detail.clone() };
            return Verdict::new(PermissionBehavior::Deny, reason, detail.clone(), AskKind::Forced);
        }
        if let Some((entry, detail)) = content.ask.take() {
            let msg = concat(&[&detail, ": needs approval by the rule ", &entry.text, " in ", &entry.origin]);
            trace.push(LayerVerdict { layer: "ask rules", verdict: detail });
            return Verdict::asked_by_rule(rule_reason(entry), msg);
        }
        if let Some(detail) = content.critical.take() {
            let msg = format!("{detail}; only a person can approve this");
            trace.push(LayerVerdict { layer: "safety", verdict: detail.clone() });
            return Verdict::new(PermissionBehavior::Ask, DecisionReason::Safety { detail }, msg, AskKind::PersonOnly);
        }
        let hook_allow = hook.filter(|h| h.behavior == PermissionBehavior::Allow);
        if tool.requires_user_interaction() && !hook_allow.is_some_and(|h| h.updated_input) {
            let detail = format!("{name} needs a person to answer it");
            let reason = DecisionReason::Tool { detail: detail.clone() };
            return Verdict::new(PermissionBehavior::Ask, reason, detail, AskKind::PersonOnly);
        }
        if hook_allow.is_none()
            && let Some(detail) = content.protected.take()
        {
            let msg = format!("{detail}; writes there are never approved automatically");
            trace.push(LayerVerdict { layer: "safety", verdict: detail.clone() });
            return Verdict::new(PermissionBehavior::Ask, DecisionReason::Safety { detail }, msg, AskKind::Forced);
        }

        // 4. hooks, plan mode, the tool's own opinion, automatic approvals.
        if let Some(h) = hook {
            let reason = DecisionReason::Hook { hook: h.hook.clone(), reason: h.reason.clone() };
            let why = h.reason.as_deref().unwrap_or_default();
            match h.behavior {
                PermissionBehavior::Allow => {
                    trace.push(LayerVerdict { layer: "hook", verdict: "allow".into() });
                    let msg = format!("allowed by a PreToolUse hook{}", suffix(why));
                    return Verdict::new(PermissionBehavior::Allow, reason, msg, AskKind::Open);
                }
                PermissionBehavior::Ask => {
                    trace.push(LayerVerdict { layer: "hook", verdict: "ask".into() });
                    let msg = format!("a PreToolUse hook asks for approval{}", suffix(why));
                    return Verdict::new(PermissionBehavior::Ask, reason, msg, AskKind::Forced);
                }
                PermissionBehavior::Deny => {}
            }
        }
        let family = Family::of(name);
        if mode == PermissionMode::Plan && matches!(family, Family::Edit | Family::Bash) && !content.read_only {
            let msg = format!(
                "plan mode allows only read-only work; {name} would change files. Present the plan with ExitPlanMode first"
            );
            return Verdict::new(PermissionBehavior::Deny, DecisionReason::Mode { mode }, msg, AskKind::Forced);
        }
        match own {
            PermissionCheck::Allow { detail } => {
                let reason = DecisionReason::Tool { detail: detail.clone() };
                return Verdict::new(PermissionBehavior::Allow, reason, detail, AskKind::Open);
            }
            PermissionCheck::Ask { detail } => {
                let reason = DecisionReason::Tool { detail: detail.clone() };
                return Verdict::new(PermissionBehavior::Ask, reason, detail, AskKind::Forced);
            }
            _ => {}
        }
        // A call that starts a program is no read on its own (`LSP` and its language server):
        // only a rule naming the tool itself approves it (a `Read(...)` rule approves reads,
        // not the program), and that rule is the one suggested.
        let starts_program = matches!(own, PermissionCheck::NotAutomatic { .. });
        if let PermissionCheck::NotAutomatic { detail } = own {
            content.auto_allow = None;
            content.bash_hazard.get_or_insert(detail);
            content.allow_rule = content.allow_rule.filter(|e| canonical_tool_name(e.rule.tool()) == name);
        }
        if let Some(reason) = content.auto_allow.take() {
            let detail = match &reason {
                DecisionReason::Tool { detail } | DecisionReason::Classifier { reason: detail, .. } => detail.clone(),
                other => other.kind().to_owned(),
            };
            return Verdict::new(PermissionBehavior::Allow, reason, detail, AskKind::Open);
        }
        if mode == PermissionMode::AcceptEdits && content.accept_edits_ok {
            let msg = "acceptEdits mode allows edits inside the working directories".to_owned();
            return Verdict::new(PermissionBehavior::Allow, DecisionReason::Mode { mode }, msg, AskKind::Open);
        }
        // 5. bypass.
        if mode == PermissionMode::BypassPermissions {
            let msg = "bypassPermissions mode allows the call".to_owned();
            return Verdict::new(PermissionBehavior::Allow, DecisionReason::Mode { mode }, msg, AskKind::Open);
        }
        // 6. allow rules.
        if let Some(r) = tool_rules.tool_wide(rules, PermissionBehavior::Allow) {
            let msg = concat(&["allowed by the rule ", &r.entry.text, " in ", &r.entry.origin]);
            return Verdict::new(PermissionBehavior::Allow, rule_reason(&r.entry), msg, AskKind::Open);
        }
        if let Some(entry) = content.allow_rule {
            let msg = concat(&["allowed by the rule ", &entry.text, " in ", &entry.origin]);
            return Verdict::new(PermissionBehavior::Allow, rule_reason(entry), msg, AskKind::Open);
        }
        // 7. nothing decided.
        let suggestions = if starts_program { vec![name.to_owned()] } else { call.suggestions(Some(content)) };
        let msg = match (&content.bash_hazard, suggestions.as_slice()) {
            (Some(hazard), _) => format!("{} needs approval: {hazard}", tool.render_use(input)),
            (None, [rule]) => format!("{} needs approval; the rule {rule} would allow it", tool.render_use(input)),
            (None, [rules @ .., last]) => {
                let rules = rules.join(", ");
                format!(
                    "{} needs approval; the rules {rules} and {last} together would allow it",
                    tool.render_use(input)
                )
            }
            (None, []) => format!("{} needs approval", tool.render_use(input)),
        };
        Verdict {
            suggestions: Some(suggestions),
            ..Verdict::new(PermissionBehavior::Ask, DecisionReason::Default, msg, AskKind::Open)
        }
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
        eval.trace.push(LayerVerdict { layer: "evaluation", verdict: concat(&["ask: ", &eval.decision.message]) });
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
        match Family::of(name) {
            Family::Bash => {
                let command = input.get("command").and_then(Value::as_str).unwrap_or_default();
                // The batch planner may have analysed the command already.
                let analysis = match recent_analysis(command) {
                    Some(shared) => Analysis::Shared(shared),
                    None => Analysis::Own(analyze(command)),
                };
                let home = self.home.as_deref();
                bash_content(book, &tool_rules.commands, &analysis, ctx, home, &mut paths, &mut content);
                content.analysis = Some(analysis);
            }
            family @ (Family::Read | Family::Edit) => {
                path_content(book, tool_rules, family, name, tool, input, ctx, &mut paths, &mut content);
            }
            Family::Web | Family::Named | Family::Other => {
                target_content(rules, tool_rules, name, tool, input, &mut content);
                declared_content(book, name, tool, input, ctx, &mut paths, &mut content);
            }
            Family::Mcp => {
                content.read_only = tool.is_read_only(input);
                declared_content(book, name, tool, input, ctx, &mut paths, &mut content);
            }
        }
        content
    }
}

fn suffix(why: &str) -> String {
    if why.is_empty() { String::new() } else { format!(": {why}") }
}

#[cfg(test)]
#[path = "engine_tests/mod.rs"]
mod tests;
