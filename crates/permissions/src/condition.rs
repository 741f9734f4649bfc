//! One rule matched against one call, for hooks' `if` field.

use std::path::Path;

use serde_json::{Value, json};
use toolgate_core::{
    Access, BoxFuture, PermissionBehavior, PermissionMode, RuleSource, Target, Tool, ToolContext, ToolError,
    ToolOutput, canonical_tool_name,
};

use crate::rules::{CompiledRule, Family, Spec, home_dir};
use crate::settings::RuleEntry;
use crate::{LoadedSettings, PermissionEngine, PermissionRule, SettingsFile};

/// Whether a hook's `if` rule matches a call: the tool part must name the tool; a
/// specifier is matched as a deny rule would be (for Bash, against every subcommand,
/// including those inside `$(...)`). `None` when the rule does not parse; hooks then run
/// (they fail open). Without the tool itself, its targets are read from the common input
/// fields ([`CallCondition::new`] takes the tool).
///
/// ```
/// use serde_json::json;
/// use toolgate_permissions::rule_matches_call;
/// let cwd = std::path::Path::new("/repo");
/// let call = json!({"command": "git status && rm -rf build"});
/// assert_eq!(rule_matches_call("Bash(rm *)", "Bash", &call, cwd), Some(true));
/// assert_eq!(rule_matches_call("Bash(curl *)", "Bash", &call, cwd), Some(false));
/// assert_eq!(rule_matches_call("Edit(*.ts)", "Write", &json!({"file_path": "/repo/a/b.ts"}), cwd), Some(true));
/// assert_eq!(rule_matches_call("Bash(", "Bash", &call, cwd), None);
/// ```
pub fn rule_matches_call(rule: &str, tool_name: &str, input: &Value, cwd: &Path) -> Option<bool> {
    CallCondition::new(None, tool_name, input, cwd).matches(rule)
}

/// One call that hooks' `if` rules are tested against, through the engine's own matching:
/// the call decided in `bypassPermissions` with the rule as its one deny rule, against the
/// call decided with no rule (worked out once per call); the rule matches when it changes
/// the decision (a deny, or the ask of a rule that may match once the command's words are
/// known). With the tool itself, every target it names counts (each file of a patch).
///
/// ```
/// use serde_json::json;
/// use toolgate_permissions::CallCondition;
/// let input = json!({"command": "timeout 5 rm -rf build"});
/// let call = CallCondition::new(None, "Bash", &input, std::path::Path::new("/repo"));
/// assert_eq!(call.matches("Bash(rm:*)"), Some(true));
/// assert_eq!(call.matches("Bash(git push:*)"), Some(false));
/// ```
pub struct CallCondition<'a> {
    tool: Option<&'a dyn Tool>,
    stand_in: StandIn,
    input: &'a Value,
    cwd: &'a Path,
    ctx: ToolContext,
    /// The decision with no rule.
    without: std::sync::OnceLock<toolgate_core::PermissionDecision>,
}

impl<'a> CallCondition<'a> {
    /// The call of `tool_name` (or of `tool`, when the host has it) with `input`, in `cwd`.
    pub fn new(tool: Option<&'a dyn Tool>, tool_name: &str, input: &'a Value, cwd: &'a Path) -> Self {
        let mut ctx = ToolContext::new(cwd);
        ctx.permission_mode = PermissionMode::BypassPermissions;
        let name = canonical_tool_name(tool_name).to_owned();
        Self { tool, stand_in: StandIn { name, schema: Value::Null }, input, cwd, ctx, without: Default::default() }
    }

    /// Whether `rule` matches the call; `None` when it does not parse.
    pub fn matches(&self, rule: &str) -> Option<bool> {
        let parsed: PermissionRule = rule.parse().ok()?;
        let entry = RuleEntry {
            rule: parsed,
            text: rule.to_owned(),
            behavior: PermissionBehavior::Ask,
            source: RuleSource::Session,
            origin: "hook if".to_owned(),
            anchor: self.cwd.to_path_buf(),
        };
        let home = home_dir();
        let compiled = CompiledRule::compile(entry, self.cwd, home.as_deref(), &mut Vec::new());
        if !compiled.names_tool(&self.stand_in.name) {
            return Some(false);
        }
        match &compiled.spec {
            Spec::Bare => return Some(true),
            Spec::Invalid => return None,
            _ => {}
        }
        let with = self.decide(&[rule]);
        let without = self.without.get_or_init(|| self.decide(&[]));
        Some(with.behavior != without.behavior || with.message != without.message)
    }

    /// The call's decision with `deny` as the only rules.
    fn decide(&self, deny: &[&str]) -> toolgate_core::PermissionDecision {
        let mut loaded = LoadedSettings::default();
        loaded.add(SettingsFile {
            source: RuleSource::Session,
            origin: "hook if".to_owned(),
            anchor: self.cwd.to_path_buf(),
            value: json!({"permissions": {"deny": deny}}),
        });
        let engine = PermissionEngine::builder(loaded.permissions().0).cwd(self.cwd.to_path_buf()).build();
        let tool = self.tool.unwrap_or(&self.stand_in);
        engine.evaluate(tool, self.input, &self.ctx, None).decision
    }
}

impl std::fmt::Debug for CallCondition<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallCondition")
            .field("tool", &self.stand_in.name)
            .field("has_tool", &self.tool.is_some())
            .field("input", self.input)
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}

/// The tool a hook's `if` is asked about when the host does not have it: its name, and the
/// target the common input fields name (a path, a subagent type, a skill, a URL).
struct StandIn {
    name: String,
    schema: Value,
}

impl Tool for StandIn {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> std::borrow::Cow<'_, str> {
        "the tool a hook's `if` is asked about".into()
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn render_use(&self, _input: &Value) -> String {
        self.name.clone()
    }

    fn permission_target(&self, input: &Value) -> Option<String> {
        let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_owned);
        match Family::of(&self.name) {
            Family::Read | Family::Edit => text("file_path").or_else(|| text("notebook_path")).or_else(|| text("path")),
            Family::Web => text("url").as_deref().and_then(host_of),
            Family::Named if self.name == "Agent" => {
                Some(text("subagent_type").unwrap_or_else(|| "general-purpose".into()))
            }
            Family::Named => first_string(input).map(|s| match text("args") {
                Some(args) => format!("{s} {args}"),
                None => s,
            }),
            _ => None,
        }
    }

    /// The path [`StandIn::permission_target`] names, read for a `Read`-family tool and written
    /// for an `Edit`-family one.
    fn targets(&self, input: &Value) -> Vec<Target> {
        let access = match Family::of(&self.name) {
            Family::Read => Access::Read { walked: false },
            Family::Edit => Access::Write,
            _ => return Vec::new(),
        };
        self.permission_target(input).map(|path| Target::new(path, access)).into_iter().collect()
    }

    fn call<'a>(&'a self, _input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Err(ToolError::internal("a hook's `if` never runs the call")) })
    }
}

fn first_string(input: &Value) -> Option<String> {
    ["subagent_type", "skill", "command"].iter().find_map(|k| input.get(*k).and_then(Value::as_str)).map(str::to_owned)
}

/// The host of a URL, without scheme, credentials or port.
fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split(']').next().map(|h| h.trim_start_matches('['))?
    } else {
        host.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn if_conditions() {
        let cwd = Path::new("/repo");
        let bash = |c: &str| json!({"command": c});
        assert_eq!(rule_matches_call("Bash", "Bash", &bash("anything"), cwd), Some(true));
        assert_eq!(rule_matches_call("Bash(git *)", "Bash", &bash("ls; git push"), cwd), Some(true));
        assert_eq!(rule_matches_call("Bash(rm *)", "Bash", &bash("echo $(rm -rf x)"), cwd), Some(true));
        // The engine's own reading: a path to the program, a wrapper, a word known only at run
        // time that the rule may match, all as a deny rule sees them.
        for line in ["/bin/rm -rf x", "timeout 5 rm -rf x", "bash -c 'rm -rf x'", "(rm -rf x)"] {
            assert_eq!(rule_matches_call("Bash(rm:*)", "Bash", &bash(line), cwd), Some(true), "{line}");
        }
        assert_eq!(rule_matches_call("Bash(git push:*)", "Bash", &bash("git $VERB origin"), cwd), Some(true));
        assert_eq!(rule_matches_call("Bash(rm:*)", "Bash", &bash("ls -la"), cwd), Some(false));
        assert_eq!(rule_matches_call("Bash(git *)", "Read", &json!({"file_path": "/x"}), cwd), Some(false));
        assert_eq!(rule_matches_call("Read(.env)", "Read", &json!({"file_path": "/repo/sub/.env"}), cwd), Some(true));
        assert_eq!(
            rule_matches_call(
                "WebFetch(domain:*.example.com)",
                "WebFetch",
                &json!({"url": "https://a.example.com:8080/x"}),
                cwd
            ),
            Some(true)
        );
        assert_eq!(rule_matches_call("mcp__gh", "mcp__gh__issue", &json!({}), cwd), Some(true));
        let agent = json!({"description": "d", "prompt": "p", "subagent_type": "Explore"});
        assert_eq!(rule_matches_call("Agent(Explore)", "Task", &agent, cwd), Some(true));
        assert_eq!(rule_matches_call("Agent(reviewer)", "Agent", &agent, cwd), Some(false));
    }

    #[test]
    fn hosts() {
        assert_eq!(host_of("https://user:pw@Example.com:443/p?q").as_deref(), Some("example.com"));
        assert_eq!(host_of("http://[::1]:8080/").as_deref(), Some("::1"));
        assert_eq!(host_of("https:///x"), None);
    }
}
