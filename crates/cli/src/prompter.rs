//! The terminal prompter: asks a person on the terminal (stderr and `/dev/tty`), one
//! keypress: `y` once, `a` always (saving the shown rule), `n` (or Ctrl-C, Esc) no.

use console::{Key, Term, style};
use serde_json::Value;
use toolgate_core::BoxFuture;
use toolgate_permissions::{PromptAnswer, PromptRequest, Prompter};

/// Prompts on the controlling terminal.
#[derive(Debug, Clone)]
pub struct TerminalPrompter {
    term: Term,
}

impl TerminalPrompter {
    /// A prompter when stderr is a terminal a person can answer on; `None` otherwise (then
    /// asks become denials naming the rule that would allow the call).
    pub fn open() -> Option<Self> {
        let term = Term::stderr();
        if !term.is_term() || std::env::var_os("TOOLGATE_NO_PROMPT").is_some() {
            return None;
        }
        Some(Self { term })
    }

    fn ask(&self, request: &PromptRequest) -> PromptAnswer {
        let term = &self.term;
        let always = match request.suggestions.as_slice() {
            [] => None,
            rules => Some(rules.join(", ")),
        };
        let _ = term.write_line("");
        let _ =
            term.write_line(&format!("{} {}", style("toolgate wants to run").bold(), style(&request.summary).cyan()));
        let _ = term.write_line(&format!("  {}", style(&request.message).dim()));
        for line in preview(&request.tool_name, &request.input) {
            let _ = term.write_line(&format!("    {line}"));
        }
        let _ = term.write_line(&format!("  {} yes, once", style("[y]").green().bold()));
        if let Some(rules) = &always {
            let _ = term.write_line(&format!(
                "  {} yes, and always allow {}",
                style("[a]").green().bold(),
                style(rules).bold()
            ));
        }
        let _ = term.write_line(&format!("  {} no", style("[n]").red().bold()));
        loop {
            match term.read_key() {
                Ok(Key::Char('y' | 'Y')) => return PromptAnswer::AllowOnce,
                Ok(Key::Char('a' | 'A')) if always.is_some() => return PromptAnswer::AllowAlways,
                Ok(Key::Char('n' | 'N') | Key::Escape | Key::CtrlC) | Err(_) => {
                    return PromptAnswer::Deny { feedback: None };
                }
                Ok(_) => {}
            }
        }
    }
}

impl Prompter for TerminalPrompter {
    fn prompt<'a>(&'a self, request: &'a PromptRequest) -> BoxFuture<'a, PromptAnswer> {
        Box::pin(async move {
            let this = self.clone();
            let request = request.clone();
            // Reading a key blocks: keep it off the runtime's workers.
            tokio::task::spawn_blocking(move || this.ask(&request))
                .await
                .unwrap_or(PromptAnswer::Deny { feedback: None })
        })
    }
}

/// At most this many lines of a change are shown in a prompt.
const PREVIEW_LINES: usize = 40;

/// What a file-changing call would change, as coloured diff lines (from the input alone;
/// nothing is read).
fn preview(tool: &str, input: &Value) -> Vec<String> {
    let text = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or_default();
    let mut lines: Vec<String> = Vec::new();
    let mut change = |old: &str, new: &str| {
        lines.extend(old.lines().map(|l| style(format!("-{l}")).red().to_string()));
        lines.extend(new.lines().map(|l| style(format!("+{l}")).green().to_string()));
    };
    match tool {
        "Edit" => change(text("old_string"), text("new_string")),
        "MultiEdit" => {
            for edit in input.get("edits").and_then(Value::as_array).into_iter().flatten() {
                let get = |k: &str| edit.get(k).and_then(Value::as_str).unwrap_or_default();
                change(get("old_string"), get("new_string"));
            }
        }
        "Write" => change("", text("content")),
        "NotebookEdit" => change("", text("new_source")),
        "AskUserQuestion" => {
            for q in input.get("questions").and_then(Value::as_array).into_iter().flatten() {
                let get = |k: &str| q.get(k).and_then(Value::as_str).unwrap_or_default();
                lines.push(format!("{} {}", style(format!("[{}]", get("header"))).cyan(), get("question")));
            }
            // Answers filled in before the person sees the questions are used as given: show them.
            for (question, answer) in input.get("answers").and_then(Value::as_object).into_iter().flatten() {
                let answer = answer.as_str().unwrap_or_default();
                lines.push(style(format!("already answered: {question} → {answer}")).yellow().to_string());
            }
        }
        "ApplyPatch" => {
            for line in text("patch").lines() {
                lines.push(match line.chars().next() {
                    Some('+') if !line.starts_with("+++") => style(line).green().to_string(),
                    Some('-') if !line.starts_with("---") => style(line).red().to_string(),
                    _ => line.to_owned(),
                });
            }
        }
        _ => {}
    }
    if lines.len() > PREVIEW_LINES {
        let more = lines.len() - PREVIEW_LINES;
        lines.truncate(PREVIEW_LINES);
        lines.push(style(format!("… {more} more lines")).dim().to_string());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_show_what_would_change() {
        console::set_colors_enabled(false);
        let edit = serde_json::json!({"file_path": "/a", "old_string": "one\ntwo", "new_string": "uno"});
        assert_eq!(preview("Edit", &edit), ["-one", "-two", "+uno"]);
        let write = serde_json::json!({"file_path": "/a", "content": "x\n".repeat(50)});
        let lines = preview("Write", &write);
        assert_eq!(lines.len(), PREVIEW_LINES + 1);
        assert_eq!(lines.last().map(String::as_str), Some("… 10 more lines"));
        assert!(preview("Bash", &serde_json::json!({"command": "ls"})).is_empty());
        let ask = serde_json::json!({"questions": [{"question": "Which database?", "header": "Database"}]});
        assert_eq!(preview("AskUserQuestion", &ask), ["[Database] Which database?"]);
        let prefilled = serde_json::json!({"questions": [], "answers": {"Which database?": "SQLite"}});
        assert_eq!(preview("AskUserQuestion", &prefilled), ["already answered: Which database? → SQLite"]);
    }
}
