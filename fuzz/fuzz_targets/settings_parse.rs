//! Settings files. Invariants: any JSON document loads without panicking; every rule it
//! lists is either compiled or reported in a diagnostic (never silently dropped); the
//! engine built from it answers for Bash and Read calls.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use toolgate_core::{RuleSource, ToolBuilder, ToolContext};
use toolgate_permissions::{LoadedSettings, PermissionEngine, SettingsFile};

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    let mut loaded = LoadedSettings::default();
    loaded.add(SettingsFile {
        source: RuleSource::ProjectSettings,
        origin: "fuzz/.claude/settings.json".to_owned(),
        anchor: "/work/project".into(),
        value: value.clone(),
    });
    let (settings, diagnostics) = loaded.permissions();
    let listed: usize = ["allow", "deny", "ask"]
        .iter()
        .filter_map(|k| value.get("permissions")?.get(*k)?.as_array().map(Vec::len))
        .sum();
    let kept = settings.rules.len();
    assert!(kept + diagnostics.len() >= listed, "{listed} rules listed, {kept} kept, {} diagnostics", diagnostics.len());
    let engine = PermissionEngine::builder(settings).home(None).cwd("/work/project").build();
    let ctx = ToolContext::new("/work/project");
    let bash = ToolBuilder::new("Bash").call(|_, _| async { Ok(toolgate_core::ToolOutput::text("")) }).build();
    let read = ToolBuilder::new("Read").call(|_, _| async { Ok(toolgate_core::ToolOutput::text("")) }).build();
    let _ = engine.evaluate(&*bash, &json!({"command": "cat .env > out"}), &ctx, None);
    let _ = engine.evaluate(&*read, &json!({"file_path": "/work/project/.env"}), &ctx, None);
});
