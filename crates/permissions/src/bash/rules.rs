//! How one simple command of a Bash call meets the command rules: the spellings a rule is tried
//! against ([`Spellings`]), the uses a prefix rule does not approve ([`BEYOND_PREFIX_RULES`]),
//! the deny or ask rule a command may match once its words are known at run time
//! ([`may_match_later`]), and whether an allow rule may approve it at all ([`rule_approvable`]).

use std::borrow::Cow;

use smallvec::SmallVec;
use toolgate_shell::programs::{self, Role};
use toolgate_shell::{SimpleCommand, Strs, Text, git_global_options, safe_assignment, safe_env_name};

use super::bases::basename;
use crate::rule_index::CommandIndex;
use crate::rules::CompiledRule;

/// The spellings a command rule is tried against: the words joined, the source text, the
/// words with the program's directory dropped (`/bin/rm` is `rm`) and git's global options
/// dropped (`git --no-pager push` is `git push`), and, for a command run through a wrapper
/// Claude Code keeps (`sudo`, `env` …), the command with that wrapper, as written and joined.
/// Deny and ask rules may match any; allow rules the words joined and the source text, or,
/// for a command run through such a wrapper, only its forms with the wrapper.
pub(crate) struct Spellings<'c> {
    /// The distinct spellings, borrowed from the command or built.
    pub all: SmallVec<[Cow<'c, str>; 3]>,
    /// Bit `k` set: allow rules are tried against `all[k]`.
    pub allow_mask: u32,
    /// Only allow rules naming the whole command apply (it runs through `setsid` …).
    pub exact_allows: bool,
}

/// Uses of a program that a prefix rule for it (`Bash(find:*)`) does not approve, as in Claude
/// Code, which asks for them: they delete, write or run what the rule's author may not have
/// meant. Only a rule naming the whole command does. Each entry: the program names, what
/// marks such a use, and an example (a test checks each).
pub(crate) const BEYOND_PREFIX_RULES: &[(&[&str], Marks, &str)] = &[
    (&["find"], Marks::Word(&["-delete", "-fls", "-fprint", "-fprint0", "-fprintf"]), "find . -delete"),
    (&["awk", "gawk", "mawk", "nawk"], Marks::Text(&["system(", "|", "getline"]), "awk 'BEGIN{system(\"rm x\")}'"),
    // A jq program's modules come from any folder it names (`import "c" as $c {search: "~/.docker"}`).
    (&["jq"], Marks::Text(&["import", "include"]), "jq -n 'import \"config\" as $c {search: \"~/.docker\"}; $c'"),
];

/// What marks a use of [`BEYOND_PREFIX_RULES`].
pub(crate) enum Marks {
    /// One of these words (options, `find`'s primaries).
    Word(&'static [&'static str]),
    /// One of these in any word (an `awk` program's `system(`, a pipe to a command).
    Text(&'static [&'static str]),
}

/// Whether `cmd` is a use a prefix rule for its program does not approve.
pub(crate) fn beyond_prefix_rules(cmd: &SimpleCommand<'_>) -> bool {
    let Some((name, args)) = cmd.argv.split_first() else { return false };
    let program = basename(name);
    BEYOND_PREFIX_RULES.iter().filter(|(names, _, _)| names.contains(&program)).any(|(_, marks, _)| match marks {
        Marks::Word(words) => args.iter().any(|arg| words.contains(&&**arg)),
        Marks::Text(texts) => args.iter().any(|arg| texts.iter().any(|text| arg.contains(text))),
    })
}

impl<'c> Spellings<'c> {
    pub(crate) fn of(cmd: &'c SimpleCommand<'_>) -> Self {
        let exact_allows =
            cmd.wrappers.iter().any(|w| toolgate_shell::allows_exact_rules_only(w)) || beyond_prefix_rules(cmd);
        let mut spellings = Spellings { all: SmallVec::new(), allow_mask: 0, exact_allows };
        let wrapped = cmd.wrapped.as_ref();
        let plain_allows = wrapped.is_none();
        if !joins_to(&cmd.argv, &cmd.text) {
            spellings.add(Cow::Owned(cmd.argv.join(" ")), plain_allows);
        }
        spellings.add(Cow::Borrowed(&cmd.text), plain_allows);
        let bare = bare_form(&cmd.argv).map(|(program, rest)| {
            let mut joined = program.to_owned();
            for word in rest {
                joined.push(' ');
                joined.push_str(word);
            }
            joined
        });
        if let Some(bare) = bare {
            spellings.add(Cow::Owned(bare), false);
        }
        if let Some(wrapped) = wrapped {
            spellings.add(Cow::Borrowed(&wrapped.joined), true);
            spellings.add(Cow::Borrowed(&wrapped.text), true);
            // The wrapper by its basename (`/usr/bin/sudo` is `sudo`), for deny and ask rules.
            spellings.add_bare(&wrapped.joined);
            // From each wrapper inside it too (`env sudo ls` is `sudo ls` to `Bash(sudo:*)`).
            let inner = wrapped.joined.match_indices(' ').map(|(at, _)| &wrapped.joined[at + 1..]);
            for suffix in inner.filter(|rest| {
                let first = rest.split(' ').next().unwrap_or_default();
                cmd.wrappers.iter().any(|w| basename(w) == basename(first))
            }) {
                spellings.add(Cow::Borrowed(suffix), false);
                spellings.add_bare(suffix);
            }
        }
        spellings
    }

    /// Adds `form` with its program by its basename (`/usr/bin/sudo` is `sudo`), for deny and
    /// ask rules, when that differs.
    fn add_bare(&mut self, form: &'c str) {
        let (first, rest) = form.split_once(' ').unwrap_or((form, ""));
        let program = basename(first);
        if program != first {
            let bare = if rest.is_empty() { program.to_owned() } else { format!("{program} {rest}") };
            self.add(Cow::Owned(bare), false);
        }
    }

    /// Adds `spelling` unless it is there already; `allows`: allow rules are tried against it.
    fn add(&mut self, spelling: Cow<'c, str>, allows: bool) {
        let at = match self.all.iter().position(|known| *known == spelling) {
            Some(at) => at,
            None => {
                self.all.push(spelling);
                self.all.len() - 1
            }
        };
        if allows {
            self.allow_mask |= 1 << at;
        }
    }

    /// The spellings, as strings.
    pub(crate) fn as_slice(&self) -> SmallVec<[&str; 3]> {
        self.all.iter().map(|spelling| &**spelling).collect()
    }
}

/// For a command with words known only at run time (or, run by `xargs`, given more), the
/// first deny or ask rule that may match it once they are known, as the reason nothing may
/// approve it automatically (`git push $F` and `Bash(git push --force:*)`). A command whose
/// name is unknown has a hazard that says so already.
pub(crate) fn may_match_later(
    rules: &[CompiledRule],
    commands: &CommandIndex,
    cmd: &SimpleCommand<'_>,
) -> Option<String> {
    let fed = launched_by(cmd, "xargs");
    let static_words = cmd.static_words.min(cmd.argv.len());
    if static_words == 0 || (static_words == cmd.argv.len() && !fed) {
        return None;
    }
    // The words known, then the literal start of the first word that is not (a word that
    // may expand to nothing has none, and then nothing follows the known words for sure).
    let known = &cmd.argv[..static_words];
    let literal = cmd.argv.get(static_words).map_or("", |word| {
        let end = word.find(['$', '`', '*', '?', '[', '{', '~', '\\', '(', '!', '@', '+']).unwrap_or(word.len());
        &word[..end]
    });
    let spell = |words: &[&str]| {
        let joined = words.join(" ");
        if literal.is_empty() { joined } else { format!("{joined} {literal}") }
    };
    let words: Strs<'_> = known.iter().map(|w| &**w).collect();
    let mut spellings = vec![spell(&words)];
    if let Some((program, rest)) = bare_form(known) {
        let bare: Strs<'_> = std::iter::once(program).chain(rest.iter().map(|w| &**w)).collect();
        spellings.push(spell(&bare));
    }
    if let Some(wrapped) = &cmd.wrapped {
        let plain = cmd.argv.join(" ");
        if let Some(wrapper) = wrapped.joined.strip_suffix(plain.as_str()) {
            spellings.push(format!("{wrapper}{}", spellings[0]));
        }
    }
    let spelled: Vec<&str> = spellings.iter().map(String::as_str).collect();
    let rule = commands.may_match(rules, &spelled)?;
    let behavior = rule.behavior();
    let shown = cmd.wrapped.as_ref().map_or(&cmd.text, |w| &w.text);
    let later = if fed { "once `xargs` gives it its arguments" } else { "once its words are known at run time" };
    Some(format!("`{shown}` may match the {behavior} rule {} in {} {later}", rule.entry.text, rule.entry.origin))
}

/// Whether `cmd` is the payload of `launcher` (`xargs`, `find`), given arguments it did not
/// write.
pub(crate) fn launched_by(cmd: &SimpleCommand<'_>, launcher: &str) -> bool {
    cmd.wrappers.iter().any(|w| w == launcher)
}

/// Whether `argv` joined by single spaces is `text`.
fn joins_to(argv: &[Text<'_>], text: &str) -> bool {
    let mut rest = text;
    for (k, word) in argv.iter().enumerate() {
        if k > 0 {
            let Some(after) = rest.strip_prefix(' ') else { return false };
            rest = after;
        }
        let Some(after) = rest.strip_prefix(&**word) else { return false };
        rest = after;
    }
    rest.is_empty()
}

/// `argv` as deny and ask rules also see it: the program by its basename (`/bin/rm` is `rm`)
/// and, for git, the words after its global options (`git --no-pager push` is `git push`);
/// `None` when that is `argv` itself.
fn bare_form<'a, 's>(argv: &'a [Text<'s>]) -> Option<(&'a str, &'a [Text<'s>])> {
    let first = argv.first()?;
    let program = basename(first);
    let skip = if programs::get(program).role == Role::Git { git_global_options(&argv[1..]) } else { 0 };
    (program != &**first || skip > 0).then(|| (program, &argv[1 + skip..]))
}

/// Whether an allow rule may approve `cmd` when one matches it: no expansion in its
/// arguments, and only harmless assignments in front of it (a wrapper's own assignments are
/// part of the text its rule matched).
pub(crate) fn rule_approvable(cmd: &SimpleCommand<'_>) -> bool {
    !cmd.has_expansion && leading_assignments(cmd).iter().all(|(k, v)| safe_assignment(k, v))
}

/// The assignments in front of `cmd` (or of the wrapper its allow rule must match), which an
/// allow rule looks past only when they are harmless.
fn leading_assignments<'c, 's>(cmd: &'c SimpleCommand<'s>) -> &'c [(Text<'s>, Text<'s>)] {
    let leading = cmd.wrapped.as_ref().map_or(cmd.assignments.len(), |w| w.assignments);
    &cmd.assignments[..leading]
}

/// Why no allow rule approves `cmd` (one [`rule_approvable`] refuses), for the message of
/// the ask it leads to.
pub(crate) fn unapprovable_text(cmd: &SimpleCommand<'_>) -> String {
    let shown = cmd.wrapped.as_ref().map_or(&cmd.text, |w| &w.text);
    if cmd.has_expansion {
        return format!(
            "`{shown}` has an argument that is only known at run time, and allow rules approve only commands known in full"
        );
    }
    let name = leading_assignments(cmd).iter().find(|(k, v)| !safe_assignment(k, v)).map_or("", |(k, _)| &**k);
    if safe_env_name(name) {
        format!("`{shown}` runs with `{name}` set to a value that is not plain, which allow rules do not look past")
    } else {
        format!(
            "`{shown}` runs with `{name}` set, and allow rules look past only harmless variables such as NODE_ENV or LANG"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_shell::analyze;

    #[test]
    fn spellings_join_only_where_the_text_differs() {
        let spelled = |src: &str| {
            let analysis = analyze(src);
            let spellings = Spellings::of(&analysis.commands[0]);
            let all = spellings.as_slice().iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
            let allowed = (0..all.len()).filter(|k| spellings.allow_mask >> k & 1 == 1).collect::<Vec<_>>();
            (all, allowed)
        };
        assert_eq!(spelled("git status"), (vec!["git status".to_owned()], vec![0]));
        assert_eq!(spelled("git  status"), (vec!["git status".to_owned(), "git  status".to_owned()], vec![0, 1]));
        assert_eq!(spelled("'rm' x"), (vec!["rm x".to_owned(), "'rm' x".to_owned()], vec![0, 1]));
        assert_eq!(spelled("/bin/rm x"), (vec!["/bin/rm x".to_owned(), "rm x".to_owned()], vec![0]));
        assert_eq!(
            spelled("git --no-pager push"),
            (vec!["git --no-pager push".to_owned(), "git push".to_owned()], vec![0])
        );
        // A wrapper Claude Code keeps: allow rules see the command with it only.
        assert_eq!(
            spelled("timeout 5 sudo -u root rm x"),
            (vec!["rm x".to_owned(), "sudo -u root rm x".to_owned()], vec![1])
        );
        assert_eq!(
            spelled("'sudo' rm  x"),
            (
                vec!["rm x".to_owned(), "rm  x".to_owned(), "sudo rm x".to_owned(), "'sudo' rm  x".to_owned()],
                vec![2, 3]
            )
        );
    }

    #[test]
    fn words_join_to_their_text() {
        let words = |w: &[&'static str]| w.iter().map(|w| Text::Borrowed(*w)).collect::<Vec<_>>();
        assert!(joins_to(&words(&["git", "status"]), "git status"));
        assert!(!joins_to(&words(&["git", "status"]), "git  status"));
        assert!(!joins_to(&words(&["git", "status"]), "git status x"));
        assert!(!joins_to(&words(&["git", "st"]), "git status"));
        assert!(joins_to(&words(&[]), ""));
        assert!(joins_to(&words(&["", "x"]), " x"));
    }
}
