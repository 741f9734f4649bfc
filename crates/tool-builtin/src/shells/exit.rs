//! Exit codes that are not failures: status 1 of commands whose 1 means "no match" or
//! "different" rather than "broken".
//!
//! The command that decides is the last one of the analysed command line (the last stage
//! of the last pipeline: its status is the shell's), skipping commands nested in the words
//! of an earlier one (`grep x $(cat list)` is decided by `grep`). The syntax tree comes
//! from `toolgate_shell::analyze_shared` (the analysis the call's other steps
//! made), never from splitting the string.

use toolgate_shell::programs::{self, Role};
use toolgate_shell::{SimpleCommand, Text, analyze_shared, git_global_options};

/// What exit status 1 of `command` means, when it is not a failure.
///
/// ```text
/// grep -r TODO src        -> Some("no matches were found")
/// cat a | diff - b        -> Some("the inputs differ")
/// grep x f | wc -l        -> None (wc decides)
/// ```
pub(crate) fn benign_exit_one(command: &str) -> Option<&'static str> {
    let analysis = analyze_shared(command);
    let last = deciding_command(&analysis.commands)?;
    meaning(&last.argv)
}

/// The last command that is not nested in the words of an earlier one.
fn deciding_command<'a, 's>(commands: &'a [SimpleCommand<'s>]) -> Option<&'a SimpleCommand<'s>> {
    let mut last: Option<&SimpleCommand<'s>> = None;
    for cmd in commands {
        // A payload of xargs or find -exec: the launcher's status decides, not its own.
        if cmd.wrappers.iter().any(|w| programs::get(w).runs_payloads) {
            continue;
        }
        let nested = last.is_some_and(|outer| outer.has_expansion && outer.text.contains(&*cmd.text));
        if !nested {
            last = Some(cmd);
        }
    }
    last
}

/// The meaning of status 1 for a command line `argv`, from the program table.
fn meaning(argv: &[Text<'_>]) -> Option<&'static str> {
    let name = argv.first()?.rsplit('/').next()?;
    let (entry, args) = (programs::get(name), &argv[1..]);
    let skip = if entry.role == Role::Git { git_global_options(args) } else { 0 };
    entry.exit_one_of(args.get(skip).map(|sub| &**sub))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_and_compare_commands_exit_one_benignly() {
        for (command, expected) in [
            ("grep -r TODO src", Some("no matches were found")),
            ("rg foo", Some("no matches were found")),
            ("cat a | diff - b", Some("the inputs differ")),
            ("cmp a b", Some("the inputs differ")),
            ("test -f x", Some("the condition is false")),
            ("[ -d x ]", Some("the condition is false")),
            ("[[ -d x ]]", Some("the condition is false")),
            ("find . -name x", Some("some paths could not be searched")),
            ("git diff --exit-code", Some("the inputs differ")),
            ("git -C sub grep foo", Some("no matches were found")),
            ("cd src && grep foo *.rs", Some("no matches were found")),
            ("timeout 5 grep foo f", Some("no matches were found")),
            ("grep x $(cat list)", Some("no matches were found")),
        ] {
            assert_eq!(benign_exit_one(command), expected, "{command}");
        }
    }

    #[test]
    fn other_commands_fail_on_one() {
        for command in
            ["grep x f | wc -l", "false", "git status", "make", "grep x f; false", "find . | xargs grep x", ""]
        {
            assert_eq!(benign_exit_one(command), None, "{command}");
        }
    }
}
