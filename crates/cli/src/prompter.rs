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

impl TerminalPrompter {
    /// Asks whether to trust the project folder `dir`, whose settings `ignored` names the parts
    /// left out of; `y` trusts (the caller records it), anything else does not.
    pub fn ask_trust(&self, dir: &std::path::Path, ignored: &str) -> bool {
        let term = &self.term;
        let _ = term.write_line("");
        let _ = term.write_line(&format!(
            "{} {}",
            style("toolgate: do you trust the files in").bold(),
            style(dir.display()).cyan()
        ));
        let _ = term.write_line(&format!("  {}", style(ignored).dim()));
        let _ = term.write_line(&format!(
            "  {} yes, trust this folder (recorded in ~/.claude.json, as Claude Code's trust dialog does)",
            style("[y]").green().bold()
        ));
        let _ = term.write_line(&format!("  {} no, its settings only tighten", style("[n]").red().bold()));
        loop {
            match term.read_key() {
                Ok(Key::Char('y' | 'Y')) => return true,
                Ok(Key::Char('n' | 'N') | Key::Escape | Key::CtrlC | Key::Enter) | Err(_) => return false,
                Ok(_) => {}
            }
        }
    }
}

impl TerminalPrompter {
    /// Asks whether the project's MCP server `name` (started as `target`) may start:
    /// `Some(true)` approved, `Some(false)` refused (both saved by the caller), `None` not now.
    #[cfg(feature = "mcp")]
    pub fn ask_mcp_server(&self, name: &str, target: &str) -> Option<bool> {
        let term = &self.term;
        let _ = term.write_line("");
        let _ = term.write_line(&format!(
            "{} {} {}",
            style("toolgate: the project's .mcp.json starts the MCP server").bold(),
            style(name).cyan(),
            style(format!("({target})")).dim()
        ));
        let _ = term.write_line(&format!(
            "  {} yes, approve it (saved in .claude/settings.local.json)",
            style("[a]").green().bold()
        ));
        let _ = term.write_line(&format!("  {} no, never start it (saved there too)", style("[n]").red().bold()));
        let _ = term.write_line(&format!("  {} not now", style("[Esc]").bold()));
        loop {
            match term.read_key() {
                Ok(Key::Char('a' | 'A' | 'y' | 'Y')) => return Some(true),
                Ok(Key::Char('n' | 'N')) => return Some(false),
                Ok(Key::Escape | Key::CtrlC) | Err(_) => return None,
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

/// A server's question (`elicitation/create`), asked field by field on the terminal.
#[cfg(feature = "mcp")]
impl toolgate_mcp::Elicitor for TerminalPrompter {
    fn elicit<'a>(
        &'a self,
        server: &'a str,
        message: &'a str,
        schema: &'a Value,
    ) -> BoxFuture<'a, toolgate_mcp::Elicited> {
        let (this, server, message, schema) = (self.clone(), server.to_owned(), message.to_owned(), schema.clone());
        Box::pin(async move {
            // Reading keys and lines blocks: keep it off the runtime's workers.
            tokio::task::spawn_blocking(move || {
                crate::progress::suspend(|| this.ask_fields(&server, &message, &schema))
            })
            .await
            .unwrap_or(toolgate_mcp::Elicited::Cancel)
        })
    }
}

#[cfg(feature = "mcp")]
impl TerminalPrompter {
    fn ask_fields(&self, server: &str, message: &str, schema: &Value) -> toolgate_mcp::Elicited {
        use toolgate_mcp::Elicited;
        let term = &self.term;
        let _ = term.write_line("");
        let _ = term.write_line(&format!("{} {}", style("the MCP server").bold(), style(server).cyan()));
        let _ = term.write_line(&format!("  asks: {message}"));
        let _ = term.write_line(&format!(
            "  {} answer  {} decline  {} dismiss",
            style("[a]").green().bold(),
            style("[d]").red().bold(),
            style("[Esc]").bold()
        ));
        loop {
            match term.read_key() {
                Ok(Key::Char('a' | 'A' | 'y' | 'Y')) => break,
                Ok(Key::Char('d' | 'D' | 'n' | 'N')) => return Elicited::Decline,
                Ok(Key::Escape | Key::CtrlC) | Err(_) => return Elicited::Cancel,
                Ok(_) => {}
            }
        }
        let required: Vec<&str> =
            schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let mut answers = serde_json::Map::new();
        // The required fields first, then the optional ones.
        let mut fields: Vec<(&String, &Value)> = schema["properties"].as_object().into_iter().flatten().collect();
        fields.sort_by_key(|(name, _)| !required.contains(&name.as_str()));
        for (name, field) in fields {
            let title = match field["title"].as_str() {
                Some(title) if title != name => format!("{name}, {title}"),
                _ => name.clone(),
            };
            let mut blanks = 0;
            let choices: Vec<&str> = field["enum"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let hint = match (field["type"].as_str(), choices.is_empty()) {
                (_, false) => format!("one of: {}", choices.join(", ")),
                (Some("boolean"), _) => "y or n".to_owned(),
                (Some(kind), _) => kind.to_owned(),
                (None, _) => "text".to_owned(),
            };
            loop {
                // Enter takes the field's default (SEP-1034), or leaves an optional field out.
                let default = field.get("default").filter(|d| !d.is_null());
                let optional = match (default, required.contains(&name.as_str())) {
                    (Some(d), _) => format!(", Enter for {}", d.as_str().map_or_else(|| d.to_string(), str::to_owned)),
                    (None, false) => ", Enter to skip".to_owned(),
                    (None, true) => String::new(),
                };
                let _ = term.write_str(&format!("  {title} ({hint}{optional}): "));
                let Ok(line) = term.read_line() else { return Elicited::Cancel };
                let line = line.trim();
                if line.is_empty() && optional.is_empty() {
                    // A required field left blank three times (or input that ended): dismissed.
                    blanks += 1;
                    if blanks == 3 {
                        return Elicited::Cancel;
                    }
                    continue;
                }
                if line.is_empty() {
                    if let Some(default) = default {
                        answers.insert(name.clone(), default.clone());
                    }
                    break;
                }
                match field_value(field, &choices, line) {
                    Some(value) => {
                        answers.insert(name.clone(), value);
                        break;
                    }
                    None => {
                        let _ = term.write_line(&format!("  {}", style(format!("expected {hint}")).red()));
                    }
                }
            }
        }
        Elicited::Accept(Value::Object(answers))
    }
}

/// What a typed answer is for a field of an elicitation schema, `None` when it is not one.
#[cfg(feature = "mcp")]
fn field_value(field: &Value, choices: &[&str], line: &str) -> Option<Value> {
    if !choices.is_empty() {
        return choices.contains(&line).then(|| Value::from(line));
    }
    match field["type"].as_str() {
        Some("boolean") => match line {
            "y" | "Y" | "yes" | "true" => Some(Value::Bool(true)),
            "n" | "N" | "no" | "false" => Some(Value::Bool(false)),
            _ => None,
        },
        Some("integer") => line.parse::<i64>().ok().map(Value::from),
        Some("number") => line.parse::<f64>().ok().and_then(serde_json::Number::from_f64).map(Value::Number),
        // A multiple choice: the choices, comma-separated.
        Some("array") => Some(Value::Array(line.split(',').map(|c| Value::from(c.trim())).collect())),
        _ => Some(Value::from(line)),
    }
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

    #[cfg(feature = "mcp")]
    #[test]
    fn typed_answers_follow_the_field() {
        use serde_json::json;
        let field = |kind: &str| json!({"type": kind});
        assert_eq!(super::field_value(&field("boolean"), &[], "y"), Some(json!(true)));
        assert_eq!(super::field_value(&field("boolean"), &[], "maybe"), None);
        assert_eq!(super::field_value(&field("integer"), &[], "42"), Some(json!(42)));
        assert_eq!(super::field_value(&field("integer"), &[], "4.2"), None);
        assert_eq!(super::field_value(&field("number"), &[], "4.5"), Some(json!(4.5)));
        assert_eq!(super::field_value(&field("string"), &["red", "blue"], "blue"), Some(json!("blue")));
        assert_eq!(super::field_value(&field("string"), &["red", "blue"], "green"), None);
        assert_eq!(super::field_value(&field("string"), &[], "Ada"), Some(json!("Ada")));
        assert_eq!(super::field_value(&field("array"), &[], "a, b"), Some(json!(["a", "b"])));
    }
}
