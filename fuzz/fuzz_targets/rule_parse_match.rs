//! Permission rules. Invariants: a rule that parses prints as text that parses to the same
//! rule, printing is stable, and the printed rule matches exactly the calls the original
//! text matches (a Bash command, a file path and a domain taken from the same input).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use toolgate_permissions::{PermissionRule, rule_matches_call};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // The rule, then (after the first newline) the target a call is checked with.
    let (rule_text, target) = text.split_once('\n').unwrap_or((text, "ls -la"));
    let Ok(rule) = rule_text.parse::<PermissionRule>() else { return };
    let printed = rule.to_string();
    let reparsed: PermissionRule = printed.parse().unwrap_or_else(|e| panic!("{printed:?} (from {rule_text:?}) does not parse: {e}"));
    assert_eq!(reparsed, rule, "{rule_text:?} printed as {printed:?}");
    assert_eq!(reparsed.to_string(), printed, "printing is not stable for {rule_text:?}");
    let cwd = Path::new("/work/project");
    let calls = [
        ("Bash", json!({"command": target})),
        ("Read", json!({"file_path": format!("/work/project/{target}")})),
        ("Edit", json!({"file_path": target})),
        ("WebFetch", json!({"url": format!("https://{target}/x")})),
        (rule.tool(), json!({"command": target, "file_path": target})),
    ];
    for (tool, input) in calls {
        assert_eq!(
            rule_matches_call(rule_text, tool, &input, cwd),
            rule_matches_call(&printed, tool, &input, cwd),
            "{rule_text:?} and its printed form {printed:?} disagree on {tool} {input}"
        );
    }
});
