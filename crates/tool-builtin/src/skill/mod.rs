//! Skill: runs a skill or custom command in the main conversation.
//!
//! Claude Code's `Skill` (`skill`, `args`), which took over `SlashCommand`. Skills are
//! found once, when the tool set is built for a project ([`SkillCatalog::discover`]):
//! `.claude/skills/<name>/SKILL.md` in the project and in `~/.claude`, and custom commands
//! `.claude/commands/<name>.md` in both. The description lists them within a character
//! budget (`SLASH_COMMAND_TOOL_CHAR_BUDGET`, default 15,000). A call returns the skill's
//! body, read afresh, with `$ARGUMENTS` replaced by `args`, and the skill's folder.
//!
//! With no skill found the tool is not offered (`is_enabled` is false): toolgate ships no
//! bundled skills, so an empty Skill tool would only cost the model context.
//!
//! The permission target is `name` or `name args`, so `Skill(name)` rules match the bare
//! call and `Skill(name *)` rules match it with any arguments.

mod catalog;
mod front_matter;
mod prompt;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate_core::{DynTool, ToolContext, ToolError, ToolOutput, TypedTool, typed};

pub use catalog::{SkillCatalog, SkillEntry, SkillSource};

/// Skill's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SkillInput {
    /// The skill's name, e.g. "commit", "review-pr" or "pdf".
    pub(crate) skill: String,
    /// Optional arguments for the skill.
    #[serde(default)]
    pub(crate) args: Option<String>,
}

impl SkillInput {
    /// The name without a leading `/` and surrounding spaces.
    fn name(&self) -> &str {
        self.skill.trim().trim_start_matches('/')
    }

    /// The arguments, trimmed; `None` when empty.
    fn args(&self) -> Option<&str> {
        self.args.as_deref().map(str::trim).filter(|a| !a.is_empty())
    }
}

/// The Skill tool, over the skills found for one project.
#[derive(Debug, Clone)]
pub(crate) struct Skill {
    catalog: SkillCatalog,
    description: String,
}

impl Skill {
    /// The tool over `catalog`, its list cut to the budget from the environment.
    pub(crate) fn tool(catalog: SkillCatalog) -> DynTool {
        Self::with_budget(catalog, prompt::budget_from_env())
    }

    /// The tool with an explicit budget for the skill list.
    pub(crate) fn with_budget(catalog: SkillCatalog, budget: usize) -> DynTool {
        let description = prompt::description(&catalog, budget);
        typed(Self { catalog, description })
    }

    fn find(&self, input: &SkillInput) -> Result<&SkillEntry, ToolError> {
        let name = input.name();
        if name.is_empty() {
            return Err(ToolError::invalid_input("skill is empty")
                .with_hint(format!("pass a skill name, one of: {}", self.names(20))));
        }
        self.catalog.get(name).ok_or_else(|| {
            let mut near: Vec<(usize, &str)> = self
                .catalog
                .skills()
                .iter()
                .map(|s| (distance(&s.name.to_lowercase(), &name.to_lowercase()), s.name.as_str()))
                .filter(|(d, n)| *d <= 3 || n.contains(name) || name.contains(n))
                .collect();
            near.sort();
            let hint = match near.first() {
                Some((_, n)) => format!("did you mean `{n}`? Available skills: {}", self.names(20)),
                None => format!("available skills: {}", self.names(20)),
            };
            ToolError::not_found(format!("unknown skill: {name}")).with_hint(hint)
        })
    }

    fn names(&self, max: usize) -> String {
        let skills = self.catalog.skills();
        let mut names: Vec<&str> = skills.iter().take(max).map(|s| s.name.as_str()).collect();
        if skills.len() > max {
            names.push("…");
        }
        names.join(", ")
    }
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The body with `$ARGUMENTS` replaced; arguments given to a body that does not mention
/// `$ARGUMENTS` are appended, so they are never lost.
pub(crate) fn substitute(body: &str, args: Option<&str>) -> String {
    if body.contains("$ARGUMENTS") {
        return body.replace("$ARGUMENTS", args.unwrap_or(""));
    }
    match args {
        Some(args) => format!("{}\n\nARGUMENTS: {args}", body.trim_end()),
        None => body.to_owned(),
    }
}

impl TypedTool for Skill {
    type Input = SkillInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "Skill"
    }

    fn description(&self) -> String {
        self.description.clone()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("run a saved skill or custom slash command")
    }

    fn is_enabled(&self) -> bool {
        !self.catalog.is_empty()
    }

    async fn validate(&self, input: &SkillInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        self.find(input).map(|_| ())
    }

    fn permission_target(&self, input: &SkillInput) -> Option<String> {
        Some(match input.args() {
            Some(args) => format!("{} {args}", input.name()),
            None => input.name().to_owned(),
        })
    }

    async fn call(&self, input: SkillInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let entry = self.find(&input)?;
        let text = tokio::fs::read_to_string(&entry.file).await.map_err(|e| {
            ToolError::from_io(&e, &entry.file)
                .with_hint("the skill's file changed since the session started; ask the user to check it")
        })?;
        let doc = front_matter::parse(&text);
        let body = substitute(doc.body.trim_start_matches(['\n', '\r']), input.args());
        let dir = entry.dir.display().to_string();
        let structured = json!({
            "success": true,
            "commandName": entry.name,
            "source": entry.source.label(),
            "path": dir,
            "file": entry.file,
        });
        Ok(ToolOutput::text(format!("Base directory for this skill: {dir}\n\n{body}")).with_structured(structured))
    }

    fn render_use(&self, input: &SkillInput) -> String {
        match input.args() {
            Some(args) => format!("Skill({} {args})", input.name()),
            None => format!("Skill({})", input.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_substituted_or_appended() {
        assert_eq!(substitute("fix issue $ARGUMENTS now", Some("12")), "fix issue 12 now");
        assert_eq!(substitute("a $ARGUMENTS b $ARGUMENTS", None), "a  b ");
        assert_eq!(substitute("no placeholder\n", Some("x y")), "no placeholder\n\nARGUMENTS: x y");
        assert_eq!(substitute("no placeholder\n", None), "no placeholder\n");
    }

    #[test]
    fn names_are_checked() {
        assert!(catalog::valid_name("review-pr"));
        assert!(catalog::valid_name("ns:cmd_1.2"));
        for bad in ["", "../x", "a/b", ".hidden", "-x", "sp ace", &"x".repeat(65)] {
            assert!(!catalog::valid_name(bad), "{bad}");
        }
        assert_eq!(distance("comit", "commit"), 1);
    }
}
