//! Config: reads any setting from the merged settings files, and writes a few
//! allow-listed ones to `.claude/settings.local.json`.
//!
//! Claude Code's `Config` (`setting`, `value`). Reads see the settings as toolgate merges
//! them ([`toolgate_permissions::LoadedSettings`]): for a dotted path, the highest-precedence
//! file that sets it wins, arrays are concatenated across files, objects are merged key by
//! key. Writes go only to the settings listed in [`WRITABLE`] (model, theme-like and
//! verbosity settings), never to `permissions`, `hooks`, `env` or anything else that could
//! widen what the agent may do, and they go through
//! [`toolgate_permissions::update_settings_file`]: atomically, every other key kept.
//!
//! The files read are found by the [`SettingsDiscovery`] the host put in the context's
//! extensions (the CLI does, with its `--settings` files); without one, by a default
//! discovery rooted at the session's project directory (the first root).
//!
//! Values under secret-looking keys (`…KEY…`, `…TOKEN…`, `…SECRET…`, `…PASSWORD…`,
//! `…AUTH…`, `…CREDENTIAL…`, e.g. `apiKeyHelper`), every value of `env` (whose names say
//! nothing: `DATABASE_URL` holds a password) and the password of any URL are shown as
//! `"<redacted>"`: reading needs no approval, so it must not hand out credentials.
//!
//! Reading needs no approval and may run alongside other calls; a write is a change the
//! permission engine decides on (its target is the setting, for `Config(model)` rules).

mod prompt;

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolgate_core::{DynTool, PermissionCheck, ToolContext, ToolError, ToolOutput, TypedTool, typed};
use toolgate_permissions::{LoadedSettings, SettingsDiscovery, update_settings_file};

/// The type a writable setting takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `true` or `false` (also `"true"`, `"false"`).
    Bool,
    /// A non-empty string.
    Text,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// A whole number at least this.
    Count(i64),
}

/// A setting Config may write.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Writable {
    /// The top-level key.
    pub(crate) key: &'static str,
    /// Its type.
    pub(crate) kind: Kind,
    /// What it does.
    pub(crate) help: &'static str,
}

/// The settings Config may write: the ones Claude Code's own Config tool offers that are
/// about presentation and the model, none about what the agent may do.
pub(crate) const WRITABLE: &[Writable] = &[
    Writable { key: "model", kind: Kind::Text, help: "the model for new sessions (e.g. \"sonnet\", \"opus\")" },
    Writable {
        key: "theme",
        kind: Kind::OneOf(&["dark", "light", "dark-daltonized", "light-daltonized", "dark-ansi", "light-ansi"]),
        help: "the colour theme",
    },
    Writable { key: "editorMode", kind: Kind::OneOf(&["normal", "vim"]), help: "the prompt's key bindings" },
    Writable { key: "verbose", kind: Kind::Bool, help: "show full tool output" },
    Writable { key: "outputStyle", kind: Kind::Text, help: "the output style's name" },
    Writable { key: "language", kind: Kind::Text, help: "the language replies are written in" },
    Writable { key: "alwaysThinkingEnabled", kind: Kind::Bool, help: "extended thinking by default" },
    Writable { key: "autoCompactEnabled", kind: Kind::Bool, help: "compact the conversation automatically" },
    Writable { key: "includeCoAuthoredBy", kind: Kind::Bool, help: "add a Co-Authored-By line to commits" },
    Writable { key: "spinnerTipsEnabled", kind: Kind::Bool, help: "show tips in the spinner" },
    Writable {
        key: "cleanupPeriodDays",
        kind: Kind::Count(1),
        help: "days to keep local chat transcripts (a whole number, at least 1)",
    },
];

/// A value to write: a string, boolean or number.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum ConfigValue {
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string.
    Text(String),
}

/// Config's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfigInput {
    /// The setting: a key or dotted path, e.g. "model", "theme" or "permissions.defaultMode".
    pub(crate) setting: String,
    /// The new value. Omit it to read the current value.
    #[serde(default)]
    pub(crate) value: Option<ConfigValue>,
}

impl ConfigInput {
    fn path(&self) -> Result<Vec<&str>, ToolError> {
        let setting = self.setting.trim();
        let parts: Vec<&str> = setting.split('.').collect();
        if setting.is_empty() || parts.iter().any(|p| p.trim().is_empty()) {
            return Err(ToolError::invalid_input(format!("`{}` is not a setting name", self.setting)).with_hint(
                "pass a key or a dotted path without empty parts, e.g. \"model\" or \"permissions.defaultMode\"",
            ));
        }
        Ok(parts)
    }
}

/// The Config tool.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Config;

impl Config {
    /// The tool.
    pub(crate) fn tool() -> DynTool {
        typed(Self)
    }
}

/// The discovery the host supplied, else one rooted at the project directory.
fn discovery(ctx: &ToolContext) -> SettingsDiscovery {
    match ctx.extensions.get::<SettingsDiscovery>() {
        Some(d) => (*d).clone(),
        None => SettingsDiscovery::new(ctx.roots.first().cloned().unwrap_or_else(|| ctx.cwd.clone())),
    }
}

/// The local settings file of a discovery's project.
fn local_file(discovery: &SettingsDiscovery) -> PathBuf {
    discovery.cwd.join(".claude").join("settings.local.json")
}

/// The merged value at `path` and the files it came from (highest precedence first).
pub(crate) fn merged(loaded: &LoadedSettings, path: &[&str]) -> Option<(Value, Vec<String>)> {
    let mut found: Vec<(&Value, &str)> = Vec::new();
    for file in &loaded.files {
        let mut v = &file.value;
        let mut hit = true;
        for key in path {
            match v.get(key) {
                Some(next) => v = next,
                None => {
                    hit = false;
                    break;
                }
            }
        }
        if hit {
            found.push((v, &file.origin));
        }
    }
    let (first, origin) = *found.first()?;
    match first {
        Value::Array(_) => {
            let mut all = Vec::new();
            let mut origins = Vec::new();
            for (v, o) in found.iter().filter(|(v, _)| v.is_array()) {
                for item in v.as_array().into_iter().flatten() {
                    if !all.contains(item) {
                        all.push(item.clone());
                    }
                }
                origins.push((*o).to_owned());
            }
            Some((Value::Array(all), origins))
        }
        Value::Object(_) => {
            let mut out = Map::new();
            let mut origins = Vec::new();
            // Lowest precedence first, so higher ones overwrite.
            for (v, o) in found.iter().rev().filter(|(v, _)| v.is_object()) {
                merge_into(&mut out, v);
                origins.insert(0, (*o).to_owned());
            }
            Some((Value::Object(out), origins))
        }
        _ => Some((first.clone(), vec![origin.to_owned()])),
    }
}

/// Whether a key names a secret whose value Config never shows.
fn is_secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    ["key", "token", "secret", "password", "credential", "auth"].iter().any(|w| key.contains(w))
}

/// `value` with the values of secret-looking keys (`ANTHROPIC_API_KEY`, `apiKeyHelper`,
/// `*_TOKEN` …) replaced by `"<redacted>"`, at any depth; `key` is the key `value` sits under.
/// The values of `env` are all replaced, whatever their names, and so is the password of a
/// URL anywhere (`postgres://app:PASSWORD@db`).
pub(crate) fn redact(key: &str, value: &Value) -> Value {
    if is_secret_key(key) && !value.is_object() && !value.is_null() {
        return redacted();
    }
    match value {
        Value::Object(map) if key == "env" => Value::Object(map.keys().map(|k| (k.clone(), redacted())).collect()),
        Value::String(text) => Value::String(without_url_password(text)),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), redact(k, v))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(|v| redact(key, v)).collect()),
        other => other.clone(),
    }
}

/// What Config shows in place of a secret.
fn redacted() -> Value {
    Value::String("<redacted>".to_owned())
}

/// `text` with the password of every `scheme://user:password@host` in it replaced.
fn without_url_password(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        let authority_end = after.find(['/', '?', '#', ' ']).unwrap_or(after.len());
        let authority = &after[..authority_end];
        match (authority.rfind('@'), authority.find(':')) {
            (Some(at), Some(colon)) if colon < at => {
                out.push_str(&authority[..=colon]);
                out.push_str("<redacted>");
                out.push_str(&authority[at..]);
            }
            _ => out.push_str(authority),
        }
        rest = &after[authority_end..];
    }
    out.push_str(rest);
    out
}

/// Deep-merges `from` into `into` (arrays concatenated, objects merged, scalars replaced).
fn merge_into(into: &mut Map<String, Value>, from: &Value) {
    let Some(from) = from.as_object() else { return };
    for (k, v) in from {
        match (into.get_mut(k), v) {
            (Some(Value::Object(a)), Value::Object(_)) => merge_into(a, v),
            (Some(Value::Array(a)), Value::Array(b)) => {
                for item in b {
                    if !a.contains(item) {
                        a.push(item.clone());
                    }
                }
            }
            _ => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

/// The JSON to store for `value` under `w`, or why it does not fit.
pub(crate) fn coerce(w: &Writable, value: &ConfigValue) -> Result<Value, ToolError> {
    let wrong = |expected: String| {
        ToolError::invalid_input(format!("{} takes {expected}, got {}", w.key, shown(value)))
            .with_hint(format!("{}: {}", w.key, w.help))
    };
    match (w.kind, value) {
        (Kind::Bool, ConfigValue::Bool(b)) => Ok(Value::Bool(*b)),
        (Kind::Bool, ConfigValue::Text(t)) if t.trim() == "true" || t.trim() == "false" => {
            Ok(Value::Bool(t.trim() == "true"))
        }
        (Kind::Bool, _) => Err(wrong("true or false".into())),
        (Kind::Text, ConfigValue::Text(t)) if !t.trim().is_empty() => Ok(Value::String(t.trim().to_owned())),
        (Kind::Text, _) => Err(wrong("a non-empty string".into())),
        (Kind::OneOf(options), ConfigValue::Text(t)) if options.contains(&t.trim()) => {
            Ok(Value::String(t.trim().to_owned()))
        }
        (Kind::OneOf(options), _) => Err(wrong(format!("one of {}", options.join(", ")))),
        (Kind::Count(min), value) => {
            let n = match value {
                ConfigValue::Number(n) => Some(*n),
                ConfigValue::Text(t) => t.trim().parse::<f64>().ok(),
                ConfigValue::Bool(_) => None,
            };
            match n {
                // The guard makes the cast exact.
                #[allow(clippy::cast_possible_truncation)]
                Some(n) if n.fract() == 0.0 && n >= min as f64 && n <= 1e12 => Ok(json!(n as i64)),
                _ => Err(wrong(format!("a whole number of at least {min}"))),
            }
        }
    }
}

fn shown(value: &ConfigValue) -> String {
    match value {
        ConfigValue::Bool(b) => b.to_string(),
        ConfigValue::Number(n) => n.to_string(),
        ConfigValue::Text(t) => format!("{t:?}"),
    }
}

/// The allow-list entry for a setting to be written, or why it may not be.
fn writable(setting: &str) -> Result<&'static Writable, ToolError> {
    let top = setting.split('.').next().unwrap_or(setting);
    if matches!(top, "permissions" | "hooks" | "disableAllHooks" | "allowManagedPermissionRulesOnly") {
        return Err(ToolError::permission(format!(
            "Config never changes `{setting}`: permissions and hooks are edited by the user, not by the agent"
        ))
        .with_hint("tell the user which rule or hook to add and in which settings file (.claude/settings.json or .claude/settings.local.json)"));
    }
    WRITABLE.iter().find(|w| w.key == setting).ok_or_else(|| {
        let keys: Vec<&str> = WRITABLE.iter().map(|w| w.key).collect();
        ToolError::permission(format!("`{setting}` is not one of the settings Config may write")).with_hint(format!(
            "writable settings: {}; read `{setting}` by calling Config without a value, or ask the user to change it",
            keys.join(", ")
        ))
    })
}

impl TypedTool for Config {
    type Input = ConfigInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "Config"
    }

    fn description(&self) -> String {
        prompt::description()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("read or change settings such as the model or theme")
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn is_read_only(&self, input: &ConfigInput) -> bool {
        input.value.is_none()
    }

    fn is_concurrency_safe(&self, input: &ConfigInput) -> bool {
        input.value.is_none()
    }

    async fn validate(&self, input: &ConfigInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        input.path()?;
        if let Some(value) = &input.value {
            let w = writable(input.setting.trim())?;
            coerce(w, value)?;
        }
        Ok(())
    }

    fn check_permissions(&self, input: &ConfigInput, _ctx: &ToolContext) -> PermissionCheck {
        if input.value.is_none() {
            PermissionCheck::Allow { detail: "reading a setting changes nothing".to_owned() }
        } else {
            PermissionCheck::Passthrough
        }
    }

    fn permission_target(&self, input: &ConfigInput) -> Option<String> {
        Some(input.setting.trim().to_owned())
    }

    async fn call(&self, input: ConfigInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = input.path()?;
        let setting = input.setting.trim().to_owned();
        let discovery = discovery(ctx);
        let Some(value) = &input.value else {
            let loaded = discovery.load();
            return Ok(match merged(&loaded, &path) {
                Some((value, origins)) => {
                    // Inside `env` every value is the user's (`DATABASE_URL` holds a password
                    // under a harmless name): only names are shown.
                    let key =
                        if path.first() == Some(&"env") { "env" } else { path.last().copied().unwrap_or_default() };
                    let value = if path.len() > 1 && key == "env" { redacted() } else { redact(key, &value) };
                    let text = format!(
                        "{setting} = {}\n(from {})",
                        serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string()),
                        origins.join(", ")
                    );
                    ToolOutput::text(text).with_structured(
                        json!({"operation": "get", "setting": setting, "value": value, "sources": origins}),
                    )
                }
                None => ToolOutput::text(format!("{setting} is not set in any settings file"))
                    .with_structured(json!({"operation": "get", "setting": setting, "value": null, "sources": []})),
            });
        };
        let w = writable(&setting)?;
        let new = coerce(w, value)?;
        let file = local_file(&discovery);
        let mut previous = Value::Null;
        update_settings_file(&file, |root| {
            previous = root.insert(w.key.to_owned(), new.clone()).unwrap_or(Value::Null);
            Ok(())
        })
        .map_err(|e| {
            ToolError::io(format!("could not write {}: {e}", file.display()))
                .with_hint("the file must be a JSON object; ask the user to fix or remove it")
        })?;
        let mut text = format!("Set {setting} to {new} in {}", file.display());
        if !previous.is_null() {
            text.push_str(&format!(" (was {previous})"));
        }
        let effective = merged(&discovery.load(), &path).map(|(v, o)| (v, o.into_iter().next().unwrap_or_default()));
        if let Some((value, origin)) = &effective
            && *value != new
        {
            text.push_str(&format!(
                ".\nNote: {origin} sets {setting} to {value} and takes precedence, so that value stays in force"
            ));
        }
        Ok(ToolOutput::text(text).with_structured(json!({
            "operation": "set",
            "setting": setting,
            "value": new,
            "previousValue": previous,
            "file": file,
        })))
    }

    fn render_use(&self, input: &ConfigInput) -> String {
        match &input.value {
            Some(v) => format!("Config({} = {})", input.setting, shown(v)),
            None => format!("Config({})", input.setting),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(key: &str) -> &'static Writable {
        writable(key).unwrap()
    }

    #[test]
    fn values_are_checked_against_the_setting() {
        assert_eq!(coerce(w("verbose"), &ConfigValue::Text("true".into())).unwrap(), json!(true));
        assert_eq!(coerce(w("theme"), &ConfigValue::Text("light".into())).unwrap(), json!("light"));
        assert_eq!(coerce(w("cleanupPeriodDays"), &ConfigValue::Number(30.0)).unwrap(), json!(30));
        assert_eq!(coerce(w("cleanupPeriodDays"), &ConfigValue::Text("7".into())).unwrap(), json!(7));
        let e = coerce(w("theme"), &ConfigValue::Text("neon".into())).unwrap_err();
        assert_eq!(
            e.message(),
            "theme takes one of dark, light, dark-daltonized, light-daltonized, dark-ansi, light-ansi, got \"neon\""
        );
        assert!(e.hint().is_some());
        assert!(coerce(w("cleanupPeriodDays"), &ConfigValue::Number(0.5)).is_err());
        assert!(coerce(w("verbose"), &ConfigValue::Number(1.0)).is_err());
        assert!(coerce(w("model"), &ConfigValue::Text("  ".into())).is_err());
    }

    #[test]
    fn secrets_are_redacted_at_any_depth() {
        let env =
            json!({"ANTHROPIC_API_KEY": "sk-1", "GH_TOKEN": "t", "PATH_EXTRA": "/bin", "nested": {"password": "p"}});
        assert_eq!(
            redact("env", &env),
            json!({"ANTHROPIC_API_KEY": "<redacted>", "GH_TOKEN": "<redacted>", "PATH_EXTRA": "<redacted>", "nested": "<redacted>"})
        );
        let deep = json!({"ANTHROPIC_API_KEY": "sk-1", "PATH_EXTRA": "/bin", "nested": {"password": "p"}});
        assert_eq!(
            redact("other", &deep),
            json!({"ANTHROPIC_API_KEY": "<redacted>", "PATH_EXTRA": "/bin", "nested": {"password": "<redacted>"}})
        );
        assert_eq!(redact("apiKeyHelper", &json!("/bin/get-key")), json!("<redacted>"));
        let settings = json!({"env": {"DATABASE_URL": "postgres://app:hunter2@db/x"}, "proxy": "http://u:p@h:8080/"});
        assert_eq!(
            redact("", &settings),
            json!({"env": {"DATABASE_URL": "<redacted>"}, "proxy": "http://u:<redacted>@h:8080/"})
        );
        assert_eq!(
            without_url_password("see https://example.com/a@b and ftp://x@y"),
            "see https://example.com/a@b and ftp://x@y"
        );
        assert_eq!(redact("model", &json!("opus")), json!("opus"));
    }

    #[test]
    fn permissions_and_hooks_are_never_writable() {
        for key in ["permissions", "permissions.defaultMode", "hooks", "hooks.PreToolUse", "env", "apiKeyHelper"] {
            let e = writable(key).unwrap_err();
            assert_eq!(e.kind(), toolgate_core::ToolErrorKind::Permission, "{key}");
            assert!(e.hint().is_some());
        }
    }
}
