//! The registry-wide tests: every built-in tool, checked the same way.

use super::*;
use std::collections::HashSet;
use toolgate_core::{InputSchema, ToolBuilder, ToolPool, defaults};

#[test]
fn registry_names_are_unique_and_well_formed() {
    let tools = all_builtin_tools();
    let mut seen = HashSet::new();
    for tool in &tools {
        let name = tool.name();
        assert!(seen.insert(name.to_owned()), "duplicate tool name {name}");
        assert!(
            name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && name.chars().all(|c| c.is_ascii_alphanumeric()),
            "built-in names are PascalCase ASCII: {name}"
        );
        assert!(!name.starts_with("mcp__"), "{name} uses the MCP namespace");
        for alias in tool.aliases() {
            assert!(seen.insert((*alias).to_owned()), "alias {alias} of {name} clashes");
        }
    }
}

#[test]
fn registry_descriptions_and_schemas() {
    for tool in all_builtin_tools() {
        let name = tool.name();
        assert!(tool.description().trim().len() >= 20, "{name} needs a real description");
        let schema = tool.input_schema();
        assert_eq!(schema["type"], "object", "{name}: inputs are objects");
        assert_eq!(schema["additionalProperties"], false, "{name}: inputs are strict objects");
        InputSchema::compile(schema).unwrap_or_else(|e| panic!("{name}: schema does not compile: {e}"));
        assert!(!tool.render_use(&serde_json::json!({})).is_empty(), "{name}: render_use is empty");
    }
}

/// A tool that states nothing must be as cautious as the defaults say, and the defaults
/// must be the cautious values.
#[test]
fn defaults_fail_closed() {
    const {
        assert!(!defaults::READ_ONLY && !defaults::CONCURRENCY_SAFE);
        assert!(!defaults::REQUIRES_USER_INTERACTION && !defaults::SHOULD_DEFER);
    }
    let silent = ToolBuilder::new("Silent").build();
    let input = serde_json::json!({"anything": true});
    assert!(!silent.is_read_only(&input));
    assert!(!silent.is_concurrency_safe(&input));
    assert!(silent.targets(&input).is_empty(), "a tool names no path unless it says so");
    assert!(matches!(
        silent.check_permissions(&input, &toolgate_core::ToolContext::new("/")),
        toolgate_core::PermissionCheck::Passthrough
    ));
}

/// Every tool that works on paths names each path it touches, with what it does there: a
/// patch every file (a move as the delete of its source and the create of its destination), a
/// search the folder it walks. Checked through the list the pipeline uses, so the typed bridge
/// is part of what is tested.
#[test]
fn registry_path_tools_name_every_target_with_its_access() {
    use serde_json::json;
    use toolgate_core::{Access, Target};
    let t = |path: &str, access: Access| Target::new(path, access);
    let read = Access::Read { walked: false };
    let searched = Access::Read { walked: true };
    let walked = Access::List { walked: true };
    let patch = |body: &str| json!({"patch": format!("*** Begin Patch\n{body}\n*** End Patch")});
    let cases: Vec<(&str, serde_json::Value, Vec<Target>)> = vec![
        ("Read", json!({"file_path": "src/lib.rs"}), vec![t("src/lib.rs", read)]),
        ("Write", json!({"file_path": "/repo/new.txt", "content": "x"}), vec![t("/repo/new.txt", Access::Write)]),
        ("Edit", json!({"file_path": "a.rs", "old_string": "a", "new_string": "b"}), vec![t("a.rs", Access::Write)]),
        (
            "MultiEdit",
            json!({"file_path": "a.rs", "edits": [{"old_string": "a", "new_string": "b"}]}),
            vec![t("a.rs", Access::Write)],
        ),
        (
            "NotebookEdit",
            json!({"notebook_path": "n.ipynb", "new_source": "x", "cell_id": "c1"}),
            vec![t("n.ipynb", Access::Write)],
        ),
        (
            "ApplyPatch",
            patch("*** Add File: notes.txt\n+notes\n*** Update File: .env\n@@\n-a\n+b"),
            vec![t("notes.txt", Access::Create), t(".env", Access::Write)],
        ),
        (
            "ApplyPatch",
            patch("*** Update File: a.txt\n@@\n-a\n+b\n*** Delete File: .env"),
            vec![t("a.txt", Access::Write), t(".env", Access::Delete)],
        ),
        (
            "ApplyPatch",
            patch("*** Update File: src/a.py\n*** Move to: src/b.py\n@@\n-a\n+b"),
            vec![t("src/a.py", Access::Delete), t("src/b.py", Access::Create)],
        ),
        (
            "ApplyPatch",
            json!({"patch": "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n"}),
            vec![t("old.txt", Access::Delete), t("new.txt", Access::Create)],
        ),
        ("ApplyPatch", json!({"patch": "not a patch"}), vec![]),
        ("Glob", json!({"pattern": "src/**/*.rs", "path": "/repo"}), vec![t("/repo/src", walked)]),
        ("Glob", json!({"pattern": "*.rs"}), vec![]),
        ("Grep", json!({"pattern": "x", "path": "sub"}), vec![t("sub", searched)]),
        ("Grep", json!({"pattern": "x", "path": "sub/one.txt"}), vec![t("sub/one.txt", searched)]),
        ("Grep", json!({"pattern": "x"}), vec![]),
        ("LS", json!({"path": "/repo"}), vec![t("/repo", walked)]),
        #[cfg(feature = "lsp")]
        (
            "LSP",
            json!({"operation": "hover", "filePath": "/repo/src/lib.rs", "line": 1, "character": 1}),
            vec![t("/repo/src/lib.rs", read)],
        ),
    ];
    let tools = all_builtin_tools();
    for (name, input, expected) in cases {
        let tool = tools.iter().find(|t| t.name() == name).unwrap_or_else(|| panic!("{name} is listed"));
        assert_eq!(tool.targets(&input), expected, "{name} {input}");
    }
    // Bash's paths come from the analysis of its command, not from `targets`; the other tools
    // touch no path a rule names.
    let path_tools = ["Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "ApplyPatch", "Glob", "Grep", "LS", "LSP"];
    for tool in tools.iter().filter(|t| !path_tools.contains(&t.name())) {
        let probe = toolgate_core::probe_input(tool.input_schema());
        assert!(tool.targets(&probe).is_empty(), "{} names a target: {:?}", tool.name(), tool.targets(&probe));
    }
}

#[test]
fn registry_pool_order_is_stable_and_independent_of_registration_order() {
    let forward = ToolPool::builder().builtins(all_builtin_tools()).build();
    let mut reversed_tools = all_builtin_tools();
    reversed_tools.reverse();
    let reversed = ToolPool::builder().builtins(reversed_tools).build();
    for format in [
        toolgate_core::DefinitionFormat::Anthropic,
        toolgate_core::DefinitionFormat::OpenAi,
        toolgate_core::DefinitionFormat::Mcp,
    ] {
        assert_eq!(forward.definitions_json(format), reversed.definitions_json(format));
        // Same pool, same bytes, every time.
        assert!(std::ptr::eq(forward.definitions_json(format), forward.definitions_json(format)));
    }
}

/// The workspace tools are in the list with truthful capabilities; Skill is offered only
/// with skills, and StructuredOutput only when a host adds it with a schema.
#[test]
fn workspace_tools_are_registered_with_truthful_capabilities() {
    use serde_json::json;
    let tools = all_builtin_tools();
    let get = |name: &str| tools.iter().find(|t| t.name() == name).cloned().unwrap();
    let ctx = toolgate_core::ToolContext::new("/repo");

    let skill = get("Skill");
    assert!(!skill.is_enabled(), "no skills: not offered");
    assert!(!ToolPool::builder().builtins(all_builtin_tools()).build().names().any(|n| n == "Skill"));
    let call = json!({"skill": "deploy", "args": "prod"});
    assert!(!skill.is_read_only(&call) && !skill.is_concurrency_safe(&call));
    assert_eq!(skill.permission_target(&call).as_deref(), Some("deploy prod"));

    let config = get("Config");
    let read = json!({"setting": "model"});
    let write = json!({"setting": "model", "value": "opus"});
    assert!(config.is_read_only(&read) && config.is_concurrency_safe(&read));
    assert!(!config.is_read_only(&write) && !config.is_concurrency_safe(&write));
    assert!(matches!(config.check_permissions(&read, &ctx), toolgate_core::PermissionCheck::Allow { .. }));
    assert!(matches!(config.check_permissions(&write, &ctx), toolgate_core::PermissionCheck::Passthrough));

    let enter = get("EnterWorktree");
    let exit = get("ExitWorktree");
    for (tool, input) in [(&enter, json!({"name": "x"})), (&exit, json!({"action": "keep"}))] {
        assert!(!tool.is_read_only(&input) && !tool.is_concurrency_safe(&input), "{}", tool.name());
        assert!(tool.should_defer());
    }
    assert!(exit.is_destructive(&json!({"action": "remove"})));
    assert!(matches!(
        exit.check_permissions(&json!({"action": "remove", "discard_changes": true}), &ctx),
        toolgate_core::PermissionCheck::Passthrough
    ));
    assert!(matches!(
        enter.check_permissions(&json!({"path": "/elsewhere/wt"}), &ctx),
        toolgate_core::PermissionCheck::Passthrough
    ));
    assert!(!tools.iter().any(|t| t.name() == "StructuredOutput"));

    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude/commands")).unwrap();
    std::fs::write(dir.path().join(".claude/commands/deploy.md"), "Deploy $ARGUMENTS").unwrap();
    let with_skills = builtin_tools_with(SkillCatalog::discover(dir.path(), None));
    assert_eq!(with_skills.len(), tools.len());
    let pool = ToolPool::builder().builtins(with_skills).build();
    assert!(pool.names().any(|n| n == "Skill"));

    let structured =
        StructuredOutput::tool(json!({"type": "object", "properties": {"ok": {"type": "boolean"}}})).unwrap();
    let answer = json!({"ok": true});
    assert!(structured.is_read_only(&answer) && structured.is_concurrency_safe(&answer));
    InputSchema::compile(structured.input_schema()).unwrap();
}

/// Nobody home: a dialog for checking which tools are offered.
struct Away;

impl UserDialog for Away {
    fn ask<'a>(&'a self, _: &'a [Question]) -> toolgate_core::BoxFuture<'a, QuestionsOutcome> {
        Box::pin(async { QuestionsOutcome::Unavailable { reason: "away".into() } })
    }
    fn review_plan<'a>(&'a self, _: &'a PlanReview) -> toolgate_core::BoxFuture<'a, PlanDecision> {
        Box::pin(async { PlanDecision::Unavailable { reason: "away".into() } })
    }
}

fn enabled(tools: &[DynTool]) -> Vec<&str> {
    let mut names: Vec<&str> = tools.iter().filter(|t| t.is_enabled()).map(|t| t.name()).collect();
    names.sort_unstable();
    names
}

#[test]
fn planning_tools_are_offered_only_with_their_services() {
    const PLANNING: [&str; 9] = [
        "AskUserQuestion",
        "EnterPlanMode",
        "ExitPlanMode",
        "Sleep",
        "TaskCreate",
        "TaskGet",
        "TaskList",
        "TaskUpdate",
        "TodoWrite",
    ];
    // Every planning tool is in the one list, service or not.
    let all = all_builtin_tools();
    for name in PLANNING {
        assert!(all.iter().any(|t| t.name() == name), "{name} is missing from all_builtin_tools");
    }
    assert_eq!(enabled(&planning_tools(&Extensions::default())), ["Sleep", "TodoWrite"]);

    let dir = tempfile::tempdir().unwrap();
    let mut services = Extensions::default();
    services.insert::<Arc<dyn UserDialog>>(Arc::new(Away));
    assert_eq!(enabled(&planning_tools(&services)), ["AskUserQuestion", "Sleep", "TodoWrite"]);
    services.insert(PlanFile::in_session_dir(dir.path()));
    services.insert::<Arc<dyn TaskStore>>(Arc::new(FileTaskStore::new(dir.path())));
    assert_eq!(enabled(&planning_tools(&services)), PLANNING);
    // The pool drops what is disabled.
    let pool = ToolPool::builder().builtins(all_builtin_tools()).build();
    assert!(pool.get("TaskCreate").is_none() && pool.get("TodoWrite").is_some());
    let pool = ToolPool::builder().builtins(with_planning_services(all_builtin_tools(), &services)).build();
    assert!(PLANNING.iter().all(|name| pool.get(name).is_some()));
}

#[test]
fn asking_the_person_is_never_automatic() {
    let mut services = Extensions::default();
    services.insert::<Arc<dyn UserDialog>>(Arc::new(Away));
    let tools = planning_tools(&services);
    let ask = tools.iter().find(|t| t.name() == "AskUserQuestion").unwrap();
    assert!(ask.requires_user_interaction());
    // Left to the engine, which asks a person for every call that requires one.
    let input = serde_json::json!({"questions": []});
    assert!(matches!(
        ask.check_permissions(&input, &toolgate_core::ToolContext::new("/")),
        toolgate_core::PermissionCheck::Passthrough | toolgate_core::PermissionCheck::Deny { .. }
    ));
    let schema = ask.input_schema();
    let question = &schema["$defs"]["QuestionInput"]["properties"];
    assert_eq!(question["header"]["maxLength"], 12);
    assert_eq!(question["options"]["minItems"], 2);
    assert_eq!(question["options"]["maxItems"], 4);
    assert_eq!(schema["properties"]["questions"]["maxItems"], 4);
}

/// The web tools are in the list exactly when the `web` feature is on, read-only and
/// concurrency-safe, deferred, and WebSearch is offered only with a provider.
#[test]
fn registry_web_tools_follow_the_feature() {
    let tools = all_builtin_tools();
    let find = |name: &str| tools.iter().find(|t| t.name() == name);
    if cfg!(not(feature = "web")) {
        assert!(find("WebFetch").is_none() && find("WebSearch").is_none());
        return;
    }
    let fetch = find("WebFetch").expect("WebFetch is listed under the web feature");
    let search = find("WebSearch").expect("WebSearch is listed under the web feature");
    let fetch_input = serde_json::json!({"url": "https://docs.rs/serde", "prompt": "p"});
    let search_input = serde_json::json!({"query": "serde"});
    assert!(fetch.is_read_only(&fetch_input) && fetch.is_concurrency_safe(&fetch_input));
    assert!(search.is_read_only(&search_input) && search.is_concurrency_safe(&search_input));
    assert!(fetch.should_defer() && search.should_defer());
    assert!(fetch.is_enabled());
    assert_eq!(fetch.permission_target(&fetch_input).as_deref(), Some("docs.rs"));
    assert_eq!(search.permission_target(&search_input), None, "WebSearch rules take no specifier");
    #[cfg(feature = "web")]
    assert_eq!(search.is_enabled(), search_provider_from_env().is_some());
}

/// The agent tools with every service present: the same checks as the rest of the
/// registry, the capabilities the compatibility table gives them, and the `Task` alias
/// of Agent kept apart from the task-list tools' `Task*` names.
#[test]
fn agent_tools_with_services_are_well_formed() {
    let mut services = toolgate_core::Extensions::default();
    let runner = ProcessSubagentRunner::new("cat", vec![SubagentType::general_purpose()]);
    AgentServices::new()
        .runner(std::sync::Arc::new(runner))
        .bus(std::sync::Arc::new(InProcessBus::new(MAIN_AGENT)))
        .scheduler(CronScheduler::builder().build().0)
        .install(&mut services);
    let tools = agent_tools(&services);
    let disabled = agent_tools(&toolgate_core::Extensions::default());
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["Agent", "SendMessage", "TeamCreate", "TeamDelete", "CronCreate", "CronDelete", "CronList"]);
    assert_eq!(disabled.iter().map(|t| t.name()).collect::<Vec<_>>(), names);
    for (tool, off) in tools.iter().zip(&disabled) {
        let name = tool.name();
        assert!(tool.is_enabled(), "{name} is disabled with its service present");
        assert!(!off.is_enabled(), "{name} is enabled without its service");
        assert!(tool.description().trim().len() >= 20, "{name} needs a real description");
        assert_eq!(tool.input_schema()["additionalProperties"], false, "{name}: inputs are strict objects");
        InputSchema::compile(tool.input_schema()).unwrap_or_else(|e| panic!("{name}: schema does not compile: {e}"));
        assert!(!tool.render_use(&serde_json::json!({})).is_empty(), "{name}: render_use is empty");
        // None of them prompts (compatibility table: Perm "no").
        let probe = toolgate_core::probe_input(tool.input_schema());
        assert!(
            matches!(
                tool.check_permissions(&probe, &toolgate_core::ToolContext::new("/")),
                toolgate_core::PermissionCheck::Allow { .. }
            ),
            "{name} should not need approval"
        );
        // Deferred behind ToolSearch, except Agent (compatibility table: Def).
        assert_eq!(tool.should_defer(), name != "Agent", "{name}: deferral");
    }
    let by = |n: &str| tools.iter().find(|t| t.name() == n).unwrap();
    let agent_input = serde_json::json!({"description": "d", "prompt": "p"});
    assert!(by("Agent").is_read_only(&agent_input) && by("Agent").is_concurrency_safe(&agent_input));
    assert!(by("CronList").is_read_only(&serde_json::json!({})));
    assert!(!by("CronCreate").is_read_only(&serde_json::json!({"cron": "* * * * *", "prompt": "p"})));
    assert!(by("SendMessage").is_read_only(&serde_json::json!({"to": "a", "message": "hi"})));
    assert!(!by("SendMessage").is_read_only(&serde_json::json!({"to": "a", "message": {"type": "x"}})));

    let pool = ToolPool::builder().builtins(all_builtin_tools()).builtins(tools.iter().cloned()).build();
    assert_eq!(pool.get("Task").unwrap().name(), "Agent");
    assert_eq!(pool.get("TaskOutput").unwrap().name(), "TaskOutput");
    assert!(pool.get("TaskCreate").is_none_or(|t| t.name() == "TaskCreate"));
    assert!(pool.get("TaskList").is_none_or(|t| t.name() == "TaskList"));
    // The registry without services offers none of them.
    let bare = ToolPool::builder().builtins(all_builtin_tools()).build();
    for name in names {
        assert!(bare.get(name).is_none(), "{name} offered without its service");
    }
}

// -- code intelligence tools --

/// LSP is in the list under the `lsp` feature, with Claude Code's inputs and capabilities.
#[cfg(feature = "lsp")]
#[test]
fn lsp_is_listed_with_claude_codes_inputs_and_capabilities() {
    use serde_json::json;
    let tools = all_builtin_tools();
    let lsp = tools.iter().find(|t| t.name() == "LSP").expect("the lsp feature lists LSP");
    let schema = lsp.input_schema();
    assert_eq!(schema["required"], json!(["operation", "filePath", "line", "character"]));
    assert_eq!(
        schema["properties"]["operation"]["enum"],
        json!([
            "goToDefinition",
            "findReferences",
            "hover",
            "documentSymbol",
            "workspaceSymbol",
            "goToImplementation",
            "prepareCallHierarchy",
            "incomingCalls",
            "outgoingCalls"
        ])
    );
    for field in ["line", "character"] {
        assert_eq!(schema["properties"][field]["minimum"], 1, "{field} is 1-based");
    }
    assert!(schema["properties"]["query"].is_object());
    let input = json!({"operation": "hover", "filePath": "/repo/src/lib.rs", "line": 1, "character": 1});
    assert!(lsp.is_read_only(&input) && lsp.is_concurrency_safe(&input) && lsp.should_defer());
    assert_eq!(lsp.permission_target(&input).as_deref(), Some("/repo/src/lib.rs"));
}

/// Without the feature the tool's code is not even compiled.
#[cfg(not(feature = "lsp"))]
#[test]
fn without_the_lsp_feature_there_is_no_lsp_tool() {
    assert!(all_builtin_tools().iter().all(|t| t.name() != "LSP"));
}

/// The tools a model is offered up front (not deferred behind ToolSearch), with the
/// Anthropic definitions it reads on every request, as an empty project gets them.
fn core_definitions() -> Vec<(String, serde_json::Value)> {
    let pool = ToolPool::builder().builtins(all_builtin_tools()).defer_mode(toolgate_core::DeferMode::Always).build();
    pool.tools()
        .filter(|t| !pool.is_deferred(t.name()))
        .map(|t| (t.name().to_owned(), pool.definition(&**t, toolgate_core::DefinitionFormat::Anthropic)))
        .collect()
}

/// The design puts the initial core at about 5,000 tokens; estimated as characters / 4 of
/// the compact JSON a request carries (what `cargo xtask bench` row 12b reports too).
const CORE_TOKEN_BUDGET: usize = 5_000;

#[test]
fn the_core_tool_set_stays_under_its_token_budget() {
    let defs = core_definitions();
    let sizes: Vec<(String, usize)> =
        defs.iter().map(|(name, def)| (name.clone(), def.to_string().chars().count().div_ceil(4))).collect();
    let total: usize = defs.iter().map(|(_, def)| def.to_string().chars().count()).sum::<usize>().div_ceil(4);
    assert!(
        total < CORE_TOKEN_BUDGET,
        "the core tool definitions are about {total} tokens, over the {CORE_TOKEN_BUDGET} budget: \
         tighten a description or defer a tool (per tool: {sizes:?})"
    );
}

#[test]
fn the_core_tools_are_the_ones_chosen() {
    let names: Vec<String> = core_definitions().into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names,
        ["ApplyPatch", "Bash", "Edit", "Glob", "Grep", "Read", "TaskOutput", "TaskStop", "ToolSearch", "Write"],
        "a tool joined or left the core: check the budget test and docs/model-facing.md"
    );
}

/// The core's size per tool, so a change to any core definition shows in review as its
/// cost. The descriptions themselves are snapshotted beside their tools (`files`, `search`
/// and `bash` tests); ToolSearch's, which comes from `toolgate-core`, is snapshotted here.
#[test]
fn core_token_estimates_snapshot() {
    let defs = core_definitions();
    let mut text = String::new();
    let mut total = 0;
    for (name, def) in &defs {
        let chars = def.to_string().chars().count();
        total += chars;
        text.push_str(&format!("{name}: {chars} characters, about {} tokens\n", chars.div_ceil(4)));
    }
    text.push_str(&format!("core: {total} characters, about {} tokens\n", total.div_ceil(4)));
    insta::assert_snapshot!("core_token_estimates", text);
    let (_, search) = defs.iter().find(|(name, _)| name == "ToolSearch").expect("ToolSearch is core");
    insta::assert_snapshot!(
        "core_definition_ToolSearch",
        format!(
            "{}\n\n{}",
            search["description"].as_str().unwrap_or_default(),
            serde_json::to_string_pretty(&search["input_schema"]).unwrap_or_default()
        )
    );
}
