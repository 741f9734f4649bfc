//! The search tools under the real permission engine: their permission target (the
//! absolute directory searched, after normalization) is what `Read(...)` rules match.

use serde_json::{Value, json};
use toolgate_core::{PermissionBehavior, RuleSource};
use toolgate_permissions::{LoadedSettings, PermissionEngine, SettingsFile};

use crate::support::{Tree, tool};

/// An engine with `Read` deny rules on the tree's `secrets` directory and `.env`.
fn engine(tree: &Tree) -> PermissionEngine {
    let mut loaded = LoadedSettings::default();
    loaded.add(SettingsFile {
        source: RuleSource::ProjectSettings,
        origin: tree.path(".claude/settings.json").display().to_string(),
        anchor: tree.root(),
        value: json!({"permissions": {"deny": ["Read(./secrets/**)"]}}),
    });
    let (settings, diagnostics) = loaded.permissions();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    PermissionEngine::builder(settings).home(None).cwd(tree.root()).build()
}

/// The engine's decision for a call, on the input as the pipeline normalizes it.
fn decide(engine: &PermissionEngine, tree: &Tree, name: &str, input: Value) -> (PermissionBehavior, String) {
    let tool = tool(name);
    let ctx = tree.ctx();
    let normalized = tool.normalize_input(&input, &ctx);
    let evaluation = engine.evaluate(tool.as_ref(), &normalized, &ctx, None);
    (evaluation.decision.behavior, evaluation.decision.reason.kind().to_owned())
}

#[test]
fn read_rules_govern_where_the_search_tools_look() {
    let tree = Tree::new();
    tree.file("secrets/key.txt", "k").file("src/a.rs", "a");
    let engine = engine(&tree);
    let deny = (PermissionBehavior::Deny, "rule".to_owned());
    assert_eq!(decide(&engine, &tree, "Grep", json!({"pattern": "k", "path": "secrets"})), deny);
    assert_eq!(decide(&engine, &tree, "Grep", json!({"pattern": "k", "path": "src/../secrets"})), deny);
    assert_eq!(decide(&engine, &tree, "Glob", json!({"pattern": "secrets/**"})), deny);
    assert_eq!(decide(&engine, &tree, "LS", json!({"path": "secrets"})), deny);
    let allowed = (PermissionBehavior::Allow, "tool".to_owned());
    assert_eq!(decide(&engine, &tree, "Grep", json!({"pattern": "a", "path": "src"})), allowed);
    assert_eq!(decide(&engine, &tree, "Glob", json!({"pattern": "**/*.rs"})), allowed);
    assert_eq!(decide(&engine, &tree, "LS", json!({"path": "."})), allowed);
    // Outside the working directories a read is not automatic.
    let outside = decide(&engine, &tree, "LS", json!({"path": "/"}));
    assert_ne!(outside.0, PermissionBehavior::Allow, "{outside:?}");
    let outside = decide(&engine, &tree, "Glob", json!({"pattern": "../**"}));
    assert_ne!(outside.0, PermissionBehavior::Allow, "{outside:?}");
}
