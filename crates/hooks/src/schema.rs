//! JSON Schemas of every typed event's input and output, generated from the Rust types
//! with schemars.
//!
//! The schemas are committed under `crates/hooks/schemas/` as `<Event>.input.json` and
//! `<Event>.output.json`, for hook authors and for review; a test fails when the types
//! and the files drift apart (regenerate with `TOOLGATE_UPDATE_SCHEMAS=1 cargo test -p
//! toolgate-hooks schema`). The runner checks every JSON object a hook prints against its
//! event's output schema before reading it.

use std::collections::HashMap;
use std::sync::OnceLock;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::Value;
use toolgate_core::InputSchema;

use crate::HookEvent;
use crate::input::{
    NotificationInput, PermissionRequestInput, PostToolBatchInput, PostToolUseFailureInput, PostToolUseInput,
    PreCompactInput, PreToolUseInput, SessionEndInput, SessionStartInput, StopInput, SubagentStopInput,
    UserPromptSubmitInput,
};
use crate::output::{
    ContextOutput, PermissionRequestOutput, PlainOutput, PostToolUseOutput, PreToolUseOutput, SessionStartOutput,
    UserPromptSubmitOutput,
};

/// The JSON Schema of `event`'s input (what a hook reads on stdin), with
/// `hook_event_name` fixed to the event; `None` for events without typed input.
///
/// ```
/// use toolgate_hooks::{HookEvent, input_schema};
/// let schema = input_schema(HookEvent::PreToolUse).unwrap();
/// assert_eq!(schema["properties"]["hook_event_name"]["const"], "PreToolUse");
/// assert!(schema["required"].as_array().unwrap().iter().any(|f| f == "tool_use_id"));
/// ```
pub fn input_schema(event: HookEvent) -> Option<Value> {
    let mut schema = match event {
        HookEvent::PreToolUse => generate::<PreToolUseInput>(),
        HookEvent::PermissionRequest => generate::<PermissionRequestInput>(),
        HookEvent::PostToolUse => generate::<PostToolUseInput>(),
        HookEvent::PostToolUseFailure => generate::<PostToolUseFailureInput>(),
        HookEvent::PostToolBatch => generate::<PostToolBatchInput>(),
        HookEvent::UserPromptSubmit => generate::<UserPromptSubmitInput>(),
        HookEvent::Stop => generate::<StopInput>(),
        HookEvent::SubagentStop => generate::<SubagentStopInput>(),
        HookEvent::SessionStart => generate::<SessionStartInput>(),
        HookEvent::SessionEnd => generate::<SessionEndInput>(),
        HookEvent::Notification => generate::<NotificationInput>(),
        HookEvent::PreCompact => generate::<PreCompactInput>(),
        _ => return None,
    };
    if let Some(object) = schema.as_object_mut() {
        let name = Value::String(event.as_str().to_owned());
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            properties.insert(
                "hook_event_name".to_owned(),
                serde_json::json!({"description": "The event's name.", "type": "string", "const": name}),
            );
        }
        match object.get_mut("required") {
            Some(Value::Array(required)) => required.insert(0, Value::String("hook_event_name".to_owned())),
            _ => {
                object.insert("required".to_owned(), serde_json::json!(["hook_event_name"]));
            }
        }
        object.insert("title".to_owned(), Value::String(format!("{event} hook input")));
    }
    Some(schema)
}

/// The JSON Schema of `event`'s output (the JSON object a hook may print), with
/// `hookSpecificOutput.hookEventName` fixed to the event; `None` for events without typed
/// output.
///
/// ```
/// use toolgate_hooks::{HookEvent, output_schema};
/// let schema = output_schema(HookEvent::PreToolUse).unwrap();
/// assert!(schema["properties"]["continue"].is_object());
/// assert!(schema["properties"]["hookSpecificOutput"].is_object());
/// ```
pub fn output_schema(event: HookEvent) -> Option<Value> {
    let mut schema = match event {
        HookEvent::PreToolUse => generate::<PreToolUseOutput>(),
        HookEvent::PermissionRequest => generate::<PermissionRequestOutput>(),
        HookEvent::PostToolUse => generate::<PostToolUseOutput>(),
        HookEvent::PostToolUseFailure | HookEvent::PostToolBatch | HookEvent::Stop | HookEvent::SubagentStop => {
            generate::<ContextOutput>()
        }
        HookEvent::UserPromptSubmit => generate::<UserPromptSubmitOutput>(),
        HookEvent::SessionStart => generate::<SessionStartOutput>(),
        HookEvent::SessionEnd | HookEvent::Notification | HookEvent::PreCompact => generate::<PlainOutput>(),
        _ => return None,
    };
    if let Some(object) = schema.as_object_mut() {
        if let Some(Value::Object(defs)) = object.get_mut("$defs") {
            for def in defs.values_mut() {
                if let Some(Value::Object(name)) = def.pointer_mut("/properties/hookEventName") {
                    name.insert("const".to_owned(), Value::String(event.as_str().to_owned()));
                }
            }
        }
        object.insert("title".to_owned(), Value::String(format!("{event} hook output")));
    }
    Some(schema)
}

/// The compiled output schema of `event`, built once per process.
pub(crate) fn compiled_output_schema(event: HookEvent) -> Option<&'static InputSchema> {
    static SCHEMAS: OnceLock<HashMap<HookEvent, InputSchema>> = OnceLock::new();
    SCHEMAS
        .get_or_init(|| {
            HookEvent::TYPED
                .into_iter()
                .filter_map(|e| {
                    let schema = output_schema(e)?;
                    InputSchema::compile(&schema).ok().map(|compiled| (e, compiled))
                })
                .collect()
        })
        .get(&event)
}

fn generate<T: JsonSchema>() -> Value {
    SchemaGenerator::default().into_root_schema_for::<T>().to_value()
}

/// The schema of a permission mode as hooks receive it (never `manual`).
pub(crate) fn permission_mode(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "enum": ["default", "plan", "acceptEdits", "auto", "dontAsk", "bypassPermissions"]
    })
}

/// The schema of a permission mode a hook may set (`manual` is read as `default`).
pub(crate) fn permission_mode_input(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "enum": ["default", "plan", "acceptEdits", "auto", "dontAsk", "bypassPermissions", "manual"]
    })
}

/// The schema of a rule behaviour.
pub(crate) fn permission_behavior(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "enum": ["allow", "ask", "deny"]})
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")
    }

    fn rendered(schema: &Value) -> String {
        let mut text = serde_json::to_string_pretty(schema).unwrap();
        text.push('\n');
        text
    }

    /// The committed schemas match the types; `TOOLGATE_UPDATE_SCHEMAS=1` rewrites them.
    #[test]
    fn committed_schemas_match_the_types() {
        let update = std::env::var_os("TOOLGATE_UPDATE_SCHEMAS").is_some_and(|v| v == "1");
        let dir = dir();
        let mut expected = Vec::new();
        for event in HookEvent::TYPED {
            for (kind, schema) in [("input", input_schema(event)), ("output", output_schema(event))] {
                let name = format!("{event}.{kind}.json");
                expected.push(name.clone());
                let text = rendered(&schema.unwrap());
                let path = dir.join(&name);
                if update {
                    std::fs::create_dir_all(&dir).unwrap();
                    std::fs::write(&path, &text).unwrap();
                    continue;
                }
                let committed = std::fs::read_to_string(&path).unwrap_or_default();
                assert!(
                    committed == text,
                    "{} is out of date with the hook types; regenerate with \
                     TOOLGATE_UPDATE_SCHEMAS=1 cargo test -p toolgate-hooks schema",
                    path.display()
                );
            }
        }
        // No stale files for events that went away.
        let mut present: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".json"))
            .collect();
        present.sort();
        expected.sort();
        assert_eq!(present, expected, "stale or missing schema files in {}", dir.display());
    }

    #[test]
    fn every_output_schema_compiles() {
        for event in HookEvent::TYPED {
            assert!(compiled_output_schema(event).is_some(), "{event}");
            assert!(input_schema(event).is_some(), "{event}");
        }
        assert!(output_schema(HookEvent::Setup).is_none());
    }

    #[test]
    fn the_event_name_is_checked() {
        let schema = compiled_output_schema(HookEvent::PreToolUse).unwrap();
        let wrong = serde_json::json!({"hookSpecificOutput": {"hookEventName": "PostToolUse"}});
        let err = schema.validate(&wrong).unwrap_err();
        assert!(err.message().contains("hookSpecificOutput.hookEventName"), "{}", err.message());
        let right = serde_json::json!({"hookSpecificOutput": {"hookEventName": "PreToolUse"}, "other": 1});
        assert!(schema.validate(&right).is_ok(), "unknown fields are accepted");
    }
}
