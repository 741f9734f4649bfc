//! The targets a tool declares: each held to the rules of its access, a deny on any of them
//! naming that target, and the declared paths of tools outside the path families.

use toolgate_core::{Access, Target};

use super::*;

/// A tool of `name` whose every call names `targets`.
struct Declares {
    name: &'static str,
    targets: Vec<Target>,
    schema: Value,
}

fn declares(name: &'static str, targets: &[(&str, Access)]) -> Declares {
    let targets = targets.iter().map(|(p, a)| Target::new(*p, *a)).collect();
    Declares { name, targets, schema: json!({"type": "object"}) }
}

impl Tool for Declares {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> Cow<'_, str> {
        "a tool with fixed targets".into()
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn targets(&self, _: &Value) -> Vec<Target> {
        self.targets.clone()
    }
    fn call<'a>(&'a self, _: Value, _: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::text("ran")) })
    }
    fn render_use(&self, _: &Value) -> String {
        self.name.to_owned()
    }
}

fn engine_with(rules: Value) -> PermissionEngine {
    PermissionEngine::builder(settings(json!({"permissions": rules}))).home(Some("/home/u".into())).cwd("/repo").build()
}

fn decide(
    engine: &PermissionEngine,
    tool: &Declares,
    mode: PermissionMode,
) -> (PermissionBehavior, &'static str, String) {
    let e = engine.evaluate(tool, &json!({}), &ctx(mode), None);
    (e.decision.behavior, e.decision.reason.kind(), e.decision.message)
}

const READ: Access = Access::Read { walked: false };
const MODES: [PermissionMode; 3] = [Dflt, AcceptEdits, Bypass];

/// A deny on a later target wins in every mode, and the message names that target, not the
/// first one.
#[test]
fn a_deny_on_a_later_target_wins_and_names_it() {
    let engine = engine_with(json!({"deny": ["Edit(./.env)"]}));
    for later in [Access::Write, Access::Create, Access::Delete] {
        let patch = declares("ApplyPatch", &[("notes.txt", Access::Create), (".env", later)]);
        for mode in MODES {
            let (behavior, kind, message) = decide(&engine, &patch, mode);
            assert_eq!((behavior, kind), (Deny, "rule"), "{later:?} in {mode}: {message}");
            assert!(message.starts_with("ApplyPatch of /repo/.env: denied by the rule Edit(./.env)"), "{message}");
        }
    }
}

/// A read target of an editing tool is held to the `Read` rules and not to the protected paths;
/// a changing target of a reading tool to the `Edit` rules and the protected paths.
#[test]
fn each_target_is_held_to_the_rules_of_its_access() {
    let copy = declares("Edit", &[("src/template.txt", READ), ("out.txt", Access::Write)]);
    // Reading the template is no edit of it…
    let edit_deny = engine_with(json!({"deny": ["Edit(./src/**)"]}));
    assert_eq!(decide(&edit_deny, &copy, AcceptEdits).0, Allow);
    // …but a read, which a `Read` deny stops, in every mode.
    let read_deny = engine_with(json!({"deny": ["Read(./src/**)"]}));
    for mode in MODES {
        let (behavior, kind, message) = decide(&read_deny, &copy, mode);
        assert_eq!((behavior, kind), (Deny, "rule"), "{mode}: {message}");
        assert!(message.contains("/repo/src/template.txt"), "{message}");
    }
    // Reading a protected file is not writing it; writing one asks even in bypassPermissions.
    let empty = empty_engine();
    let reads_git = declares("Edit", &[("/repo/.git/config", READ), ("out.txt", Access::Write)]);
    assert_eq!(decide(&empty, &reads_git, AcceptEdits).0, Allow);
    let writes_git = declares("Edit", &[("out.txt", READ), (".git/hooks/pre-commit", Access::Create)]);
    for mode in MODES {
        assert_eq!(decide(&empty, &writes_git, mode).0, Ask, "{mode}");
    }
    // A reading tool that also deletes: the delete is a change, held to the Edit rules.
    let reads_then_deletes = declares("Read", &[("a.txt", READ), ("Cargo.lock", Access::Delete)]);
    let lock_deny = engine_with(json!({"deny": ["Edit(/Cargo.lock)"]}));
    assert_eq!(decide(&lock_deny, &reads_then_deletes, Bypass).0, Deny);
    assert_eq!(decide(&empty, &declares("Read", &[("a.txt", READ)]), Dflt).1, "tool", "a read inside needs none");
    let (behavior, _, message) = decide(&empty, &reads_then_deletes, Dflt);
    assert_eq!(behavior, Ask, "a delete is no read: {message}");
}

/// An allow needs every target: a rule for the first file of a patch approves nothing else.
#[test]
fn an_allow_rule_needs_every_target() {
    let engine = engine_with(json!({"allow": ["Edit(/src/**)"]}));
    let inside = declares("ApplyPatch", &[("src/a.rs", Access::Write), ("src/b.rs", Access::Create)]);
    assert_eq!(decide(&engine, &inside, Dflt).0, Allow);
    let beyond = declares("ApplyPatch", &[("src/a.rs", Access::Write), ("build.rs", Access::Create)]);
    assert_eq!(decide(&engine, &beyond, Dflt).0, Ask);
}

/// The paths an MCP tool declares only restrict it: a deny or ask rule on them holds and a
/// protected one asks, past the rule that allows the tool; nothing approves a call through them.
#[test]
fn the_targets_of_an_mcp_tool_only_restrict_it() {
    let engine = engine_with(json!({"allow": ["mcp__fs"], "deny": ["Read(./.env)"], "ask": ["Edit(./docs/**)"]}));
    let reads = |path: &'static str| declares("mcp__fs__read_file", &[(path, READ)]);
    let writes = |path: &'static str| declares("mcp__fs__write_file", &[(path, Access::Write)]);
    for mode in MODES {
        let (behavior, _, message) = decide(&engine, &reads("/repo/.env"), mode);
        assert_eq!(behavior, Deny, "{mode}: {message}");
        assert!(message.contains("mcp__fs__read_file (read of /repo/.env)"), "{message}");
        // `Read` denies hold for writes too, as they do for Edit and Write.
        assert_eq!(decide(&engine, &writes(".env"), mode).0, Deny, "{mode}");
        assert_eq!(decide(&engine, &writes("docs/a.md"), mode).0, Ask, "{mode}");
        assert_eq!(decide(&engine, &writes(".git/hooks/pre-commit"), mode).0, Ask, "{mode}");
        assert_eq!(decide(&engine, &reads(".git/config"), mode).0, Allow, "{mode}: a read is not protected");
        assert_eq!(decide(&engine, &writes("src/a.rs"), mode).0, Allow, "{mode}");
    }
    // Without the tool's allow rule, a read inside the working directories is still asked.
    let (behavior, kind, _) = decide(&empty_engine(), &reads("/repo/src/a.rs"), Dflt);
    assert_eq!((behavior, kind), (Ask, "default"));
}
