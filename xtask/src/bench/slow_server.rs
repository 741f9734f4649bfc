//! Row 13: what a configured MCP server that never answers `initialize` costs a built-in Read
//! (issue 28: it used to hold every answer up for `MCP_TIMEOUT`, 30 s). Whole `toolgate`
//! processes, timed alternately with the same processes with no server configured.

use std::path::Path;

use super::table::{Quantity, Row, Target};
use super::{Bench, step, time_pair};

/// The server that never answers: it reads nothing and writes nothing for ten minutes.
const NEVER_ANSWERS: &str = r#"{"mcpServers": {"never": {"command": "sleep", "args": ["600"]}}}"#;

/// What the rows measure.
const WHAT: (&str, &str) = (
    "`mcp serve` (stdio): initialize and a built-in Read, with a server that never answers `initialize` configured \
     vs with none (whole processes, spawn to exit)",
    "`toolgate call Read` with a server that never answers `initialize` configured vs with none (whole processes)",
);

/// The target: the server adds less than a second.
const TARGET: Target = Target::DifferenceBelow(1.0);

impl Bench {
    /// Rows 13a and 13b.
    pub(super) fn mcp_slow_server(&self) -> Vec<Row> {
        step(&format!("processes: {}", WHAT.0));
        let dir = self.target.join("bench-slow-server");
        let (file, requests) = match fixture(&dir) {
            Ok(paths) => paths,
            Err(error) => {
                let why = format!("writing {}: {error}", dir.display());
                return vec![
                    Row::skipped("13a", WHAT.0, TARGET, why.clone()),
                    Row::skipped("13b", WHAT.1, TARGET, why),
                ];
            }
        };
        let runs = if self.quick { 5 } else { 30 };
        let with_server = |cmd: crate::cmd::Cmd| cmd.arg("--mcp-config").arg(NEVER_ANSWERS).env("MCP_TIMEOUT", "30000");
        let serve = |cmd: crate::cmd::Cmd| cmd.args(["mcp", "serve"]).stdin_file(&requests);
        let read = json_path(&file);
        let call = |cmd: crate::cmd::Cmd| cmd.args(["call", "Read"]).arg(format!(r#"{{"file_path": {read}}}"#));
        let note = |answered: &str| {
            format!(
                "Median of {runs} runs each, alternating; `MCP_TIMEOUT` 30 s, the server `sleep 600`. {answered} The \
                 target: under a second added (it was the whole 30 s)."
            )
        };
        let pairs = [
            (
                "13a",
                WHAT.0,
                serve(with_server(self.toolgate_cmd(&dir))),
                serve(self.toolgate_cmd(&dir)),
                "Input: initialize, initialized, tools/call Read, then end of input; the Read's answer is checked.",
            ),
            (
                "13b",
                WHAT.1,
                call(with_server(self.toolgate_cmd(&dir))),
                call(self.toolgate_cmd(&dir)),
                "The Read's output is checked.",
            ),
        ];
        pairs
            .into_iter()
            .map(|(id, what, ours, reference, answered)| match time_pair(&ours, &reference, runs) {
                Ok((ours_median, reference_median, (stdout, _))) if read_answered(&stdout) => {
                    Row::new(id, what, Quantity::time(ours_median), Some(Quantity::time(reference_median)), TARGET)
                        .note(note(answered))
                }
                Ok((_, _, (stdout, _))) => Row::skipped(
                    id,
                    what,
                    TARGET,
                    format!("the Read was not answered: {}", String::from_utf8_lossy(&stdout).trim()),
                ),
                Err(error) => Row::skipped(id, what, TARGET, format!("{error:#}")),
            })
            .collect()
    }
}

/// Writes the file to read and `mcp serve`'s input under `dir`; returns their paths.
fn fixture(dir: &Path) -> std::io::Result<(std::path::PathBuf, std::path::PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let file = dir.join("a.txt");
    std::fs::write(&file, "alpha\n")?;
    let read = json_path(&file);
    let requests = [
        r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}"#.to_owned(),
        r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#.to_owned(),
        format!(
            r#"{{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {{"name": "Read", "arguments": {{"file_path": {read}}}}}}}"#
        ),
    ];
    let input = dir.join("serve-input.jsonl");
    std::fs::write(&input, requests.join("\n") + "\n")?;
    Ok((file, input))
}

/// `path` as a JSON string.
fn json_path(path: &Path) -> String {
    super::json_string(&path.to_string_lossy())
}

/// Whether the output holds the file's line and no error (`mcp serve`'s JSON-RPC answer or
/// `toolgate call`'s output).
fn read_answered(stdout: &[u8]) -> bool {
    let text = String::from_utf8_lossy(stdout);
    text.contains("alpha") && !text.contains(r#""isError":true"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_counts_only_with_the_line_and_no_error() {
        assert!(read_answered(br#"{"id":2,"result":{"content":[{"type":"text","text":"1\talpha"}]}}"#));
        assert!(!read_answered(br#"{"id":2,"result":{"content":[{"text":"alpha"}],"isError":true}}"#));
        assert!(!read_answered(b"{}"));
    }
}
