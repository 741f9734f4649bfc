//! The engine's rules with per-tool indexes, so one call looks only at the rules that can
//! apply to it.
//!
//! A rule book holds the compiled rules in settings order. The first call of a tool builds
//! that tool's [`ToolRules`]: the rules that name it, the parameter rules among them, and
//! for command specifiers an index by the command's first word. Adding rules clears the
//! indexes; they are rebuilt on the next call.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use toolgate_core::PermissionBehavior;

use crate::pattern::CommandPattern;
use crate::rules::{CompiledRule, Spec};

/// Compiled rules, in settings order, with per-tool indexes built on first use.
pub(crate) struct RuleBook {
    /// Every rule.
    pub rules: Vec<CompiledRule>,
    /// Each tool's view of `rules`, by canonical tool name.
    by_tool: RwLock<HashMap<String, Arc<ToolRules>>>,
}

impl RuleBook {
    /// A book over `rules`.
    pub fn new(rules: Vec<CompiledRule>) -> Self {
        RuleBook { rules, by_tool: RwLock::new(HashMap::new()) }
    }

    /// Adds rules at the end and drops the indexes built so far.
    pub fn extend(&mut self, rules: impl IntoIterator<Item = CompiledRule>) {
        self.rules.extend(rules);
        self.by_tool.get_mut().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// The rules that can apply to calls of `tool` (a canonical name).
    pub fn for_tool(&self, tool: &str) -> Arc<ToolRules> {
        if let Some(found) = self.by_tool.read().unwrap_or_else(PoisonError::into_inner).get(tool) {
            return Arc::clone(found);
        }
        let built = Arc::new(ToolRules::build(&self.rules, tool));
        let mut by_tool = self.by_tool.write().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(by_tool.entry(tool.to_owned()).or_insert(built))
    }
}

/// The rules that name one tool, as indexes into [`RuleBook::rules`], in settings order.
pub(crate) struct ToolRules {
    /// Every rule whose tool part names the tool.
    pub relevant: Vec<usize>,
    /// The parameter rules (`Tool(param:value)`) among them.
    pub params: Vec<usize>,
    /// The command-specifier rules among them (not bare), by first word.
    pub commands: CommandIndex,
}

impl ToolRules {
    fn build(rules: &[CompiledRule], tool: &str) -> Self {
        let relevant: Vec<usize> = (0..rules.len()).filter(|&i| rules[i].names_tool(tool)).collect();
        let params = relevant.iter().copied().filter(|&i| rules[i].param.is_some()).collect();
        let mut commands = CommandIndex::default();
        for &i in &relevant {
            if let Spec::Command(pattern) = &rules[i].spec {
                commands.insert(i, pattern);
            }
        }
        ToolRules { relevant, params, commands }
    }
}

/// Command-specifier rules by the first word every command they match must start with.
#[derive(Default)]
pub(crate) struct CommandIndex {
    /// Rules whose matches all start with this word, then whitespace or the end; sorted by
    /// word (a binary search over a few dozen words beats hashing each command's word).
    by_word: Vec<(Box<str>, Vec<usize>)>,
    /// Rules whose first word is not fixed (`ls*`, `* --version`).
    any: Vec<usize>,
}

impl CommandIndex {
    fn insert(&mut self, index: usize, pattern: &CommandPattern) {
        match fixed_first_word(pattern) {
            Some(word) => match self.by_word.binary_search_by(|(w, _)| (**w).cmp(word)) {
                Ok(at) => self.by_word[at].1.push(index),
                Err(at) => self.by_word.insert(at, (word.into(), vec![index])),
            },
            None => self.any.push(index),
        }
    }

    /// The rules whose first word is `word`.
    fn words(&self, word: &str) -> &[usize] {
        match self.by_word.binary_search_by(|(w, _)| (**w).cmp(word)) {
            Ok(at) => &self.by_word[at].1,
            Err(_) => &[],
        }
    }

    /// The first rule, in settings order, with `behavior` whose pattern matches one of
    /// `commands`.
    pub fn find<'r>(
        &self,
        rules: &'r [CompiledRule],
        behavior: PermissionBehavior,
        commands: &[&str],
    ) -> Option<&'r CompiledRule> {
        let mut best: Option<usize> = None;
        for command in commands {
            let word = first_word(command);
            let fixed = self.words(word);
            for list in [fixed, self.any.as_slice()] {
                // Each list is in settings order: its first hit is its best.
                let hit = list.iter().copied().take_while(|&i| best.is_none_or(|b| i < b)).find(|&i| {
                    let rule = &rules[i];
                    rule.behavior() == behavior && matches!(&rule.spec, Spec::Command(p) if p.matches(command))
                });
                if hit.is_some() {
                    best = hit;
                }
            }
        }
        best.map(|i| &rules[i])
    }
}

/// The text before the first whitespace.
fn first_word(command: &str) -> &str {
    command.split(char::is_whitespace).next().unwrap_or_default()
}

/// The word every command `pattern` matches starts with (followed by whitespace or the
/// end), when the pattern fixes one.
///
/// A match starts with the pattern's literal prefix. If that prefix holds whitespace, the
/// text before it is the first word. If it holds none, an exact or `prefix:*` pattern still
/// fixes it (the match is the prefix alone or the prefix then whitespace); a `*` right after
/// it (`ls*`) does not.
fn fixed_first_word(pattern: &CommandPattern) -> Option<&str> {
    let literal = pattern.literal_prefix();
    match literal.find(char::is_whitespace) {
        Some(0) => None,
        Some(at) => Some(&literal[..at]),
        None if literal.is_empty() => None,
        None => match pattern {
            CommandPattern::Exact(_) | CommandPattern::Prefix(_) => Some(literal),
            CommandPattern::Wildcard { .. } => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index must agree with trying every pattern: for each pattern and command, the
    /// command is a candidate whenever the pattern matches it.
    #[test]
    fn the_first_word_never_hides_a_match() {
        let patterns = [
            "git status",
            "git:*",
            "git commit:*",
            "git *",
            "ls*",
            "* --version",
            "docker * ps",
            "npm\trun:*",
            " git:*",
            "echo \\*",
            "rm -rf *",
            "*",
            "make",
        ];
        let commands = [
            "git status",
            "git",
            "git\tstatus",
            "gitk",
            "git commit -m x",
            "git commit\n-m x",
            "ls",
            "lsof -i",
            "node --version",
            "docker compose ps",
            "npm\trun build",
            " git status",
            "echo *",
            "rm -rf /tmp/x",
            "rm -rf",
            "make",
            "make all",
            "",
        ];
        for spec in patterns {
            let pattern = CommandPattern::parse(spec).unwrap();
            let mut index = CommandIndex::default();
            index.insert(0, &pattern);
            for command in commands {
                let word = first_word(command);
                let candidate = index.words(word).contains(&0) || index.any.contains(&0);
                if pattern.matches(command) {
                    assert!(candidate, "{spec:?} matches {command:?} but the index hides it");
                }
            }
        }
    }

    #[test]
    fn fixed_words() {
        let word = |spec: &str| fixed_first_word(&CommandPattern::parse(spec).unwrap()).map(str::to_owned);
        assert_eq!(word("git status").as_deref(), Some("git"));
        assert_eq!(word("git:*").as_deref(), Some("git"));
        assert_eq!(word("make").as_deref(), Some("make"));
        assert_eq!(word("git *").as_deref(), Some("git"));
        assert_eq!(word("ls*"), None);
        assert_eq!(word("* --version"), None);
        assert_eq!(word(" git:*"), None);
    }
}
