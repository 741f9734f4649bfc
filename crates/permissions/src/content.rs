//! The content layer's findings for one call (`Content`): the rules its targets meet, the
//! paths it touches in both forms (`Paths`), whether it only reads; and the content of path
//! and target tools.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use smallvec::SmallVec;
use toolgate_core::{Access, DecisionReason, PermissionBehavior, Tool, ToolContext};
use toolgate_shell::BashAnalysis;

use crate::protected_path_reason;
use crate::real_path::{Forms, Resolver, is_below};
use crate::rule_index::{PathHits, RuleBook, ToolRules};
use crate::rules::{CompiledRule, Family, Spec};
use crate::settings::RuleEntry;

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
    /// Why the call is not approved automatically (a hazard of a Bash command's analysis, a
    /// program a tool starts), for the message when nothing approves it.
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

/// The content rules (not bare) of a tool with `behavior`, in settings order.
pub(crate) fn content_rules<'r, 't>(
    rules: &'r [CompiledRule],
    tool_rules: &'t ToolRules,
    behavior: PermissionBehavior,
) -> impl Iterator<Item = &'r CompiledRule> + use<'r, 't> {
    tool_rules.relevant.iter().map(|&i| &rules[i]).filter(move |r| r.behavior() == behavior && !r.is_bare())
}

/// The content layer of a `Read` or `Edit` family call: each of its targets against the path
/// rules of its access (a reading target against the `Read` rules, a changing one against the
/// `Edit` rules and the protected paths), the working directories and the protected paths.
#[inline(never)]
#[expect(clippy::too_many_arguments, reason = "the pieces of one call's content layer")]
pub(crate) fn path_content<'b>(
    book: &'b RuleBook,
    tool_rules: &ToolRules,
    family: Family,
    name: &str,
    tool: &dyn Tool,
    input: &Value,
    ctx: &ToolContext,
    paths: &mut Paths<'_>,
    content: &mut Content<'b>,
) {
    let rules = book.rules.as_slice();
    // Every path the call names (each file of a patch): a deny or ask rule on any holds, an
    // allow needs all, and each is checked against the roots (and, when it changes files, the
    // protected paths). A call that names none works on its working directory.
    let declared = tool.targets(input);
    let targets: Vec<(PathBuf, Access)> = if declared.is_empty() {
        let access = if family == Family::Edit { Access::Write } else { Access::Read { walked: true } };
        vec![(ctx.cwd.clone(), access)]
    } else {
        declared.iter().map(|t| (ctx.resolve_path(&t.path), t.access)).collect()
    };
    // The rules of the other family, for a target whose access is not the tool's (a read of a
    // file an editing tool also writes), fetched once.
    let mut other: Option<Arc<ToolRules>> = None;
    let mut allowed = Some(None);
    let mut inside = true;
    let mut changes = false;
    for (target, access) in &targets {
        let held_to = access_family(*access);
        let own: &ToolRules = if held_to == family {
            tool_rules
        } else {
            other.get_or_insert_with(|| book.for_tool(held_to.rule_tool(name)))
        };
        let forms = paths.forms(target);
        let matches_any = |r: &CompiledRule| matches!(&r.spec, Spec::Path(p) if forms.iter().any(|f| p.matches(f)));
        let matches = |r: &CompiledRule, f: &PathBuf| matches!(&r.spec, Spec::Path(p) if p.matches(f));
        if content.deny.is_none()
            && let Some(r) = content_rules(rules, own, PermissionBehavior::Deny).find(|r| matches_any(r))
        {
            content.deny = Some((&r.entry, format!("{name} of {}", target.display())));
        }
        if content.ask.is_none()
            && let Some(r) = content_rules(rules, own, PermissionBehavior::Ask).find(|r| matches_any(r))
        {
            content.ask = Some((&r.entry, format!("{name} of {}", target.display())));
        }
        inside &= paths.inside(&forms);
        // Every form allowed, by a rule each (a link and where it leads): the rule of the first
        // path as written is the one shown.
        let allow_of = |f: &PathBuf| content_rules(rules, own, PermissionBehavior::Allow).find(|r| matches(r, f));
        let mut allows = forms.iter().map(allow_of);
        allowed = match (allowed, allows.next().flatten()) {
            (Some(shown), Some(first)) if allows.all(|r| r.is_some()) => Some(shown.or(Some(&first.entry))),
            _ => None,
        };
        if access.changes() {
            changes = true;
            if content.protected.is_none() {
                content.protected = forms.iter().find_map(|f| protected_path_reason(f));
            }
        }
    }
    content.allow_rule = allowed.flatten();
    if changes {
        content.accept_edits_ok = inside;
    } else {
        content.read_only = true;
        if inside {
            content.auto_allow =
                Some(DecisionReason::Tool { detail: "reads inside the working directories need no approval".into() });
        }
    }
}

/// The rule family a target of `access` is held to: `Edit` for a change, `Read` otherwise.
fn access_family(access: Access) -> Family {
    if access.changes() { Family::Edit } else { Family::Read }
}

/// The content layer of the paths a tool outside the path families declares (an MCP tool's
/// `file://` arguments): each against the deny and ask rules of its access's family and, when
/// it changes files, the protected paths. Such targets only restrict the call: an allow rule,
/// a read inside the working directories or `acceptEdits` approves nothing through them.
#[inline(never)]
pub(crate) fn declared_content<'b>(
    book: &'b RuleBook,
    name: &str,
    tool: &dyn Tool,
    input: &Value,
    ctx: &ToolContext,
    paths: &mut Paths<'_>,
    content: &mut Content<'b>,
) {
    let declared = tool.targets(input);
    if declared.is_empty() {
        return;
    }
    let rules = book.rules.as_slice();
    for target in &declared {
        let held_to = access_family(target.access);
        let family_rules = book.for_tool(held_to.rule_tool(name));
        let path = ctx.resolve_path(&target.path);
        let forms = paths.forms(&path);
        let matches_any = |r: &&CompiledRule| matches!(&r.spec, Spec::Path(p) if forms.iter().any(|f| p.matches(f)));
        for (behavior, slot) in
            [(PermissionBehavior::Deny, &mut content.deny), (PermissionBehavior::Ask, &mut content.ask)]
        {
            if slot.is_none()
                && let Some(r) = content_rules(rules, &family_rules, behavior).find(matches_any)
            {
                *slot = Some((&r.entry, format!("{name} ({} of {})", target.access.verb(), path.display())));
            }
        }
        if target.access.changes() && content.protected.is_none() {
            content.protected = forms.iter().find_map(|f| protected_path_reason(f));
        }
    }
}

/// The content layer of a call with a target matched by domain or command rules (WebFetch,
/// named tools such as `Agent(type)` and `Skill(name)`).
#[inline(never)]
pub(crate) fn target_content<'b>(
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
/// The paths of one decision: their forms through one [`Resolver`] (each directory entry
/// looked up once per decision), and the working directories' forms, computed when a path
/// must first be checked against them.
pub(crate) struct Paths<'a> {
    resolver: Resolver<'a>,
    roots: &'a [PathBuf],
    root_forms: Option<Vec<PathBuf>>,
}

impl<'a> Paths<'a> {
    pub(crate) fn new(cwd: &'a Path, roots: &'a [PathBuf]) -> Self {
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
    pub(crate) fn forms_of_owned(&mut self, targets: crate::bash::bases::Targets) -> Forms {
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
pub(crate) fn shown_form(rule: &CompiledRule, forms: &[PathBuf]) -> String {
    let matched = forms.iter().find(|f| matches!(&rule.spec, Spec::Path(p) if p.matches(f)));
    matched.or(forms.first()).map(|f| f.display().to_string()).unwrap_or_default()
}
