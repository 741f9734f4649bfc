//! Row 12: what the model reads. The same fixed calls over a small generated tree, run by
//! toolgate here and by Claude Code 2.1.197 once (its texts are committed under
//! `bench/model-facing/`), counted in characters; and the core tool definitions' size.
//!
//! Paths differ between the two runs (Claude Code's project folder is a temporary one), so
//! both sides' texts have their project folder replaced by [`PROJECT`] before counting:
//! an absolute path then costs what it would in a typical project.

use std::path::Path;

use anyhow::{Context as _, bail};

use super::corpus::{self, TreeShape};
use super::json::{self, Json};

/// The tree of this row: 48 source files, from the same seeded generator as rows 1 and 2.
pub(crate) const SHAPE: TreeShape = TreeShape { packages: 2, modules: 2, files: 12 };

/// Where both sides' project folders are put before counting.
pub(crate) const PROJECT: &str = "/home/user/project";

/// The placeholder for the project folder in call inputs and in the fixture.
const CWD: &str = "$CWD";

/// The Grep pattern: two words that follow each other in a few dozen lines of the tree.
pub(crate) const PATTERN: &str = "session token";

/// The fixture: the oracle's output for [`scenario`], as `oracle.py` printed it.
pub(crate) const FIXTURE: &str = "bench/model-facing/claude-code-2.1.197.json";

/// The corpus files the row writes: the text files of [`SHAPE`] (the oracle's scenario
/// holds text only, so the binary blobs are left out on both sides).
pub(crate) fn text_files() -> Vec<(String, String)> {
    corpus::tree_files(SHAPE)
        .filter(|(_, bytes)| !bytes.contains(&0))
        .filter_map(|(rel, bytes)| String::from_utf8(bytes).ok().map(|text| (rel, text)))
        .collect()
}

/// The calls, as (tool name, input JSON with `$CWD` for the project folder).
pub(crate) fn calls(files: &[(String, String)]) -> anyhow::Result<Vec<(&'static str, String)>> {
    let (target, text) = files
        .iter()
        .find(|(rel, _)| rel.starts_with("pkg") && rel.ends_with(".rs"))
        .context("the tree has no Rust source")?;
    // The Edit replaces the file's first line, which must occur once.
    let first = text.lines().next().context("the Edit target is empty")?;
    if text.matches(first).count() != 1 {
        bail!("the first line of {target} occurs more than once");
    }
    let string = |s: &str| Json::String(s.to_owned()).compact();
    Ok(vec![
        ("Glob", r#"{"pattern":"**/*.rs"}"#.to_owned()),
        ("Grep", format!(r#"{{"pattern":{}}}"#, string(PATTERN))),
        ("Grep", format!(r#"{{"pattern":{},"output_mode":"content"}}"#, string(PATTERN))),
        ("Grep", format!(r#"{{"pattern":{},"output_mode":"count"}}"#, string(PATTERN))),
        ("Read", format!(r#"{{"file_path":"{CWD}/{target}"}}"#)),
        (
            "Edit",
            format!(
                r#"{{"file_path":"{CWD}/{target}","old_string":{},"new_string":{}}}"#,
                string(first),
                string(&format!("{first}// checked")),
            ),
        ),
        (
            "Write",
            format!(
                r#"{{"file_path":"{CWD}/notes/summary.md","content":{}}}"#,
                string("# Summary\n\nThe session token is checked in every handler.\n")
            ),
        ),
        ("Bash", r#"{"command":"ls pkg00/missing","description":"List a folder that does not exist"}"#.to_owned()),
    ])
}

/// The oracle scenario (`oracle.py`'s input) for these calls, in `acceptEdits` so the Edit
/// and Write run without a prompt; Glob and Grep added to `-p` mode's tools.
pub(crate) fn scenario(files: &[(String, String)]) -> anyhow::Result<String> {
    let calls = calls(files)?
        .into_iter()
        .map(|(name, input)| Ok(format!(r#"{{"name":"{name}","input":{}}}"#, json::parse(&input)?.compact())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let files = files
        .iter()
        .map(|(rel, text)| format!("{}:{}", Json::String(rel.clone()).compact(), Json::String(text.clone()).compact()))
        .collect::<Vec<_>>();
    Ok(format!(
        "{{\"id\":\"model-facing\",\"mode\":\"acceptEdits\",\"settings\":{{}},\
         \"extra_args\":[\"--tools\",\"Bash,Edit,Glob,Grep,Read,Write\"],\
         \"files\":{{{}}},\"calls\":[{}]}}\n",
        files.join(","),
        calls.join(",")
    ))
}

/// The assistant message of the calls, for `toolgate run`, with `root` as the project folder.
pub(crate) fn message(files: &[(String, String)], root: &Path) -> anyhow::Result<String> {
    let root = Json::String(root.to_str().context("the project folder is not UTF-8")?.to_owned()).compact();
    // The folder as it goes inside a JSON string: its compact form without the quotes.
    let root = &root[1..root.len() - 1];
    let blocks = calls(files)?
        .into_iter()
        .enumerate()
        .map(|(i, (name, input))| {
            let input = input.replace(CWD, root);
            format!(r#"{{"type":"tool_use","id":"toolu_{i:02}","name":"{name}","input":{input}}}"#)
        })
        .collect::<Vec<_>>();
    Ok(format!(r#"{{"role":"assistant","content":[{}]}}"#, blocks.join(",")))
}

/// The text of each tool_result of `toolgate run`'s output, in call order.
pub(crate) fn toolgate_texts(output: &str, root: &Path) -> anyhow::Result<Vec<String>> {
    let message = json::parse(output).context("toolgate run's output")?;
    let blocks = message.get("content").and_then(Json::as_array).context("toolgate run printed no content")?;
    let root = root.to_str().context("the project folder is not UTF-8")?;
    blocks
        .iter()
        .map(|block| {
            let text = match block.get("content") {
                Some(Json::String(text)) => text.clone(),
                Some(Json::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Json::as_str)).collect(),
                _ => bail!("a tool_result without content"),
            };
            Ok(text.replace(root, PROJECT))
        })
        .collect()
}

/// The fixture's texts, in call order, each with its call's tool name; an error when the
/// fixture was captured for other calls than `calls` (then capture it again).
pub(crate) fn claude_code_texts(fixture: &str, calls: &[(&str, String)]) -> anyhow::Result<Vec<(String, String)>> {
    let output = json::parse(fixture).context("the Claude Code fixture")?;
    let results = output.get("results").and_then(Json::as_array).context("the fixture has no results")?;
    if results.len() != calls.len() {
        bail!("the fixture holds {} results for {} calls: capture it again", results.len(), calls.len());
    }
    results
        .iter()
        .zip(calls)
        .map(|(result, (call_name, call_input))| {
            let name = result.get("name").and_then(Json::as_str).context("a result without a name")?;
            let input = result.get("input").map(Json::compact).unwrap_or_default();
            if name != *call_name || input != json::parse(call_input)?.compact() {
                bail!("the fixture's {name} call {input} is not the row's {call_name} {call_input}: capture it again");
            }
            let text = result
                .get("tool_result")
                .and_then(|r| r.get("text"))
                .and_then(Json::as_str)
                .context("a result without text")?;
            Ok((name.to_owned(), text.replace(CWD, PROJECT)))
        })
        .collect()
}

/// The core tool definitions' size: the characters of each definition that is not deferred,
/// in the compact JSON a request carries, and their estimated tokens (characters / 4), from
/// `toolgate tools --format anthropic`'s output. Returns (total characters, per tool).
pub(crate) fn core_definitions(tools_output: &str) -> anyhow::Result<(usize, Vec<(String, usize)>)> {
    let defs = json::parse(tools_output).context("toolgate tools' output")?;
    let defs = defs.as_array().context("toolgate tools printed no list")?;
    let per_tool: Vec<(String, usize)> = defs
        .iter()
        .filter(|d| !d.get("defer_loading").is_some_and(Json::is_true))
        .map(|d| {
            let name = d.get("name").and_then(Json::as_str).unwrap_or("?").to_owned();
            (name, d.compact().chars().count())
        })
        .collect();
    Ok((per_tool.iter().map(|(_, n)| n).sum(), per_tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_fixture_is_for_these_calls() {
        let fixture = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(FIXTURE)).unwrap();
        let texts = claude_code_texts(&fixture, &calls(&text_files()).unwrap()).unwrap();
        assert_eq!(texts.len(), 8);
    }

    #[test]
    fn the_calls_and_scenario_are_fixed_and_well_formed() {
        let files = text_files();
        assert_eq!(files, text_files());
        assert!(files.iter().all(|(rel, _)| !rel.ends_with(".png") && !rel.ends_with(".bin")));
        let calls = calls(&files).unwrap();
        assert_eq!(calls.len(), 8);
        for (_, input) in &calls {
            json::parse(input).unwrap();
        }
        let scenario = json::parse(&scenario(&files).unwrap()).unwrap();
        assert_eq!(scenario.get("calls").and_then(Json::as_array).map(<[Json]>::len), Some(8));
        let matches = files.iter().filter(|(rel, t)| rel.starts_with("pkg") && t.contains(PATTERN)).count();
        assert!(matches >= 3, "the pattern should match a few files, matched {matches}");
        let message = json::parse(&message(&files, Path::new("/p \"q\"")).unwrap()).unwrap();
        let blocks = message.get("content").and_then(Json::as_array).unwrap();
        assert_eq!(
            blocks[4].get("input").and_then(|i| i.get("file_path")).and_then(Json::as_str).map(|p| &p[..7]),
            Some("/p \"q\"/")
        );
    }

    #[test]
    fn texts_are_read_from_both_sides_with_the_project_folder_replaced() {
        let ours = r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"/r/x.rs"}]},{"type":"tool_result","tool_use_id":"b","content":"plain"}]}"#;
        assert_eq!(toolgate_texts(ours, Path::new("/r")).unwrap(), [format!("{PROJECT}/x.rs"), "plain".to_owned()]);
        let theirs = r#"{"results":[{"name":"Read","input":{"file_path":"$CWD/a"},"tool_result":{"is_error":false,"text":"$CWD/a"}}]}"#;
        let calls = [("Read", r#"{"file_path": "$CWD/a"}"#.to_owned())];
        assert_eq!(claude_code_texts(theirs, &calls).unwrap(), [("Read".to_owned(), format!("{PROJECT}/a"))]);
        let other = [("Read", r#"{"file_path":"$CWD/b"}"#.to_owned())];
        assert!(claude_code_texts(theirs, &other).is_err(), "a stale fixture is refused");
        let tools =
            r#"[{"name":"A","description":"d","input_schema":{}},{"name":"B","description":"","defer_loading":true}]"#;
        let (total, per_tool) = core_definitions(tools).unwrap();
        assert_eq!(per_tool, [("A".to_owned(), r#"{"name":"A","description":"d","input_schema":{}}"#.len())]);
        assert_eq!(total, per_tool[0].1);
    }
}
