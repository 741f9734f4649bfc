//! MultiEdit on real files: edits in order, all or nothing.

use serde_json::json;

use crate::common::{Fixture, text};

#[tokio::test]
async fn edits_apply_in_order_on_the_previous_result() {
    let fx = Fixture::new();
    let path = fx.file("f.txt", "alpha\nbeta\ngamma\n");
    fx.read(&path).await;
    let out = fx
        .run(
            "MultiEdit",
            json!({"file_path": path, "edits": [
                {"old_string": "alpha", "new_string": "ALPHA"},
                {"old_string": "ALPHA\nbeta", "new_string": "ALPHA\nBETA"},
                {"old_string": "a", "new_string": "4", "replace_all": true},
            ]}),
        )
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "ALPHA\nBETA\ng4mm4\n");
    assert_eq!(
        fx.scrub(&text(&out)),
        "Applied 3 edits to [ROOT]/f.txt; no need to Read it back. The edited regions, with line numbers:\n     1\tALPHA\n     2\tBETA\n     3\tg4mm4\n"
    );
    assert_eq!(out.structured.unwrap()["replacements"], json!([1, 1, 2]));
}

#[tokio::test]
async fn one_failing_edit_leaves_the_file_untouched() {
    let fx = Fixture::new();
    let path = fx.file("f.txt", "one\ntwo\n");
    fx.read(&path).await;
    let err = fx
        .run(
            "MultiEdit",
            json!({"file_path": path, "edits": [
                {"old_string": "one", "new_string": "1"},
                {"old_string": "three", "new_string": "3"},
            ]}),
        )
        .await
        .unwrap_err();
    assert!(err.message().starts_with("Edit 2 of 2 failed: String to replace not found"), "{err:?}");
    assert!(err.hint().unwrap().ends_with("No edit was applied: MultiEdit applies all of its edits or none."));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
}

#[tokio::test]
async fn a_first_edit_with_empty_old_string_creates_the_file() {
    let fx = Fixture::new();
    let path = fx.path("made.txt");
    fx.run(
        "MultiEdit",
        json!({"file_path": path, "edits": [
            {"old_string": "", "new_string": "a = 1\nb = 2\n"},
            {"old_string": "b = 2", "new_string": "b = 3"},
        ]}),
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a = 1\nb = 3\n");
}

#[tokio::test]
async fn edits_that_cancel_out_are_refused() {
    let fx = Fixture::new();
    let path = fx.file("f.txt", "x\n");
    fx.read(&path).await;
    let err = fx
        .run(
            "MultiEdit",
            json!({"file_path": path, "edits": [
                {"old_string": "x", "new_string": "y"},
                {"old_string": "y", "new_string": "x"},
            ]}),
        )
        .await
        .unwrap_err();
    assert!(err.message().contains("unchanged"), "{err:?}");
}
