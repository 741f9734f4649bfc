//! Subagent types from `.claude/agents/*.md`: YAML-style front matter (`name`,
//! `description`, `tools`, `model`) and the body as the system prompt.

use std::path::{Path, PathBuf};

use super::runner::SubagentType;

/// The subagent types of a project and a user, and what was wrong with their files.
///
/// Types come from `<user claude dir>/agents/*.md` (user; see [`crate::user_claude_dir`]),
/// then `<project>/.claude/agents/*.md`
/// (project, which wins on a name clash), after the built-in `general-purpose` (which a
/// file of that name replaces). Each file holds front matter between `---` lines:
/// `name` and `description` are required, `tools` (a comma-separated list or a YAML
/// list; absent means every tool) and `model` optional; the body is the system prompt.
/// A file that cannot be used is skipped with a diagnostic, never silently.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let agents = dir.path().join(".claude/agents");
/// std::fs::create_dir_all(&agents).unwrap();
/// std::fs::write(
///     agents.join("reviewer.md"),
///     "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\nmodel: haiku\n---\nBe terse.\n",
/// ).unwrap();
/// let (types, diagnostics) = toolgate_builtin::discover_subagent_types(dir.path(), None);
/// assert!(diagnostics.is_empty());
/// let reviewer = types.iter().find(|t| t.name == "reviewer").unwrap();
/// assert_eq!(reviewer.tools.as_deref(), Some(&["Read".to_owned(), "Grep".to_owned()][..]));
/// assert_eq!(reviewer.system_prompt, "Be terse.");
/// assert!(types.iter().any(|t| t.name == "general-purpose"));
/// ```
pub fn discover_subagent_types(project_dir: &Path, user_claude_dir: Option<&Path>) -> (Vec<SubagentType>, Vec<String>) {
    let mut types = vec![SubagentType::general_purpose()];
    let mut diagnostics = Vec::new();
    let dirs =
        user_claude_dir.map(|d| d.join("agents")).into_iter().chain([project_dir.join(".claude").join("agents")]);
    for dir in dirs {
        for path in agent_files(&dir) {
            match std::fs::read_to_string(&path).map_err(|e| e.to_string()).and_then(|text| parse_agent_file(&text)) {
                Ok(mut parsed) => {
                    parsed.source = Some(path);
                    types.retain(|t| t.name != parsed.name);
                    types.push(parsed);
                }
                Err(why) => diagnostics.push(format!("subagent file {} skipped: {why}", path.display())),
            }
        }
    }
    types.sort_by(|a, b| a.name.cmp(&b.name));
    (types, diagnostics)
}

/// The `.md` files of `dir`, sorted (none when it does not exist).
fn agent_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && p.is_file())
        .collect();
    files.sort();
    files
}

/// One agent file: front matter and body.
pub(crate) fn parse_agent_file(text: &str) -> Result<SubagentType, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("it does not start with a `---` front matter line".to_owned());
    }
    let mut fields: Vec<(String, FieldValue)> = Vec::new();
    let mut closed = false;
    let mut consumed = 1;
    for line in lines.by_ref() {
        consumed += 1;
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(item) = trimmed.strip_prefix("- ")
            && line.starts_with([' ', '\t', '-'])
            && let Some((_, FieldValue::List(items))) = fields.last_mut()
        {
            items.push(unquote(item).to_owned());
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(format!("front matter line `{trimmed}` is not `key: value`"));
        };
        let value = value.trim();
        let value = if value.is_empty() {
            FieldValue::List(Vec::new())
        } else if let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
            FieldValue::List(split_list(inner))
        } else {
            FieldValue::Text(unquote(value).to_owned())
        };
        fields.push((key.trim().to_owned(), value));
    }
    if !closed {
        return Err("the front matter has no closing `---` line".to_owned());
    }
    let body: Vec<&str> = text.lines().skip(consumed).collect();
    let text_field = |name: &str| {
        fields.iter().find(|(k, _)| k == name).and_then(|(_, v)| match v {
            FieldValue::Text(t) => Some(t.clone()),
            FieldValue::List(items) if items.is_empty() => None,
            FieldValue::List(items) => Some(items.join(", ")),
        })
    };
    let name = text_field("name").ok_or("the front matter has no `name`")?;
    if !super::valid_type_name(&name) {
        return Err(format!("the name `{name}` may hold only letters, digits, `-`, `_` and `.`"));
    }
    let description = text_field("description").ok_or("the front matter has no `description`")?;
    let tools = fields.iter().find(|(k, _)| k == "tools").and_then(|(_, v)| match v {
        FieldValue::Text(t) => Some(split_list(t)),
        FieldValue::List(items) if items.is_empty() => None,
        FieldValue::List(items) => Some(items.clone()),
    });
    // `tools: *` means every tool, as when the field is absent.
    let tools = tools.filter(|t| !(t.len() == 1 && t[0] == "*"));
    let mut parsed = SubagentType::new(name, description).with_system_prompt(body.join("\n").trim());
    parsed.tools = tools;
    parsed.model = text_field("model");
    Ok(parsed)
}

enum FieldValue {
    Text(String),
    List(Vec<String>),
}

fn split_list(text: &str) -> Vec<String> {
    text.split(',').map(|s| unquote(s.trim()).to_owned()).filter(|s| !s.is_empty()).collect()
}

fn unquote(text: &str) -> &str {
    let text = text.trim();
    for q in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(q).and_then(|t| t.strip_suffix(q)) {
            return inner;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_forms() {
        let block = parse_agent_file(
            "---\nname: \"writer\"\ndescription: 'Writes docs: carefully'\ntools:\n  - Read\n  - Write\n---\n\nBody\n",
        )
        .unwrap();
        assert_eq!(block.name, "writer");
        assert_eq!(block.description, "Writes docs: carefully");
        assert_eq!(block.tools, Some(vec!["Read".to_owned(), "Write".to_owned()]));
        assert_eq!(block.system_prompt, "Body");
        let inline = parse_agent_file("---\nname: a\ndescription: d\ntools: [Bash, \"Read\"]\n---\n").unwrap();
        assert_eq!(inline.tools, Some(vec!["Bash".to_owned(), "Read".to_owned()]));
        let all = parse_agent_file("---\nname: a\ndescription: d\ntools: '*'\n---\n").unwrap();
        assert_eq!(all.tools, None);
    }

    #[test]
    fn broken_files_say_why() {
        assert!(parse_agent_file("name: a\n").unwrap_err().contains("front matter"));
        assert!(parse_agent_file("---\nname: a\n").unwrap_err().contains("closing"));
        assert!(parse_agent_file("---\ndescription: d\n---\n").unwrap_err().contains("`name`"));
        assert!(parse_agent_file("---\nname: a b\ndescription: d\n---\n").unwrap_err().contains("letters"));
    }

    #[test]
    fn project_wins_over_user_and_bad_files_are_reported() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        for (root, desc) in [(home.path(), "user"), (project.path(), "project")] {
            let dir = root.join(".claude/agents");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("x.md"), format!("---\nname: x\ndescription: {desc}\n---\n")).unwrap();
        }
        std::fs::write(project.path().join(".claude/agents/bad.md"), "no front matter").unwrap();
        let (types, diagnostics) = discover_subagent_types(project.path(), Some(&home.path().join(".claude")));
        assert_eq!(types.iter().filter(|t| t.name == "x").count(), 1);
        assert_eq!(types.iter().find(|t| t.name == "x").unwrap().description, "project");
        assert_eq!(diagnostics.len(), 1);
        assert!(diagnostics[0].contains("bad.md"), "{diagnostics:?}");
    }
}
