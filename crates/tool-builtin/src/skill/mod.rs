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
        let dir = entry.dir.display().to_string();
        let structured = json!({
            "success": true,
            "commandName": entry.name,
            "source": entry.source.label(),
            "path": dir,
            "file": entry.file,
        });
        Ok(ToolOutput::text(entry.render_text(&text, input.args())).with_structured(structured))
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

    /// Writes `n` project skills whose descriptions are `len` characters long.
    fn many_skills(n: usize, len: usize) -> (tempfile::TempDir, SkillCatalog) {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..n {
            let folder = dir.path().join(format!(".claude/skills/skill-{i:03}"));
            std::fs::create_dir_all(&folder).unwrap();
            let description = format!("{i:03} {}", "d".repeat(len.saturating_sub(4)));
            std::fs::write(folder.join("SKILL.md"), format!("---\ndescription: {description}\n---\nbody {i}\n"))
                .unwrap();
        }
        let catalog = SkillCatalog::discover(dir.path(), None);
        assert_eq!(catalog.skills().len(), n);
        (dir, catalog)
    }

    fn listed(tool: &DynTool) -> String {
        let description = tool.description();
        description.split_once("Available skills:\n").unwrap().1.to_owned()
    }

    #[test]
    fn the_skill_list_fits_its_budget() {
        // 40 lines of 124 characters: 4,960 in all.
        let (_dir, catalog) = many_skills(40, 100);
        let all = listed(&Skill::with_budget(catalog.clone(), prompt::DEFAULT_BUDGET));
        assert_eq!(all.lines().count(), 40, "everything fits the default budget");
        assert!(all.starts_with("- skill-000: 000 ddd"));

        // 1,000 characters: a few full lines, then every other name.
        let cut = listed(&Skill::with_budget(catalog.clone(), 1_000));
        assert!(cut.chars().count() <= 1_000, "{} chars", cut.chars().count());
        let full_lines = cut.lines().filter(|l| l.contains(" (project)")).count();
        assert!(full_lines >= 2, "{cut}");
        let names = cut.lines().find(|l| l.starts_with("- (descriptions left out to fit) ")).unwrap();
        assert_eq!(full_lines + names.matches("skill-").count(), 40, "every skill is listed or named: {cut}");
        assert!(!cut.contains("more skills not listed"), "{cut}");

        // 300 characters: not even every name fits; the rest are counted.
        let cut = listed(&Skill::with_budget(catalog.clone(), 300));
        assert!(cut.chars().count() <= 300, "{} chars", cut.chars().count());
        let last = cut.lines().last().unwrap();
        assert!(last.ends_with("more skills not listed (over the 300-character budget)"), "{cut}");
        let more: usize = last.trim_start_matches("- … and ").split(' ').next().unwrap().parse().unwrap();
        let named = cut.lines().map(|l| l.matches("skill-").count()).sum::<usize>();
        assert_eq!(named + more, 40, "{cut}");

        // The default budget, 15,000 characters, cuts 200 lines of about 124.
        let (_dir, catalog) = many_skills(200, 100);
        let cut = listed(&Skill::with_budget(catalog, prompt::DEFAULT_BUDGET));
        assert!(cut.chars().count() <= prompt::DEFAULT_BUDGET);
        assert!(cut.lines().filter(|l| l.contains(" (project)")).count() < 200, "{cut}");
        assert!(cut.contains("- (descriptions left out to fit) "), "{cut}");
    }

    #[test]
    fn a_project_in_the_home_directory_is_read_once() {
        let (dir, _) = many_skills(2, 10);
        let catalog = SkillCatalog::discover(dir.path(), Some(&dir.path().join(".claude")));
        assert_eq!(catalog.skills().len(), 2);
        assert!(catalog.skills().iter().all(|s| s.source == SkillSource::User));
        assert!(catalog.diagnostics().is_empty(), "{:?}", catalog.diagnostics());
    }

    #[tokio::test]
    async fn a_skill_is_read_afresh_with_its_arguments() {
        let (dir, catalog) = many_skills(1, 10);
        let tool = Skill::tool(catalog);
        let ctx = ToolContext::new(dir.path());
        let out = tool.call(serde_json::json!({"skill": "skill-000", "args": "x"}), &ctx).await.unwrap();
        let folder = dir.path().join(".claude/skills/skill-000");
        assert_eq!(
            out.to_text(),
            format!("Base directory for this skill: {}\n\nbody 0\n\nARGUMENTS: x", folder.display())
        );
        assert_eq!(out.structured.unwrap()["commandName"], "skill-000");
        std::fs::remove_dir_all(&folder).unwrap();
        let err = tool.call(serde_json::json!({"skill": "skill-000"}), &ctx).await.unwrap_err();
        assert_eq!(err.kind(), toolgate_core::ToolErrorKind::NotFound);
        assert!(err.hint().is_some());
        let err = tool.validate_input(&serde_json::json!({"skill": "  "}), &ctx).await.unwrap_err();
        assert_eq!(err.message(), "skill is empty");
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
