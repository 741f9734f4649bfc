//! LS on real trees: the tree shape, what is left out, the breadth-first cap and errors.

use serde_json::json;
use toolgate_core::ToolErrorKind;

use crate::support::{self, Tree, error, project, text};

#[tokio::test]
async fn the_tree_lists_hidden_entries_and_symlinks_but_not_vcs_or_ignored_ones() {
    let tree = project();
    let out = text("LS", json!({"path": tree.root().display().to_string()}), &tree.ctx()).await;
    insta::assert_snapshot!("ls_project", tree.redact(&out));
}

#[tokio::test]
async fn relative_paths_and_ignore_globs() {
    let tree = project();
    let out = text("LS", json!({"path": "src"}), &tree.ctx()).await;
    assert_eq!(out, "src/\n  lib.rs\n  main.rs\n  util/\n    mod.rs\n    strings.rs");
    let out = text("LS", json!({"path": ".", "ignore": ["*.md", "web/", "src/util", ".*"]}), &tree.ctx()).await;
    for gone in ["README.md", "guide.md", "web/", "util/", ".env", ".hidden/", ".gitignore"] {
        assert!(!out.contains(gone), "{gone} in {out}");
    }
    assert!(
        out.contains("\n  src/\n    lib.rs\n    main.rs\n  web") || out.contains("\n  src/\n    lib.rs\n    main.rs"),
        "{out}"
    );
    let empty = Tree::new();
    assert_eq!(text("LS", json!({"path": "."}), &empty.ctx()).await, "./\n(no entries)");
}

#[tokio::test]
async fn a_large_tree_is_listed_breadth_first_up_to_the_cap() {
    let tree = Tree::new();
    for i in 0..1_500 {
        tree.file(&format!("a/f{i:04}.txt"), "");
    }
    for d in 0..3 {
        tree.file(&format!("b{d}/deeper/x.txt"), "");
    }
    tree.file("z.txt", "");
    let out = support::call("LS", json!({"path": "."}), &tree.ctx()).await.unwrap();
    let text = tree.redact(&out.to_text());
    let lines: Vec<&str> = text.lines().collect();
    // The top level is complete even though a/ alone is over the cap.
    assert_eq!(lines[1], "  a/ (partly listed)");
    assert!(text.contains("\n  b0/\n    deeper/ (not listed)\n") || text.contains("\n  b0/ (not listed)\n"), "{text}");
    assert!(text.contains("\n  z.txt\n"), "{text}");
    insta::assert_snapshot!("ls_truncated_note", lines.last().unwrap());
    let structured = out.structured.unwrap();
    assert_eq!(structured["entries"], 1_000);
    assert_eq!(structured["truncated"], true);
    assert_eq!(lines.len(), 1 + 1_000 + 1);
}

#[tokio::test]
async fn bad_inputs_are_clear_errors() {
    let tree = project();
    let ctx = tree.ctx();
    let err = error("LS", json!({"path": "src/main.rs"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    let err = error("LS", json!({"path": "docz"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::NotFound);
    insta::assert_snapshot!("ls_missing_path", tree.redact(&err.to_model_text()));
    let err = error("LS", json!({"path": ".", "ignore": ["[z-a]"]}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    let ls = support::tool("LS");
    assert!(ls.validate_input(&json!({"path": "docz"}), &ctx).await.is_err());
    assert!(ls.validate_input(&json!({"path": ".", "ignore": ["[z-a]"]}), &ctx).await.is_err());
    let err = error("LS", json!({}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
}

#[tokio::test]
async fn the_permission_target_is_the_absolute_directory() {
    let tree = project();
    let ctx = tree.ctx();
    let ls = support::tool("LS");
    let normalized = ls.normalize_input(&json!({"path": "src/util/.."}), &ctx);
    assert_eq!(ls.permission_target(&normalized), Some(tree.path("src").display().to_string()));
    assert!(ls.is_read_only(&normalized) && ls.is_concurrency_safe(&normalized));
}
