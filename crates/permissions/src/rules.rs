//! Compiled rules and what a call looks like to them: which rules apply to a tool, and how
//! a rule's specifier matches a call's target (command, path, domain, name, parameter).

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolgate_core::PermissionBehavior;

use crate::settings::{Diagnostic, RuleEntry};
use crate::{CommandPattern, DomainPattern, PathPattern};

/// How a tool's calls are matched by rule specifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Shell commands: analysed, every subcommand matched.
    Bash,
    /// Reads of a path (Read, Grep, Glob, LSP, legacy LS and NotebookRead).
    Read,
    /// Writes of a path (Edit, Write, NotebookEdit, ApplyPatch, legacy MultiEdit).
    Edit,
    /// WebFetch: the host.
    Web,
    /// Agent (subagent type) and Skill (name and arguments): command-style patterns.
    Named,
    /// MCP tools: bare names only.
    Mcp,
    /// Everything else: bare names (and parameter rules).
    Other,
}

impl Family {
    /// The family of a (canonical) tool name.
    pub fn of(tool: &str) -> Self {
        match tool {
            "Bash" | "Monitor" | "PowerShell" => Self::Bash,
            "Read" | "Grep" | "Glob" | "LSP" | "LS" | "NotebookRead" => Self::Read,
            "Edit" | "Write" | "NotebookEdit" | "MultiEdit" | "ApplyPatch" => Self::Edit,
            "WebFetch" => Self::Web,
            "Agent" | "Skill" => Self::Named,
            t if t.starts_with("mcp__") => Self::Mcp,
            _ => Self::Other,
        }
    }

    /// The rule name whose content rules govern this family (`Read` for Grep).
    pub fn rule_tool(self, tool: &str) -> &str {
        match self {
            Self::Read => "Read",
            Self::Edit => "Edit",
            _ => tool,
        }
    }

    /// The input field that holds the primary target (not usable as a parameter rule).
    fn primary_field(tool: &str) -> Option<&'static str> {
        match Self::of(tool) {
            Self::Bash => Some("command"),
            Self::Read | Self::Edit => Some(if tool == "NotebookEdit" { "notebook_path" } else { "file_path" }),
            Self::Web => Some("url"),
            _ => None,
        }
    }
}

/// How a compiled rule's specifier matches.
#[derive(Debug, Clone)]
pub(crate) enum Spec {
    /// The whole tool.
    Bare,
    /// A command, name or domain-free text pattern.
    Command(CommandPattern),
    /// A path pattern.
    Path(PathPattern),
    /// A domain pattern.
    Domain(DomainPattern),
    /// A specifier that did not compile: it matches nothing (and was reported).
    Invalid,
}

/// A rule ready to match.
#[derive(Debug, Clone)]
pub(crate) struct CompiledRule {
    pub entry: RuleEntry,
    pub spec: Spec,
    /// `name:value` read as a parameter rule, when the tool has that input field.
    pub param: Option<(String, CommandPattern)>,
}

impl CompiledRule {
    pub fn compile(entry: RuleEntry, cwd: &Path, home: Option<&Path>, diagnostics: &mut Vec<Diagnostic>) -> Self {
        let tool = entry.rule.tool().to_owned();
        let behavior = entry.behavior;
        let mut report = |message: String| diagnostics.push(Diagnostic { origin: entry.origin.clone(), message });
        if tool.contains('*') && behavior == PermissionBehavior::Allow && !allow_glob_ok(&tool) {
            report(format!(
                "allow rule '{}' ignored: an allow rule may use '*' in the tool name only after mcp__<server>__",
                entry.text
            ));
            return Self { entry, spec: Spec::Invalid, param: None };
        }
        let Some(spec_text) = entry.rule.specifier().map(str::to_owned) else {
            return Self { entry, spec: Spec::Bare, param: None };
        };
        let param = param_rule(&spec_text);
        if param.is_some() && behavior == PermissionBehavior::Allow && Family::of(&tool) == Family::Other {
            report(format!("allow rule '{}' ignored: parameter rules are for deny and ask only", entry.text));
            return Self { entry, spec: Spec::Invalid, param: None };
        }
        let family = Family::of(&tool);
        if let Some((name, _)) = &param
            && Family::primary_field(&tool) == Some(name.as_str())
        {
            report(format!(
                "rule '{}' ignored: `{name}` is the tool's main field; write the {tool} pattern directly",
                entry.text
            ));
            return Self { entry, spec: Spec::Invalid, param: None };
        }
        if matches!(tool.as_str(), "Write" | "NotebookEdit" | "Glob" | "MultiEdit") {
            report(format!(
                "path rule '{}' is read as an {} rule: path rules are written as Edit(...) or Read(...)",
                entry.text,
                family.rule_tool(&tool)
            ));
        }
        let compiled = match family {
            Family::Bash | Family::Named | Family::Other => CommandPattern::parse(&spec_text).map(Spec::Command),
            Family::Read | Family::Edit => {
                let ctx = PathPattern::context(&entry.anchor, cwd, home);
                PathPattern::compile(&spec_text, behavior, &ctx).map(Spec::Path)
            }
            Family::Web => DomainPattern::parse(&spec_text).map(Spec::Domain),
            Family::Mcp => Err("MCP tool rules take no specifier; name the tool, mcp__server or mcp__server__*".into()),
        };
        match compiled {
            Ok(spec) => Self { entry, spec, param },
            Err(_) if param.is_some() => Self { entry, spec: Spec::Invalid, param },
            Err(e) => {
                report(format!("rule '{}' never matches: {e}", entry.text));
                Self { entry, spec: Spec::Invalid, param: None }
            }
        }
    }

    pub fn behavior(&self) -> PermissionBehavior {
        self.entry.behavior
    }

    /// Whether the rule's tool part names `tool` (canonical), including family coverage
    /// (`Read` rules cover Grep; `Edit` rules cover Write) and MCP server forms.
    pub fn names_tool(&self, tool: &str) -> bool {
        let rule_tool = self.entry.rule.tool();
        tool_name_matches(rule_tool, tool)
            // A bare `Edit` allow rule approves Edit only, as in Claude Code (not Write).
            || (rule_tool == Family::of(tool).rule_tool(tool)
                && rule_tool != tool
                && !(self.behavior() == PermissionBehavior::Allow && self.is_bare() && rule_tool == "Edit" && tool != "MultiEdit"))
            || (self.behavior() != PermissionBehavior::Allow
                && rule_tool == "Read"
                && matches!(tool, "Edit" | "Write" | "MultiEdit")
                && !self.is_bare())
            || (self.behavior() == PermissionBehavior::Allow && rule_tool == "Edit" && Family::of(tool) == Family::Read)
    }

    pub fn is_bare(&self) -> bool {
        matches!(self.spec, Spec::Bare)
    }

    /// Whether this is a parameter rule that applies to a tool with this input.
    pub fn param_matches(&self, tool: &str, schema: &Value, input: &Value) -> Option<bool> {
        let (name, pattern) = self.param.as_ref()?;
        if self.behavior() == PermissionBehavior::Allow {
            return None;
        }
        schema.get("properties").and_then(|p| p.get(name))?;
        if Family::primary_field(tool) == Some(name.as_str()) {
            return None;
        }
        let value = match input.get(name) {
            Some(Value::String(s)) => s.clone(),
            Some(v @ (Value::Bool(_) | Value::Number(_))) => v.to_string(),
            _ => return Some(false),
        };
        Some(pattern.matches(&value))
    }
}

/// Whether an allow rule's tool glob is one Claude Code accepts: only after a literal
/// `mcp__<server>__`.
fn allow_glob_ok(tool: &str) -> bool {
    let Some(star) = tool.find('*') else { return true };
    let literal = &tool[..star];
    literal.strip_prefix("mcp__").is_some_and(|rest| rest.find("__").is_some_and(|i| i > 0))
}

/// `name:value` with an identifier name, as a parameter rule candidate. `git:*` is a
/// legacy prefix rule, and `domain:` a WebFetch specifier, not parameter rules.
fn param_rule(spec: &str) -> Option<(String, CommandPattern)> {
    let (name, value) = spec.split_once(':')?;
    if !toolgate_shell::is_identifier(name) || name == "domain" || value.is_empty() || value == "*" {
        return None;
    }
    CommandPattern::parse(value).ok().map(|p| (name.to_owned(), p))
}

/// Whether a rule's tool part names a tool: exact, a glob, or `mcp__server`.
pub(crate) fn tool_name_matches(rule_tool: &str, tool: &str) -> bool {
    if rule_tool == tool {
        return true;
    }
    if rule_tool.contains('*') {
        return CommandPattern::parse(rule_tool).is_ok_and(|p| p.matches(tool));
    }
    if let Some(server) = rule_tool.strip_prefix("mcp__")
        && !server.contains("__")
    {
        return tool.strip_prefix("mcp__").and_then(|t| t.strip_prefix(server)).is_some_and(|t| t.starts_with("__"));
    }
    false
}

/// The home directory from the environment.
pub(crate) fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_core::RuleSource;

    fn rule(text: &str, behavior: PermissionBehavior) -> (CompiledRule, Vec<Diagnostic>) {
        let entry = RuleEntry {
            rule: text.parse().unwrap(),
            text: text.to_owned(),
            behavior,
            source: RuleSource::ProjectSettings,
            origin: "settings.json".into(),
            anchor: "/repo".into(),
        };
        let mut diags = Vec::new();
        let compiled = CompiledRule::compile(entry, Path::new("/repo"), None, &mut diags);
        (compiled, diags)
    }

    #[test]
    fn tool_name_forms() {
        for (rule_tool, tool, want) in [
            ("Bash", "Bash", true),
            ("*", "Bash", true),
            ("mcp__*", "mcp__gh__issue", true),
            ("mcp__*", "Bash", false),
            ("mcp__gh", "mcp__gh__issue", true),
            ("mcp__gh", "mcp__ghx__issue", false),
            ("mcp__gh__get_*", "mcp__gh__get_issue", true),
            ("mcp__gh__get_*", "mcp__gh__list", false),
            ("mcp__gh__issue", "mcp__gh__issue", true),
        ] {
            assert_eq!(tool_name_matches(rule_tool, tool), want, "{rule_tool} vs {tool}");
        }
    }

    #[test]
    fn family_coverage() {
        let (read_deny, _) = rule("Read(./.env)", PermissionBehavior::Deny);
        assert!(read_deny.names_tool("Grep") && read_deny.names_tool("Write") && !read_deny.names_tool("NotebookEdit"));
        let (edit_allow, _) = rule("Edit(src/**)", PermissionBehavior::Allow);
        assert!(edit_allow.names_tool("Write") && edit_allow.names_tool("Read"));
        let (read_bare, _) = rule("Read", PermissionBehavior::Deny);
        assert!(!read_bare.names_tool("Write"), "a bare Read deny does not block writes");
    }

    #[test]
    fn allow_globs_and_param_rules_are_checked() {
        let (_, diags) = rule("*", PermissionBehavior::Allow);
        assert_eq!(diags.len(), 1);
        let (_, diags) = rule("mcp__*", PermissionBehavior::Allow);
        assert_eq!(diags.len(), 1);
        let (ok, diags) = rule("mcp__gh__get_*", PermissionBehavior::Allow);
        assert!(diags.is_empty() && ok.is_bare());
        let (p, _) = rule("Agent(model:opus)", PermissionBehavior::Deny);
        let schema = serde_json::json!({"properties": {"model": {}, "prompt": {}}});
        assert_eq!(p.param_matches("Agent", &schema, &serde_json::json!({"model": "opus"})), Some(true));
        assert_eq!(p.param_matches("Agent", &schema, &serde_json::json!({"model": "haiku"})), Some(false));
        let (bg, _) = rule("Bash(run_in_background:true)", PermissionBehavior::Deny);
        let bash_schema = serde_json::json!({"properties": {"command": {}, "run_in_background": {}}});
        assert_eq!(bg.param_matches("Bash", &bash_schema, &serde_json::json!({"run_in_background": true})), Some(true));
        let (legacy, _) = rule("Bash(git:*)", PermissionBehavior::Deny);
        assert!(legacy.param.is_none());
        let (_, diags) = rule("Bash(command:rm *)", PermissionBehavior::Deny);
        assert_eq!(diags.len(), 1, "the primary field is not a parameter rule");
    }
}
