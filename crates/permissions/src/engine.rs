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
use smallvec::SmallVec;
use toolgate_core::{
    BoxFuture, DecisionReason, PermissionBehavior, PermissionCheck, PermissionDecision, PermissionMode, RuleSource,
    Tool, ToolContext, canonical_tool_name,
};

use crate::bash::{BashAnalysis, analyze, recent_analysis};
use crate::bash_content::bash_content;
use crate::prompt::{PromptAnswer, PromptRequest, Prompter, persist_allow_rules, suggest_rules_with};
use crate::real_path::{Forms, Resolver, is_below};
use crate::rule_index::{PathHits, RuleBook, ToolRules};
use crate::rules::{CompiledRule, Family, Spec, home_dir};
use crate::settings::{Diagnostic, PermissionSettings, RuleEntry};
use crate::{Classifier, ClassifierRequest, ClassifierVerdict, protected_path_reason};

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

/// What the content layer found.
#[derive(Debug, Default)]
pub(crate) struct Content<'r> {
    /// The first deny rule that matched, with what it matched.
    pub deny: Option<(&'r RuleEntry, String)>,
    /// The first ask rule that matched, with what it matched.
    pub ask: Option<(&'r RuleEntry, String)>,
    /// Why only a person may approve the call (critical `rm`, `cd` then `git`).
    pub critical: Option<String>,
    /// The protected path the call writes.
    pub protected: Option<String>,
    /// Why the call needs no approval (reads inside, read-only commands).
    pub auto_allow: Option<DecisionReason>,
    /// Whether `acceptEdits` may approve the call.
    pub accept_edits_ok: bool,
    /// The allow rule that approves the call.
    pub allow_rule: Option<&'r RuleEntry>,
    /// Whether the call only reads.
    pub read_only: bool,
    /// Why a Bash command is never approved automatically (a hazard of its analysis).
    pub bash_hazard: Option<String>,
    /// Why a deny rule or the critical-path check may apply to a Bash command at run time
    /// that cannot be applied now (a hazard that hides what runs, a deny rule that words or
    /// paths known only then may match): nothing approves the call automatically, not
    /// `bypassPermissions`, a hook, a rule or a classifier.
    pub unresolved: Option<String>,
    /// A Bash call's analysis (for rule suggestions).
    pub analysis: Option<Analysis<'r>>,
    /// Each of the analysis' commands' read-only verdict (empty when not computed).
    pub read_only_commands: SmallVec<[bool; 4]>,
}

/// A Bash call's analysis: its own, or the one another step of the call made.
#[derive(Debug)]
pub(crate) enum Analysis<'r> {
    /// Made for this decision, borrowing from the input.
    Own(BashAnalysis<'r>),
    /// Made earlier for the same command ([`recent_analysis`]).
    Shared(Arc<BashAnalysis<'static>>),
}

impl<'r> std::ops::Deref for Analysis<'r> {
    type Target = BashAnalysis<'r>;

    fn deref(&self) -> &BashAnalysis<'r> {
        match self {
            Analysis::Own(analysis) => analysis,
            Analysis::Shared(analysis) => analysis,
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
            return Verdict::new(PermissionBehavior::Ask, rule_reason(&r.entry), msg, AskKind::Forced);
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
            return Verdict::new(PermissionBehavior::Ask, rule_reason(entry), msg, AskKind::Forced);
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
        let suggestions = call.suggestions(Some(content));
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
                path_content(rules, tool_rules, family, name, tool, input, ctx, &mut paths, &mut content);
            }
            Family::Web | Family::Named | Family::Other => {
                target_content(rules, tool_rules, name, tool, input, &mut content);
            }
            Family::Mcp => content.read_only = tool.is_read_only(input),
        }
        content
    }
}

/// The content rules (not bare) of a tool with `behavior`, in settings order.
fn content_rules<'r, 't>(
    rules: &'r [CompiledRule],
    tool_rules: &'t ToolRules,
    behavior: PermissionBehavior,
) -> impl Iterator<Item = &'r CompiledRule> + use<'r, 't> {
    tool_rules.relevant.iter().map(|&i| &rules[i]).filter(move |r| r.behavior() == behavior && !r.is_bare())
}

/// The content layer of a `Read` or `Edit` family call: its path against the path rules,
/// the working directories and the protected paths.
#[inline(never)]
#[expect(clippy::too_many_arguments, reason = "the pieces of one call's content layer")]
fn path_content<'b>(
    rules: &'b [CompiledRule],
    tool_rules: &ToolRules,
    family: Family,
    name: &str,
    tool: &dyn Tool,
    input: &Value,
    ctx: &ToolContext,
    paths: &mut Paths<'_>,
    content: &mut Content<'b>,
) {
    let is_edit = family == Family::Edit;
    let target = tool.permission_target(input).map_or_else(|| ctx.cwd.clone(), |t| ctx.resolve_path(t));
    let forms = paths.forms(&target);
    let shown = target.display().to_string();
    let matches_any = |r: &CompiledRule| matches!(&r.spec, Spec::Path(p) if forms.iter().any(|f| p.matches(f)));
    let matches = |r: &CompiledRule, f: &PathBuf| matches!(&r.spec, Spec::Path(p) if p.matches(f));
    if content.deny.is_none()
        && let Some(r) = content_rules(rules, tool_rules, PermissionBehavior::Deny).find(|r| matches_any(r))
    {
        content.deny = Some((&r.entry, format!("{name} of {shown}")));
    }
    if content.ask.is_none()
        && let Some(r) = content_rules(rules, tool_rules, PermissionBehavior::Ask).find(|r| matches_any(r))
    {
        content.ask = Some((&r.entry, format!("{name} of {shown}")));
    }
    let inside = paths.inside(&forms);
    // Every form allowed, by a rule each (a link and where it leads): the rule of the path as
    // written is the one shown.
    let allow_of = |f: &PathBuf| content_rules(rules, tool_rules, PermissionBehavior::Allow).find(|r| matches(r, f));
    let mut allows = forms.iter().map(allow_of);
    content.allow_rule = match allows.next().flatten() {
        Some(first) if allows.all(|r| r.is_some()) => Some(&first.entry),
        _ => None,
    };
    if is_edit {
        content.protected = forms.iter().find_map(|f| protected_path_reason(f));
        content.accept_edits_ok = inside;
    } else {
        content.read_only = true;
        if inside {
            content.auto_allow =
                Some(DecisionReason::Tool { detail: "reads inside the working directories need no approval".into() });
        }
    }
}

/// The content layer of a call with a target matched by domain or command rules (WebFetch,
/// named tools such as `Agent(type)` and `Skill(name)`).
#[inline(never)]
fn target_content<'b>(
    rules: &'b [CompiledRule],
    tool_rules: &ToolRules,
    name: &str,
    tool: &dyn Tool,
    input: &Value,
    content: &mut Content<'b>,
) {
    if let Some(target) = tool.permission_target(input) {
        let hit = |r: &&CompiledRule| match &r.spec {
            Spec::Domain(d) => d.matches(&target),
            Spec::Command(c) => c.matches(&target),
            _ => false,
        };
        if content.deny.is_none()
            && let Some(r) = content_rules(rules, tool_rules, PermissionBehavior::Deny).find(hit)
        {
            content.deny = Some((&r.entry, format!("{name}({target})")));
        }
        if content.ask.is_none()
            && let Some(r) = content_rules(rules, tool_rules, PermissionBehavior::Ask).find(hit)
        {
            content.ask = Some((&r.entry, format!("{name}({target})")));
        }
        content.allow_rule = content_rules(rules, tool_rules, PermissionBehavior::Allow).find(hit).map(|r| &r.entry);
    }
    content.read_only = tool.is_read_only(input);
}

/// `parts` joined, in one allocation (for the messages of common decisions, without the
/// formatting machinery).
pub(crate) fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for part in parts {
        out.push_str(part);
    }
    out
}

fn suffix(why: &str) -> String {
    if why.is_empty() { String::new() } else { format!(": {why}") }
}

/// The paths of one decision: their forms through one [`Resolver`] (each directory entry
/// looked up once per decision), and the working directories' forms, computed when a path
/// must first be checked against them.
pub(crate) struct Paths<'a> {
    resolver: Resolver<'a>,
    roots: &'a [PathBuf],
    root_forms: Option<Vec<PathBuf>>,
}

impl<'a> Paths<'a> {
    fn new(cwd: &'a Path, roots: &'a [PathBuf]) -> Self {
        Self { resolver: Resolver::new(cwd), roots, root_forms: None }
    }

    /// `path` as written (normalised) and the real path behind it, when that differs.
    pub(crate) fn forms(&mut self, path: &Path) -> Forms {
        self.resolver.forms(path)
    }

    /// The forms of each of `targets` (the paths one word may name), each form once.
    pub(crate) fn forms_of(&mut self, targets: &[PathBuf]) -> Forms {
        if let [target] = targets {
            return self.resolver.forms(target);
        }
        let mut all = Forms::new();
        for target in targets {
            for form in self.resolver.forms(target) {
                // Forms are normal, so equal paths have equal bytes (`Path`'s own `==`
                // compares component by component).
                if !all.iter().any(|known| known.as_os_str() == form.as_os_str()) {
                    all.push(form);
                }
            }
        }
        all
    }

    /// [`Paths::forms_of`], taking the paths by value (one of them may become its own form).
    pub(crate) fn forms_of_owned(&mut self, targets: crate::bash_paths::Targets) -> Forms {
        if targets.len() == 1 {
            return self.resolver.forms_owned(targets.into_iter().next().unwrap_or_default());
        }
        self.forms_of(&targets)
    }

    /// Whether `path` leads to something that exists (see [`Resolver::exists`]).
    pub(crate) fn exists(&mut self, path: &Path) -> bool {
        self.resolver.exists(path)
    }

    /// Whether every form lies inside one of the working directories (in any of their forms).
    pub(crate) fn inside(&mut self, forms: &[PathBuf]) -> bool {
        let Self { resolver, roots, root_forms } = self;
        let root_forms = root_forms.get_or_insert_with(|| roots.iter().flat_map(|r| resolver.forms(r)).collect());
        forms.iter().all(|f| {
            root_forms.iter().any(|r| is_below(f.as_os_str().as_encoded_bytes(), r.as_os_str().as_encoded_bytes()))
        })
    }
}

impl<'r> Content<'r> {
    /// Notes the first deny and the first ask rule of `family` among `hits` (the path rules
    /// matching `forms`, one path's forms), unless one is noted already: "`verb` PATH".
    pub(crate) fn path_rules(&mut self, hits: &PathHits<'r>, family: &str, verb: &str, forms: &[PathBuf]) {
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

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
