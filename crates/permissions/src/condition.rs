//! One rule matched against one call, for hooks' `if` field.

use std::path::Path;

use serde_json::Value;
use toolgate_core::{PermissionBehavior, RuleSource, canonical_tool_name};

use crate::PermissionRule;
use crate::bash::analyze;
use crate::rules::{CompiledRule, Family, Spec, home_dir};
use crate::settings::RuleEntry;

/// Whether a hook's `if` rule matches a call: the tool part must name the tool; a
/// specifier is matched as a deny rule would be (for Bash, against every subcommand,
/// including those inside `$(...)`). `None` when the rule does not parse; hooks then run
/// (they fail open).
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
    let parsed: PermissionRule = rule.parse().ok()?;
    let entry = RuleEntry {
        rule: parsed,
        text: rule.to_owned(),
        behavior: PermissionBehavior::Ask,
        source: RuleSource::Session,
        origin: "hook if".to_owned(),
        anchor: cwd.to_path_buf(),
    };
    let home = home_dir();
    let mut diagnostics = Vec::new();
    let compiled = CompiledRule::compile(entry, cwd, home.as_deref(), &mut diagnostics);
    let name = canonical_tool_name(tool_name);
    if !compiled.names_tool(name) {
        return Some(false);
    }
    let matched = match &compiled.spec {
        Spec::Bare => true,
        Spec::Invalid => return None,
        Spec::Command(pattern) => match Family::of(name) {
            Family::Bash => {
                let command = input.get("command").and_then(Value::as_str).unwrap_or_default();
                let analysis = analyze(command);
                pattern.matches(command)
                    || analysis.commands.iter().any(|c| pattern.matches(&c.argv.join(" ")) || pattern.matches(&c.text))
            }
            _ => first_string(input).is_some_and(|s| pattern.matches(&s)),
        },
        Spec::Path(pattern) => ["file_path", "notebook_path", "path"]
            .iter()
            .filter_map(|k| input.get(*k).and_then(Value::as_str))
            .any(|p| pattern.matches(&toolgate_core::normalize_path(&cwd.join(p)))),
        Spec::Domain(pattern) => {
            input.get("url").and_then(Value::as_str).and_then(host_of).is_some_and(|h| pattern.matches(&h))
        }
    };
    Some(matched)
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
    }

    #[test]
    fn hosts() {
        assert_eq!(host_of("https://user:pw@Example.com:443/p?q").as_deref(), Some("example.com"));
        assert_eq!(host_of("http://[::1]:8080/").as_deref(), Some("::1"));
        assert_eq!(host_of("https:///x"), None);
    }
}
