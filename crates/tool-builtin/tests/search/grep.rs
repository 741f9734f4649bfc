//! Grep on real trees: expectations written out, and the same queries run through `rg`
//! (when installed) with the flags Claude Code passes, compared line for line.

use serde_json::{Value, json};
use toolgate_core::ToolErrorKind;

use crate::support::{self, Tree, error, project, rg, sorted_lines, text};

/// Our text in the shape rg prints it: without the `Found …` header of file lists, the
/// total of counts, and with ripgrep 13's marker for long matching lines.
fn as_rg_prints(ours: &str, mode: &str) -> String {
    let body: Vec<&str> = match mode {
        "files_with_matches" => ours.lines().skip(1).collect(),
        "count" => ours.lines().take_while(|l| !l.is_empty()).collect(),
        _ => ours.lines().collect(),
    };
    let mut out = Vec::new();
    for line in body {
        match line.find("[Omitted long line with ") {
            Some(at) => out.push(format!("{}[Omitted long matching line]", &line[..at])),
            None => out.push(line.to_owned()),
        }
    }
    out.join("\n")
}

/// The same query through Grep and through `rg`: `input` for Grep, `args` for rg (the
/// search path is appended to both, as an absolute path). Content comes in path order on
/// both sides (`rg --sort path`), so it must match exactly; file lists are compared as
/// sets (ours is in mtime order).
async fn compare(tree: &Tree, input: Value, args: &[&str]) {
    let mode = input.get("output_mode").and_then(Value::as_str).unwrap_or("files_with_matches").to_owned();
    let mut input = input;
    input["head_limit"] = json!(0);
    let ours = text("Grep", input.clone(), &tree.ctx()).await;
    // rg prints the absolute paths it was given; ours are relative to the working directory.
    let ours: Vec<&str> = ours.lines().filter(|l| !l.starts_with("(Paths are relative to the working")).collect();
    let ours = ours.join("\n");
    let root = match input.get("path").and_then(Value::as_str) {
        Some(path) => tree.path(path).display().to_string(),
        None => tree.root().display().to_string(),
    };
    let mut rg_args: Vec<&str> = args.to_vec();
    if !args.contains(&"-l") {
        rg_args.extend(["--sort", "path", "-H"]);
    }
    rg_args.push(&root);
    let Some(theirs) = rg(&rg_args, &tree.root()).await else { return };
    let theirs = tree.relative(&theirs.replace('\r', ""));
    let ours = if ours.starts_with("No ") { String::new() } else { as_rg_prints(&ours, &mode) };
    if mode == "files_with_matches" {
        assert_eq!(sorted_lines(&ours), sorted_lines(&theirs), "Grep {input} vs rg {args:?}");
    } else {
        assert_eq!(ours.trim_end(), theirs.trim_end(), "Grep {input} vs rg {args:?}");
    }
}

#[tokio::test]
async fn files_are_listed_newest_first_with_hidden_files_and_without_git_ignored_or_binary_ones() {
    let tree = project();
    let out = text("Grep", json!({"pattern": "foo"}), &tree.ctx()).await;
    let expected = [
        "crlf.txt",
        "long.txt",
        "latin1.txt",
        ".env",
        ".hidden/secret.rs",
        "scripts/run.py",
        "web/index.js",
        "web/view.tsx",
        "web/app.ts",
        "src/util/strings.rs",
        "src/main.rs",
        "docs/guide.md",
        "README.md",
    ];
    let mut want = format!("Found {} files", expected.len());
    for rel in expected {
        want.push('\n');
        want.push_str(rel);
    }
    assert_eq!(out, want);
    compare(&tree, json!({"pattern": "foo"}), &["-l", "foo"]).await;
}

#[tokio::test]
async fn queries_match_ripgrep() {
    let tree = project();
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (json!({"pattern": "foo", "output_mode": "content"}), vec!["-n", "foo"]),
        (json!({"pattern": "foo", "output_mode": "content", "-C": 2}), vec!["-n", "-C", "2", "foo"]),
        (json!({"pattern": "foo", "output_mode": "content", "context": 1}), vec!["-n", "-C", "1", "foo"]),
        (
            json!({"pattern": "foo", "output_mode": "content", "-A": 1, "-B": 3}),
            vec!["-n", "-A", "1", "-B", "3", "foo"],
        ),
        (json!({"pattern": "foo", "output_mode": "content", "-n": false}), vec!["-N", "foo"]),
        (json!({"pattern": "FOO", "output_mode": "content", "-i": true}), vec!["-n", "-i", "FOO"]),
        (json!({"pattern": "fo+\\w*", "output_mode": "content", "-o": true}), vec!["-n", "-o", "fo+\\w*"]),
        (json!({"pattern": "foo", "output_mode": "count"}), vec!["-c", "foo"]),
        (json!({"pattern": "foo", "output_mode": "count", "-o": true}), vec!["-c", "-o", "foo"]),
        (json!({"pattern": "foo", "type": "rust"}), vec!["-l", "--type", "rust", "foo"]),
        (json!({"pattern": "foo", "type": "py"}), vec!["-l", "--type", "py", "foo"]),
        (json!({"pattern": "foo", "glob": "*.{ts,tsx}"}), vec!["-l", "--glob", "*.{ts,tsx}", "foo"]),
        (json!({"pattern": "foo", "glob": "*.ts,*.js"}), vec!["-l", "--glob", "*.ts", "--glob", "*.js", "foo"]),
        (json!({"pattern": "foo", "glob": "!*.md !*.txt"}), vec!["-l", "--glob", "!*.md", "--glob", "!*.txt", "foo"]),
        (json!({"pattern": "foo", "glob": "src/**"}), vec!["-l", "--glob", "src/**", "foo"]),
        (
            json!({"pattern": "fn main\\(\\) \\{\\n.*foo", "multiline": true, "output_mode": "content"}),
            vec!["-n", "-U", "--multiline-dotall", "fn main\\(\\) \\{\\n.*foo"],
        ),
        (
            json!({"pattern": "main.*?foo", "multiline": true, "output_mode": "count"}),
            vec!["-c", "-U", "--multiline-dotall", "main.*?foo"],
        ),
        (json!({"pattern": "^\\s+\\d+$", "output_mode": "content"}), vec!["-n", "^\\s+\\d+$"]),
        (json!({"pattern": "nothing-matches-this"}), vec!["-l", "nothing-matches-this"]),
    ];
    for (input, args) in cases {
        compare(&tree, input, &args).await;
    }
}

#[tokio::test]
async fn content_shows_context_groups_long_line_markers_and_crlf_without_carriage_returns() {
    let tree = project();
    let out =
        text("Grep", json!({"pattern": "foo", "path": "long.txt", "output_mode": "content", "-C": 2}), &tree.ctx())
            .await;
    insta::assert_snapshot!("grep_long_lines", tree.redact(&out));
    let out = text(
        "Grep",
        json!({"pattern": "foo", "path": "src/util/strings.rs", "output_mode": "content", "-C": 1}),
        &tree.ctx(),
    )
    .await;
    insta::assert_snapshot!("grep_context_groups", tree.redact(&out));
    let out = text("Grep", json!({"pattern": "foo", "path": "crlf.txt", "output_mode": "content"}), &tree.ctx()).await;
    assert_eq!(out, "crlf.txt:1:first foo");
    compare(
        &tree,
        json!({"pattern": "foo", "path": "long.txt", "output_mode": "content", "-C": 2}),
        &["-n", "-C", "2", "foo"],
    )
    .await;
}

#[tokio::test]
async fn context_separates_files_with_dashes() {
    let tree = Tree::new();
    tree.file("a.txt", "x\nfoo\ny\n").file("b.txt", "foo\nz\n");
    let out = text("Grep", json!({"pattern": "foo", "output_mode": "content", "-A": 1}), &tree.ctx()).await;
    assert_eq!(out, "a.txt:2:foo\na.txt-3-y\n--\nb.txt:1:foo\nb.txt-2-z");
    compare(&tree, json!({"pattern": "foo", "output_mode": "content", "-A": 1}), &["-n", "-A", "1", "foo"]).await;
}

#[tokio::test]
async fn non_utf8_text_is_searched_and_shown_lossily() {
    let tree = project();
    // The bytes are searched as they are; shown, an invalid byte becomes U+FFFD. (Like rg,
    // `.` matches a whole UTF-8 character, so it does not match the lone byte 0xE9.)
    let out = text("Grep", json!({"pattern": "foo au lait", "output_mode": "content"}), &tree.ctx()).await;
    assert_eq!(out, "latin1.txt:1:caf\u{FFFD} foo au lait");
    let out = text("Grep", json!({"pattern": "caf. foo"}), &tree.ctx()).await;
    assert_eq!(out, "No files found");
    compare(&tree, json!({"pattern": "foo au lait", "output_mode": "content"}), &["-n", "foo au lait"]).await;
    compare(&tree, json!({"pattern": "(?-u:caf.) foo", "output_mode": "content"}), &["-n", "(?-u:caf.) foo"]).await;
}

#[tokio::test]
async fn binary_files_are_skipped() {
    let tree = Tree::new();
    tree.file("data.bin", b"\x00\x01needle\n").file("text.txt", "needle\n");
    let out = text("Grep", json!({"pattern": "needle"}), &tree.ctx()).await;
    assert_eq!(out, "Found 1 file\ntext.txt");
    let out = text("Grep", json!({"pattern": "needle", "output_mode": "count"}), &tree.ctx()).await;
    assert_eq!(out, "text.txt:1\n\nFound 1 matching line in 1 file.");
    // Named explicitly, a binary file is still not searched, and the result says why.
    let out = text("Grep", json!({"pattern": "needle", "path": "data.bin"}), &tree.ctx()).await;
    assert_eq!(out, "No files found\n(The file is binary: it contains a NUL byte, and binary files are not searched.)");
}

#[tokio::test]
async fn gitignore_is_respected_only_inside_a_git_repository() {
    let tree = Tree::new();
    tree.file(".gitignore", "ignored.txt\n").file("ignored.txt", "needle\n").file("kept.txt", "needle\n");
    // Like rg: without a .git directory, .gitignore is not read.
    let out = text("Grep", json!({"pattern": "needle"}), &tree.ctx()).await;
    assert!(out.starts_with("Found 2 files"), "{out}");
    tree.dir(".git");
    let out = text("Grep", json!({"pattern": "needle"}), &tree.ctx()).await;
    assert_eq!(out, "Found 1 file\nkept.txt");
    // .ignore files count everywhere, as in rg.
    tree.file(".ignore", "kept.txt\n");
    assert_eq!(text("Grep", json!({"pattern": "needle"}), &tree.ctx()).await, "No files found");
}

#[tokio::test]
async fn symlinks_are_not_followed_inside_the_tree_but_a_symlinked_root_is_searched() {
    let tree = project();
    let out = text("Grep", json!({"pattern": "fn main"}), &tree.ctx()).await;
    assert_eq!(out, "Found 1 file\nsrc/main.rs");
    let out = text("Grep", json!({"pattern": "fn main", "path": "linked"}), &tree.ctx()).await;
    assert_eq!(
        tree.redact(&out),
        "Found 1 file\nlinked/main.rs\n(Paths are relative to the working directory, [ROOT].)"
    );
    compare(&tree, json!({"pattern": "fn main"}), &["-l", "fn main"]).await;
}

#[tokio::test]
async fn head_limit_and_offset_page_through_every_mode() {
    let tree = Tree::new();
    for i in 0..7 {
        let rel = format!("f{i}.txt");
        tree.file(&rel, "hit\nhit\n").mtime(&rel, i);
    }
    let ctx = tree.ctx();
    let out = text("Grep", json!({"pattern": "hit", "head_limit": 3}), &ctx).await;
    insta::assert_snapshot!("grep_files_first_page", tree.redact(&out));
    let out = text("Grep", json!({"pattern": "hit", "head_limit": 3, "offset": 6}), &ctx).await;
    assert_eq!(tree.redact(&out), "Found 7 files\nf0.txt\n\n(Showing files 7-7 of 7, most recently modified first.)");
    let out = text("Grep", json!({"pattern": "hit", "offset": 9}), &ctx).await;
    assert_eq!(out, "No files at offset 9: the search found 7 files.");
    let out = text("Grep", json!({"pattern": "hit", "output_mode": "count", "head_limit": 2, "offset": 1}), &ctx).await;
    insta::assert_snapshot!("grep_count_page", tree.redact(&out));

    // Content pages, put together, are the whole output.
    let all = text("Grep", json!({"pattern": "hit", "output_mode": "content", "head_limit": 0}), &ctx).await;
    assert_eq!(all.lines().count(), 14);
    let mut pages = Vec::new();
    let mut offset = 0;
    loop {
        let page =
            text("Grep", json!({"pattern": "hit", "output_mode": "content", "head_limit": 5, "offset": offset}), &ctx)
                .await;
        let (lines, note) = page.split_once("\n\n(").map_or((page.as_str(), None), |(l, n)| (l, Some(n)));
        pages.push(lines.to_owned());
        match note {
            Some(note) if note.contains("Pass offset: ") => offset += 5,
            _ => break,
        }
    }
    assert_eq!(pages.len(), 3);
    assert_eq!(pages.join("\n"), all);
    // The default limit is 250 entries.
    let many = Tree::new();
    many.file("big.txt", "hit\n".repeat(300));
    let out = text("Grep", json!({"pattern": "hit", "output_mode": "content"}), &many.ctx()).await;
    assert_eq!(out.lines().filter(|l| l.contains("big.txt:")).count(), 250);
    assert!(out.ends_with("(Showing lines 1-250 of 300. Pass offset: 250 for the next page, or narrow the search.)"));
}

#[tokio::test]
async fn count_mode_gives_per_file_counts_and_a_total() {
    let tree = project();
    let out = text("Grep", json!({"pattern": "foo", "output_mode": "count", "path": "src"}), &tree.ctx()).await;
    assert_eq!(
        tree.redact(&out),
        "src/main.rs:2\nsrc/util/strings.rs:3\n\nFound 5 matching lines in 2 files.\n\
         (Paths are relative to the working directory, [ROOT].)"
    );
    let out =
        text("Grep", json!({"pattern": "foo", "output_mode": "count", "-o": true, "path": "long.txt"}), &tree.ctx())
            .await;
    assert_eq!(out, "long.txt:151\n\nFound 151 matches in 1 file.");
}

#[tokio::test]
async fn structured_output_carries_the_counts() {
    let tree = project();
    let out = support::call("Grep", json!({"pattern": "foo", "head_limit": 2}), &tree.ctx()).await.unwrap();
    let structured = out.structured.unwrap();
    assert_eq!(structured["mode"], "files_with_matches");
    assert_eq!(structured["numFiles"], 13);
    assert_eq!(structured["filenames"].as_array().unwrap().len(), 2);
    assert_eq!(structured["appliedLimit"], 2);
    let out = support::call("Grep", json!({"pattern": "foo", "output_mode": "count"}), &tree.ctx()).await.unwrap();
    assert_eq!(out.structured.unwrap()["numMatches"], 18);
}

#[tokio::test]
async fn bad_inputs_are_clear_errors() {
    let tree = project();
    let ctx = tree.ctx();
    let err = error("Grep", json!({"pattern": "(unclosed"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    // Found at validation, so an invalid call never reaches a permission prompt.
    let grep = support::tool("Grep");
    assert_eq!(grep.validate_input(&json!({"pattern": "(unclosed"}), &ctx).await, Err(err.clone()));
    for bad in [json!({"pattern": "x", "path": "nope"}), json!({"pattern": "x", "type": "nope"})] {
        assert!(grep.validate_input(&bad, &ctx).await.is_err(), "{bad}");
    }
    insta::assert_snapshot!("grep_invalid_regex", err.to_model_text());
    let err = error("Grep", json!({"pattern": "foo\\nbar"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    assert!(err.hint().unwrap().contains("multiline: true"), "{err:?}");
    let err = error("Grep", json!({"pattern": "foo", "path": "srcc/util"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::NotFound);
    insta::assert_snapshot!("grep_missing_path", tree.redact(&err.to_model_text()));
    let err = error("Grep", json!({"pattern": "foo", "type": "rustt"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    insta::assert_snapshot!("grep_unknown_type", err.to_model_text());
    let err = error("Grep", json!({"pattern": "foo", "glob": "*.{ts"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    let err = error("Grep", json!({"pattern": "foo", "output_mode": "lines"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    let err = error("Grep", json!({"pattern": "foo", "-x": true}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    let err = error("Grep", json!({"path": "src"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
}

#[tokio::test]
async fn numbers_and_booleans_sent_as_strings_are_accepted() {
    let tree = project();
    let input =
        json!({"pattern": "FOO", "path": "src", "output_mode": "content", "-i": "true", "-C": "1", "head_limit": "3"});
    let out = text("Grep", input, &tree.ctx()).await;
    assert!(out.contains("(Showing lines 1-3 of"), "{out}");
}

#[tokio::test]
async fn a_cancelled_call_stops_with_a_cancelled_error() {
    let tree = project();
    let ctx = tree.ctx();
    ctx.cancel.cancel();
    let err = error("Grep", json!({"pattern": "foo"}), &ctx).await;
    assert_eq!(err.kind(), ToolErrorKind::Cancelled);
}

#[tokio::test]
async fn the_permission_target_is_the_absolute_search_path() {
    let tree = project();
    let ctx = tree.ctx();
    let grep = support::tool("Grep");
    for (input, want) in [
        (json!({"pattern": "x"}), tree.root()),
        (json!({"pattern": "x", "path": "src"}), tree.path("src")),
        (json!({"pattern": "x", "path": "src/../docs"}), tree.path("docs")),
    ] {
        let normalized = grep.normalize_input(&input, &ctx);
        assert_eq!(grep.permission_target(&normalized), Some(want.display().to_string()), "{input}");
        assert!(grep.is_read_only(&normalized) && grep.is_concurrency_safe(&normalized));
    }
    assert_eq!(grep.max_result_size_chars(), toolgate_core::ResultLimit::Chars(20_000));
}

#[tokio::test]
async fn paths_outside_the_working_directory_stay_absolute() {
    let tree = project();
    let elsewhere = Tree::new();
    let src = tree.path("src").display().to_string();
    let out = text("Grep", json!({"pattern": "fn main", "path": src}), &elsewhere.ctx()).await;
    assert_eq!(out, format!("Found 1 file\n{}", tree.path("src/main.rs").display()));
    let out = text("Grep", json!({"pattern": "fn main", "path": src, "output_mode": "count"}), &elsewhere.ctx()).await;
    assert_eq!(out, format!("{}:1\n\nFound 1 matching line in 1 file.", tree.path("src/main.rs").display()));
    let out = text("LS", json!({"path": tree.path("src/util").display().to_string()}), &elsewhere.ctx()).await;
    assert_eq!(out, format!("{}/\n  mod.rs\n  strings.rs", tree.path("src/util").display()));
}
