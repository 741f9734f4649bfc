//! What wrappers, runners and launchers are, and how their options are read.
//!
//! The walker (`walk/emit.rs`) strips wrappers with these (`sudo -u root env FOO=1 timeout 5
//! nice rm x` → `rm x`): [`Wrapper`] and its option specs, `strip.rs` for one wrapper's
//! options and operands (runners' subcommands, `xargs`' payload), `launchers.rs` for programs
//! whose command the analysis does not follow, builtins that run what cannot be listed and
//! variables a program runs as a command line; here also the shell options (`bash -c`,
//! `-o`, `--rcfile`).

use std::borrow::Cow;

use super::Text;
use super::word::{Word, is_identifier};

mod launchers;
mod strip;

pub(crate) use launchers::*;
pub(crate) use strip::*;

/// A command that runs the command given in its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wrapper {
    Timeout,
    Time,
    Nice,
    Nohup,
    Stdbuf,
    Command,
    Builtin,
    Noglob,
    Env,
    Sudo,
    Doas,
    Xargs,
    Exec,
    Coproc,
    Setsid,
    Ionice,
    Taskset,
    Chrt,
    /// A project's runner: `poetry run`, `uv run`, `bundle exec`, `direnv exec DIR` …
    Runner,
}

impl Wrapper {
    /// Whether Claude Code keeps this wrapper when it matches rules (it strips `timeout`,
    /// `time`, `nice`, `nohup`, `stdbuf`, `command`, `builtin`, `noglob` and `xargs`, not
    /// `env`, `sudo`, `doas`, `exec` or `coproc`, and knows none of `setsid`, `ionice`,
    /// `taskset` and `chrt`): then a rule for the wrapped command alone does not allow it
    /// (`Bash(rm:*)` does not allow `sudo rm`), and rules on the wrapper (`Bash(sudo:*)`)
    /// apply.
    pub(crate) fn kept_for_rules(self) -> bool {
        matches!(
            self,
            Wrapper::Env
                | Wrapper::Sudo
                | Wrapper::Doas
                | Wrapper::Exec
                | Wrapper::Coproc
                | Wrapper::Setsid
                | Wrapper::Ionice
                | Wrapper::Taskset
                | Wrapper::Chrt
                | Wrapper::Runner
        )
    }

    /// Whether only a rule naming the whole command may allow what this wrapper runs, never a
    /// prefix or a wildcard: Claude Code never prefix-approves `setsid` and `ionice` (nor
    /// `watch` and `flock`, which the analysis does not follow at all), and `taskset` and
    /// `chrt` start a command the same way, so `Bash(setsid:*)` would approve any command.
    pub(crate) fn exact_rules_only(self) -> bool {
        matches!(self, Wrapper::Setsid | Wrapper::Ionice | Wrapper::Taskset | Wrapper::Chrt)
    }
}

/// Whether `wrapper`, stripped from a command, leaves its allow rules to exact ones only
/// (see `Wrapper::exact_rules_only`).
pub fn allows_exact_rules_only(wrapper: &str) -> bool {
    wrapper_kind(wrapper).is_some_and(Wrapper::exact_rules_only)
}

/// The wrapper a command name stands for: a bare name or an absolute path to one
/// (`/usr/bin/env`); a relative path (`./timeout`) is a program of its own.
pub(crate) fn wrapper_kind(value: &str) -> Option<Wrapper> {
    let base = match value.rfind('/') {
        Some(at) if value.starts_with('/') => &value[at + 1..],
        Some(_) => return None,
        None => value,
    };
    Some(match base {
        "timeout" => Wrapper::Timeout,
        "time" => Wrapper::Time,
        "nice" => Wrapper::Nice,
        "nohup" => Wrapper::Nohup,
        "stdbuf" => Wrapper::Stdbuf,
        "command" => Wrapper::Command,
        "builtin" => Wrapper::Builtin,
        "noglob" => Wrapper::Noglob,
        "env" => Wrapper::Env,
        "sudo" => Wrapper::Sudo,
        "doas" => Wrapper::Doas,
        "xargs" => Wrapper::Xargs,
        "exec" => Wrapper::Exec,
        "coproc" => Wrapper::Coproc,
        "setsid" => Wrapper::Setsid,
        "ionice" => Wrapper::Ionice,
        "taskset" => Wrapper::Taskset,
        "chrt" => Wrapper::Chrt,
        runner if is_runner(runner) => Wrapper::Runner,
        _ => return None,
    })
}

/// Whether `program` is a project's runner (its payload is what it runs): it runs
/// the project's own code first (a Gemfile, an `.envrc`), so nothing it runs is read-only.
pub fn is_runner(program: &str) -> bool {
    runner_subcommands(program).is_some()
}

/// The subcommands with which a project's runner runs a command, or `None` when `program`
/// is not a runner.
pub(crate) fn runner_subcommands(program: &str) -> Option<&'static [&'static str]> {
    Some(match program {
        "poetry" | "pipenv" | "uv" => &["run"],
        "bundle" | "yarn" | "pnpm" | "direnv" => &["exec"],
        "mise" => &["exec", "x"],
        _ => return None,
    })
}

/// The last path component of a command name (`/bin/rm` → `rm`).
///
/// ```text
/// basename("/bin/rm") == "rm", basename("rm") == "rm", basename("dir/") == ""
/// ```
pub fn basename(value: &str) -> &str {
    match value.as_bytes().iter().rposition(|&b| b == b'/') {
        Some(at) => &value[at + 1..],
        None => value,
    }
}

/// The options a wrapper accepts, getopt style.
#[derive(Default)]
pub(crate) struct OptSpec {
    /// Short options without an argument.
    pub(crate) flags: &'static str,
    /// Short options with a required argument (attached or the next word).
    pub(crate) with_arg: &'static str,
    /// Short options whose optional argument must be attached.
    pub(crate) optional_arg: &'static str,
    /// Long options without an argument.
    pub(crate) long_flags: &'static [&'static str],
    /// Long options with a required argument (`--name=value` or `--name value`).
    pub(crate) long_with_arg: &'static [&'static str],
    /// Long options with an optional `=value`.
    pub(crate) long_optional: &'static [&'static str],
}

/// The options found at the start of a wrapper's arguments.
#[derive(Default)]
pub(crate) struct Scan {
    /// Index of the first word after the options.
    pub(crate) next: usize,
    /// An unknown option or an expansion in an option's value.
    pub(crate) unresolved: bool,
    /// The options seen: `-x` or `--name`, with their value.
    pub(crate) seen: Vec<(String, Option<String>)>,
}

impl Scan {
    /// Whether option `name` (`-e`, `--edit`) was seen.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.seen.iter().any(|(seen, _)| seen == name)
    }

    /// Whether any of the options `names` was seen.
    pub(crate) fn has_any(&self, names: &[&str]) -> bool {
        names.iter().any(|name| self.has(name))
    }

    /// The value of option `name`, if it was seen with one.
    pub(crate) fn value(&self, name: &str) -> Option<&str> {
        self.seen.iter().find(|(seen, _)| seen == name).and_then(|(_, value)| value.as_deref())
    }
}

/// A word as option scanning sees it: its text, and whether that text is fixed.
pub(crate) trait OptionWord {
    /// The word's value.
    fn text(&self) -> &str;
    /// Whether the value is fixed (no expansion, no glob).
    fn fixed(&self) -> bool;
}

impl OptionWord for Word<'_> {
    fn text(&self) -> &str {
        &self.value
    }

    fn fixed(&self) -> bool {
        self.is_static()
    }
}

impl OptionWord for Text<'_> {
    fn text(&self) -> &str {
        self
    }

    fn fixed(&self) -> bool {
        true
    }
}

/// The value of the word at `index`, noting in `unresolved` when it is not static.
pub(crate) fn option_value<W: OptionWord>(words: &[W], index: usize, unresolved: &mut bool) -> Option<String> {
    let word = words.get(index)?;
    if !word.fixed() {
        *unresolved = true;
    }
    Some(word.text().to_owned())
}

/// Scans options from `start` until the first operand, `--`, or a word with an expansion
/// (which cannot be told apart from an operand, so the scan stops there).
pub(crate) fn scan_options<W: OptionWord>(words: &[W], start: usize, spec: &OptSpec) -> Scan {
    let mut scan = Scan::default();
    let mut j = start;
    while let Some(word) = words.get(j) {
        if !word.fixed() {
            break;
        }
        let value = word.text();
        if value == "--" {
            j += 1;
            break;
        }
        if let Some(long) = value.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, attached)) => (name, Some(attached.to_owned())),
                None => (long, None),
            };
            let key = format!("--{name}");
            if spec.long_with_arg.contains(&name) {
                let value = match attached {
                    Some(value) => Some(value),
                    None => {
                        j += 1;
                        option_value(words, j, &mut scan.unresolved)
                    }
                };
                scan.seen.push((key, value));
            } else if (spec.long_flags.contains(&name) && attached.is_none()) || spec.long_optional.contains(&name) {
                scan.seen.push((key, attached));
            } else {
                scan.unresolved = true;
                scan.seen.push((key, attached));
            }
            j += 1;
            continue;
        }
        if value.len() > 1 && value.starts_with('-') {
            let cluster: Vec<char> = value.chars().skip(1).collect();
            for (k, &c) in cluster.iter().enumerate() {
                let key = format!("-{c}");
                let rest: String = cluster[k + 1..].iter().collect();
                if spec.with_arg.contains(c) {
                    let value = if rest.is_empty() {
                        j += 1;
                        option_value(words, j, &mut scan.unresolved)
                    } else {
                        Some(rest)
                    };
                    scan.seen.push((key, value));
                    break;
                } else if spec.optional_arg.contains(c) {
                    scan.seen.push((key, (!rest.is_empty()).then_some(rest)));
                    break;
                } else if spec.flags.contains(c) {
                    scan.seen.push((key, None));
                } else {
                    scan.unresolved = true;
                    scan.seen.push((key, None));
                }
            }
            j += 1;
            continue;
        }
        break;
    }
    scan.next = j;
    scan
}

/// What stripping one wrapper found.
#[derive(Default)]
pub(crate) struct Strip<'s> {
    /// Index of the wrapped command's name; `None` when the wrapper runs no command of its
    /// own (`env` printing, `sudo -l`, `command -v`) and is itself the command.
    pub(crate) next: Option<usize>,
    /// Its options or operands could not be followed statically.
    pub(crate) unresolved: bool,
    /// It changes directory before running the command (`env -C`, `sudo -D`).
    pub(crate) chdir: bool,
    /// Assignments it gives the command (`env FOO=1`, `sudo FOO=1`).
    pub(crate) assignments: Vec<(Text<'s>, Text<'s>)>,
    /// A command string it splits and runs (`env -S '…'`).
    pub(crate) split_string: Option<String>,
    /// The string `xargs` replaces with what it reads (`-I R`, `-i`, `--replace`).
    pub(crate) replace: Option<String>,
}

/// The `NAME=VALUE` assignment a static word stands for, if it is one.
pub(crate) fn as_assignment<'s>(word: &Word<'s>) -> Option<(Text<'s>, Text<'s>)> {
    if !word.is_static() {
        return None;
    }
    let (name, value) = split_once(&word.value, '=')?;
    is_identifier(&name).then_some((name, value))
}

/// `text` split at the first `separator`, each part borrowed where `text` is.
pub(crate) fn split_once<'s>(text: &Text<'s>, separator: char) -> Option<(Text<'s>, Text<'s>)> {
    match text {
        Cow::Borrowed(text) => text.split_once(separator).map(|(a, b)| (Cow::Borrowed(a), Cow::Borrowed(b))),
        Cow::Owned(text) => {
            text.split_once(separator).map(|(a, b)| (Cow::Owned(a.to_owned()), Cow::Owned(b.to_owned())))
        }
    }
}

/// Collects the `NAME=VALUE` words from `start` into `strip`; returns the first other index.
pub(crate) fn take_assignments<'s>(words: &[Word<'s>], start: usize, strip: &mut Strip<'s>) -> usize {
    let mut j = start;
    while let Some(assignment) = words.get(j).and_then(as_assignment) {
        strip.assignments.push(assignment);
        j += 1;
    }
    j
}

/// Whether `shell` is one whose `-c` string is parsed as Bash. (Shells with a `-c` option
/// whose language the analyser does not parse are `fish`, `csh`, `tcsh`, `nu`, `elvish`,
/// `xonsh`, `pwsh` and `powershell`: their strings are dynamic evaluation.)
pub fn is_bash_like_shell(shell: &str) -> bool {
    matches!(shell, "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "yash" | "posh")
}

/// What the leading options of a bash-like shell say (see [`shell_options`]).
pub struct ShellOptions {
    /// The index of the first word after the options (the script, or the `-c` string).
    pub next: usize,
    /// The index of the option cluster with `c` (`-c`, `-lc`), when the shell runs a string.
    pub string_option: Option<usize>,
    /// `-s`: the script comes from standard input, the operands are its arguments.
    pub reads_stdin: bool,
    /// The option that makes the shell run its startup files first (`-l`, `-i`, `--login`,
    /// `--rcfile`): commands the line does not show.
    pub startup_files: Option<usize>,
}

/// Reads a shell's options from word 1 on (`word_at(k)`: the word's text and whether it is
/// static): clusters of `-`/`+` letters, each `o`/`O` among them taking a word, `--rcfile`/
/// `--init-file` taking the next word, other long options, up to `--`, `-`, a word known only
/// at run time or an operand.
pub fn shell_options<'a>(word_at: impl Fn(usize) -> Option<(&'a str, bool)>) -> ShellOptions {
    let mut options = ShellOptions { next: 1, string_option: None, reads_stdin: false, startup_files: None };
    while let Some((value, is_static)) = word_at(options.next) {
        if !is_static {
            break;
        }
        if value == "--" || value == "-" {
            options.next += 1;
            break;
        }
        // A lone `+` is an empty cluster: bash skips it and reads on (`bash +` reads standard
        // input, `bash + -c s` runs `s`).
        if value == "+" {
            options.next += 1;
            continue;
        }
        if value.starts_with("--") {
            if matches!(value, "--login" | "--rcfile" | "--init-file" | "--interactive") {
                options.startup_files.get_or_insert(options.next);
            }
            options.next += if matches!(value, "--rcfile" | "--init-file") { 2 } else { 1 };
            continue;
        }
        if value.len() > 1 && (value.starts_with('-') || value.starts_with('+')) {
            // `+c` runs a string as `-c` does, and `+s` reads standard input as `-s`.
            let cluster = &value[1..];
            if cluster.contains('c') {
                options.string_option.get_or_insert(options.next);
            }
            options.reads_stdin |= cluster.contains('s');
            // bash makes a login shell of `+l` as of `-l` (it reads `l` whatever the sign);
            // `+i` turns interactive mode off.
            if cluster.contains('l') || (value.starts_with('-') && cluster.contains('i')) {
                options.startup_files.get_or_insert(options.next);
            }
            // Each `o` or `O` of the cluster takes a word of its own (`-ooc errexit nounset`).
            options.next += 1 + cluster.matches(['o', 'O']).count();
            continue;
        }
        break;
    }
    options
}

/// Whether `gap` is nothing but line continuations (`\\<newline>`, once or more).
pub(crate) fn is_continuation(gap: &str) -> bool {
    !gap.is_empty() && gap.len().is_multiple_of(2) && gap.as_bytes().chunks(2).all(|pair| pair == b"\\\n")
}

/// Whether an `rm` argument is a glob or trailing slash directly under a variable (`$DIR/*`,
/// `${X}/`, `$1/*.txt`), which names `/`-level paths when the variable is empty.
pub(crate) fn rm_glob_under_variable(value: &str) -> bool {
    let Some(after_dollar) = value.strip_prefix('$') else { return false };
    let rest = if let Some(braced) = after_dollar.strip_prefix('{') {
        match braced.find('}') {
            Some(close) => &braced[close + 1..],
            None => return false,
        }
    } else {
        let mut chars = after_dollar.char_indices();
        match chars.next() {
            Some((_, c)) if c.is_ascii_alphabetic() || c == '_' => {
                let end = after_dollar
                    .char_indices()
                    .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
                    .map_or(after_dollar.len(), |(index, _)| index);
                &after_dollar[end..]
            }
            Some((_, c)) if c.is_ascii_digit() || "@*#?$!-".contains(c) => &after_dollar[c.len_utf8()..],
            _ => return false,
        }
    };
    let Some(below) = rest.strip_prefix('/') else { return false };
    let first = below.split('/').next().unwrap_or_default();
    first.is_empty() || first.contains(['*', '?', '['])
}
