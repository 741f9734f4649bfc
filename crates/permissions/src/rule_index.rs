//! The engine's rules with per-tool indexes, so one call looks only at the rules that can
//! apply to it.
//!
//! A rule book holds the compiled rules in settings order. The first call of a tool builds
//! that tool's [`ToolRules`]: the rules that name it, the parameter rules among them, and
//! for command specifiers an index by the command's first word. The path rules a Bash
//! command's files are checked against (`Read(…)` and `Edit(…)`) are compiled into one glob
//! set per family and behaviour on first use. Adding rules clears the indexes; they are
//! rebuilt on the next call.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use globset::{Candidate, GlobSet};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use toolgate_core::PermissionBehavior;

use crate::pattern::CommandPattern;
use crate::rules::{CompiledRule, Spec};

/// Compiled rules, in settings order, with per-tool indexes built on first use.
pub(crate) struct RuleBook {
    /// Every rule.
    pub rules: Vec<CompiledRule>,
    /// Each tool's view of `rules`, by canonical tool name.
    by_tool: RwLock<FxHashMap<String, Arc<ToolRules>>>,
    /// The `Read(path)` and `Edit(path)` rules as glob sets.
    paths: OnceLock<PathRules>,
}

impl RuleBook {
    /// A book over `rules`.
    pub fn new(rules: Vec<CompiledRule>) -> Self {
        RuleBook { rules, by_tool: RwLock::new(FxHashMap::default()), paths: OnceLock::new() }
    }

    /// Adds rules at the end and drops the indexes built so far.
    pub fn extend(&mut self, rules: impl IntoIterator<Item = CompiledRule>) {
        self.rules.extend(rules);
        self.by_tool.get_mut().unwrap_or_else(PoisonError::into_inner).clear();
        self.paths = OnceLock::new();
    }

    /// The path rules of the `Read` and `Edit` tools, by behaviour.
    pub fn paths(&self) -> &PathRules {
        self.paths.get_or_init(|| PathRules::build(&self.rules))
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
    /// The first tool-wide rule (bare, no parameter) that denies, asks and allows.
    pub tool_wide: [Option<usize>; 3],
}

/// Where a rule of `behavior` goes in a deny, ask, allow triple.
fn slot(behavior: PermissionBehavior) -> usize {
    match behavior {
        PermissionBehavior::Deny => 0,
        PermissionBehavior::Ask => 1,
        PermissionBehavior::Allow => 2,
    }
}

impl ToolRules {
    /// The first tool-wide rule with `behavior`.
    pub fn tool_wide<'r>(&self, rules: &'r [CompiledRule], behavior: PermissionBehavior) -> Option<&'r CompiledRule> {
        self.tool_wide[slot(behavior)].map(|i| &rules[i])
    }

    fn build(rules: &[CompiledRule], tool: &str) -> Self {
        let relevant: Vec<usize> = (0..rules.len()).filter(|&i| rules[i].names_tool(tool)).collect();
        let params = relevant.iter().copied().filter(|&i| rules[i].param.is_some()).collect();
        let mut commands = CommandIndex::default();
        for &i in &relevant {
            if let Spec::Command(pattern) = &rules[i].spec {
                commands.insert(i, pattern);
            }
        }
        let first = |behavior| {
            relevant.iter().copied().find(|&i| {
                let r = &rules[i];
                r.behavior() == behavior && r.is_bare() && r.param.is_none()
            })
        };
        let tool_wide =
            [first(PermissionBehavior::Deny), first(PermissionBehavior::Ask), first(PermissionBehavior::Allow)];
        ToolRules { relevant, params, commands, tool_wide }
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

    /// The first deny, ask and allow rule, in settings order, whose pattern matches one of
    /// `commands` (the spellings of one command); allow rules are tried against the spellings
    /// whose bit is set in `allow_mask` only (bit `k` for `commands[k]`), and, when
    /// `exact_allows`, only those that name a whole command (no `prefix:*`, no `*`). One pass
    /// over the rules the first words name.
    pub fn find_each<'r>(
        &self,
        rules: &'r [CompiledRule],
        commands: &[&str],
        allow_mask: u32,
        exact_allows: bool,
    ) -> Found<'r> {
        let mut best: [Option<usize>; 3] = [None; 3];
        let mut last: Option<(&str, &[usize])> = None;
        for (k, command) in commands.iter().enumerate() {
            let word = first_word(command);
            let fixed = match last {
                Some((seen, fixed)) if seen == word => fixed,
                _ => self.words(word),
            };
            last = Some((word, fixed));
            for list in [fixed, self.any.as_slice()] {
                for &i in list {
                    let rule = &rules[i];
                    let slot = slot(rule.behavior());
                    if slot == 2
                        && (allow_mask >> k & 1 == 0
                            || exact_allows && !matches!(rule.spec, Spec::Command(CommandPattern::Exact(_))))
                    {
                        continue;
                    }
                    // Each list is in settings order: past the best so far, nothing is better.
                    if best[slot].is_some_and(|b| b <= i) {
                        continue;
                    }
                    if matches!(&rule.spec, Spec::Command(p) if p.matches(command)) {
                        best[slot] = Some(i);
                    }
                }
            }
        }
        let [deny, ask, allow] = best.map(|b| b.map(|i| &rules[i]));
        Found { deny, ask, allow }
    }

    /// The first deny rule, or failing that the first ask rule, in settings order, that may
    /// match a command starting with one of `known` once the rest of it is known (see
    /// [`CommandPattern::may_match_after`]). Each of `known` starts with a whole word, the
    /// command's first, so the rules its first word names are the ones to try.
    pub fn may_match<'r>(&self, rules: &'r [CompiledRule], known: &[&str]) -> Option<&'r CompiledRule> {
        let mut best: [Option<usize>; 2] = [None; 2];
        for command in known {
            for &i in self.words(first_word(command)).iter().chain(&self.any) {
                let rule = &rules[i];
                let slot = slot(rule.behavior());
                if slot == 2 || best[slot].is_some_and(|b| b <= i) {
                    continue;
                }
                if matches!(&rule.spec, Spec::Command(p) if p.may_match_after(command)) {
                    best[slot] = Some(i);
                }
            }
        }
        best[0].or(best[1]).map(|i| &rules[i])
    }
}

/// The first rule of each behaviour that [`CommandIndex::find_each`] found.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Found<'r> {
    /// The first deny rule.
    pub deny: Option<&'r CompiledRule>,
    /// The first ask rule.
    pub ask: Option<&'r CompiledRule>,
    /// The first allow rule.
    pub allow: Option<&'r CompiledRule>,
}

/// The path-specifier rules of the tools `Read` and `Edit`, all their globs as one set:
/// checking a file a command touches costs one set match per form of its path, whatever the
/// number of rules, families and behaviours.
pub(crate) struct PathRules {
    /// The rules, as indexes into [`RuleBook::rules`], in settings order.
    members: Vec<usize>,
    /// Every rule's globs; `None` if the set did not build (then each rule is tried alone).
    set: Option<GlobSet>,
    /// For each glob of `set`, the position in `members` of the rule it belongs to.
    owner: Vec<usize>,
    /// The literal text every glob starts with (before its first special character), when
    /// each has one: a path that starts with none of them matches no rule, which is cheaper
    /// to tell than asking the set. `None` when some glob starts with a special character.
    prefixes: Option<Vec<Box<[u8]>>>,
    /// The literal folder of each glob of a `Read` rule that denies or asks (see
    /// [`PathRules::restrict_reads_below`]), each once.
    read_folders: Vec<PathBuf>,
}

impl PathRules {
    fn build(rules: &[CompiledRule]) -> Self {
        let mut members = Vec::new();
        let mut globs: Vec<&str> = Vec::new();
        let mut owner = Vec::new();
        let mut read_folders: Vec<PathBuf> = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            if let Spec::Path(pattern) = &rule.spec
                && matches!(rule.entry.rule.tool(), "Read" | "Edit")
            {
                let restricts_reads = rule.entry.rule.tool() == "Read"
                    && matches!(rule.behavior(), PermissionBehavior::Deny | PermissionBehavior::Ask);
                for glob in pattern.globs() {
                    globs.push(glob);
                    owner.push(members.len());
                    let folder = Path::new(literal_folder(glob));
                    if restricts_reads && !read_folders.iter().any(|f| f == folder) {
                        read_folders.push(folder.to_path_buf());
                    }
                }
                members.push(i);
            }
        }
        // Each glob already compiled alone, so the set builds; if it did not, the rules are
        // tried one by one.
        let set = crate::path_rule::glob_set(&globs).ok();
        let mut prefixes: Option<Vec<Box<[u8]>>> = Some(Vec::new());
        for glob in &globs {
            let literal = literal_prefix(glob);
            match prefixes.as_mut() {
                _ if literal.is_empty() => prefixes = None,
                Some(all) if !all.iter().any(|p| literal.as_bytes().starts_with(p)) => {
                    all.retain(|p| !p.starts_with(literal.as_bytes()));
                    all.push(literal.as_bytes().into());
                }
                _ => {}
            }
        }
        PathRules { members, set, owner, prefixes, read_folders }
    }

    /// Whether some rule's glob may match `path`: it starts with a glob's literal prefix.
    fn may_match(&self, path: &Path) -> bool {
        let bytes = path.as_os_str().as_encoded_bytes();
        self.prefixes.as_ref().is_none_or(|prefixes| prefixes.iter().any(|p| bytes.starts_with(p)))
    }

    /// Whether a `Read` rule that denies or asks may match a path below `root` (an absolute
    /// folder, `.` and `..` removed): what a recursive read of `root` must be checked against.
    /// Judged on each glob's literal folder prefix, so it may say yes for nothing, never no
    /// for something.
    pub fn restrict_reads_below(&self, root: &Path) -> bool {
        self.read_folders.iter().any(|folder| starts_with(folder, root) || starts_with(root, folder))
    }

    /// The first deny rule, or failing that the first ask rule, of one of `families`, in
    /// settings order: the rule a path known only at run time may match.
    pub fn first_restricting<'r>(&self, rules: &'r [CompiledRule], families: &[&str]) -> Option<&'r CompiledRule> {
        let of = |behavior| {
            self.members
                .iter()
                .map(|&i| &rules[i])
                .find(|r| r.behavior() == behavior && families.contains(&r.entry.rule.tool()))
        };
        of(PermissionBehavior::Deny).or_else(|| of(PermissionBehavior::Ask))
    }

    /// The rules matching any of `forms` (the forms of one path), in settings order.
    pub fn hits<'r, P: AsRef<Path>>(&self, rules: &'r [CompiledRule], forms: &[P]) -> PathHits<'r> {
        let candidates: SmallVec<[Candidate<'_>; 2]> =
            forms.iter().filter(|f| self.may_match(f.as_ref())).map(Candidate::new).collect();
        if candidates.is_empty() {
            return PathHits(Vec::new());
        }
        let Some(set) = &self.set else {
            let hits = self.members.iter().map(|&i| &rules[i]).filter(|r| candidates.iter().any(|f| path_match(r, f)));
            return PathHits(hits.collect());
        };
        let mut positions: Vec<usize> = Vec::new();
        for form in &candidates {
            if set.is_match_candidate(form) {
                positions.extend(set.matches_candidate(form).into_iter().map(|g| self.owner[g]));
            }
        }
        positions.sort_unstable();
        positions.dedup();
        PathHits(positions.into_iter().map(|at| &rules[self.members[at]]).collect())
    }

    /// When every one of `forms` is matched by a rule of `family` with `behavior` (what allow
    /// rules must do: a link and where it leads both allowed), the first, in settings order,
    /// that matches the first form (the path as written).
    pub fn all<'r>(
        &self,
        rules: &'r [CompiledRule],
        family: &str,
        behavior: PermissionBehavior,
        forms: &[PathBuf],
    ) -> Option<&'r CompiledRule> {
        if !forms.iter().all(|f| self.may_match(f)) {
            return None;
        }
        let mut first = None;
        for form in forms {
            let candidate = Candidate::new(form);
            let found = self
                .members
                .iter()
                .map(|&i| &rules[i])
                .filter(|r| r.behavior() == behavior && r.entry.rule.tool() == family)
                .find(|r| path_match(r, &candidate))?;
            first.get_or_insert(found);
        }
        first
    }
}

/// The path rules that match one path (in any of its forms), in settings order.
pub(crate) struct PathHits<'r>(Vec<&'r CompiledRule>);

impl<'r> PathHits<'r> {
    /// Whether no rule matched.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The first of them for `family` (`"Read"` or `"Edit"`) with `behavior`.
    pub fn first(&self, family: &str, behavior: PermissionBehavior) -> Option<&'r CompiledRule> {
        self.0.iter().copied().find(|r| r.behavior() == behavior && r.entry.rule.tool() == family)
    }
}

fn path_match(rule: &CompiledRule, path: &Candidate<'_>) -> bool {
    matches!(&rule.spec, Spec::Path(p) if p.matches_candidate(path))
}

/// The text of a glob before its first special character (`/r/src/` of `/r/src/*.rs`).
fn literal_prefix(glob: &str) -> &str {
    glob.find(['*', '?', '[', '{', '\\']).map_or(glob, |at| &glob[..at])
}

/// `Path::starts_with`, on the bytes when both paths are already normal (absolute, without
/// `.`, `..`, repeated or trailing `/`), where it says the same for less.
fn starts_with(path: &Path, base: &Path) -> bool {
    let (bytes, base_bytes) = (path.as_os_str().as_encoded_bytes(), base.as_os_str().as_encoded_bytes());
    if crate::real_path::is_lexical(bytes) && crate::real_path::is_lexical(base_bytes) {
        return crate::real_path::is_below(bytes, base_bytes);
    }
    path.starts_with(base)
}

/// The folder part of a glob before its first special character (`/r/src` of
/// `/r/src/*.rs`; `/` of `**/.env`).
fn literal_folder(glob: &str) -> &str {
    let literal = glob.find(['*', '?', '[', '{', '\\']).map_or(glob, |at| &glob[..at]);
    match literal.rfind('/') {
        Some(0) | None => "/",
        Some(at) if at + 1 == literal.len() || literal.len() < glob.len() => &literal[..at],
        Some(_) => literal,
    }
}

/// The text before the first whitespace.
fn first_word(command: &str) -> &str {
    for (at, &b) in command.as_bytes().iter().enumerate() {
        match b {
            // The ASCII characters `char::is_whitespace` holds true of.
            b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r' => return &command[..at],
            // Past ASCII, Unicode decides.
            0x80.. => {
                return command[at..]
                    .split(char::is_whitespace)
                    .next()
                    .map_or(command, |rest| &command[..at + rest.len()]);
            }
            _ => {}
        }
    }
    command
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

    /// The byte comparison says what `Path::starts_with` says, for normal paths and others.
    #[test]
    fn starts_with_agrees_with_paths() {
        let paths =
            ["/", "/r", "/r/", "/r/src", "/rs", "/r/src/a", "/r/./src", "/r/../r/src", "//r", "/r//src", "/r/s"];
        for a in paths {
            for b in paths {
                let (a, b) = (Path::new(a), Path::new(b));
                assert_eq!(super::starts_with(a, b), a.starts_with(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn literal_folders_of_globs() {
        assert_eq!(super::literal_folder("/r/src/*.rs"), "/r/src");
        assert_eq!(super::literal_folder("/r/.env"), "/r/.env");
        assert_eq!(super::literal_folder("/r/secrets/**"), "/r/secrets");
        assert_eq!(super::literal_folder("/**/.env"), "/");
        assert_eq!(super::literal_folder("/r/a?/x"), "/r");
    }

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

    fn compiled(texts: &[(&str, PermissionBehavior)]) -> Vec<CompiledRule> {
        let mut diagnostics = Vec::new();
        let rules = texts
            .iter()
            .map(|(text, behavior)| {
                let entry = crate::settings::RuleEntry {
                    rule: text.parse().unwrap(),
                    text: (*text).to_owned(),
                    behavior: *behavior,
                    source: toolgate_core::RuleSource::Session,
                    origin: "test".to_owned(),
                    anchor: "/repo".into(),
                };
                CompiledRule::compile(entry, std::path::Path::new("/repo"), None, &mut diagnostics)
            })
            .collect();
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        rules
    }

    /// The glob set answers as the rules tried one by one in settings order do: the first
    /// rule matching any form, and only rules of the family and behaviour asked for.
    #[test]
    fn path_sets_pick_the_first_rule_in_settings_order() {
        use PermissionBehavior::{Allow, Deny};
        let rules = compiled(&[
            ("Bash(rm:*)", Deny),
            ("Read(./secrets/**)", Deny),
            ("Edit(./.env)", Deny),
            ("Read(*.pem)", Deny),
            ("Read(./.env)", Deny),
            ("Read(./src/**)", Allow),
        ]);
        let book = RuleBook::new(rules);
        let first = |family: &str, forms: &[&str]| {
            let forms: Vec<PathBuf> = forms.iter().map(PathBuf::from).collect();
            book.paths().hits(&book.rules, &forms).first(family, Deny).map(|r| r.entry.text.clone())
        };
        let text = |forms: &[&str]| first("Read", forms);
        assert_eq!(text(&["/repo/secrets/k.pem"]).as_deref(), Some("Read(./secrets/**)"));
        assert_eq!(text(&["/repo/a/.env", "/repo/secrets"]).as_deref(), Some("Read(./secrets/**)"));
        assert_eq!(text(&["/repo/k.pem", "/repo/.env"]).as_deref(), Some("Read(*.pem)"));
        assert_eq!(text(&["/repo/.env/inner"]).as_deref(), Some("Read(./.env)"));
        assert_eq!(text(&["/repo/src/main.rs"]), None);
        assert_eq!(first("Edit", &["/repo/.env"]).as_deref(), Some("Edit(./.env)"));
        assert_eq!(first("Edit", &["/repo/k.pem"]), None);
        let both = [PathBuf::from("/repo/src/a.rs"), PathBuf::from("/elsewhere/a.rs")];
        assert!(book.paths().all(&book.rules, "Read", Allow, &both).is_none());
        assert!(book.paths().all(&book.rules, "Read", Allow, &both[..1]).is_some());
    }

    /// The first word ends at the first character `char::is_whitespace` holds true of, ASCII
    /// or not.
    #[test]
    fn first_words_end_at_any_whitespace() {
        for (command, word) in [
            ("git status", "git"),
            ("git\tstatus", "git"),
            ("git\x0Bstatus", "git"),
            ("git", "git"),
            ("", ""),
            (" git", ""),
            ("git\u{a0}status", "git"),
            ("gît\u{2003}x", "gît"),
            ("é x", "é"),
        ] {
            assert_eq!(first_word(command), word, "{command:?}");
            assert_eq!(first_word(command), command.split(char::is_whitespace).next().unwrap_or_default());
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
