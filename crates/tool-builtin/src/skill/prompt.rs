//! Skill's model-facing description, with the list of skills cut to a character budget.

use super::catalog::SkillCatalog;

/// The default budget for the skill list, in characters: Claude Code's
/// `SLASH_COMMAND_TOOL_CHAR_BUDGET` default (15,000), which the same variable overrides.
pub(crate) const DEFAULT_BUDGET: usize = 15_000;

/// The budget from `SLASH_COMMAND_TOOL_CHAR_BUDGET`, else [`DEFAULT_BUDGET`].
pub(crate) fn budget_from_env() -> usize {
    std::env::var("SLASH_COMMAND_TOOL_CHAR_BUDGET")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(DEFAULT_BUDGET)
}

/// The description: how to use the tool, then the skills.
pub(super) fn description(catalog: &SkillCatalog, budget: usize) -> String {
    format!(
        "\
Runs a skill in the main conversation. A skill is a saved set of instructions for a task \
(a SKILL.md file in .claude/skills/<name>/, or a custom command in .claude/commands/<name>.md), \
written by the user or the project.

- When the user's request matches a skill's description below, or the user names one \
(\"/commit\", \"run the review skill\"), call this tool before doing the work yourself.
- skill: the skill's name exactly as listed (a leading / is ignored). args: optional text \
passed to the skill, e.g. a PR number or a file name.
- The result is the skill's instructions with the arguments filled in, and the folder the \
skill lives in (files it mentions are relative to that folder). Follow the instructions.
- Only call skills from this list; do not invent names.

Available skills:
{}",
        listing(catalog, budget)
    )
}

/// One line per skill (`- name: description (source)`) while the budget lasts; then
/// names only; then a count of what did not fit.
pub(crate) fn listing(catalog: &SkillCatalog, budget: usize) -> String {
    let mut out = String::new();
    let mut used = 0usize;
    let skills = catalog.skills();
    let mut i = 0;
    while i < skills.len() {
        let s = &skills[i];
        let line = format!("- {}: {} ({})\n", s.name, s.description, s.source.label());
        let n = line.chars().count();
        if used + n > budget {
            break;
        }
        used += n;
        out.push_str(&line);
        i += 1;
    }
    if i < skills.len() {
        // Names only for the rest, keeping room for the closing count.
        let mut names = Vec::new();
        let reserve = 80;
        while i < skills.len() {
            let n = skills[i].name.chars().count() + 2;
            if used + n + reserve > budget {
                break;
            }
            used += n;
            names.push(skills[i].name.as_str());
            i += 1;
        }
        if !names.is_empty() {
            out.push_str(&format!("- (descriptions left out to fit) {}\n", names.join(", ")));
        }
        if i < skills.len() {
            out.push_str(&format!(
                "- … and {} more skill{} not listed (over the {budget}-character budget)\n",
                skills.len() - i,
                if skills.len() - i == 1 { "" } else { "s" }
            ));
        }
    }
    out
}
