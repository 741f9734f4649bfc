//! ApplyPatch on real files: both formats, all-or-nothing, checks before writing, and
//! the tool's own permission opinion.

use serde_json::json;
use toolgate_core::{PermissionCheck, ToolErrorKind};

use crate::common::{Fixture, text, tool};

#[tokio::test]
async fn the_envelope_format_adds_updates_moves_and_deletes() {
    let fx = Fixture::new();
    let app = fx.file("src/app.py", "def run():\n    print(\"old\")\n\ndef other():\n    print(\"old\")\n");
    let gone = fx.file("obsolete.txt", "bye\n");
    let keep = fx.file("notes.md", "# Notes\nfirst\n");
    for path in [&app, &gone, &keep] {
        fx.read(path).await;
    }
    let patch = "*** Begin Patch
*** Add File: docs/new.md
+hello
+world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def other():
-    print(\"old\")
+    print(\"new\")
*** Update File: notes.md
@@
 # Notes
 first
+second
*** Delete File: obsolete.txt
*** End Patch
";
    let out = fx.run("ApplyPatch", json!({ "patch": patch })).await.unwrap();
    assert_eq!(
        fx.scrub(&text(&out)),
        "Applied the patch: 4 files changed.
A  [ROOT]/docs/new.md (+2)
R  [ROOT]/src/app.py -> [ROOT]/src/main.py (+1 -1)
M  [ROOT]/notes.md (+1 -0)
D  [ROOT]/obsolete.txt
Note: relative paths in the patch were resolved against the working directory [ROOT]."
    );
    assert_eq!(std::fs::read_to_string(fx.path("docs/new.md")).unwrap(), "hello\nworld\n");
    assert!(!app.exists());
    assert_eq!(
        std::fs::read_to_string(fx.path("src/main.py")).unwrap(),
        "def run():\n    print(\"old\")\n\ndef other():\n    print(\"new\")\n"
    );
    assert_eq!(std::fs::read_to_string(&keep).unwrap(), "# Notes\nfirst\nsecond\n");
    assert!(!gone.exists());
    // The written files count as read; the moved and deleted ones are forgotten.
    assert!(fx.ctx.file_state.get(&fx.path("src/main.py")).is_some());
    assert!(fx.ctx.file_state.get(&app).is_none());
}

#[tokio::test]
async fn unified_diffs_apply_with_git_prefixes() {
    let fx = Fixture::new();
    let path = fx.file("lib.rs", "fn a() {}\n\nfn b() {\n    1\n}\n");
    fx.read(&path).await;
    let diff = "diff --git a/lib.rs b/lib.rs
index 0000000..1111111 100644
--- a/lib.rs
+++ b/lib.rs
@@ -3,3 +3,3 @@ fn a() {}
 fn b() {
-    1
+    2
 }
--- /dev/null
+++ b/added.txt
@@ -0,0 +1 @@
+new file
";
    fx.run("ApplyPatch", json!({ "patch": diff })).await.unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "fn a() {}\n\nfn b() {\n    2\n}\n");
    assert_eq!(std::fs::read_to_string(fx.path("added.txt")).unwrap(), "new file\n");
}

#[tokio::test]
async fn a_hunk_that_does_not_apply_changes_nothing() {
    let fx = Fixture::new();
    let first = fx.file("first.txt", "a\nb\nc\n");
    let second = fx.file("second.txt", "x\ny\nz\n");
    fx.read(&first).await;
    fx.read(&second).await;
    let patch = "*** Begin Patch
*** Update File: first.txt
@@
 a
-b
+B
*** Add File: third.txt
+3
*** Update File: second.txt
@@
 x
-why
+Y
*** End Patch";
    let err = fx.run("ApplyPatch", json!({ "patch": patch })).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    let shown = fx.error_text(&err);
    assert!(
        shown.starts_with(
            "Patch not applied: [ROOT]/second.txt: hunk 1 of 1 does not apply: its 2 lines to replace were not found\n"
        ),
        "{shown}"
    );
    assert!(shown.contains("The closest text in the file is:\n     1\tx\n     2\ty\n"), "{shown}");
    assert_eq!(std::fs::read_to_string(&first).unwrap(), "a\nb\nc\n");
    assert!(!fx.path("third.txt").exists());
}

#[tokio::test]
async fn files_must_be_read_and_added_files_must_be_new() {
    let fx = Fixture::new();
    let path = fx.file("f.txt", "1\n");
    let update = "*** Begin Patch\n*** Update File: f.txt\n@@\n-1\n+2\n*** End Patch";
    let err = fx.run("ApplyPatch", json!({ "patch": update })).await.unwrap_err();
    assert!(err.message().contains("File has not been read yet"), "{err:?}");
    let add = "*** Begin Patch\n*** Add File: f.txt\n+x\n*** End Patch";
    let err = fx.run("ApplyPatch", json!({ "patch": add })).await.unwrap_err();
    assert!(err.message().contains("the file already exists"), "{err:?}");
    let twice = "*** Begin Patch\n*** Add File: n.txt\n+x\n*** Delete File: n.txt\n*** End Patch";
    let err = fx.run("ApplyPatch", json!({ "patch": twice })).await.unwrap_err();
    assert!(err.message().contains("more than once"), "{err:?}");
    let err = fx.run("ApplyPatch", json!({ "patch": "hello" })).await.unwrap_err();
    assert!(err.message().starts_with("The patch could not be parsed"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "1\n");
}

#[tokio::test]
async fn crlf_files_keep_their_endings() {
    let fx = Fixture::new();
    let path = fx.file("w.txt", "a\r\nb\r\nc\r\n");
    fx.read(&path).await;
    let patch = "*** Begin Patch\n*** Update File: w.txt\n@@\n a\n-b\n+B\n+B2\n*** End Patch";
    fx.run("ApplyPatch", json!({ "patch": patch })).await.unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"a\r\nB\r\nB2\r\nc\r\n");
}

#[tokio::test]
async fn paths_are_normalized_and_outside_files_need_approval() {
    let fx = Fixture::new();
    let apply = tool("ApplyPatch");
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-1\n+2\n*** Add File: /etc/toolgate-test.conf\n+x\n*** End Patch\n";
    let normalized = apply.normalize_input(&json!({ "patch": patch }), &fx.ctx);
    let text = normalized["patch"].as_str().unwrap();
    assert_eq!(
        fx.scrub(text),
        "*** Begin Patch\n*** Update File: [ROOT]/a.txt\n@@\n-1\n+2\n*** Add File: /etc/toolgate-test.conf\n+x\n*** End Patch\n"
    );
    // The first file is the permission target; the others are the tool's own business.
    assert_eq!(apply.permission_target(&normalized), Some(fx.path("a.txt").to_string_lossy().into_owned()));
    match apply.check_permissions(&normalized, &fx.ctx) {
        PermissionCheck::Ask { detail } => {
            assert_eq!(
                detail,
                "ApplyPatch would change files that need approval: /etc/toolgate-test.conf is outside the working directories"
            );
        }
        other => panic!("expected ask, got {other:?}"),
    }
    let git = json!({"patch": "*** Begin Patch\n*** Delete File: a.txt\n*** Add File: .git/hooks/pre-commit\n+x\n*** End Patch"});
    assert!(
        matches!(apply.check_permissions(&git, &fx.ctx), PermissionCheck::Ask { detail } if detail.contains(".git"))
    );
    assert!(apply.is_destructive(&git));
    let inside = json!({"patch": "*** Begin Patch\n*** Add File: b.txt\n+x\n*** End Patch"});
    assert!(matches!(apply.check_permissions(&inside, &fx.ctx), PermissionCheck::Passthrough));
    assert!(!apply.is_destructive(&inside));
}
