//! Every path a call names is checked, not only its first: a patch is held to the rules of
//! each of its files (added, updated, deleted, a move's source and destination), in every mode,
//! and a later file that goes through a symlink into `.git/` or out of the working directories
//! asks as that file alone would.

use serde_json::json;
use toolgate_core::PermissionBehavior::{self, Allow, Ask};
use toolgate_pipeline::{Session, ToolCall};

use crate::paths::{Workspace, text};

const MODES: [&str; 3] = ["default", "acceptEdits", "bypassPermissions"];

fn patch(body: &str) -> ToolCall {
    ToolCall::new("p", "ApplyPatch", json!({"patch": format!("*** Begin Patch\n{body}\n*** End Patch")}))
}

fn read(path: &str) -> ToolCall {
    ToolCall::new("r", "Read", json!({"file_path": path}))
}

/// The decision for `call` in `session`, with its reason's kind and message.
async fn decide(session: &Session, call: &ToolCall) -> (PermissionBehavior, &'static str, String) {
    let (_, evaluation) = session.check(call, false).await.unwrap_or_else(|e| panic!("{}: {e:?}", call.input));
    let d = evaluation.decision;
    (d.behavior, d.reason.kind(), d.message)
}

/// `Edit(./locked/**)` denies a patch whose later file is in `locked/`, whichever way the patch
/// touches it, in default, acceptEdits and bypassPermissions; the message names that file, and
/// no file of the patch is changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_on_a_patchs_later_file_wins_in_every_mode_and_names_it() {
    let cases = [
        ("adds", "*** Add File: notes.txt\n+notes\n*** Add File: locked/new.txt\n+x", "locked/new.txt"),
        (
            "updates",
            "*** Add File: notes.txt\n+notes\n*** Update File: locked/a.txt\n@@\n-locked\n+open",
            "locked/a.txt",
        ),
        ("deletes", "*** Update File: sub/ok.txt\n@@\n-fine\n+changed\n*** Delete File: locked/a.txt", "locked/a.txt"),
        (
            "moves into",
            "*** Update File: sub/ok.txt\n*** Move to: locked/moved.txt\n@@\n-fine\n+moved",
            "locked/moved.txt",
        ),
        (
            "moves out of",
            "*** Add File: notes.txt\n+notes\n*** Update File: locked/a.txt\n*** Move to: sub/freed.txt\n@@\n-locked\n+free",
            "locked/a.txt",
        ),
    ];
    let mut failures = Vec::new();
    for mode in MODES {
        let ws = Workspace::new(&json!({"permissions": {"defaultMode": mode, "deny": ["Edit(./locked/**)"]}}));
        std::fs::create_dir_all(ws.root.join("locked")).unwrap();
        std::fs::write(ws.root.join("locked/a.txt"), "locked\n").unwrap();
        for (what, body, later) in cases {
            // Both files are read first, so the patch is not refused for not having been read.
            let results = ws.run(vec![read("sub/ok.txt"), read("locked/a.txt"), patch(body)]).await;
            let r = results.last().unwrap();
            let shown = text(r);
            let named = format!("ApplyPatch of {}", ws.root.join(later).display());
            if !r.is_error || !shown.contains("denied by the rule Edit(./locked/**)") || !shown.contains(&named) {
                failures.push(format!("{mode}: a patch that {what} {later} second: {shown}"));
            }
        }
        assert!(!ws.root.join("notes.txt").exists(), "{mode}: a denied patch wrote its first file");
        assert_eq!(std::fs::read_to_string(ws.root.join("sub/ok.txt")).unwrap(), "fine\n", "{mode}");
        assert_eq!(std::fs::read_to_string(ws.root.join("locked/a.txt")).unwrap(), "locked\n", "{mode}");
        assert!(!ws.root.join("locked/moved.txt").exists() && !ws.root.join("sub/freed.txt").exists(), "{mode}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A patch whose first file is harmless and whose later file goes through the link `gh` into
/// `.git/hooks` asks in every mode, bypassPermissions included, whether it adds, deletes or moves
/// there; one whose later file goes through the link `keys` out of the working directories asks
/// where a lone Write there asks (default, acceptEdits). The first file alone is approved in
/// acceptEdits, so it is the later file that asks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_patchs_later_file_through_a_symlink_asks_as_that_file_alone_would() {
    let into_git = [
        "*** Add File: notes.txt\n+notes\n*** Add File: gh/pre-push\n+#!/bin/sh",
        "*** Update File: sub/ok.txt\n@@\n-fine\n+changed\n*** Delete File: gh/pre-commit",
        "*** Update File: sub/ok.txt\n*** Move to: gh/post-checkout\n@@\n-fine\n+#!/bin/sh",
    ];
    let outside = [
        "*** Add File: notes.txt\n+notes\n*** Add File: keys/authorized_keys\n+attacker key",
        "*** Update File: sub/ok.txt\n*** Move to: keys/moved\n@@\n-fine\n+moved",
    ];
    let mut failures = Vec::new();
    for mode in MODES {
        let ws = Workspace::new(&json!({"permissions": {"defaultMode": mode}}));
        std::fs::create_dir_all(ws.root.join(".git/hooks")).unwrap();
        std::fs::write(ws.root.join(".git/hooks/pre-commit"), "#!/bin/sh\n").unwrap();
        std::os::unix::fs::symlink(ws.root.join(".git/hooks"), ws.root.join("gh")).unwrap();
        let session = ws.session();
        let reads = session.run_message(vec![read("sub/ok.txt"), read("gh/pre-commit")]).await;
        assert!(reads.iter().all(|r| !r.is_error), "{mode}: {}", text(&reads[1]));
        let first_alone = patch("*** Add File: notes.txt\n+notes");
        let alone = decide(&session, &first_alone).await;
        if mode != "default" && alone.0 != Allow {
            failures.push(format!("{mode}: the first file alone is not approved: {alone:?}"));
        }
        for body in into_git {
            let (behavior, kind, message) = decide(&session, &patch(body)).await;
            if (behavior, kind) != (Ask, "safety") || !message.contains(".git") {
                failures.push(format!("{mode}: {body:?}: {behavior}/{kind}: {message}"));
            }
        }
        for body in outside {
            let (behavior, _, message) = decide(&session, &patch(body)).await;
            let lone = ToolCall::new("w", "Write", json!({"file_path": "keys/new", "content": "x\n"}));
            let (lone_behavior, _, _) = decide(&session, &lone).await;
            if behavior != lone_behavior || (mode != "bypassPermissions" && behavior != Ask) {
                failures.push(format!("{mode}: {body:?}: {behavior} where a lone Write is {lone_behavior}: {message}"));
            }
        }
        // Run for real where the patch asks (nobody to ask, so it is refused): nothing lands.
        let mut asked: Vec<&str> = into_git.to_vec();
        if mode != "bypassPermissions" {
            asked.extend(outside);
        }
        for body in asked {
            let results = session.run_message(vec![patch(body)]).await;
            if !results[0].is_error {
                failures.push(format!("{mode}: {body:?} ran: {}", text(&results[0])));
            }
        }
        assert!(!ws.root.join("notes.txt").exists(), "{mode}: a refused patch wrote its first file");
        assert_eq!(std::fs::read_to_string(ws.root.join("sub/ok.txt")).unwrap(), "fine\n", "{mode}");
        assert!(ws.root.join(".git/hooks/pre-commit").exists(), "{mode}");
        for planted in [".git/hooks/pre-push", ".git/hooks/post-checkout"] {
            assert!(!ws.root.join(planted).exists(), "{mode}: {planted}");
        }
        assert!(!ws.ssh.join("authorized_keys").exists() && !ws.ssh.join("moved").exists(), "{mode}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
