//! The read-only rules that data cannot state: a check of the arguments per program (`sed`
//! scripts, `jq` programs, `find` expressions, git subcommands …).

use std::borrow::Cow;

use super::*;
use crate::Text;
use crate::git::GIT_CONFIG_GETS;
use crate::word::has_substitution_text;
use crate::wrappers::xargs_payload;

/// `test`, `[ … ]`, `[[ … ]]` without `-v`/`-R` and without `$(`/backticks in any operand: bash
/// evaluates array subscripts in variable names and (in `[[`) arithmetic operands, running a
/// command substitution written inside a quoted string.
pub(super) fn test_allows(args: &[Text<'_>]) -> bool {
    !args.iter().any(|arg| arg == "-v" || arg == "-R" || has_substitution_text(arg))
}

/// `[[ … ]]`: as [`test_allows`], and the operands of its arithmetic comparisons (`-eq`,
/// `-lt` …), which bash evaluates as expressions, name no variable (`[[ x -eq 0 ]]` runs
/// whatever `a[$(cmd)]` `x` holds).
pub(super) fn double_bracket_allows(args: &[Text<'_>]) -> bool {
    const ARITHMETIC: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];
    test_allows(args)
        && args.iter().enumerate().all(|(at, arg)| {
            let compared = args.get(at + 1).is_some_and(|next| ARITHMETIC.contains(&&**next))
                || at.checked_sub(1).and_then(|p| args.get(p)).is_some_and(|prev| ARITHMETIC.contains(&&**prev));
            !compared || crate::word::arithmetic_name(arg).is_none()
        })
}

/// `cd [-L|-P|-e|-@] [DIR]`.
pub(super) fn cd_allows(args: &[Text<'_>]) -> bool {
    let parsed = parse_args(args, &[], &[]);
    parsed.only(&["-L", "-P", "-e", "-@"]) && parsed.operands.len() <= 1
}

/// `command -v NAME` / `command -V NAME`: a lookup.
pub(super) fn command_allows(args: &[Text<'_>]) -> bool {
    let parsed = parse_args(args, &[], &[]);
    parsed.only(&["-p", "-v", "-V"]) && (parsed.has("-v") || parsed.has("-V"))
}

/// `date` without `-s`/`--set`, without `-f`/`--file` (which reads any file and prints its
/// lines in error messages), and with only `+FORMAT` operands.
pub(super) fn date_allows(args: &[Text<'_>]) -> bool {
    let values = ["-d", "--date", "-f", "--file", "-r", "--reference", "-s", "--set"];
    let parsed = parse_args(args, &values, &[]);
    !parsed.flags.iter().any(|(flag, _)| denied(flag, &["-s", "--set", "-f", "--file"]))
        && parsed.operands.iter().all(|operand| operand.starts_with('+'))
}

/// `docker ps|images|version|info` and `docker image ls`, `docker container ls`.
pub(super) fn docker_allows(args: &[Text<'_>]) -> bool {
    match args.first().map(text) {
        Some("ps" | "images" | "version" | "info") => true,
        Some("image" | "container") => matches!(args.get(1).map(text), Some("ls" | "list")),
        _ => false,
    }
}

/// `find` without primaries that run commands, delete or write files, without following
/// symbolic links (`-L`, `-H`, `-follow`), and without `-files0-from` (starting points read
/// from any file, whose lines come back in error messages).
pub(super) fn find_allows(args: &[Text<'_>]) -> bool {
    const FORBIDDEN: &[&str] = &[
        "-exec",
        "-execdir",
        "-ok",
        "-okdir",
        "-delete",
        "-fprint",
        "-fprint0",
        "-fprintf",
        "-fls",
        "-L",
        "-H",
        "-follow",
        "-files0-from",
    ];
    !args.iter().any(|arg| FORBIDDEN.contains(&&**arg))
}

/// `diff` without a file of names (`--from-file`, `--to-file`) or patterns (`-X`,
/// `--exclude-from`), and recursive (`-r`) only with `--no-dereference`: by default diff
/// follows the symbolic links it meets in the directories it compares. (Without `-r` it still
/// does so one level deep when both operands are directories, which is not known statically.)
pub(super) fn diff_allows(args: &[Text<'_>]) -> bool {
    let parsed = DIFF.parse(args);
    DIFF.allows(args) && (!parsed.has("-r") || parsed.has("--no-dereference"))
}

/// The options of GNU `diff` (abbreviations and `--recursive` read as `-r`), refusing the
/// files of names and patterns.
pub(super) const DIFF: Flags = Flags {
    deny: &["--from-file", "--to-file", "-X", "--exclude-from"],
    values: &[
        "-x",
        "--exclude",
        "-X",
        "--exclude-from",
        "-I",
        "--ignore-matching-lines",
        "-F",
        "--show-function-line",
        "-S",
        "--starting-file",
        "-W",
        "--width",
        "-D",
        "--ifdef",
        "--label",
        "--from-file",
        "--to-file",
        "--tabsize",
        "--horizon-lines",
    ],
    spelling: Spelling {
        abbreviated: true,
        aliases: &[("--recursive", "-r")],
        long: &["--no-dereference"],
        choices: &[],
    },
    ..ANY
};

/// `ls`, but not `-L`/`--dereference` with `-R`/`--recursive`: that recursion follows the
/// symbolic links it meets out of the working directory (`-L` alone only shows what a link in
/// the listing points to, as `stat -L`).
pub(super) fn ls_allows(args: &[Text<'_>]) -> bool {
    const VALUES: &[&str] = &[
        "-I",
        "--ignore",
        "--hide",
        "-T",
        "--tabsize",
        "-w",
        "--width",
        "--block-size",
        "--format",
        "--indicator-style",
        "--quoting-style",
        "--sort",
        "--time",
        "--time-style",
    ];
    let parsed = parse_args(args, VALUES, &[]);
    let given = |names: &[&str]| parsed.flags.iter().any(|(flag, _)| denied(flag, names));
    !(given(&["-R", "--recursive"]) && given(&["-L", "--dereference"]))
}

/// `tree` without `-o` (writes a file), `-R` (with `-H`, writes `00Tree.html` files), `-l`
/// (follows symbolic links to directories), nor the options that read a named file
/// (`--fromfile`, `--fromtabfile`, `--gitfile`, `--infofile`, `--hintro`, `--houtro`). tree
/// parses a cluster letter by letter and takes values from the next words (`-Lo 2 out` is
/// `-L 2 -o out`), so any word starting with `-` is checked as a cluster, `--` included.
pub(super) fn tree_allows(args: &[Text<'_>]) -> bool {
    const DENY: &[&str] = &["--fromfile", "--fromtabfile", "--gitfile", "--infofile", "--hintro", "--houtro"];
    args.iter().all(|arg| match arg.strip_prefix("--") {
        Some(long) => !denied(&format!("--{}", long.split('=').next().unwrap_or(long)), DENY),
        None => !arg.starts_with('-') || !arg.contains(['o', 'R', 'l']),
    })
}

/// `jq` without flags that load programs or files.
pub(super) fn jq_allows(args: &[Text<'_>]) -> bool {
    const ALLOW: &[&str] = &[
        "-r",
        "--raw-output",
        "--raw-output0",
        "-j",
        "--join-output",
        "-a",
        "--ascii-output",
        "-c",
        "--compact-output",
        "-n",
        "--null-input",
        "-e",
        "--exit-status",
        "-s",
        "--slurp",
        "-S",
        "--sort-keys",
        "-C",
        "--color-output",
        "-M",
        "--monochrome-output",
        "-R",
        "--raw-input",
        "--tab",
        "--indent",
        "--arg",
        "--argjson",
        "--args",
        "--jsonargs",
        "--seq",
        "--stream",
        "--stream-errors",
        "--unbuffered",
        "-h",
        "--help",
        "-V",
        "--version",
    ];
    // A program that imports modules reads them from any folder it names
    // (`import "c" as $c {search: "~/.docker"}`).
    let parsed = parse_args(args, &["--indent"], &["--arg", "--argjson"]);
    parsed.only(ALLOW) && !args.iter().any(|a| a.contains("import") || a.contains("include"))
}

/// `printf` with a static format that is not `-v` (which assigns a variable).
pub(super) fn printf_allows(args: &[Text<'_>]) -> bool {
    let format = match args.first().map(text) {
        Some("--") => args.get(1),
        _ => args.first(),
    };
    format.is_none_or(|format| !format.starts_with('-') && !format.contains(['$', '`']))
}

/// Programs that only print, and are still no reads: what they print is secret. Claude Code
/// asks for them too. They have no entry above; a test checks each example is no read.
#[cfg(test)]
pub(super) const NOT_READS: &[(&str, &str)] = &[
    ("env", "env prints the environment, where API keys and tokens live"),
    ("env -0", "the same, NUL-separated"),
    ("printenv", "printenv prints the environment"),
    ("printenv GITHUB_TOKEN", "a variable of it, any of which may be a credential"),
];

/// Commands an `xargs` payload may be: glob-safe and none of their operands names a file, so
/// that the arguments read at run time cannot make them open one (`ls | xargs cat`).
pub(super) const XARGS_PAYLOADS: &[&str] = &[
    "basename", "dirname", "echo", "false", "free", "groups", "id", "nproc", "pgrep", "seq", "sleep", "tr", "true",
    "type", "uname", "uptime", "whereis", "which", "whoami",
];

/// `xargs` that reads its arguments from stdin (not `-a`/`--arg-file`, any file) and whose
/// payload is read-only whatever arguments it is given and opens no file they name.
pub(super) fn xargs_allows(args: &[Text<'_>]) -> bool {
    let mut argv = vec![Cow::Borrowed("xargs")];
    argv.extend_from_slice(args);
    let Some(start) = xargs_payload(&argv) else { return false };
    if argv.get(1..start).is_none_or(xargs_reads_arg_file) {
        return false;
    }
    let Some((name, payload_args)) = argv.get(start..).and_then(<[Text<'_>]>::split_first) else {
        // No payload: xargs runs `echo`.
        return true;
    };
    XARGS_PAYLOADS.contains(&&**name)
        && lookup(name).is_some_and(|spec| spec.glob_safe && spec.rule.allows(payload_args))
}

/// Whether `xargs` options (up to its payload) include `-a FILE` or `--arg-file`. A cluster
/// ends at an option with a value (`-d`, `-I`, `-i`, …); a word taken as a value is still
/// scanned, which can only refuse more.
pub(super) fn xargs_reads_arg_file(options: &[Text<'_>]) -> bool {
    options.iter().any(|option| match option.strip_prefix("--") {
        Some(long) => denied(&format!("--{}", long.split('=').next().unwrap_or(long)), &["--arg-file"]),
        None => option
            .strip_prefix('-')
            .is_some_and(|cluster| cluster.chars().take_while(|c| !"dEILnPseil".contains(*c)).any(|c| c == 'a')),
    })
}

/// `xxd [options] [infile]`: a second operand is an output file.
pub(super) fn xxd_allows(args: &[Text<'_>]) -> bool {
    const VALUES: &[&str] =
        &["-c", "-cols", "-g", "-groupsize", "-l", "-len", "-s", "-seek", "-o", "-offset", "-n", "-name"];
    let mut operands = 0;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if VALUES.contains(&&**arg) {
            i += 1;
        } else if arg == "--" {
            operands += args.len() - i;
            break;
        } else if !arg.starts_with('-') || arg == "-" {
            operands += 1;
        }
    }
    operands <= 1
}

/// `sed` with safe flags and scripts that neither write files nor run commands.
pub(super) fn sed_allows(args: &[Text<'_>]) -> bool {
    const ALLOW: &[&str] = &["-n", "-e", "-E", "-r", "-s", "-z", "-u", "--posix", "--debug", "--sandbox", "-l", "-b"];
    let parsed = SED.parse(args);
    if !parsed.only(ALLOW) {
        return false;
    }
    let mut scripts: Vec<&str> = parsed.values_of("-e").collect();
    if scripts.is_empty() {
        match parsed.operands.first() {
            Some(script) => scripts.push(script),
            None => return false,
        }
    }
    scripts.iter().all(|script| sed_script_is_safe(script))
}

/// How GNU sed reads its options (`-ne1p` is `-n` and the script `1p`, `--expr=p` is `-e p`):
/// each long option with a short one is reported as the short one.
pub(super) const SED: Flags = Flags {
    values: &["-e", "-f", "-l"],
    spelling: Spelling {
        abbreviated: true,
        aliases: &[
            ("--quiet", "-n"),
            ("--silent", "-n"),
            ("--expression", "-e"),
            ("--file", "-f"),
            ("--in-place", "-i"),
            ("--line-length", "-l"),
            ("--null-data", "-z"),
            ("--zero-terminated", "-z"),
            ("--regexp-extended", "-E"),
            ("--separate", "-s"),
            ("--unbuffered", "-u"),
            ("--binary", "-b"),
            ("--follow-symlinks", "-L"),
            ("--help", "-h"),
            ("--version", "-V"),
        ],
        long: &["--posix", "--debug", "--sandbox"],
        ..AS_LISTED
    },
    ..ANY
};

/// Skips spaces and tabs.
pub(super) fn skip_blanks(s: &[char], i: &mut usize) {
    while s.get(*i).is_some_and(|c| *c == ' ' || *c == '\t') {
        *i += 1;
    }
}

/// Skips a `d`-delimited part (regex or replacement) whose opening delimiter is consumed;
/// `false` if it is not closed on this line.
pub(super) fn skip_delimited(s: &[char], i: &mut usize, delimiter: char) -> bool {
    while let Some(&c) = s.get(*i) {
        *i += 1;
        if c == '\\' {
            *i += 1;
        } else if c == delimiter {
            return true;
        } else if c == '\n' {
            return false;
        }
    }
    false
}

/// Skips one address (`12`, `1~2`, `$`, `/re/I`, `\%re%`); `Some(true)` if one was there,
/// `None` if it is malformed.
pub(super) fn skip_address(s: &[char], i: &mut usize, second: bool) -> Option<bool> {
    let digits = |i: &mut usize| {
        let start = *i;
        while s.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    match s.get(*i) {
        Some(c) if c.is_ascii_digit() => {
            digits(i);
            if s.get(*i) == Some(&'~') {
                *i += 1;
                digits(i);
            }
        }
        Some('+' | '~') if second => {
            *i += 1;
            if !digits(i) {
                return None;
            }
        }
        Some('$') => *i += 1,
        Some('/') => {
            *i += 1;
            if !skip_delimited(s, i, '/') {
                return None;
            }
            while matches!(s.get(*i), Some('I' | 'M')) {
                *i += 1;
            }
        }
        Some('\\') => {
            let delimiter = *s.get(*i + 1)?;
            *i += 2;
            if !skip_delimited(s, i, delimiter) {
                return None;
            }
            while matches!(s.get(*i), Some('I' | 'M')) {
                *i += 1;
            }
        }
        _ => return Some(false),
    }
    Some(true)
}

/// Whether a command ends here: blanks, then `;`, newline, `}`, `#` or the end.
pub(super) fn command_ends(s: &[char], i: &mut usize) -> bool {
    skip_blanks(s, i);
    matches!(s.get(*i), None | Some(';' | '\n' | '}' | '#'))
}

/// Skips to the end of the line (text of `a`/`i`/`c`), honouring
/// backslash-newline continuations.
pub(super) fn skip_line(s: &[char], i: &mut usize) {
    while let Some(&c) = s.get(*i) {
        if c == '\\' {
            *i += 2;
            continue;
        }
        if c == '\n' {
            return;
        }
        *i += 1;
    }
}

/// Skips a label (`b`, `t`, `T`, `:`, `v`): up to `;` or newline.
pub(super) fn skip_label(s: &[char], i: &mut usize) {
    while s.get(*i).is_some_and(|c| *c != ';' && *c != '\n') {
        *i += 1;
    }
}

/// Whether a sed script only reads its input: no `w`/`W` (write), `r`/`R` (read another file),
/// `e` (execute) commands and no `w`/`e` flags on `s`. Anything the parser does not understand
/// is refused.
pub(super) fn sed_script_is_safe(script: &str) -> bool {
    let s: Vec<char> = script.chars().collect();
    let mut i = 0;
    let mut depth = 0usize;
    loop {
        while s.get(i).is_some_and(|c| c.is_whitespace() || *c == ';') {
            i += 1;
        }
        let Some(&first) = s.get(i) else { return depth == 0 };
        if first == '#' {
            skip_label_to_newline(&s, &mut i);
            continue;
        }
        if skip_address(&s, &mut i, false).is_none() {
            return false;
        }
        skip_blanks(&s, &mut i);
        if s.get(i) == Some(&',') {
            i += 1;
            skip_blanks(&s, &mut i);
            if skip_address(&s, &mut i, true) != Some(true) {
                return false;
            }
            skip_blanks(&s, &mut i);
        }
        while s.get(i) == Some(&'!') {
            i += 1;
            skip_blanks(&s, &mut i);
        }
        let Some(&command) = s.get(i) else { return false };
        i += 1;
        let ok = match command {
            '{' => {
                depth += 1;
                true
            }
            '}' => {
                if depth == 0 {
                    return false;
                }
                depth -= 1;
                command_ends(&s, &mut i)
            }
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {
                command_ends(&s, &mut i)
            }
            'l' | 'L' | 'q' | 'Q' => {
                skip_blanks(&s, &mut i);
                while s.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
                command_ends(&s, &mut i)
            }
            ':' | 'b' | 't' | 'T' | 'v' => {
                skip_label(&s, &mut i);
                true
            }
            'a' | 'i' | 'c' => {
                skip_line(&s, &mut i);
                true
            }
            's' | 'y' => {
                let Some(&delimiter) = s.get(i) else { return false };
                if delimiter == '\n' || delimiter == '\\' {
                    return false;
                }
                i += 1;
                if !skip_delimited(&s, &mut i, delimiter) || !skip_delimited(&s, &mut i, delimiter) {
                    return false;
                }
                if command == 's' {
                    while s.get(i).is_some_and(|c| matches!(c, 'g' | 'p' | 'i' | 'I' | 'm' | 'M') || c.is_ascii_digit())
                    {
                        i += 1;
                    }
                }
                command_ends(&s, &mut i)
            }
            // `w`, `W` write files; `r`, `R` read any file into the output; `e` runs commands;
            // anything else is unknown.
            _ => false,
        };
        if !ok {
            return false;
        }
    }
}

/// Skips a comment to the end of its line.
pub(super) fn skip_label_to_newline(s: &[char], i: &mut usize) {
    while s.get(*i).is_some_and(|c| *c != '\n') {
        *i += 1;
    }
}

/// `git` with harmless global options and a read-only subcommand.
pub(super) fn git_allows(args: &[Text<'_>]) -> bool {
    const GLOBAL: &[&str] = &[
        "--no-pager",
        "-P",
        "--no-optional-locks",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-replace-objects",
    ];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        if arg == "--version" && i + 1 == args.len() {
            return true;
        }
        if !GLOBAL.contains(&&**arg) {
            return false;
        }
        i += 1;
    }
    let Some(subcommand) = args.get(i) else { return true };
    let rest = &args[i + 1..];
    GIT_SUBCOMMANDS.iter().find(|(name, _)| name == subcommand).is_some_and(|(_, rule)| rule.allows(rest))
}

/// Read-only git subcommands and the rule for their arguments.
pub(super) const GIT_SUBCOMMANDS: &[(&str, Rule)] = &[
    (
        "blame",
        Rule::Flags(Flags {
            deny: &["--output", "--ext-diff", "--contents", "-S", "--ignore-revs-file"],
            values: &["-L", "-S", "--contents", "--ignore-revs-file"],
            ..ANY
        }),
    ),
    ("branch", Rule::Check(git_branch_allows)),
    ("cat-file", Rule::Flags(Flags { deny: &["--textconv", "--filters"], ..ANY })),
    ("check-ignore", Rule::Flags(ANY)),
    ("cherry", Rule::Flags(ANY)),
    ("config", Rule::Check(git_config_allows)),
    ("count-objects", Rule::Flags(ANY)),
    ("describe", Rule::Flags(ANY)),
    ("diff", Rule::Flags(Flags { deny: &["--output", "--ext-diff", "--no-index"], ..ANY })),
    ("for-each-ref", Rule::Flags(ANY)),
    (
        "grep",
        Rule::Flags(Flags {
            deny: &["-O", "--open-files-in-pager", "--ext-grep", "--no-index", "-f", "--file"],
            values: &["-e", "-f", "-A", "-B", "-C", "-m", "--max-depth", "--threads"],
            ..ANY
        }),
    ),
    ("log", Rule::Flags(GIT_DIFF_FAMILY)),
    (
        "ls-files",
        Rule::Flags(Flags {
            deny: &["-X", "--exclude-from"],
            values: &["-x", "--exclude", "-X", "--exclude-from", "--exclude-per-directory", "--format", "--with-tree"],
            ..ANY
        }),
    ),
    ("ls-tree", Rule::Flags(ANY)),
    ("merge-base", Rule::Flags(ANY)),
    ("name-rev", Rule::Flags(ANY)),
    ("reflog", Rule::Check(git_reflog_allows)),
    ("remote", Rule::Check(git_remote_allows)),
    ("rev-list", Rule::Flags(GIT_DIFF_FAMILY)),
    ("rev-parse", Rule::Flags(ANY)),
    ("shortlog", Rule::Flags(GIT_DIFF_FAMILY)),
    ("show", Rule::Flags(GIT_DIFF_FAMILY)),
    ("show-branch", Rule::Flags(ANY)),
    ("show-ref", Rule::Flags(ANY)),
    ("stash", Rule::Check(git_stash_allows)),
    ("status", Rule::Flags(ANY)),
    ("tag", Rule::Check(git_tag_allows)),
    ("version", Rule::Flags(ANY)),
    ("whatchanged", Rule::Flags(GIT_DIFF_FAMILY)),
    ("worktree", Rule::Check(git_worktree_allows)),
];

/// The options `git branch` and `git tag` share in their listing forms: which refs to list
/// and how to show them. The first seven take a value.
const GIT_REF_LIST_OPTIONS: &[&str] = &[
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--points-at",
    "--sort",
    "--format",
    "--color",
    "--no-color",
    "--column",
    "--no-column",
    "-i",
    "--ignore-case",
    "-l",
    "--list",
];
const GIT_REF_LIST_VALUES: &[&str] = GIT_REF_LIST_OPTIONS.split_at(7).0;

/// `git branch` in its listing forms only.
pub(super) fn git_branch_allows(args: &[Text<'_>]) -> bool {
    const ALSO: &[&str] =
        &["-a", "--all", "-r", "--remotes", "-v", "--verbose", "--show-current", "--abbrev", "--no-abbrev"];
    let parsed = parse_args(args, GIT_REF_LIST_VALUES, &[]);
    parsed.only_any(&[GIT_REF_LIST_OPTIONS, ALSO])
        && (parsed.operands.is_empty() || parsed.has("-l") || parsed.has("--list"))
}

/// `git tag` in its listing forms only.
pub(super) fn git_tag_allows(args: &[Text<'_>]) -> bool {
    // `-n5` is `-n` with a line count.
    let args: Vec<Text<'_>> = args
        .iter()
        .map(|arg| match arg.strip_prefix("-n") {
            Some(count) if !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit()) => Cow::Borrowed("-n"),
            _ => arg.clone(),
        })
        .collect();
    let parsed = parse_args(&args, GIT_REF_LIST_VALUES, &[]);
    parsed.only_any(&[GIT_REF_LIST_OPTIONS, &["-n"]])
        && (parsed.operands.is_empty() || parsed.has("-l") || parsed.has("--list") || parsed.has("-n"))
}

/// `git config` reading the repository's own configuration: `--get*`, `--list`, or the
/// `get`/`list` subcommands, with `--local` or `--worktree`. Without a scope git reads (and
/// prints) `~/.gitconfig` and `/etc/gitconfig` too, with their includes; `--global`,
/// `--system`, `--blob`, `--includes` and `-f`/`--file` (any INI-style file, such as
/// `~/.aws/credentials`) read files outside it.
pub(super) fn git_config_allows(args: &[Text<'_>]) -> bool {
    const GET: &[&str] = GIT_CONFIG_GETS;
    const ALLOW: &[&str] = &[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--get-color",
        "--get-colorbool",
        "--list",
        "-l",
        "--local",
        "--worktree",
        "--show-origin",
        "--show-scope",
        "-z",
        "--null",
        "--name-only",
        "--type",
        "--bool",
        "--int",
        "--bool-or-int",
        "--path",
        "--expiry-date",
        "--default",
        "--no-includes",
        "--fixed-value",
        "--all",
        "--regexp",
        "--value",
        "--url",
    ];
    let parsed = parse_args(args, &["-f", "--file", "--blob", "--type", "--default", "--value", "--url"], &[]);
    if !parsed.only(ALLOW) || !(parsed.has("--local") || parsed.has("--worktree")) {
        return false;
    }
    match parsed.operands.first().copied() {
        Some("get") => parsed.operands.len() <= 2,
        Some("list") => parsed.operands.len() == 1,
        _ if parsed.has("--list") || parsed.has("-l") => parsed.operands.is_empty(),
        _ => GET.iter().any(|get| parsed.has(get)) && parsed.operands.len() <= 2,
    }
}

/// `git reflog` and `git reflog show`.
pub(super) fn git_reflog_allows(args: &[Text<'_>]) -> bool {
    match args.first() {
        None => true,
        Some(first) if first == "show" => GIT_DIFF_FAMILY.allows(&args[1..]),
        Some(first) if first.starts_with('-') => GIT_DIFF_FAMILY.allows(args),
        Some(_) => false,
    }
}

/// `git remote [-v]`, `git remote show`, `git remote get-url`.
pub(super) fn git_remote_allows(args: &[Text<'_>]) -> bool {
    let parsed = parse_args(args, &[], &[]);
    match parsed.operands.first().copied() {
        None => parsed.only(&["-v", "--verbose"]),
        Some("show") => parsed.only(&["-v", "--verbose", "-n"]),
        Some("get-url") => parsed.only(&["--push", "--all"]),
        Some(_) => false,
    }
}

/// `git stash list` and `git stash show`.
pub(super) fn git_stash_allows(args: &[Text<'_>]) -> bool {
    match args.first().map(text) {
        Some("list" | "show") => GIT_DIFF_FAMILY.allows(&args[1..]),
        _ => false,
    }
}

/// `git worktree list`.
pub(super) fn git_worktree_allows(args: &[Text<'_>]) -> bool {
    args.first().is_some_and(|first| first == "list")
        && parse_args(&args[1..], &["--expire"], &[]).only(&["--porcelain", "-v", "--verbose", "-z", "--expire"])
}

/// `cargo --version`, and `cargo tree`/`cargo metadata` with `--locked` or `--frozen`.
pub(super) fn cargo_allows(args: &[Text<'_>]) -> bool {
    match args.first().map(text) {
        Some("--version" | "-V" | "version") => parse_args(&args[1..], &[], &[]).only(&["-v", "--verbose"]),
        Some("tree" | "metadata") => {
            let parsed = parse_args(&args[1..], &["-Z", "--config"], &[]);
            let locked = parsed.has("--locked") || parsed.has("--frozen");
            locked && !parsed.has("-Z") && !parsed.has("--config")
        }
        _ => false,
    }
}
