//! The static read-only classifier: a vetted table of commands that provably only read.
//!
//! [`TABLE`] is data: one [`Spec`] per command name, with its flag rule (any flag but a deny
//! list, only an allow list, or a check function for commands with subcommands or scripts),
//! whether unquoted globs are acceptable (`glob_safe`: only where every flag is read-only, so a
//! file named `-delete` cannot turn the command into a writer), whether expansions in arguments
//! are acceptable (`prints_only`), and examples that must and must not classify read-only. A
//! test runs every example.
//!
//! Policy, beyond the table:
//!
//! - An expansion (`$VAR`) in an argument makes a command not read-only unless the command only
//!   prints (`echo`, `printf` with a static format, `true`, `false`, `:`, `basename`,
//!   `dirname`, `seq`, `sleep`): word splitting of `$X` can inject any flag.
//! - Commands are looked up by bare name only: `/bin/ls` and `./ls` are not read-only.
//! - Leading assignments must be on a fixed safe list (`LANG`, `LC_*`, `TZ`, `NO_COLOR`, …)
//!   with plain values: `PAGER=x git log` or `PATH=. ls` run other programs.
//! - A command under `sudo`, `doas` or `nohup` (which may create `nohup.out`) is not
//!   read-only.
//! - Decisions: `printf -v` assigns a shell variable (it could be `PATH`), so it is not
//!   read-only. `jq` file-loading flags (`-f`/`--from-file`, `--rawfile`, `--slurpfile`, `-L`)
//!   are not read-only, as in Claude Code. `git -C DIR`, `--git-dir`, `--work-tree` are not
//!   read-only (the bare repository attack, as `cd DIR && git`). `cargo tree` and
//!   `cargo metadata` are read-only only with `--locked` or `--frozen` (otherwise they may
//!   rewrite `Cargo.lock`). `rg -z` is read-only (it runs fixed decompressors); `rg --pre`
//!   is not. `awk` is never read-only (`system()`, `print >`). `git remote show` is
//!   read-only although it contacts the remote.
//! - Options that name a file to read are not read-only: the engine checks plain operands
//!   against the Read rules, never option values (`grep -f`, `rg --file`, `diff --from-file`,
//!   `date -f`, `tree --fromfile`, `--files0-from`, `xargs -a`, `git diff --no-index`,
//!   `git grep -f`, `git blame --contents`, `git config -f`, sed's `r`/`R`), nor are those
//!   that read a file of patterns or names (`--exclude-from` of grep, diff, du and
//!   `git ls-files`, `rg`/`fd --ignore-file`, `sort --random-source`, `find -files0-from`,
//!   `file -m`/`-f`, tree's `--gitfile`, `--infofile`, `--hintro`, `--houtro`) or search a
//!   directory given as a value (`fd --search-path`, `--base-directory`). `git config` reads
//!   only with `--local` or `--worktree` (otherwise it prints `~/.gitconfig` and
//!   `/etc/gitconfig`). Nor is `xargs` with a payload that opens the files its arguments name
//!   (`ls | xargs cat`): they are only known at run time.
//! - The engine never follows what a recursive command reaches through symbolic links, so
//!   options that follow them are not read-only: `grep -R` (`-r` is), `rg -L`, `fd -L`,
//!   `find -L`/`-H`/`-follow`, `du -L`, `tree -l`, `ls -L` with `-R` (`-L` alone is), and
//!   `diff -r` unless `--no-dereference` is given.

use std::sync::OnceLock;

use super::names::FirstByteRuns;
use super::wrappers::basename;
use super::{BashAnalysis, SimpleCommand, Strs, Text};

mod checks;

use checks::*;

/// Flags with their values, as the option reader finds them (on the stack while few).
pub type FlagList<'a> = smallvec::SmallVec<[(&'a str, Option<&'a str>); 6]>;

/// An argument as a plain string.
fn text<'a>(arg: &'a Text<'_>) -> &'a str {
    arg
}

/// Whether this one command provably only reads: no writes, no network side effects, no code
/// execution. Redirections are not part of a command; see [`is_read_only`].
pub fn is_read_only_command(cmd: &SimpleCommand) -> bool {
    if !cmd.assignments.iter().all(|(name, value)| safe_assignment(name, value)) {
        return false;
    }
    // A project's runner runs the project's code first (a Gemfile, an `.envrc`).
    let not_read_only = |wrapper: &str| matches!(wrapper, "sudo" | "doas" | "nohup") || super::is_runner(wrapper);
    if cmd.wrappers.iter().any(|wrapper| not_read_only(basename(wrapper))) {
        return false;
    }
    let Some((name, args)) = cmd.argv.split_first() else {
        // Only (safe) assignments.
        return true;
    };
    let Some(spec) = lookup(name) else { return false };
    if cmd.has_expansion && !spec.prints_only {
        return false;
    }
    if cmd.has_glob && !spec.glob_safe {
        return false;
    }
    spec.rule.allows(args)
}

/// Whether the whole analysis is read-only: no hazards, no writes, every command read-only.
///
/// ```
/// use toolgate_shell::{analyze, is_read_only};
///
/// assert!(is_read_only(&analyze("git log --oneline -5 | head -3")));
/// assert!(is_read_only(&analyze("grep -rn TODO src 2>/dev/null")));
/// assert!(!is_read_only(&analyze("git status; rm -rf target")));
/// assert!(!is_read_only(&analyze("ls > listing.txt")));
/// assert!(!is_read_only(&analyze("sed -i s/a/b/ notes.txt")));
/// ```
pub fn is_read_only(analysis: &BashAnalysis) -> bool {
    analysis.hazards.is_empty() && analysis.writes.is_empty() && analysis.commands.iter().all(is_read_only_command)
}

/// Environment variables a read-only command may be given, and an allow rule looks past
/// (besides `LC_*`): they change how a program prints or which build it makes, never what it
/// runs or opens.
const SAFE_ENV: &[&str] = &[
    "CGO_ENABLED",
    "CI",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLUMNS",
    "DEBUG",
    "FORCE_COLOR",
    "GOARCH",
    "GOOS",
    "LANG",
    "LANGUAGE",
    "LINES",
    "NODE_ENV",
    "NO_COLOR",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONUNBUFFERED",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "TERM",
    "TZ",
];

/// Whether `name=value` may precede a read-only command, or a command an allow rule
/// approves (`NODE_ENV=test npm test`): a safe name and a plain value.
pub fn safe_assignment(name: &str, value: &str) -> bool {
    safe_env_name(name) && value.chars().all(|c| c.is_ascii_alphanumeric() || "_.,:/@+%=-".contains(c))
}

/// Whether `name` is one of the harmless variables (see [`safe_assignment`]).
pub fn safe_env_name(name: &str) -> bool {
    SAFE_ENV.contains(&name)
        || name.strip_prefix("LC_").is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_uppercase()))
}

/// The flags (with their values) and the operands of a table command whose rule is a flag
/// list, its flags' values told apart from operands (`rg -t rust TODO` has the operand `TODO`
/// only); `None` for other commands.
pub fn flags_and_operands<'a>(name: &str, args: &'a [Text<'_>]) -> Option<(FlagList<'a>, Strs<'a>)> {
    let spec = lookup(name)?;
    let flags = match spec.rule {
        Rule::Flags(flags) => flags,
        Rule::Check(_) => spec.options?,
    };
    let parsed = flags.parse(args);
    Some((parsed.flags, parsed.operands))
}

/// The entry for a bare command name: a user's (see [`crate::programs::install`]), else the
/// table's.
pub(super) fn lookup(name: &str) -> Option<&'static Spec> {
    // A user's entry replaces the table's whole, read-only rule included.
    if let Some(entry) = crate::programs::user_entry(name) {
        return entry.spec.as_ref();
    }
    static RUNS: OnceLock<FirstByteRuns> = OnceLock::new();
    RUNS.get_or_init(|| FirstByteRuns::of(TABLE.iter().map(|spec| spec.name))).find(TABLE, name, |spec| spec.name)
}

/// One vetted command.
pub(super) struct Spec {
    /// The bare command name.
    pub name: &'static str,
    /// What its arguments may be.
    pub rule: Rule,
    /// Whether unquoted globs in its arguments are acceptable (every flag is read-only).
    pub glob_safe: bool,
    /// Whether it only prints its arguments, so that expansions in them are acceptable.
    pub prints_only: bool,
    /// The options a [`Rule::Check`] command reads, for the checks of the paths it reads
    /// (`diff -r`'s folders).
    pub options: Option<Flags>,
    /// Commands that must classify read-only (run by the table test, shown by
    /// `toolgate programs show`).
    pub read_only: &'static [&'static str],
    /// Commands that must not classify read-only (run by the table test, shown by
    /// `toolgate programs show`).
    pub not_read_only: &'static [&'static str],
}

/// The rule for a command's arguments.
#[derive(Clone, Copy)]
pub(super) enum Rule {
    /// Checked against flag lists.
    Flags(Flags),
    /// Checked by a function of the arguments (argv without the command name).
    Check(fn(&[Text<'_>]) -> bool),
}

impl Rule {
    /// Whether `args` are acceptable.
    fn allows(&self, args: &[Text<'_>]) -> bool {
        match self {
            Rule::Flags(flags) => flags.allows(args),
            Rule::Check(check) => check(args),
        }
    }
}

/// Flag lists for one command (or git subcommand).
#[derive(Clone, Copy)]
pub(super) struct Flags {
    /// If set, the only flags accepted (`-x` per short option, `--name` per long option).
    pub allow: Option<&'static [&'static str]>,
    /// Flags never accepted; a long flag is also refused when it abbreviates one of these
    /// (`--out` for `--output`), as GNU getopt accepts unambiguous prefixes.
    pub deny: &'static [&'static str],
    /// Flags that take a value (attached, `=value`, or the next argument).
    pub values: &'static [&'static str],
    /// The most operands accepted.
    pub max_operands: Option<usize>,
    /// How the program spells its options beyond these lists.
    pub spelling: Spelling,
}

/// How a program reads the spelling of its options: what [`parse_args`] resolves before it
/// reports a flag, so that every check sees one name per option.
#[derive(Clone, Copy)]
pub(super) struct Spelling {
    /// GNU `getopt_long`: a long option may be given as any prefix that abbreviates one
    /// option only (`--recursiv`, `--dir` for `--directories`). A prefix is resolved against
    /// the long options the lists name (`allow`, `deny`, `values`, and those below); a long
    /// option the program has that is a prefix of a listed one must be listed too.
    pub abbreviated: bool,
    /// Long options that are another spelling of a short one, reported as the short one
    /// (`--recursive` as `-r`).
    pub aliases: &'static [(&'static str, &'static str)],
    /// Other long options the checks read by name (`diff --no-dereference`), so that their
    /// abbreviations resolve.
    pub long: &'static [&'static str],
    /// Options whose value is one of a few words, which may be abbreviated as the option is
    /// (grep's `-d rec` is `-d recurse`, as `argmatch` reads it): the value is reported as
    /// the word it abbreviates, when it abbreviates one only.
    pub choices: &'static [(&'static str, &'static [&'static str])],
}

/// Options spelled only as listed.
const AS_LISTED: Spelling = Spelling { abbreviated: false, aliases: &[], long: &[], choices: &[] };

/// Any flag, any operands.
const ANY: Flags = Flags { allow: None, deny: &[], values: &[], max_operands: None, spelling: AS_LISTED };

impl Flags {
    /// Whether `args` pass these lists.
    fn allows(&self, args: &[Text<'_>]) -> bool {
        let parsed = self.parse(args);
        let flags_ok = parsed
            .flags
            .iter()
            .all(|(flag, _)| !self.denies(flag) && self.allow.is_none_or(|allow| allow.contains(flag)));
        flags_ok && self.max_operands.is_none_or(|max| parsed.operands.len() <= max)
    }

    /// `args` split as the program reads them: [`parse_args`] with these lists and spelling.
    fn parse<'a>(&self, args: &'a [Text<'_>]) -> Parsed<'a> {
        parse_spelled(args, self.values, &[], &Reading { flags: self, spelling: &self.spelling })
    }

    /// Whether `flag` is refused: denied, or an abbreviation of a denied long flag. A flag in
    /// `values` is exactly that flag, not an abbreviation (getopt prefers an exact match:
    /// `--exclude` is not `--exclude-from`).
    fn denies(&self, flag: &str) -> bool {
        self.deny.contains(&flag) || (denied(flag, self.deny) && !self.values.contains(&flag))
    }
}

/// Whether `flag` is in `deny`, or abbreviates a long flag in it.
fn denied(flag: &str, deny: &[&str]) -> bool {
    deny.iter().any(|denied| {
        *denied == flag
            || (flag.len() > 2 && flag.starts_with("--") && denied.starts_with("--") && denied.starts_with(flag))
    })
}

/// Arguments split into flags and operands.
struct Parsed<'a> {
    /// Flags as `-x` or `--name` (`-5` is `-5`), with their value. (A short flag that is not
    /// ASCII is [`NON_ASCII_FLAG`]: no list names one.)
    flags: FlagList<'a>,
    /// Operands, in order.
    operands: Strs<'a>,
}

impl Parsed<'_> {
    /// Whether `flag` was given.
    fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|(seen, _)| *seen == flag)
    }

    /// The values given to `flag`.
    fn values_of<'s>(&'s self, flag: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.flags.iter().filter(move |(seen, _)| *seen == flag).filter_map(|(_, value)| *value)
    }

    /// Whether every flag is in `allow`.
    fn only(&self, allow: &[&str]) -> bool {
        self.only_any(&[allow])
    }

    /// Whether every flag is in one of the `lists`.
    fn only_any(&self, lists: &[&[&str]]) -> bool {
        self.flags.iter().all(|(flag, _)| lists.iter().any(|list| list.contains(flag)))
    }
}

/// `-` and each ASCII character, in pairs: the short flags, without building them.
const SHORT_FLAGS: &str = {
    const BYTES: [u8; 256] = {
        let mut bytes = [0u8; 256];
        let mut c = 0;
        while c < 128 {
            bytes[2 * c] = b'-';
            bytes[2 * c + 1] = c as u8;
            c += 1;
        }
        bytes
    };
    match std::str::from_utf8(&BYTES) {
        Ok(flags) => flags,
        Err(_) => panic!("ASCII is UTF-8"),
    }
};

/// What [`parse_args`] calls a short flag that is not ASCII.
const NON_ASCII_FLAG: &str = "-\u{fffd}";

/// The short flag `-c`.
fn short_flag(c: char) -> &'static str {
    if c.is_ascii() {
        let at = 2 * c as usize;
        &SHORT_FLAGS[at..at + 2]
    } else {
        NON_ASCII_FLAG
    }
}

/// Splits `args` GNU style (options anywhere before `--`): `values` take one value, `pairs`
/// take two (`jq --arg NAME VALUE`). Options are taken as written.
fn parse_args<'a>(args: &'a [Text<'_>], values: &[&str], pairs: &[&str]) -> Parsed<'a> {
    parse_spelled(args, values, pairs, &Reading { flags: &ANY, spelling: &AS_LISTED })
}

/// The lists and spelling a long option is resolved against.
struct Reading<'r> {
    /// The flag lists, whose long options an abbreviation may stand for.
    flags: &'r Flags,
    /// How the program spells its options.
    spelling: &'r Spelling,
}

impl Reading<'_> {
    /// The long option `flag` (`--name`, no value) stands for: itself if listed or if the
    /// program takes no abbreviations, else the one listed long option it abbreviates (an
    /// ambiguous prefix is an error to the program, and stays as written).
    fn long<'a>(&self, flag: &'a str) -> &'a str {
        let spelling = self.spelling;
        if !spelling.abbreviated || flag.len() <= 2 {
            return flag;
        }
        let flags = self.flags;
        let listed = flags
            .allow
            .unwrap_or_default()
            .iter()
            .chain(flags.deny)
            .chain(flags.values)
            .copied()
            .chain(spelling.aliases.iter().map(|(long, _)| *long))
            .chain(spelling.long.iter().copied())
            .chain(spelling.choices.iter().map(|(option, _)| *option))
            .filter(|option| option.starts_with("--"));
        let mut found: Option<&'static str> = None;
        for option in listed {
            if option == flag {
                return option;
            }
            if option.starts_with(flag) && found.is_none_or(|seen| seen == option) {
                found = Some(option);
            } else if option.starts_with(flag) {
                return flag;
            }
        }
        found.unwrap_or(flag)
    }

    /// The flag `option` is reported as: the short option it is another spelling of, if any.
    fn alias<'a>(&self, option: &'a str) -> &'a str {
        self.spelling.aliases.iter().find(|(long, _)| *long == option).map_or(option, |(_, short)| short)
    }

    /// The value of `flag` as the program reads it: the one word of its choices it
    /// abbreviates, if any.
    fn choice<'a>(&self, flag: &str, value: &'a str) -> &'a str {
        let Some((_, words)) = self.spelling.choices.iter().find(|(option, _)| *option == flag) else {
            return value;
        };
        if value.is_empty() || words.contains(&value) {
            return value;
        }
        let mut matching = words.iter().filter(|word| word.starts_with(value));
        match (matching.next(), matching.next()) {
            (Some(word), None) => word,
            _ => value,
        }
    }
}

/// [`parse_args`] reading long options and values as `reading` says: abbreviations resolved,
/// aliases reported as their short option, abbreviated choices as their word.
fn parse_spelled<'a>(args: &'a [Text<'_>], values: &[&str], pairs: &[&str], reading: &Reading<'_>) -> Parsed<'a> {
    let mut parsed = Parsed { flags: FlagList::new(), operands: Strs::new() };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        let arg = &**arg;
        if arg == "--" {
            parsed.operands.extend(args[i..].iter().map(text));
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            // `--name`, as the start of the argument, or the option it abbreviates.
            let flag = reading.long(&arg[..2 + name.len()]);
            let value = if attached.is_some() {
                attached
            } else if pairs.contains(&flag) {
                i += 2;
                args.get(i - 1).map(text)
            } else if values.contains(&flag) {
                i += 1;
                args.get(i - 1).map(text)
            } else {
                None
            };
            let flag = reading.alias(flag);
            parsed.flags.push((flag, value.map(|value| reading.choice(flag, value))));
            continue;
        }
        if arg.len() > 1 && arg.starts_with('-') {
            for (offset, c) in arg.char_indices().skip(1) {
                let flag = short_flag(c);
                if values.contains(&flag) {
                    let rest = &arg[offset + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        i += 1;
                        args.get(i - 1).map(text)
                    } else {
                        Some(rest)
                    };
                    parsed.flags.push((flag, value.map(|value| reading.choice(flag, value))));
                    break;
                }
                parsed.flags.push((flag, None));
            }
            continue;
        }
        parsed.operands.push(arg);
    }
    parsed
}

/// A spec with every field at its strictest default.
const BASE: Spec = Spec {
    name: "",
    rule: Rule::Flags(ANY),
    glob_safe: false,
    prints_only: false,
    options: None,
    read_only: &[],
    not_read_only: &[],
};

/// Flags of git's diff family (`diff`, `log`, `show`, …): no `--output` file, no external diff.
const GIT_DIFF_FAMILY: Flags = Flags { deny: &["--output", "--ext-diff"], ..ANY };

/// `grep`, `egrep`, `fgrep`: no pattern file (`-f`), which may be any file and is echoed back
/// by `-o` or a match, nor `--exclude-from` (any file, read as patterns); no `-R`, which
/// follows symbolic links met while recursing out of the working directory (`-r` does not).
/// The flags that take a value are listed so that `-e -f` is a pattern.
const GREP: Flags = Flags {
    deny: &["-f", "--file", "--exclude-from", "-R", "--dereference-recursive"],
    values: &[
        "-e",
        "--regexp",
        "-f",
        "--file",
        "-m",
        "--max-count",
        "-A",
        "--after-context",
        "-B",
        "--before-context",
        "-C",
        "--context",
        "-d",
        "--directories",
        "-D",
        "--devices",
        "--label",
        "--include",
        "--exclude",
        "--exclude-from",
        "--exclude-dir",
        "--binary-files",
        "--group-separator",
    ],
    spelling: GREP_SPELLING,
    ..ANY
};

/// How grep spells its options (GNU `getopt_long`, `argmatch` for `-d`, `-D` and
/// `--binary-files`): `--recursiv` and `-d rec` recurse as `-r` does.
const GREP_SPELLING: Spelling = Spelling {
    abbreviated: true,
    aliases: &[
        ("--recursive", "-r"),
        ("--dereference-recursive", "-R"),
        ("--directories", "-d"),
        ("--devices", "-D"),
        ("--regexp", "-e"),
        ("--file", "-f"),
    ],
    long: &[],
    choices: &[("-d", &["read", "recurse", "skip"]), ("-D", &["read", "skip"])],
};

/// `wc`: no `--files0-from`, which reads the names from a file (any file, and its lines come
/// back in error messages) rather than from the operands.
const FILES0_FROM: Flags = Flags { deny: &["--files0-from"], spelling: GNU, ..ANY };

/// A GNU program's spelling: long options abbreviated as `getopt_long` allows.
const GNU: Spelling = Spelling { abbreviated: true, ..AS_LISTED };

/// `du`: no `--files0-from` (as `wc`), no `-X`/`--exclude-from` (any file, read as patterns),
/// no `-L`/`--dereference`, which follows symbolic links met while recursing.
const DU: Flags = Flags {
    deny: &["--files0-from", "-X", "--exclude-from", "-L", "--dereference"],
    values: &[
        "-B",
        "--block-size",
        "-d",
        "--max-depth",
        "-t",
        "--threshold",
        "-X",
        "--exclude-from",
        "--exclude",
        "--files0-from",
        "--time-style",
    ],
    spelling: GNU,
    ..ANY
};

/// The vetted table, sorted by name (a test checks the order).
pub(super) static TABLE: &[Spec] = &[
    Spec { name: ":", glob_safe: true, prints_only: true, read_only: &[": nothing $X"], ..BASE },
    Spec {
        name: "[",
        rule: Rule::Check(test_allows),
        glob_safe: true,
        read_only: &["[ -f Cargo.toml ]", "[ -d src ] && ls src"],
        not_read_only: &["[ -f \"$X\" ]", "[ -v 'a[$(rm x)]' ]"],
        ..BASE
    },
    Spec {
        name: "[[",
        rule: Rule::Check(double_bracket_allows),
        glob_safe: true,
        read_only: &["[[ -f Cargo.toml && -d src ]]", "[[ 1 -eq 1 ]]"],
        not_read_only: &["[[ $x -eq 1 ]]", "[[ 1 -eq 'a[$(rm x)]' ]]", "[[ -v x ]]", "[[ _ -eq 0 ]]", "[[ 1 -lt x ]]"],
        ..BASE
    },
    Spec {
        name: "base64",
        rule: Rule::Flags(Flags { deny: &["-o", "--output"], values: &["-w", "--wrap", "-i", "--input"], ..ANY }),
        read_only: &["base64 -d data.b64", "base64 -w0 file"],
        not_read_only: &["base64 -o out.txt in.txt", "base64 --output=out in"],
        ..BASE
    },
    Spec { name: "basename", glob_safe: true, prints_only: true, read_only: &["basename \"$PWD\""], ..BASE },
    Spec {
        name: "cargo",
        rule: Rule::Check(cargo_allows),
        read_only: &["cargo --version", "cargo tree --locked", "cargo metadata --format-version 1 --frozen"],
        not_read_only: &["cargo tree", "cargo build", "cargo run", "cargo +nightly tree --locked"],
        ..BASE
    },
    Spec { name: "cat", glob_safe: true, read_only: &["cat -n src/*.rs"], not_read_only: &["cat a > b"], ..BASE },
    Spec {
        name: "cd",
        rule: Rule::Check(cd_allows),
        read_only: &["cd src", "cd", "cd -P .."],
        not_read_only: &["cd $DIR", "cd a b"],
        ..BASE
    },
    Spec { name: "cksum", glob_safe: true, read_only: &["cksum *.tar"], ..BASE },
    Spec { name: "cmp", glob_safe: true, read_only: &["cmp -s a b"], ..BASE },
    Spec { name: "column", glob_safe: true, read_only: &["column -t data.tsv"], ..BASE },
    Spec { name: "comm", glob_safe: true, read_only: &["comm -12 a.txt b.txt"], ..BASE },
    Spec {
        name: "command",
        rule: Rule::Check(command_allows),
        read_only: &["command -v cargo", "command -V ls"],
        not_read_only: &["command -p rm x"],
        ..BASE
    },
    Spec { name: "cut", glob_safe: true, read_only: &["cut -d: -f1 /etc/passwd"], ..BASE },
    Spec {
        name: "date",
        rule: Rule::Check(date_allows),
        read_only: &["date", "date -u +%Y-%m-%d", "date -d yesterday"],
        not_read_only: &[
            "date -s now",
            "date --set=now",
            "date 0101000023",
            "date -f /etc/shadow",
            "date -uf .env",
            "date --file=.env",
            "date --file .env",
        ],
        ..BASE
    },
    Spec { name: "df", glob_safe: true, read_only: &["df -h ."], ..BASE },
    Spec {
        name: "diff",
        rule: Rule::Check(diff_allows),
        options: Some(DIFF),
        glob_safe: true,
        read_only: &[
            "diff -u a b",
            "diff -r --no-dereference dir1 dir2",
            "diff -x '*.o' a b",
            "diff --recursiv --no-deref dir1 dir2",
        ],
        not_read_only: &[
            "diff <(ls a) <(ls b)",
            "diff --from-file=/etc/shadow a",
            "diff --to-file=.env a",
            "diff --from-file /etc/shadow a",
            "diff --to-file .env a",
            "diff -r dir1 dir2",
            "diff -ruN dir1 dir2",
            "diff --recursive dir1 dir2",
            "diff --recursiv dir1 dir2",
            "diff --exclude-from=/etc/shadow a b",
            "diff -X .env a b",
            "diff -rX.env --no-dereference a b",
        ],
        ..BASE
    },
    Spec { name: "dirname", glob_safe: true, prints_only: true, read_only: &["dirname \"$0\""], ..BASE },
    Spec {
        name: "docker",
        rule: Rule::Check(docker_allows),
        read_only: &["docker ps -a", "docker images", "docker version", "docker info", "docker image ls"],
        not_read_only: &["docker run alpine", "docker rm x", "docker -H tcp://x ps"],
        ..BASE
    },
    Spec {
        name: "du",
        rule: Rule::Flags(DU),
        glob_safe: true,
        read_only: &["du -sh *", "du -sh --exclude=target ."],
        not_read_only: &[
            "du --files0-from=.env",
            "du --files0-from /etc/shadow",
            "du --files0-from=-",
            "du -L .",
            "du -shL .",
            "du --dereference .",
            "du --exclude-from=.env .",
            "du -X /etc/shadow .",
            "du -sX.env .",
        ],
        ..BASE
    },
    Spec {
        name: "echo",
        glob_safe: true,
        prints_only: true,
        read_only: &["echo hello", "echo $HOME *", "echo $((1+2))"],
        not_read_only: &["echo x > f", "echo $(rm x)"],
        ..BASE
    },
    Spec {
        name: "egrep",
        rule: Rule::Flags(GREP),
        glob_safe: true,
        read_only: &["egrep -n 'a|b' *.txt"],
        not_read_only: &[
            "egrep -f /etc/shadow x",
            "egrep -rf .env src",
            "egrep --file=.env x",
            "egrep -R x .",
            "egrep --exclude-from=.env -r x .",
        ],
        ..BASE
    },
    Spec { name: "expand", glob_safe: true, read_only: &["expand -t4 a.txt"], ..BASE },
    Spec { name: "false", glob_safe: true, prints_only: true, read_only: &["false"], ..BASE },
    Spec {
        name: "fd",
        rule: Rule::Flags(Flags { deny: FD_DENY, values: FD_VALUES, ..ANY }),
        read_only: &["fd -e rs", "fd -t f -E target main"],
        not_read_only: &[
            "fd -x rm",
            "fd -e rs -X wc -l",
            "fd --exec=rm",
            "fd -Hx rm",
            "fd -L key",
            "fd -HL key",
            "fd --follow key",
            "fd --ignore-file=/etc/shadow x",
            "fd --search-path=/etc passwd",
            "fd --base-directory=/ etc",
        ],
        ..BASE
    },
    Spec {
        name: "fdfind",
        rule: Rule::Flags(Flags { deny: FD_DENY, values: FD_VALUES, ..ANY }),
        read_only: &["fdfind -e rs"],
        not_read_only: &["fdfind -x rm", "fdfind -L key", "fdfind --follow key"],
        ..BASE
    },
    Spec {
        name: "fgrep",
        rule: Rule::Flags(GREP),
        glob_safe: true,
        read_only: &["fgrep -r x ."],
        not_read_only: &[
            "fgrep -f /etc/shadow x",
            "fgrep -f.env x",
            "fgrep --file .env x",
            "fgrep -nR x .",
            "fgrep --exclude-from .env -r x .",
        ],
        ..BASE
    },
    Spec {
        name: "file",
        rule: Rule::Flags(Flags {
            deny: &["-C", "--compile", "-m", "--magic-file", "-f", "--files-from"],
            values: &[
                "-m",
                "--magic-file",
                "-f",
                "--files-from",
                "-F",
                "--separator",
                "-P",
                "--parameter",
                "-e",
                "--exclude",
            ],
            ..ANY
        }),
        read_only: &["file -b README.md"],
        not_read_only: &[
            "file -C -m magic",
            "file -m/etc/shadow x",
            "file --magic-file=.env x",
            "file -f list.txt",
            "file --files-from=list.txt",
        ],
        ..BASE
    },
    Spec {
        name: "find",
        rule: Rule::Check(find_allows),
        read_only: &["find . -name '*.rs'", "find src -type f -newer Cargo.toml -print0"],
        not_read_only: &[
            "find . -delete",
            "find . -exec rm {} +",
            "find . -execdir ls \\;",
            "find . -ok rm {} \\;",
            "find . -okdir rm {} \\;",
            "find . -fprint out",
            "find . -fprint0 out",
            "find . -fprintf out %p",
            "find . -fls out",
            "find . -name *.rs",
            "find -L . -name id_rsa",
            "find -H link",
            "find . -follow -name id_rsa",
            "find -files0-from /etc/shadow",
        ],
        ..BASE
    },
    Spec { name: "fmt", glob_safe: true, read_only: &["fmt -w 72 notes.txt"], ..BASE },
    Spec { name: "fold", glob_safe: true, read_only: &["fold -w 80 a"], ..BASE },
    Spec { name: "free", glob_safe: true, read_only: &["free -h"], ..BASE },
    Spec {
        name: "git",
        rule: Rule::Check(git_allows),
        read_only: &[
            "git status",
            "git --no-pager log --oneline -5",
            "git diff HEAD~1",
            "git show HEAD:src/lib.rs",
            "git blame -L 1,5 src/lib.rs",
            "git branch -a",
            "git branch --list 'feat/*'",
            "git tag",
            "git tag -l 'v1.*'",
            "git tag -n5 --contains HEAD --sort=-v:refname",
            "git branch -r --merged main --format '%(refname)'",
            "git ls-files",
            "git ls-tree HEAD",
            "git rev-parse --show-toplevel",
            "git remote -v",
            "git remote show origin",
            "git remote get-url origin",
            "git stash list",
            "git config --local --get user.name",
            "git config --local --list",
            "git config get --local user.email",
            "git config list --worktree",
            "git ls-files --exclude='*.o' --others",
            "git worktree list",
            "git describe --tags",
            "git shortlog -sn",
            "git cat-file -p HEAD",
            "git grep -n foo",
            "git reflog",
            "git reflog show",
            "git merge-base main HEAD",
            "git name-rev HEAD",
            "git --version",
        ],
        not_read_only: &[
            "git commit -m x",
            "git push",
            "git branch -D x",
            "git branch new-feature",
            "git branch -m a b",
            "git branch --set-upstream-to=origin/main",
            "git tag v1",
            "git tag -d v1",
            "git tag -f v1 HEAD",
            "git tag -a v1 -m x",
            "git branch -n x",
            "git branch --contains HEAD new-feature",
            "git config user.name x",
            "git config --unset user.name",
            "git config --global core.pager less",
            "git -C /tmp status",
            "git --git-dir=x log",
            "git -c core.pager=sh log",
            "git log --output=x",
            "git diff --ext-diff",
            "git remote add x y",
            "git stash",
            "git stash pop",
            "git worktree add x",
            "git reflog expire --all",
            "git grep -O foo",
            "git cat-file --textconv HEAD:x",
            "git lg",
            "git diff --no-index /etc/shadow /dev/null",
            "git diff --stat --no-index a b",
            "git grep --no-index foo",
            "git grep -f /etc/shadow",
            "git grep -nf .env",
            "git grep --file=.env",
            "git grep --file .env",
            "git blame --contents=/etc/shadow src/lib.rs",
            "git blame --contents .env src/lib.rs",
            "git config -f ~/.aws/credentials --list",
            "git config --file=.env --get a.b",
            "git config --get user.name",
            "git config --list",
            "git config get user.email",
            "git config --global -l",
            "git config --system --list",
            "git config --local --includes --list",
            "git config --blob=HEAD:x --list",
            "git ls-files --exclude-from=/etc/shadow -o",
            "git ls-files -X .env -o",
            "git ls-files -oX.env",
        ],
        ..BASE
    },
    Spec {
        name: "grep",
        rule: Rule::Flags(GREP),
        glob_safe: true,
        read_only: &[
            "grep -rn foo src",
            "grep -c x *.txt",
            "grep -r --exclude='*.o' --exclude-dir=target x .",
            "grep --recursiv -d rec --exclude '*.o' x .",
        ],
        not_read_only: &[
            "grep -f /etc/shadow x",
            "grep -f/etc/shadow x",
            "grep -rf .env src",
            "grep --file=.env x",
            "grep --file .env x",
            "grep -R secret .",
            "grep -Rn secret .",
            "grep -nR secret .",
            "grep --dereference-recursive secret .",
            "grep --deref secret .",
            "grep --fil=.env x",
            "grep --direc=recurse --deref x .",
            "grep --deref secret .",
            "grep --exclude-from=/etc/shadow -r x .",
            "grep --exclude-from .env -r x .",
        ],
        ..BASE
    },
    Spec { name: "groups", glob_safe: true, read_only: &["groups"], ..BASE },
    Spec { name: "head", glob_safe: true, read_only: &["head -5 a", "head -n 5 *.md"], ..BASE },
    Spec { name: "hexdump", glob_safe: true, read_only: &["hexdump -C a.bin"], ..BASE },
    Spec {
        name: "hostname",
        rule: Rule::Flags(Flags {
            allow: Some(&[
                "-a",
                "--alias",
                "-A",
                "--all-fqdns",
                "-d",
                "--domain",
                "-f",
                "--fqdn",
                "--long",
                "-i",
                "--ip-address",
                "-I",
                "--all-ip-addresses",
                "-s",
                "--short",
                "-y",
                "--yp",
                "--nis",
                "-V",
                "--version",
                "-h",
                "--help",
            ]),
            max_operands: Some(0),
            ..ANY
        }),
        read_only: &["hostname", "hostname -f"],
        not_read_only: &["hostname newname", "hostname -F /etc/hostname", "hostname -b x"],
        ..BASE
    },
    Spec { name: "id", glob_safe: true, read_only: &["id -u"], ..BASE },
    Spec { name: "join", glob_safe: true, read_only: &["join a b"], ..BASE },
    Spec {
        name: "jq",
        rule: Rule::Check(jq_allows),
        read_only: &["jq .name package.json", "jq -r --arg k v '.[$k]' a.json", "jq -n '1+1'"],
        not_read_only: &[
            "jq -f prog.jq a.json",
            "jq --rawfile x f . a",
            "jq --slurpfile x f . a",
            "jq -L lib . a",
            "jq -n 'import \"config\" as $c {search: \"~/.docker\"}; $c'",
            "jq -n 'include \"m\"; 1'",
        ],
        ..BASE
    },
    Spec {
        name: "ls",
        rule: Rule::Check(ls_allows),
        glob_safe: true,
        read_only: &["ls -la", "ls src/*.rs", "ls -lL", "ls -R src", "ls -R -I -L"],
        not_read_only: &["ls $DIR", "ls -RL", "ls -LR", "ls -R -L", "ls -lR --dereference", "ls --recursive -L"],
        ..BASE
    },
    Spec { name: "lsof", glob_safe: true, read_only: &["lsof -i :8080"], ..BASE },
    Spec { name: "md5sum", glob_safe: true, read_only: &["md5sum *.tar"], ..BASE },
    Spec { name: "nl", glob_safe: true, read_only: &["nl a"], ..BASE },
    Spec { name: "nproc", glob_safe: true, read_only: &["nproc"], ..BASE },
    Spec { name: "od", glob_safe: true, read_only: &["od -c a"], ..BASE },
    Spec { name: "paste", glob_safe: true, read_only: &["paste -sd, a"], ..BASE },
    Spec { name: "pgrep", glob_safe: true, read_only: &["pgrep -fl cargo"], ..BASE },
    Spec {
        name: "printf",
        rule: Rule::Check(printf_allows),
        prints_only: true,
        read_only: &["printf '%s\\n' a b", "printf '%s\\n' \"$HOME\""],
        not_read_only: &["printf -v PATH %s /tmp", "printf $FMT x", "printf -v 'a[$(rm x)]' x"],
        ..BASE
    },
    Spec { name: "ps", glob_safe: true, read_only: &["ps aux"], ..BASE },
    Spec {
        name: "pwd",
        rule: Rule::Flags(Flags { allow: Some(&["-L", "-P"]), max_operands: Some(0), ..ANY }),
        glob_safe: true,
        read_only: &["pwd", "pwd -P"],
        ..BASE
    },
    Spec { name: "readlink", glob_safe: true, read_only: &["readlink -f x"], ..BASE },
    Spec { name: "realpath", glob_safe: true, read_only: &["realpath --relative-to=. src"], ..BASE },
    Spec { name: "rev", glob_safe: true, read_only: &["rev a"], ..BASE },
    Spec {
        name: "rg",
        rule: Rule::Flags(Flags {
            deny: &["--pre", "--pre-glob", "--hostname-bin", "-f", "--file", "--ignore-file", "-L", "--follow"],
            values: &[
                "-e",
                "--regexp",
                "-f",
                "--file",
                "-g",
                "--glob",
                "--iglob",
                "-t",
                "--type",
                "-T",
                "--type-not",
                "-m",
                "--max-count",
                "-A",
                "-B",
                "-C",
                "--after-context",
                "--before-context",
                "--context",
                "-j",
                "--threads",
                "-M",
                "--max-columns",
                "--max-depth",
                "-d",
                "--max-filesize",
                "-E",
                "--encoding",
                "-r",
                "--replace",
                "--sort",
                "--sortr",
                "--type-add",
                "--color",
                "--colors",
                "--ignore-file",
            ],
            // ripgrep takes no abbreviations (`--hidde` is an error).
            spelling: Spelling {
                aliases: &[
                    ("--unrestricted", "-u"),
                    ("--hidden", "-."),
                    ("--glob", "-g"),
                    ("--type", "-t"),
                    ("--type-not", "-T"),
                    ("--follow", "-L"),
                    ("--regexp", "-e"),
                    ("--file", "-f"),
                ],
                ..AS_LISTED
            },
            ..ANY
        }),
        read_only: &["rg -l TODO", "rg -n -g '*.rs' foo src", "rg -z pattern logs", "rg -e --pre x"],
        not_read_only: &[
            "rg --pre sh x",
            "rg --pre=./x y",
            "rg --pre-glob '*.gz' x",
            "rg --hostname-bin=x y",
            "rg -f /etc/shadow src",
            "rg -f.env src",
            "rg -nf .env src",
            "rg --file=.env src",
            "rg --file .env src",
            "rg -L key",
            "rg -nL key",
            "rg --follow key",
            "rg --ignore-file /etc/shadow x",
            "rg --ignore-file=.env x",
        ],
        ..BASE
    },
    Spec {
        name: "sed",
        rule: Rule::Check(sed_allows),
        options: Some(SED),
        read_only: &[
            "sed -n '1,5p' f",
            "sed 's/a/b/g' f",
            "sed -n -e '/x/p' -e '$=' f",
            "sed -E 's/(a)/\\1/' f",
            "sed -ne1p f",
            "sed --expr=p --quiet f",
        ],
        not_read_only: &[
            "sed -i s/a/b/ f",
            "sed --in-place s/a/b/ f",
            "sed -ni p f",
            "sed 's/a/b/w out' f",
            "sed 's/a/b/e' f",
            "sed '/x/w out' f",
            "sed '1e ls' f",
            "sed -f script.sed f",
            "sed 'W out' f",
            "sed '1r /etc/shadow' x",
            "sed 'R .env' src/a.rs",
            "sed -e '$r /etc/passwd' x",
            "sed -n -e p -e '/x/R .env' f",
            "sed -nes/x/y/w\\ out f",
            "sed --expr='1e ls' f",
            "sed --in-pl s/a/b/ f",
        ],
        ..BASE
    },
    Spec { name: "seq", glob_safe: true, prints_only: true, read_only: &["seq 1 $N"], ..BASE },
    Spec { name: "sha1sum", glob_safe: true, read_only: &["sha1sum a"], ..BASE },
    Spec { name: "sha224sum", glob_safe: true, read_only: &["sha224sum a"], ..BASE },
    Spec { name: "sha256sum", glob_safe: true, read_only: &["sha256sum -c sums.txt"], ..BASE },
    Spec { name: "sha384sum", glob_safe: true, read_only: &["sha384sum a"], ..BASE },
    Spec { name: "sha512sum", glob_safe: true, read_only: &["sha512sum a"], ..BASE },
    Spec { name: "sleep", glob_safe: true, prints_only: true, read_only: &["sleep 1"], ..BASE },
    Spec {
        name: "sort",
        rule: Rule::Flags(Flags {
            deny: &["-o", "--output", "--compress-program", "--files0-from", "--random-source"],
            values: &[
                "-k",
                "--key",
                "-t",
                "--field-separator",
                "-S",
                "--buffer-size",
                "-T",
                "--temporary-directory",
                "--parallel",
                "--batch-size",
                "--files0-from",
                "--random-source",
            ],
            ..ANY
        }),
        read_only: &["sort -u a", "sort -t, -k2 a", "sort -to a"],
        not_read_only: &[
            "sort -o out in",
            "sort -uo out in",
            "sort --output=out in",
            "sort --out=x in",
            "sort *.txt",
            "sort --files0-from=.env",
            "sort --files0-from /etc/shadow",
            "sort --files0-from=-",
            "sort -R --random-source=/etc/shadow a",
            "sort --random-source .env a",
        ],
        ..BASE
    },
    Spec { name: "stat", glob_safe: true, read_only: &["stat -c %s a"], ..BASE },
    Spec { name: "tac", glob_safe: true, read_only: &["tac a"], ..BASE },
    Spec { name: "tail", glob_safe: true, read_only: &["tail -n 20 log.txt", "tail -5 a"], ..BASE },
    Spec {
        name: "test",
        rule: Rule::Check(test_allows),
        glob_safe: true,
        read_only: &["test -f a"],
        not_read_only: &["test -v 'a[$(rm x)]'"],
        ..BASE
    },
    Spec { name: "tr", glob_safe: true, read_only: &["tr a-z A-Z"], ..BASE },
    Spec {
        name: "tree",
        rule: Rule::Check(tree_allows),
        read_only: &["tree -L 2 src", "tree -I target", "tree -L2 -a --dirsfirst"],
        not_read_only: &[
            "tree -o out.txt",
            "tree -R -H . -L 2",
            "tree --fromfile .env",
            "tree --fromfile",
            "tree -L 2 --fromfile=.",
            "tree --fromtabfile .env",
            "tree -Lo 2 out.txt",
            "tree -l",
            "tree -dl src",
            "tree -L2l",
            "tree -Pl '*.rs'",
            "tree --gitfile=/etc/shadow",
            "tree --infofile .env",
            "tree -H . --hintro=/etc/shadow",
            "tree -H . --houtro .env",
        ],
        ..BASE
    },
    Spec { name: "true", glob_safe: true, prints_only: true, read_only: &["true"], ..BASE },
    Spec { name: "type", glob_safe: true, read_only: &["type -a ls"], ..BASE },
    Spec { name: "uname", glob_safe: true, read_only: &["uname -a"], ..BASE },
    Spec { name: "unexpand", glob_safe: true, read_only: &["unexpand -a a"], ..BASE },
    Spec {
        name: "uniq",
        rule: Rule::Flags(Flags {
            values: &["-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"],
            max_operands: Some(1),
            ..ANY
        }),
        read_only: &["uniq -c a", "sort a | uniq", "uniq -f 1 a"],
        not_read_only: &["uniq a b", "uniq *.txt"],
        ..BASE
    },
    Spec { name: "uptime", glob_safe: true, read_only: &["uptime"], ..BASE },
    Spec {
        name: "wc",
        rule: Rule::Flags(FILES0_FROM),
        glob_safe: true,
        read_only: &["wc -l src/*.rs"],
        not_read_only: &["wc --files0-from=.env", "wc -l --files0-from /etc/shadow", "wc --files0-from=-"],
        ..BASE
    },
    Spec { name: "whereis", glob_safe: true, read_only: &["whereis ls"], ..BASE },
    Spec { name: "which", glob_safe: true, read_only: &["which cargo"], ..BASE },
    Spec { name: "whoami", glob_safe: true, read_only: &["whoami"], ..BASE },
    Spec {
        name: "xargs",
        rule: Rule::Check(xargs_allows),
        read_only: &[
            "git ls-files | xargs echo",
            "find . -name '*.rs' -print0 | xargs -0 basename -a",
            "xargs",
            "xargs -0 -n1 dirname",
            "xargs -d , echo",
            "xargs -Ia echo a",
        ],
        not_read_only: &[
            "xargs rm",
            "xargs -0 -n1 rm -f",
            "xargs sed -n p",
            "xargs sort",
            "xargs -Q x",
            "xargs -a /etc/shadow",
            "xargs -a.env echo",
            "xargs -0a .env",
            "xargs --arg-file=.env",
            "xargs --arg-file .env echo",
            "echo /etc/shadow | xargs cat",
            "ls | xargs cat",
            "ls | xargs -0 head -1",
            "git ls-files | xargs wc -l",
            "xargs grep -l foo",
            "xargs ls -l",
            "xargs stat",
            "xargs du -sh",
            "xargs tail",
            "xargs md5sum",
        ],
        ..BASE
    },
    Spec {
        name: "xxd",
        rule: Rule::Check(xxd_allows),
        read_only: &["xxd a.bin", "xxd -l 64 -c 8 a.bin", "xxd -r -p hex"],
        not_read_only: &["xxd a.bin out", "xxd -r hex out.bin"],
        ..BASE
    },
];

/// `fd` flags that run commands, follow symbolic links out of the working directory
/// (`-L`), read any file as patterns (`--ignore-file`), or search a directory given as a value,
/// which the engine does not check (`--search-path`, `--base-directory`).
const FD_DENY: &[&str] =
    &["-x", "--exec", "-X", "--exec-batch", "-L", "--follow", "--ignore-file", "--search-path", "--base-directory"];

/// `fd` flags that take a value.
const FD_VALUES: &[&str] = &[
    "-e",
    "--extension",
    "-t",
    "--type",
    "-E",
    "--exclude",
    "-d",
    "--max-depth",
    "--min-depth",
    "--exact-depth",
    "-S",
    "--size",
    "--changed-within",
    "--changed-before",
    "-o",
    "--owner",
    "--search-path",
    "--base-directory",
    "--path-separator",
    "-j",
    "--threads",
    "--max-results",
    "-c",
    "--color",
    "--ignore-file",
    "--batch-size",
    "--format",
];

#[cfg(test)]
mod table {
    use std::borrow::Cow;

    use super::*;
    use crate::analyze;

    #[test]
    fn table_is_sorted_and_unique() {
        for pair in TABLE.windows(2) {
            assert!(pair[0].name < pair[1].name, "{} must sort before {}", pair[0].name, pair[1].name);
        }
        for (name, _) in GIT_SUBCOMMANDS {
            assert!(GIT_SUBCOMMANDS.iter().filter(|(other, _)| other == name).count() == 1, "git {name} twice");
        }
    }

    #[test]
    fn short_flags_are_a_dash_and_their_character() {
        for c in (0u8..128).map(char::from) {
            assert_eq!(short_flag(c), format!("-{c}"));
        }
        assert_eq!(short_flag('é'), NON_ASCII_FLAG);
        let args: Vec<Text<'_>> = ["-aé", "--long=1", "-x"].iter().map(|a| Cow::Borrowed(*a)).collect();
        let parsed = parse_args(&args, &[], &[]);
        assert_eq!(
            parsed.flags.as_slice(),
            [("-a", None), (NON_ASCII_FLAG, None), ("--long", Some("1")), ("-x", None)]
        );
    }

    /// The first-byte runs find every entry, and nothing that is not one.
    #[test]
    fn lookup_finds_every_entry_and_nothing_else() {
        for spec in TABLE {
            assert!(lookup(spec.name).is_some_and(|found| std::ptr::eq(found, spec)), "{}", spec.name);
            let longer = format!("{}x", spec.name);
            assert!(lookup(&longer).is_none_or(|found| found.name == longer), "{longer}");
        }
        for absent in ["", "zzz", "rm", "\u{e9}", "LS", "l"] {
            assert!(lookup(absent).is_none(), "{absent:?}");
        }
    }

    #[test]
    fn every_entry_has_an_example_and_its_examples_hold() {
        for spec in TABLE {
            assert!(!spec.read_only.is_empty(), "{} needs a read-only example", spec.name);
            for example in spec.read_only {
                let analysis = analyze(example);
                assert!(
                    analysis.commands.iter().any(|command| command.argv.first().map(text) == Some(spec.name)),
                    "{example:?} does not exercise {}",
                    spec.name
                );
                assert!(is_read_only(&analysis), "{example:?} must be read-only: {analysis:#?}");
            }
            for example in spec.not_read_only {
                assert!(!is_read_only(&analyze(example)), "{example:?} must not be read-only");
            }
        }
    }

    #[test]
    fn what_prints_secrets_is_no_read() {
        for (example, why) in NOT_READS {
            assert!(!is_read_only(&analyze(example)), "{example:?} must not be read-only: {why}");
        }
        assert!(!is_read_only(&analyze("ls | xargs printenv")));
    }

    #[test]
    fn xargs_payloads_are_glob_safe_entries() {
        for name in XARGS_PAYLOADS {
            assert!(lookup(name).is_some_and(|spec| spec.glob_safe), "xargs payload {name} is not a glob-safe entry");
        }
    }

    #[test]
    fn xargs_arg_files() {
        let reads = |args: &[&str]| xargs_reads_arg_file(&args.iter().map(|a| Cow::Borrowed(*a)).collect::<Vec<_>>());
        assert!(reads(&["-a", "f"]));
        assert!(reads(&["-af"]));
        assert!(reads(&["-0a", "f"]));
        assert!(reads(&["--arg-file=f"]));
        assert!(reads(&["--arg-file", "f"]));
        assert!(!reads(&["-0", "-n1"]));
        assert!(!reads(&["-Ia"]));
        assert!(!reads(&["-da"]));
        assert!(!reads(&["--null"]));
    }

    #[test]
    fn cargo_rules() {
        let cargo = |args: &[&str]| cargo_allows(&args.iter().map(|a| Cow::Borrowed(*a)).collect::<Vec<_>>());
        assert!(cargo(&["--version"]));
        assert!(cargo(&["-V"]));
        assert!(cargo(&["tree", "--locked"]));
        assert!(cargo(&["metadata", "--format-version", "1", "--frozen"]));
        assert!(!cargo(&["tree"]));
        assert!(!cargo(&["metadata"]));
        assert!(!cargo(&["build"]));
        assert!(!cargo(&["tree", "--locked", "--config", "x=1"]));
    }

    #[test]
    fn git_tag_rules() {
        let tag = |args: &[&str]| git_tag_allows(&args.iter().map(|a| Cow::Borrowed(*a)).collect::<Vec<_>>());
        assert!(tag(&[]));
        assert!(tag(&["-l", "v1.*"]));
        assert!(tag(&["-n5"]));
        assert!(!tag(&["v1"]));
        assert!(!tag(&["-d", "v1"]));
        assert!(!tag(&["-a", "v1", "-m", "x"]));
    }

    #[test]
    fn sed_scripts() {
        for script in [
            "p",
            "1,5p",
            "$=",
            "/a/,/b/d",
            "s/a/b/g",
            "s|a|b|2",
            "s/a\\/b/c/",
            "/x/{p;d}",
            "y/abc/xyz/",
            "0,/re/d",
            "1~2p",
            "/x/I!d",
            "$ a\\\ntext w out",
            "# comment w x\np",
            ":a;N;ba",
            "q5",
            "\\%x%p",
            "s/a/r x/",
            "s/r/R/g",
            "y/r/R/",
            "/r x/p",
            "$ a r x",
            "# r x\np",
        ] {
            assert!(sed_script_is_safe(script), "{script:?} is safe");
        }
        for script in [
            "w out",
            "W out",
            "e ls",
            "1e",
            "s/a/b/w out",
            "s/a/b/gw out",
            "s/a/b/e",
            "/x/w out",
            "p;w out",
            "{p",
            "}",
            "s/a/b",
            "s/a\n/b/",
            "k",
            "s/a/b/ x",
            "r other.txt",
            "1r /etc/shadow",
            "$r x",
            "/x/R .env",
            "1,3!r x",
            "p;r x",
            "/x/{r x\n}",
        ] {
            assert!(!sed_script_is_safe(script), "{script:?} is not safe");
        }
    }

    #[test]
    fn assignments_must_be_safe() {
        assert!(safe_assignment("LANG", "C"));
        assert!(safe_assignment("LC_ALL", "en_US.UTF-8"));
        assert!(!safe_assignment("PATH", "/tmp"));
        assert!(!safe_assignment("PAGER", "less"));
        assert!(!safe_assignment("LANG", "$(id)"));
        assert!(!safe_assignment("LC_", "C"));
    }

    #[test]
    fn flags_parse_gnu_style() {
        let args: Vec<Text<'_>> =
            ["-uo", "out", "-t,", "--key=2", "in", "--", "-o"].iter().map(|a| Cow::Borrowed(*a)).collect();
        let parsed = parse_args(&args, &["-o", "-t", "--key"], &[]);
        let flags: Vec<(&str, Option<&str>)> = parsed.flags.to_vec();
        assert_eq!(flags, [("-u", None), ("-o", Some("out")), ("-t", Some(",")), ("--key", Some("2"))]);
        assert_eq!(parsed.operands.as_slice(), ["in", "-o"]);
        assert!(denied("--out", &["--output"]));
        assert!(!denied("--outline", &["--output"]));
    }
}
