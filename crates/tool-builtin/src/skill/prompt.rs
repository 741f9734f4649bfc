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

/// One line per skill (`- name: description (source)`) when they all fit the budget.
/// Otherwise full lines while the names of the rest still fit after them, then one line
/// of names, then a count of any skill that did not fit even by name.
pub(crate) fn listing(catalog: &SkillCatalog, budget: usize) -> String {
    const NAMES_HEADER: &str = "- (descriptions left out to fit) ";
    /// Room kept for the closing count line.
    const COUNT_ROOM: usize = 80;
    let skills = catalog.skills();
    let lines: Vec<String> =
        skills.iter().map(|s| format!("- {}: {} ({})\n", s.name, s.description, s.source.label())).collect();
    if lines.iter().map(|l| l.chars().count()).sum::<usize>() <= budget {
        return lines.concat();
    }
    let name_cost: Vec<usize> = skills.iter().map(|s| s.name.chars().count() + 2).collect();
    // rest[i]: what naming skills i.. costs.
    let mut rest = vec![0usize; skills.len() + 1];
    for i in (0..skills.len()).rev() {
        rest[i] = rest[i + 1] + name_cost[i];
    }
    let mut out = String::new();
    let mut used = 0usize;
    let mut i = 0;
    while i < skills.len() {
        let n = lines[i].chars().count();
        if used + n + NAMES_HEADER.len() + rest[i + 1] + COUNT_ROOM > budget {
            break;
        }
        used += n;
        out.push_str(&lines[i]);
        i += 1;
    }
    let mut names = Vec::new();
    used += NAMES_HEADER.len();
    while i < skills.len() && used + name_cost[i] + COUNT_ROOM <= budget {
        used += name_cost[i];
        names.push(skills[i].name.as_str());
        i += 1;
    }
    if !names.is_empty() {
        out.push_str(&format!("{NAMES_HEADER}{}\n", names.join(", ")));
    }
    if i < skills.len() {
        let more = skills.len() - i;
        out.push_str(&format!(
            "- … and {more} more skill{} not listed (over the {budget}-character budget)\n",
            if more == 1 { "" } else { "s" }
        ));
    }
    out
}
