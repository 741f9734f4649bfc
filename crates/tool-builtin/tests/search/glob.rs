//! Glob on real trees: expectations written out, and the same patterns through
//! `rg --files --glob` (what Claude Code runs) and `fdfind` when installed.

use serde_json::json;
use toolgate_builtin::GlobOptions;
use toolgate_core::ToolErrorKind;

use crate::support::{self, Tree, error, external, project, rg, sorted_lines, text};

/// Compares Glob's file set for `pattern` with `rg --files --glob pattern` and, for
/// patterns without a `/` (file-name patterns, fd's default), with `fdfind --glob`.
async fn compare(tree: &Tree, pattern: &str) {
    let ours = text("Glob", json!({"pattern": pattern}), &tree.ctx()).await;
    let ours = if ours == "No files found" { Vec::new() } else { sorted_lines(&ours) };
    let root = tree.root().display().to_string();
    if let Some(theirs) = rg(&["--files", "--no-ignore", "--glob", pattern, &root], &tree.root()).await {
        // A later whitelist glob such as `*` re-admits `.git` in rg (its `!.git` comes
        // first); Glob never lists VCS directories.
        let theirs: Vec<String> =
            sorted_lines(&tree.relative(&theirs)).into_iter().filter(|l| !l.starts_with(".git/")).collect();
        assert_eq!(ours, theirs, "Glob {pattern} vs rg --files --glob");
    }
    if !pattern.contains('/') {
        let args = ["--glob", "--hidden", "--no-ignore", "--case-sensitive", "--type", "f", "--exclude", ".git"];
        let mut args = args.to_vec();
        args.extend([pattern, root.as_str()]);
        if let Some(theirs) = external("fdfind", &args, &tree.root()).await {
            assert_eq!(ours, sorted_lines(&tree.relative(&theirs)), "Glob {pattern} vs fdfind");
        }
    }
}

#[tokio::test]
async fn files_come_newest_first_with_hidden_and_ignored_files_but_without_vcs_dirs_or_symlinks() {
    let tree = project();
    let out = text("Glob", json!({"pattern": "**/*.rs"}), &tree.ctx()).await;
    let expected = [
        "target/debug/build.rs",
        ".hidden/secret.rs",
        "src/util/strings.rs",
        "src/util/mod.rs",
        "src/lib.rs",
        "src/main.rs",
    ];
    // Relative to the working directory, the tree's root.
    assert_eq!(out, expected.join("\n"));
    // Ties in mtime are broken by path, so the order is stable.
    let ties = Tree::new();
    for rel in ["b.txt", "a.txt", "c.txt"] {
        ties.file(rel, "").mtime(rel, 5);
    }
    ties.file("new.txt", "").mtime("new.txt", 9);
    let out = text("Glob", json!({"pattern": "*.txt"}), &ties.ctx()).await;
    assert_eq!(out, "new.txt\na.txt\nb.txt\nc.txt");
}

#[tokio::test]
async fn patterns_follow_ripgreps_glob_rules() {
    let tree = project();
    let expect = |pattern: &str, rels: &[&str]| {
        let mut want: Vec<String> = rels.iter().map(|r| (*r).to_owned()).collect();
        want.sort();
        (pattern.to_owned(), want)
    };
    let cases = [
        // Without a slash: file names at any depth.
        expect(
            "*.rs",
            &[
                ".hidden/secret.rs",
                "src/lib.rs",
                "src/main.rs",
                "src/util/mod.rs",
                "src/util/strings.rs",
                "target/debug/build.rs",
            ],
        ),
        expect("*.{ts,tsx}", &["web/app.ts", "web/view.tsx"]),
        expect("[a-c]*.*", &["app.log", "crlf.txt", "target/debug/build.rs", "web/app.ts"]),
        // With a slash: anchored at the search directory, `*` stays in one segment.
        expect("src/*.rs", &["src/lib.rs", "src/main.rs"]),
        expect("src/**/*.rs", &["src/lib.rs", "src/main.rs", "src/util/mod.rs", "src/util/strings.rs"]),
        expect("**/util/*", &["src/util/mod.rs", "src/util/strings.rs"]),
        expect("docs/guide.md", &["docs/guide.md"]),
        expect("./web/*.js", &["web/index.js"]),
        expect("nothing/*.rs", &[]),
    ];
    for (pattern, want) in cases {
        let out = text("Glob", json!({"pattern": pattern}), &tree.ctx()).await;
        let got = if out == "No files found" { Vec::new() } else { sorted_lines(&out) };
        assert_eq!(got, want, "pattern {pattern}");
        if !pattern.starts_with("./") {
            compare(&tree, &pattern).await;
        }
    }
    for pattern in ["*", "**", "**/*", "*.md", ".*", "**/.hidden/**", "*.txt"] {
        compare(&tree, pattern).await;
    }
}

#[tokio::test]
async fn gitignore_is_respected_only_when_the_host_asks() {
    let tree = project();
    let mut ctx = tree.ctx();
    ctx.extensions.insert(GlobOptions { respect_gitignore: true });
    let out = text("Glob", json!({"pattern": "**/*.{rs,log}"}), &ctx).await;
    assert!(!out.contains("target/") && !out.contains("app.log"), "{out}");
    assert!(out.contains("src/main.rs"), "{out}");
    let unignored = text("Glob", json!({"pattern": "**/*.{rs,log}"}), &tree.ctx()).await;
    assert!(unignored.contains("target/debug/build.rs") && unignored.contains("app.log"), "{unignored}");
    // rg lets a --glob match override .gitignore for single files (app.log would come back);
    // for ignored directories both agree, so compare on *.rs.
    let out = text("Glob", json!({"pattern": "**/*.rs"}), &ctx).await;
    let root = tree.root().display().to_string();
    if let Some(theirs) = rg(&["--files", "--glob", "**/*.rs", &root], &tree.root()).await {
        assert_eq!(sorted_lines(&out), sorted_lines(&tree.relative(&theirs)));
    }
}

#[tokio::test]
async fn more_than_100_files_are_cut_to_the_newest_with_a_note() {
    let tree = Tree::new();
    for i in 0..150 {
        let rel = format!("d{}/f{i:03}.txt", i % 7);
        tree.file(&rel, "").mtime(&rel, i);
    }
    let out = support::call("Glob", json!({"pattern": "**/*.txt"}), &tree.ctx()).await.unwrap();
    let text = out.to_text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 101);
    assert!(lines[0].ends_with("/f149.txt") && lines[99].ends_with("/f050.txt"), "{text}");
    insta::assert_snapshot!("glob_truncated_note", lines[100]);
    let structured = out.structured.unwrap();
    assert_eq!(structured["truncated"], true);
    assert_eq!(structured["numFiles"], 100);
    assert_eq!(structured["totalMatches"], 150);
    assert_eq!(structured["filenames"].as_array().unwrap().len(), 100);
}

#[tokio::test]
async fn paths_relative_absolute_and_in_the_pattern() {
    let tree = project();
    let ctx = tree.ctx();
    // Searched below the working directory, the paths stay relative to it, and say so.
    let want = format!(
        "src/util/strings.rs\nsrc/util/mod.rs\n(Paths are relative to the working directory, {}.)",
        tree.root().display()
    );
    assert_eq!(text("Glob", json!({"pattern": "*.rs", "path": "src/util"}), &ctx).await, want);
    let abs = tree.path("src/util").display().to_string();
    assert_eq!(text("Glob", json!({"pattern": "*.rs", "path": abs}), &ctx).await, want);
    // An absolute pattern searched from the working directory: relative paths, and no note
    // (no path names another directory to read them against).
    let in_pattern = format!("{}/src/util/*.rs", tree.root().display());
    assert_eq!(text("Glob", json!({"pattern": in_pattern}), &ctx).await, "src/util/strings.rs\nsrc/util/mod.rs");
    // Outside the working directory, paths stay absolute.
    let from_elsewhere = support::Tree::new();
    let pattern = format!("{}/src/util/*.rs", tree.root().display());
    let absolute =
        format!("{}\n{}", tree.path("src/util/strings.rs").display(), tree.path("src/util/mod.rs").display());
    assert_eq!(text("Glob", json!({"pattern": pattern}), &from_elsewhere.ctx()).await, absolute);
    assert_eq!(text("Glob", json!({"pattern": "*.nothing"}), &ctx).await, "No files found");
}

#[tokio::test]
async fn bad_inputs_are_clear_errors() {
    let tree = project();
    let ctx = tree.ctx();
    let err = error("Glob", json!({"pattern": "*.rs", "path": "srcc"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::NotFound);
    insta::assert_snapshot!("glob_missing_path", tree.redact(&err.to_model_text()));
    let err = error("Glob", json!({"pattern": "*.rs", "path": "src/main.rs"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    insta::assert_snapshot!("glob_file_as_path", tree.redact(&err.to_model_text()));
    let err = error("Glob", json!({"pattern": "src/[a-"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    insta::assert_snapshot!("glob_invalid_pattern", err.to_model_text());
    let glob = support::tool("Glob");
    assert!(glob.validate_input(&json!({"pattern": "src/[a-"}), &ctx).await.is_err());
    assert!(glob.validate_input(&json!({"pattern": "*", "path": "srcc"}), &ctx).await.is_err());
    let err = error("Glob", json!({"pattern": ""}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    let err = error("Glob", json!({"pattern": "*", "ignore": ["x"]}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
}

#[tokio::test]
async fn a_cancelled_call_stops_with_a_cancelled_error() {
    let tree = project();
    let ctx = tree.ctx();
    ctx.cancel.cancel();
    assert_eq!(error("Glob", json!({"pattern": "**"}), &ctx).await.kind(), ToolErrorKind::Cancelled);
}

#[tokio::test]
async fn the_permission_target_is_the_directory_searched() {
    let tree = project();
    let ctx = tree.ctx();
    let glob = support::tool("Glob");
    let abs = format!("{}/docs/*.md", tree.root().display());
    for (input, want) in [
        (json!({"pattern": "*.rs"}), tree.root()),
        (json!({"pattern": "**/*.rs", "path": "src"}), tree.path("src")),
        (json!({"pattern": "util/*.rs", "path": "src"}), tree.path("src/util")),
        (json!({"pattern": abs}), tree.path("docs")),
        (json!({"pattern": "../*"}), tree.root().parent().unwrap().to_path_buf()),
    ] {
        let normalized = glob.normalize_input(&input, &ctx);
        assert_eq!(glob.permission_target(&normalized), Some(want.display().to_string()), "{input}");
        assert!(glob.is_read_only(&normalized) && glob.is_concurrency_safe(&normalized));
    }
}

#[tokio::test]
async fn a_symlinked_directory_given_as_path_is_searched() {
    let tree = project();
    let out = text("Glob", json!({"pattern": "*.rs", "path": "linked"}), &tree.ctx()).await;
    assert_eq!(
        tree.redact(&out),
        "linked/util/strings.rs\nlinked/util/mod.rs\nlinked/lib.rs\nlinked/main.rs\n\
         (Paths are relative to the working directory, [ROOT].)"
    );
    let out = text("LS", json!({"path": "linked/util"}), &tree.ctx()).await;
    assert_eq!(out, "linked/util/\n  mod.rs\n  strings.rs");
}
