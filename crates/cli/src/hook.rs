//! `toolgate hook`: toolgate's permission engine as a Claude Code hook.
//!
//! Claude Code runs the command once per tool call with the hook input on stdin
//! (`hook_event_name`, `cwd`, `permission_mode`, `tool_name`, `tool_input`, …). The call is
//! decided as `toolgate check` decides it, with the settings Claude Code reads for that `cwd`
//! and the input's mode, and the answer is printed in Claude Code's hook output format:
//!
//! | toolgate | `PreToolUse` | `PermissionRequest` |
//! |---|---|---|
//! | deny | `permissionDecision: deny`, the reason for the model | `behavior: deny`, the reason |
//! | ask | `permissionDecision: ask`, the reason for the person | no opinion (the person is asked) |
//! | allow | no opinion; `allow` with `--decide` | no opinion; `behavior: allow` with `--decide` |
//!
//! No opinion is an empty stdout, so Claude Code's own checks still run: out of the box the hook
//! only tightens. Other events, tools toolgate does not have (Claude Code's `Workflow`,
//! `SendMessage` …) and inputs toolgate cannot read get no opinion either; the hook never
//! loosens what Claude Code alone would decide.
//!
//! `toolgate hook install` and `uninstall` add or remove the entries in a settings file.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolgate_core::{PermissionBehavior, PermissionMode};
use toolgate_pipeline::ToolCall;

use crate::options::SessionOpts;

/// The events the hook answers, and the matcher its entries use (every tool).
const EVENTS: [&str; 2] = ["PreToolUse", "PermissionRequest"];

/// The fields of a Claude Code hook input the hook reads; the rest are ignored.
#[derive(Debug, Deserialize)]
struct HookInput {
    hook_event_name: String,
    #[serde(default)]
    cwd: Option<PathBuf>,
    #[serde(default)]
    permission_mode: Option<String>,
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_input: Option<Value>,
    #[serde(default)]
    tool_use_id: Option<String>,
}

/// The event of an input the hook answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    PreToolUse,
    PermissionRequest,
}

/// Answers one hook input: the JSON to print, or `None` for no opinion.
///
/// # Errors
/// The input is not a Claude Code hook input (not JSON, or no `hook_event_name`).
pub(crate) async fn answer(opts: &SessionOpts, stdin: &str, decide: bool) -> anyhow::Result<Option<Value>> {
    let input: HookInput = serde_json::from_str(stdin)
        .context("the hook input is not a Claude Code hook input (a JSON object with hook_event_name)")?;
    let event = match input.hook_event_name.as_str() {
        "PreToolUse" => Event::PreToolUse,
        "PermissionRequest" => Event::PermissionRequest,
        _ => return Ok(None),
    };
    let (Some(tool), Some(tool_input)) = (input.tool_name, input.tool_input) else { return Ok(None) };
    let mut opts = opts.clone();
    if let Some(cwd) = input.cwd {
        opts.cwd = Some(cwd);
    }
    // A mode toolgate does not know is read as `default`, where nothing is approved that
    // plan, dontAsk or acceptEdits would not approve either.
    if let Some(mode) = input.permission_mode.as_deref() {
        opts.mode = Some(parse_mode(mode).unwrap_or_default());
    }
    let built = opts.session_for_check(&tool).await?;
    let call_id = input.tool_use_id.unwrap_or_else(|| "toolu_hook".to_owned());
    // A tool of ours that is off in this session (Agent without a subagent runner) is still
    // judged by the same rules: Claude Code runs it, not toolgate.
    let pooled = built.session.pool().get(&tool).cloned();
    let resolved = pooled.clone().or_else(|| {
        let name = toolgate_core::canonical_tool_name(&tool);
        toolgate_builtin::all_builtin_tools().into_iter().find(|t| t.name() == name || t.aliases().contains(&name))
    });
    let (input, unread) = known_fields(resolved.as_ref(), tool_input);
    let call = ToolCall::new(call_id, tool, input);
    let checked = match (&pooled, &resolved) {
        (None, Some(offline)) => built.session.check_foreign_tool(offline, &call),
        _ => built.session.check_foreign(&call),
    };
    built.shutdown().await;
    // A tool toolgate does not have, or an input it cannot read: no opinion.
    let Ok((_, evaluation)) = checked else { return Ok(None) };
    let decision = &evaluation.decision;
    // An allow covers what toolgate read: with a field it did not read (other than the
    // description Claude Code adds), `--decide` leaves the call to Claude Code.
    let decide = decide && unread.iter().all(|field| HARMLESS_FIELDS.contains(&field.as_str()));
    Ok(reply(event, decision.behavior, &decision.message, decide))
}

/// Fields Claude Code adds to inputs that change nothing a call does.
const HARMLESS_FIELDS: &[&str] = &["description"];

/// Claude Code's spelling of a permission mode.
fn parse_mode(mode: &str) -> Option<PermissionMode> {
    serde_json::from_value(Value::String(mode.to_owned())).ok()
}

/// The input without the top-level fields the tool's schema does not name, and those fields:
/// Claude Code's inputs may carry fields of its own that toolgate's schemas would refuse.
fn known_fields(tool: Option<&toolgate_core::DynTool>, input: Value) -> (Value, Vec<String>) {
    let Value::Object(fields) = input else { return (input, Vec::new()) };
    let schema = tool.map(|t| t.input_schema().clone());
    let Some(properties) = schema.as_ref().and_then(|s| s.get("properties")).and_then(Value::as_object) else {
        return (Value::Object(fields), Vec::new());
    };
    let (known, unread): (serde_json::Map<String, Value>, serde_json::Map<String, Value>) =
        fields.into_iter().partition(|(k, _)| properties.contains_key(k));
    (Value::Object(known), unread.into_iter().map(|(k, _)| k).collect())
}

/// The hook output for toolgate's decision, `None` for no opinion.
fn reply(event: Event, behavior: PermissionBehavior, message: &str, decide: bool) -> Option<Value> {
    match (event, behavior) {
        (Event::PreToolUse, PermissionBehavior::Deny) => Some(pre_tool_use("deny", message)),
        (Event::PreToolUse, PermissionBehavior::Ask) => Some(pre_tool_use("ask", message)),
        (Event::PreToolUse, PermissionBehavior::Allow) if decide => Some(pre_tool_use("allow", message)),
        (Event::PermissionRequest, PermissionBehavior::Deny) => {
            Some(permission_request(json!({"behavior": "deny", "message": format!("toolgate: {message}")})))
        }
        (Event::PermissionRequest, PermissionBehavior::Allow) if decide => {
            Some(permission_request(json!({"behavior": "allow"})))
        }
        _ => None,
    }
}

fn pre_tool_use(decision: &str, message: &str) -> Value {
    json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": format!("toolgate: {message}"),
    }})
}

fn permission_request(decision: Value) -> Value {
    json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}})
}

/// Which settings file `install` and `uninstall` change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `~/.claude/settings.json`: every project.
    User,
    /// `.claude/settings.json` of the project (shared through version control).
    Project,
    /// `.claude/settings.local.json` of the project (this machine only).
    Local,
}

/// The settings file of `scope` for a project at `cwd`.
pub(crate) fn settings_path(scope: Scope, cwd: &Path) -> anyhow::Result<PathBuf> {
    Ok(match scope {
        Scope::User => {
            let home = std::env::var_os("CLAUDE_CONFIG_DIR")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude")))
                .context("neither HOME nor CLAUDE_CONFIG_DIR is set: there is no user settings file")?;
            home.join("settings.json")
        }
        Scope::Project => cwd.join(".claude/settings.json"),
        Scope::Local => cwd.join(".claude/settings.local.json"),
    })
}

/// The command the entries run: this program, by its absolute path, quoted for `sh`.
pub(crate) fn hook_command(program: &Path, decide: bool) -> String {
    let text = program.to_string_lossy();
    let quoted = if text.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b)) {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    };
    if decide { format!("{quoted} hook --decide") } else { format!("{quoted} hook") }
}

/// Whether a handler's command is one `install` wrote (any path to a `toolgate` program).
fn is_ours(handler: &Value) -> bool {
    let Some(command) = handler.get("command").and_then(Value::as_str) else { return false };
    let (program, rest) = first_word(command);
    Path::new(&program).file_name().is_some_and(|n| n == "toolgate") && rest.split_whitespace().next() == Some("hook")
}

/// The first word of a `sh` command line as [`hook_command`] writes it (bare, `'…'` quoted,
/// `\` escapes), and the text after it.
fn first_word(command: &str) -> (String, &str) {
    let command = command.trim_start();
    let mut word = String::new();
    let mut chars = command.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\'' => word.extend(chars.by_ref().map(|(_, c)| c).take_while(|&c| c != '\'')),
            '\\' => word.extend(chars.next().map(|(_, c)| c)),
            c if c.is_whitespace() => return (word, &command[at..]),
            c => word.push(c),
        }
    }
    (word, "")
}

/// Removes every entry [`is_ours`] from `root`'s hooks, dropping groups and events left empty;
/// returns how many were removed.
fn remove_ours(root: &mut Map<String, Value>) -> usize {
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else { return 0 };
    let mut removed = 0;
    for event in EVENTS {
        let Some(groups) = hooks.get_mut(event).and_then(Value::as_array_mut) else { continue };
        for group in groups.iter_mut() {
            if let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                let before = handlers.len();
                handlers.retain(|h| !is_ours(h));
                removed += before - handlers.len();
            }
        }
        groups.retain(|g| g.get("hooks").and_then(Value::as_array).is_none_or(|h| !h.is_empty()));
        if groups.is_empty() {
            hooks.remove(event);
        }
    }
    if hooks.is_empty() {
        root.remove("hooks");
    }
    removed
}

/// Adds the hook's entries to `path` (replacing earlier ones of ours), keeping everything else.
///
/// # Errors
/// The file is not a JSON object, its `hooks` is not an object of arrays, or it cannot be written.
pub(crate) fn install(path: &Path, command: &str) -> std::io::Result<()> {
    toolgate_permissions::update_settings_file(path, |root| {
        remove_ours(root);
        let hooks = root.entry("hooks").or_insert_with(|| json!({}));
        let hooks = hooks.as_object_mut().ok_or_else(|| invalid(path, "its \"hooks\" is not an object"))?;
        for event in EVENTS {
            let groups = hooks.entry(event).or_insert_with(|| json!([]));
            let groups = groups
                .as_array_mut()
                .ok_or_else(|| invalid(path, &format!("its \"hooks\".\"{event}\" is not a list")))?;
            groups.push(json!({"matcher": "*", "hooks": [{"type": "command", "command": command}]}));
        }
        Ok(())
    })
}

/// Removes the hook's entries from `path`, keeping everything else; returns how many there were.
///
/// # Errors
/// The file is not a JSON object or cannot be written.
pub(crate) fn uninstall(path: &Path) -> std::io::Result<usize> {
    if !path.exists() {
        return Ok(0);
    }
    let mut removed = 0;
    toolgate_permissions::update_settings_file(path, |root| {
        removed = remove_ours(root);
        Ok(())
    })?;
    Ok(removed)
}

fn invalid(path: &Path, what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{} cannot take the hook: {what}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_become_claude_code_hook_outputs() {
        let deny = reply(Event::PreToolUse, PermissionBehavior::Deny, "no rm", false).unwrap();
        assert_eq!(deny["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(deny["hookSpecificOutput"]["permissionDecisionReason"], "toolgate: no rm");
        let ask = reply(Event::PreToolUse, PermissionBehavior::Ask, "why", false).unwrap();
        assert_eq!(ask["hookSpecificOutput"]["permissionDecision"], "ask");
        assert_eq!(reply(Event::PreToolUse, PermissionBehavior::Allow, "ok", false), None, "tighten only");
        let allow = reply(Event::PreToolUse, PermissionBehavior::Allow, "ok", true).unwrap();
        assert_eq!(allow["hookSpecificOutput"]["permissionDecision"], "allow");
        let denied = reply(Event::PermissionRequest, PermissionBehavior::Deny, "no", false).unwrap();
        assert_eq!(denied["hookSpecificOutput"]["decision"], json!({"behavior": "deny", "message": "toolgate: no"}));
        assert_eq!(reply(Event::PermissionRequest, PermissionBehavior::Ask, "?", true), None, "the person decides");
        assert_eq!(reply(Event::PermissionRequest, PermissionBehavior::Allow, "ok", false), None);
        let allowed = reply(Event::PermissionRequest, PermissionBehavior::Allow, "ok", true).unwrap();
        assert_eq!(allowed["hookSpecificOutput"]["decision"], json!({"behavior": "allow"}));
    }

    #[test]
    fn install_and_uninstall_keep_everything_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let theirs = json!({"type": "command", "command": "./audit.sh"});
        let original = json!({
            "model": "sonnet",
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [theirs]}], "Stop": [{"hooks": [theirs]}]}
        });
        std::fs::write(&path, original.to_string()).unwrap();
        let command = hook_command(Path::new("/opt/tool gate/toolgate"), false);
        assert_eq!(command, "'/opt/tool gate/toolgate' hook");
        install(&path, &command).unwrap();
        install(&path, &command).unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(doc["model"], "sonnet");
        assert_eq!(doc["hooks"]["PreToolUse"].as_array().unwrap().len(), 2, "installed once: {doc}");
        assert_eq!(doc["hooks"]["PreToolUse"][1]["hooks"][0]["command"], command);
        assert_eq!(doc["hooks"]["PermissionRequest"][0]["matcher"], "*");
        assert_eq!(uninstall(&path).unwrap(), 2);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(doc, original, "only our entries were removed");
        assert_eq!(uninstall(&dir.path().join("missing.json")).unwrap(), 0);
        let odd = hook_command(Path::new("/it's/toolgate"), true);
        assert_eq!(first_word(&odd), ("/it's/toolgate".to_owned(), " hook --decide"));
    }

    #[test]
    fn a_settings_file_that_cannot_take_the_hook_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, r#"{"hooks": []}"#).unwrap();
        let err = install(&path, "toolgate hook").unwrap_err();
        assert!(err.to_string().contains("\"hooks\" is not an object"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), r#"{"hooks": []}"#);
    }

    #[test]
    fn modes_are_read_as_claude_code_spells_them() {
        assert_eq!(parse_mode("bypassPermissions"), Some(PermissionMode::BypassPermissions));
        assert_eq!(parse_mode("dontAsk"), Some(PermissionMode::DontAsk));
        assert_eq!(parse_mode("acceptEdits"), Some(PermissionMode::AcceptEdits));
        assert_eq!(parse_mode("someday"), None);
    }
}
