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

use super::names::NameIndex;
use super::wrappers::basename;
use super::{BashAnalysis, SimpleCommand, Strs, Text};

mod checks;
mod table;

use checks::*;
use table::GIT_DIFF_FAMILY;
pub(crate) use table::TABLE;

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
    static INDEX: OnceLock<NameIndex> = OnceLock::new();
    INDEX.get_or_init(|| NameIndex::of(TABLE.iter().map(|spec| spec.name))).find(TABLE, name, |spec| spec.name)
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

#[cfg(test)]
mod table_tests {
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
