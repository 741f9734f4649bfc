//! Unit tests of Bash that need a configuration other than the environment's, and the
//! snapshots of the shell tools' descriptions.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use toolgate_core::{ContextChange, ResultStore, ToolContext, typed};

use super::*;
use crate::shells::config::ShellConfig;

fn session() -> (tempfile::TempDir, PathBuf, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let mut ctx = ToolContext::new(&root);
    ctx.results = Arc::new(ResultStore::new(dir.path().join("tool-results")));
    ctx.tool_use_id = "toolu_unit".into();
    (dir, root, ctx)
}

fn bash(config: ShellConfig) -> DynTool {
    typed(Bash::with_config(config))
}

#[tokio::test]
async fn the_env_file_is_sourced_before_every_command() {
    let (dir, _root, ctx) = session();
    let env_file = dir.path().join("env.sh");
    std::fs::write(&env_file, "export TG_FROM_ENV_FILE=sourced\nalias ll='echo aliased'\n").unwrap();
    let tool = bash(ShellConfig { env_file: Some(env_file), ..ShellConfig::default() });
    let out = tool.call(json!({"command": "echo $TG_FROM_ENV_FILE"}), &ctx).await.unwrap();
    assert_eq!(out.to_text(), "sourced");
    // A missing env file is skipped, not an error.
    let tool = bash(ShellConfig { env_file: Some(dir.path().join("missing.sh")), ..ShellConfig::default() });
    let out = tool.call(json!({"command": "echo ok"}), &ctx).await.unwrap();
    assert_eq!(out.to_text(), "ok");
}

#[tokio::test]
async fn the_output_limit_comes_from_the_configuration() {
    let (_dir, _root, ctx) = session();
    let tool = bash(ShellConfig { max_output_chars: 1_000, ..ShellConfig::default() });
    let out = tool.call(json!({"command": "seq 1 2000"}), &ctx).await.unwrap();
    let text = out.to_text();
    assert!(text.chars().count() < 1_400, "{text}");
    assert!(text.starts_with("1\n2\n") && text.ends_with("1999\n2000"), "{text}");
    let saved = out.structured.unwrap()["persistedOutputPath"].as_str().unwrap().to_owned();
    assert!(saved.ends_with("bash-toolu_unit.txt"), "{saved}");
    assert_eq!(std::fs::read_to_string(saved).unwrap().lines().count(), 2000);
}

#[tokio::test]
async fn keeping_the_project_dir_resets_every_cd() {
    let (_dir, root, ctx) = session();
    std::fs::create_dir(root.join("sub")).unwrap();
    let tool = bash(ShellConfig { keep_project_dir: true, ..ShellConfig::default() });
    let out = tool.call(json!({"command": "cd sub"}), &ctx).await.unwrap();
    assert_eq!(out.context_change, None);
    assert!(out.to_text().starts_with(&format!("Shell cwd was reset to {}", root.display())), "{}", out.to_text());
    let mut ctx = ctx;
    ctx.cwd = root.join("sub");
    let out = tool.call(json!({"command": "true"}), &ctx).await.unwrap();
    assert_eq!(out.context_change, None, "no cd, no change");
    let out = tool.call(json!({"command": "cd .."}), &ctx).await.unwrap();
    assert_eq!(out.context_change, Some(ContextChange::Cwd(root.clone())));
}

#[tokio::test]
async fn configured_timeouts_apply() {
    let (_dir, _root, ctx) = session();
    let tool = bash(ShellConfig { default_timeout_ms: 300, max_timeout_ms: 400, ..ShellConfig::default() });
    let err = tool.call(json!({"command": "sleep 100"}), &ctx).await.unwrap_err();
    assert!(err.message().starts_with("Command timed out after 300ms"), "{}", err.message());
    let err = tool.call(json!({"command": "sleep 100", "timeout": 100000}), &ctx).await.unwrap_err();
    assert!(err.message().starts_with("Command timed out after 400ms"), "{}", err.message());
    assert!(err.message().contains("timeout 100000 ms is above the maximum of 400 ms"), "{}", err.message());
}

#[test]
fn the_descriptions_say_the_limits_in_force() {
    let config = ShellConfig::default();
    insta::assert_snapshot!("bash_description", prompt::description(&config));
    let custom = ShellConfig { max_output_chars: 5_000, ..config };
    assert!(prompt::description(&custom).contains("Output over 5000 characters"));
}

#[test]
fn the_other_shell_tools_describe_themselves() {
    let tools = crate::all_builtin_tools();
    for name in ["TaskOutput", "TaskStop", "Monitor"] {
        let tool = tools.iter().find(|t| t.name() == name).unwrap();
        // The environment may change the numbers; the defaults are what is snapshot.
        let text = tool.description().replace(&ShellConfig::from_env().max_output_chars.to_string(), "30000");
        insta::assert_snapshot!(format!("{}_description", name.to_lowercase()), text);
    }
}

#[test]
fn the_schema_has_claude_codes_fields() {
    let tool = bash(ShellConfig::default());
    let schema = tool.input_schema();
    let props = schema["properties"].as_object().unwrap();
    let names: Vec<&str> = props.keys().map(String::as_str).collect();
    assert_eq!(names, ["command", "dangerouslyDisableSandbox", "description", "run_in_background", "timeout"]);
    assert_eq!(schema["required"], json!(["command"]));
    assert_eq!(schema["additionalProperties"], false);
}
