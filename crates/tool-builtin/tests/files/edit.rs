//! Edit on real files: the read-first and stale checks, matching rules, line endings,
//! creation, refusals, and what the result shows.

use std::os::unix::fs::PermissionsExt as _;

use serde_json::json;
use toolgate_core::ToolErrorKind;

use crate::common::{Fixture, text, tool};

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[tokio::test]
async fn a_unique_match_is_replaced_and_the_region_shown() {
    let fx = Fixture::new();
    let path = fx.file("f.txt", numbered(20));
    fx.read(&path).await;
    let out = fx
        .run("Edit", json!({"file_path": path, "old_string": "line 10\n", "new_string": "line ten\n"}))
        .await
        .unwrap();
    assert_eq!(
        fx.scrub(&text(&out)),
        "The file [ROOT]/f.txt has been updated; no need to Read it back. The edited region, with line numbers:\n     7\tline 7\n     8\tline 8\n     9\tline 9\n    10\tline ten\n    11\tline 11\n    12\tline 12\n    13\tline 13\n"
    );
    let structured = out.structured.unwrap();
    assert_eq!(structured["oldString"], "line 10\n");
    assert_eq!(structured["newString"], "line ten\n");
    assert_eq!(structured["replaceAll"], false);
    assert_eq!(structured["userModified"], false);
    assert_eq!(structured["structuredPatch"][0]["lines"][3], "-line 10");
    assert!(std::fs::read_to_string(&path).unwrap().contains("line ten\nline 11"));
}

#[tokio::test]
async fn an_unread_file_is_refused() {
    let fx = Fixture::new();
    let path = fx.file("f.txt", "a\n");
    let err = fx.run("Edit", json!({"file_path": path, "old_string": "a", "new_string": "b"})).await.unwrap_err();
    assert_eq!(err.message(), "File has not been read yet. Read it first before writing to it.");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\n");
}

/// The file changes between the model's Read and its Edit: the edit is refused.
#[tokio::test]
async fn a_file_modified_between_read_and_edit_is_refused() {
    let fx = Fixture::new();
    let path = fx.file("f.txt", "value = 1\n");
    fx.read(&path).await;
    std::fs::write(&path, "value = 1\nadded by a formatter\n").unwrap();
    let err = fx.run("Edit", json!({"file_path": path, "old_string": "1", "new_string": "2"})).await.unwrap_err();
    assert!(err.message().starts_with("File has been modified since read"), "{err:?}");
    assert!(err.hint().unwrap().contains("Read"));
    // After a fresh read it goes through.
    fx.read(&path).await;
    fx.run("Edit", json!({"file_path": path, "old_string": "= 1", "new_string": "= 2"})).await.unwrap();
}

#[tokio::test]
async fn a_window_read_is_enough_for_an_edit_until_the_file_changes() {
    let fx = Fixture::new();
    let path = fx.file("big.txt", numbered(3_000));
    fx.run("Read", json!({"file_path": path, "offset": 2_500, "limit": 10})).await.unwrap();
    fx.run("Edit", json!({"file_path": path, "old_string": "line 2505\n", "new_string": "LINE\n"})).await.unwrap();
    fx.run("Read", json!({"file_path": path, "offset": 10, "limit": 5})).await.unwrap();
    // Someone else changes the file, with a different modification time.
    let mut content = std::fs::read_to_string(&path).unwrap();
    content.push_str("more\n");
    std::fs::write(&path, content).unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000)).unwrap();
    let err =
        fx.run("Edit", json!({"file_path": path, "old_string": "line 12\n", "new_string": "x\n"})).await.unwrap_err();
    assert!(err.message().starts_with("File has been modified since read"));
}

#[tokio::test]
async fn several_matches_need_context_or_replace_all() {
    let fx = Fixture::new();
    let path = fx.file("f.py", "x = foo()\ny = 2\nz = foo()\n");
    fx.read(&path).await;
    let err =
        fx.run("Edit", json!({"file_path": path, "old_string": "foo()", "new_string": "bar()"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    assert_eq!(
        fx.error_text(&err),
        "Found 2 matches of the string to replace in [ROOT]/f.py (lines 1, 3), but replace_all is false.\nString: foo()\nTo replace every occurrence, set replace_all to true. To replace just one, add surrounding lines to old_string so that it matches only there."
    );
    let out = fx
        .run("Edit", json!({"file_path": path, "old_string": "foo()", "new_string": "bar()", "replace_all": true}))
        .await
        .unwrap();
    assert!(text(&out).contains("all 2 occurrences were replaced"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "x = bar()\ny = 2\nz = bar()\n");
}

#[tokio::test]
async fn not_found_shows_the_nearest_lines() {
    let fx = Fixture::new();
    let path = fx.file("f.rs", "fn main() {\n    let total = add(1, 2);\n    println!(\"{total}\");\n}\n");
    fx.read(&path).await;
    let err = fx
        .run("Edit", json!({"file_path": path, "old_string": "let total = add(1, 3);", "new_string": "x"}))
        .await
        .unwrap_err();
    let shown = fx.error_text(&err);
    assert!(
        shown.starts_with("String to replace not found in [ROOT]/f.rs.\nString: let total = add(1, 3);\n"),
        "{shown}"
    );
    assert!(shown.contains("The closest text in the file is:\n     2\t    let total = add(1, 2);\n"), "{shown}");
}

#[tokio::test]
async fn curly_quotes_and_pasted_line_numbers_are_tolerated() {
    let fx = Fixture::new();
    let path = fx.file("q.py", "print(\"hello\")\nname = 'x'\n");
    fx.read(&path).await;
    fx.run("Edit", json!({"file_path": path, "old_string": "print(“hello”)", "new_string": "print(\"bye\")"}))
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "print(\"bye\")\nname = 'x'\n");
    for (i, pasted) in ["     2\tname = 'x'", "     2→name = 'x'", "2\tname = 'x'"].iter().enumerate() {
        let new = format!("name = '{i}'");
        let out = fx.run("Edit", json!({"file_path": path, "old_string": pasted, "new_string": new})).await.unwrap();
        assert!(text(&out).contains("line-number prefixes"), "{}", text(&out));
        let current = std::fs::read_to_string(&path).unwrap();
        assert!(current.ends_with(&format!("name = '{i}'\n")), "{current}");
        // Put the line back for the next shape.
        fx.run("Edit", json!({"file_path": path, "old_string": new, "new_string": "name = 'x'"})).await.unwrap();
    }
}

#[tokio::test]
async fn crlf_and_a_missing_final_newline_are_kept() {
    let fx = Fixture::new();
    let path = fx.file("dos.txt", "first\r\nsecond\r\nthird");
    fx.read(&path).await;
    fx.run("Edit", json!({"file_path": path, "old_string": "first\nsecond", "new_string": "1st\n2nd\n2.5"}))
        .await
        .unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"1st\r\n2nd\r\n2.5\r\nthird");
    fx.run("Edit", json!({"file_path": path, "old_string": "third", "new_string": "3rd"})).await.unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"1st\r\n2nd\r\n2.5\r\n3rd");
}

#[tokio::test]
async fn bytes_that_are_not_utf8_survive_an_edit() {
    let fx = Fixture::new();
    let path = fx.file("latin1.txt", b"caf\xe9 = 1\nx = 2\n");
    fx.read(&path).await;
    fx.run("Edit", json!({"file_path": path, "old_string": "x = 2", "new_string": "x = 3"})).await.unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"caf\xe9 = 1\nx = 3\n");
}

#[tokio::test]
async fn an_empty_old_string_creates_a_missing_file_only() {
    let fx = Fixture::new();
    let path = fx.path("new/module.py");
    let out = fx.run("Edit", json!({"file_path": path, "old_string": "", "new_string": "x = 1\n"})).await.unwrap();
    assert!(fx.scrub(&text(&out)).starts_with("Created [ROOT]/new/module.py (1 line, 6 B)."), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "x = 1\n");
    let err = fx.run("Edit", json!({"file_path": path, "old_string": "", "new_string": "y"})).await.unwrap_err();
    assert!(err.message().contains("already exists and is not empty"), "{err:?}");
    // An existing empty file may be filled without a read.
    let empty = fx.file("empty.txt", "");
    fx.run("Edit", json!({"file_path": empty, "old_string": "", "new_string": "filled\n"})).await.unwrap();
    assert_eq!(std::fs::read_to_string(&empty).unwrap(), "filled\n");
}

#[tokio::test]
async fn refusals_come_from_validation() {
    let fx = Fixture::new();
    let edit = tool("Edit");
    let nb = fx.file("nb.ipynb", "{}");
    let err = edit
        .validate_input(&json!({"file_path": nb, "old_string": "a", "new_string": "b"}), &fx.ctx)
        .await
        .unwrap_err();
    assert!(err.hint().unwrap().contains("NotebookEdit"));
    let path = fx.file("f.txt", "a\n");
    let err = edit
        .validate_input(&json!({"file_path": path, "old_string": "a", "new_string": "a"}), &fx.ctx)
        .await
        .unwrap_err();
    assert_eq!(err.message(), "No changes to make: old_string and new_string are exactly the same.");
    let err = edit
        .validate_input(&json!({"file_path": fx.path("missing.txt"), "old_string": "a", "new_string": "b"}), &fx.ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::NotFound);
    assert!(err.hint().unwrap().contains("To create a new file, use Write"));
    std::fs::create_dir(fx.path("d")).unwrap();
    let err = edit
        .validate_input(&json!({"file_path": fx.path("d"), "old_string": "a", "new_string": "b"}), &fx.ctx)
        .await
        .unwrap_err();
    assert!(err.message().ends_with("is a directory, not a file"));
}

#[tokio::test]
async fn permission_bits_and_symlinks_are_kept() {
    let fx = Fixture::new();
    let real = fx.file("tool.sh", "echo a\n");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o700)).unwrap();
    let link = fx.path("tool-link.sh");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    fx.read(&link).await;
    fx.run("Edit", json!({"file_path": link, "old_string": "a", "new_string": "b"})).await.unwrap();
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "echo b\n");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::metadata(&real).unwrap().permissions().mode() & 0o7777, 0o700);
}

#[tokio::test]
async fn edits_follow_each_other_without_a_new_read() {
    let fx = Fixture::new();
    let path = fx.file("f.txt", "a b c\n");
    fx.read(&path).await;
    for (old, new) in [("a", "A"), ("b", "B"), ("c", "C")] {
        fx.run("Edit", json!({"file_path": path, "old_string": old, "new_string": new})).await.unwrap();
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "A B C\n");
}

#[tokio::test]
async fn relative_paths_are_resolved_and_noted() {
    let fx = Fixture::new();
    let path = fx.file("src/x.txt", "a\n");
    fx.read(&path).await;
    let out = fx.run("Edit", json!({"file_path": "src/x.txt", "old_string": "a", "new_string": "b"})).await.unwrap();
    assert!(
        fx.scrub(&text(&out)).ends_with(
            "Note: the relative path `src/x.txt` was resolved against the working directory to [ROOT]/src/x.txt."
        ),
        "{}",
        text(&out)
    );
    let out = fx.run("Write", json!({"file_path": "src/y.txt", "content": "y\n"})).await.unwrap();
    assert!(text(&out).contains("relative path `src/y.txt`"));
    assert_eq!(std::fs::read_to_string(fx.path("src/y.txt")).unwrap(), "y\n");
}
