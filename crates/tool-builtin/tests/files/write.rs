//! Write on real files: creation, read-before-write, staleness, permission bits,
//! symlinks, bad targets.

use std::os::unix::fs::PermissionsExt as _;

use serde_json::json;
use toolgate_core::ToolErrorKind;

use crate::common::{Fixture, text, tool};

#[tokio::test]
async fn creates_a_new_file_and_its_parents_without_a_read() {
    let fx = Fixture::new();
    let path = fx.path("a/b/new.txt");
    let out = fx.run("Write", json!({"file_path": path, "content": "one\ntwo\n"})).await.unwrap();
    // The result says the content is now the file's, so the model need not read it back.
    assert_eq!(
        fx.scrub(&text(&out)),
        "Created [ROOT]/a/b/new.txt (2 lines, 8 B). The file now holds exactly the content you sent; no need to Read \
         it back."
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    let structured = out.structured.unwrap();
    assert_eq!(structured["type"], "create");
    // Written by us: counts as read in full, so a later Write or Edit needs no Read.
    assert!(!fx.ctx.file_state.get(&path).unwrap().partial);
    let out = fx.run("Write", json!({"file_path": path, "content": "one\n"})).await.unwrap();
    assert!(text(&out).contains("(0 added, 1 removed)"), "{}", text(&out));
}

#[tokio::test]
async fn overwriting_needs_a_full_read() {
    let fx = Fixture::new();
    let path = fx.file("old.txt", "a\nb\nc\n");
    let err = fx.run("Write", json!({"file_path": path, "content": "x"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    assert!(err.message().starts_with("File has not been read yet."));
    // A window is not enough to replace the whole file.
    fx.run("Read", json!({"file_path": path, "limit": 1})).await.unwrap();
    let err = fx.run("Write", json!({"file_path": path, "content": "x"})).await.unwrap_err();
    assert!(err.message().contains("partially read"), "{err:?}");
    fx.read(&path).await;
    let out = fx.run("Write", json!({"file_path": path, "content": "a\nB\nc\nd\n"})).await.unwrap();
    assert_eq!(
        fx.scrub(&text(&out)),
        "Updated [ROOT]/old.txt: now 4 lines (2 added, 1 removed). The file now holds exactly the content you sent; \
         no need to Read it back."
    );
    let structured = out.structured.unwrap();
    assert_eq!(structured["type"], "update");
    assert_eq!(structured["structuredPatch"][0]["lines"], json!([" a", "-b", "+B", " c", "+d"]));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\nB\nc\nd\n");
}

#[tokio::test]
async fn a_file_changed_since_it_was_read_is_not_overwritten() {
    let fx = Fixture::new();
    let path = fx.file("shared.txt", "v1\n");
    fx.read(&path).await;
    std::fs::write(&path, "v2 by someone else\n").unwrap();
    let err = fx.run("Write", json!({"file_path": path, "content": "mine\n"})).await.unwrap_err();
    assert!(err.message().starts_with("File has been modified since read"), "{err:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "v2 by someone else\n");
}

#[tokio::test]
async fn permission_bits_are_kept() {
    let fx = Fixture::new();
    let path = fx.file("run.sh", "#!/bin/sh\necho 1\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o754)).unwrap();
    fx.read(&path).await;
    fx.run("Write", json!({"file_path": path, "content": "#!/bin/sh\necho 2\n"})).await.unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777, 0o754);
}

#[tokio::test]
async fn symlinks_are_written_through() {
    let fx = Fixture::new();
    let real = fx.file("real.txt", "old\n");
    let link = fx.path("link.txt");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    fx.read(&link).await;
    fx.run("Write", json!({"file_path": link, "content": "new\n"})).await.unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "new\n");
}

#[tokio::test]
async fn bad_targets_are_refused_before_anything_runs() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.path("dir")).unwrap();
    let write = tool("Write");
    let err = write.validate_input(&json!({"file_path": fx.path("dir"), "content": ""}), &fx.ctx).await.unwrap_err();
    assert!(err.message().ends_with("dir is a directory, not a file"));
    fx.file("plain", "x");
    let err = write
        .validate_input(&json!({"file_path": fx.path("plain/child.txt"), "content": ""}), &fx.ctx)
        .await
        .unwrap_err();
    assert!(err.message().contains("is a file, not a directory"), "{err:?}");
    let err = write.validate_input(&json!({"file_path": "", "content": ""}), &fx.ctx).await.unwrap_err();
    assert_eq!(err.message(), "file_path is empty");
}

#[tokio::test]
async fn identical_content_changes_nothing() {
    let fx = Fixture::new();
    let path = fx.file("same.txt", "x\n");
    fx.read(&path).await;
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    let out = fx.run("Write", json!({"file_path": path, "content": "x\n"})).await.unwrap();
    assert!(text(&out).contains("already has exactly this content"));
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), before);
}

#[tokio::test]
async fn a_deleted_file_is_reported_once_then_created() {
    let fx = Fixture::new();
    let path = fx.file("gone.txt", "x\n");
    fx.read(&path).await;
    std::fs::remove_file(&path).unwrap();
    let err = fx.run("Write", json!({"file_path": path, "content": "y\n"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::NotFound);
    let out = fx.run("Write", json!({"file_path": path, "content": "y\n"})).await.unwrap();
    assert!(text(&out).starts_with("Created "));
}

#[tokio::test]
async fn no_temporary_files_are_left_behind() {
    let fx = Fixture::new();
    let path = fx.path("clean.txt");
    fx.run("Write", json!({"file_path": path, "content": "1"})).await.unwrap();
    fx.run("Write", json!({"file_path": path, "content": "2"})).await.unwrap();
    let names: Vec<String> =
        std::fs::read_dir(fx.root()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["clean.txt"]);
}
