//! Wrapper stripping and command emission.
//!
//! [`Walker::emit`] turns the words of one simple command into [`SimpleCommand`]s: it strips
//! wrappers (`sudo -u root env FOO=1 timeout 5 nice rm x` → `rm x`), lists `xargs` and its
//! payload, and then looks at the command itself for what runs more code or needs a hazard:
//! `find -exec` and `fd -x` payloads, `bash -c` strings, `eval`, `source`, `trap`, `cd` before
//! `git`, `git -c`, and `rm` of a glob under a variable.

use std::borrow::Cow;

use super::readonly::GIT_CONFIG_GETS;
use super::walk::{MAX_NESTING, Stdin, Walker, excerpt, is_plain, is_shell_assignment};
use super::word::{Word, is_identifier};
use super::{Hazard, SimpleCommand, Text, Wrapped};

/// A command that runs the command given in its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wrapper {
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
    fn kept_for_rules(self) -> bool {
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
    fn exact_rules_only(self) -> bool {
        matches!(self, Wrapper::Setsid | Wrapper::Ionice | Wrapper::Taskset | Wrapper::Chrt)
    }
}

/// Whether `wrapper`, stripped from a command, leaves its allow rules to exact ones only
/// (see `Wrapper::exact_rules_only`).
pub(crate) fn allows_exact_rules_only(wrapper: &str) -> bool {
    wrapper_kind(wrapper).is_some_and(Wrapper::exact_rules_only)
}

/// The wrapper a command name stands for: a bare name or an absolute path to one
/// (`/usr/bin/env`); a relative path (`./timeout`) is a program of its own.
fn wrapper_kind(value: &str) -> Option<Wrapper> {
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

/// Whether `program` is a project's runner ([`runner_payload`] says what it runs): it runs
/// the project's own code first (a Gemfile, an `.envrc`), so nothing it runs is read-only.
pub(crate) fn is_runner(program: &str) -> bool {
    runner_subcommands(program).is_some()
}

/// The subcommands with which a project's runner runs a command, or `None` when `program`
/// is not a runner.
fn runner_subcommands(program: &str) -> Option<&'static [&'static str]> {
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
pub(crate) fn basename(value: &str) -> &str {
    match value.as_bytes().iter().rposition(|&b| b == b'/') {
        Some(at) => &value[at + 1..],
        None => value,
    }
}

/// The options a wrapper accepts, getopt style.
#[derive(Default)]
struct OptSpec {
    /// Short options without an argument.
    flags: &'static str,
    /// Short options with a required argument (attached or the next word).
    with_arg: &'static str,
    /// Short options whose optional argument must be attached.
    optional_arg: &'static str,
    /// Long options without an argument.
    long_flags: &'static [&'static str],
    /// Long options with a required argument (`--name=value` or `--name value`).
    long_with_arg: &'static [&'static str],
    /// Long options with an optional `=value`.
    long_optional: &'static [&'static str],
}

/// The options found at the start of a wrapper's arguments.
#[derive(Default)]
struct Scan {
    /// Index of the first word after the options.
    next: usize,
    /// An unknown option or an expansion in an option's value.
    unresolved: bool,
    /// The options seen: `-x` or `--name`, with their value.
    seen: Vec<(String, Option<String>)>,
}

impl Scan {
    /// Whether option `name` (`-e`, `--edit`) was seen.
    fn has(&self, name: &str) -> bool {
        self.seen.iter().any(|(seen, _)| seen == name)
    }

    /// Whether any of the options `names` was seen.
    fn has_any(&self, names: &[&str]) -> bool {
        names.iter().any(|name| self.has(name))
    }

    /// The value of option `name`, if it was seen with one.
    fn value(&self, name: &str) -> Option<&str> {
        self.seen.iter().find(|(seen, _)| seen == name).and_then(|(_, value)| value.as_deref())
    }
}

/// A word as option scanning sees it: its text, and whether that text is fixed.
trait OptionWord {
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
fn option_value<W: OptionWord>(words: &[W], index: usize, unresolved: &mut bool) -> Option<String> {
    let word = words.get(index)?;
    if !word.fixed() {
        *unresolved = true;
    }
    Some(word.text().to_owned())
}

/// Scans options from `start` until the first operand, `--`, or a word with an expansion
/// (which cannot be told apart from an operand, so the scan stops there).
fn scan_options<W: OptionWord>(words: &[W], start: usize, spec: &OptSpec) -> Scan {
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
struct Strip<'s> {
    /// Index of the wrapped command's name; `None` when the wrapper runs no command of its
    /// own (`env` printing, `sudo -l`, `command -v`) and is itself the command.
    next: Option<usize>,
    /// Its options or operands could not be followed statically.
    unresolved: bool,
    /// It changes directory before running the command (`env -C`, `sudo -D`).
    chdir: bool,
    /// Assignments it gives the command (`env FOO=1`, `sudo FOO=1`).
    assignments: Vec<(Text<'s>, Text<'s>)>,
    /// A command string it splits and runs (`env -S '…'`).
    split_string: Option<String>,
    /// The string `xargs` replaces with what it reads (`-I R`, `-i`, `--replace`).
    replace: Option<String>,
}

/// The `NAME=VALUE` assignment a static word stands for, if it is one.
pub(super) fn as_assignment<'s>(word: &Word<'s>) -> Option<(Text<'s>, Text<'s>)> {
    if !word.is_static() {
        return None;
    }
    let (name, value) = split_once(&word.value, '=')?;
    is_identifier(&name).then_some((name, value))
}

/// `text` split at the first `separator`, each part borrowed where `text` is.
pub(super) fn split_once<'s>(text: &Text<'s>, separator: char) -> Option<(Text<'s>, Text<'s>)> {
    match text {
        Cow::Borrowed(text) => text.split_once(separator).map(|(a, b)| (Cow::Borrowed(a), Cow::Borrowed(b))),
        Cow::Owned(text) => {
            text.split_once(separator).map(|(a, b)| (Cow::Owned(a.to_owned()), Cow::Owned(b.to_owned())))
        }
    }
}

/// Collects the `NAME=VALUE` words from `start` into `strip`; returns the first other index.
fn take_assignments<'s>(words: &[Word<'s>], start: usize, strip: &mut Strip<'s>) -> usize {
    let mut j = start;
    while let Some(assignment) = words.get(j).and_then(as_assignment) {
        strip.assignments.push(assignment);
        j += 1;
    }
    j
}

/// Strips `wrapper`, whose name is `words[at]`.
fn strip<'s>(wrapper: Wrapper, words: &[Word<'s>], at: usize) -> Strip<'s> {
    let mut strip = Strip::default();
    let start = at + 1;
    let next = match wrapper {
        Wrapper::Timeout => {
            let spec = OptSpec {
                flags: "fpv",
                with_arg: "sk",
                long_flags: &["foreground", "preserve-status", "verbose", "help", "version"],
                long_with_arg: &["signal", "kill-after"],
                ..OptSpec::default()
            };
            let scan = scan_options(words, start, &spec);
            strip.unresolved = scan.unresolved;
            if scan.has_any(&["--help", "--version"]) {
                return strip;
            }
            // The first operand is the duration, the command follows it.
            past_operand(words, scan.next, &mut strip)
        }
        Wrapper::Time => {
            let scan = scan_options(words, start, &OptSpec { flags: "p", ..OptSpec::default() });
            strip.unresolved = scan.unresolved;
            // The simple command after the keyword may start with assignments: taken by
            // `emit_from`, which sees how they were written (`'X=1 ls'` is a command name).
            scan.next
        }
        Wrapper::Nice => {
            let mut j = start;
            while let Some(word) = words.get(j) {
                if !word.is_static() {
                    break;
                }
                let value = &*word.value;
                let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
                if value == "--" {
                    j += 1;
                    break;
                } else if value == "-n" || value == "--adjustment" {
                    option_value(words, j + 1, &mut strip.unresolved);
                    j += 2;
                } else if value.starts_with("--adjustment=")
                    || value.strip_prefix("-n").is_some_and(|n| numeric(n.trim_start_matches(['-', '+'])))
                    || numeric(value.trim_start_matches('-'))
                {
                    j += 1;
                } else if value == "--help" || value == "--version" {
                    return strip;
                } else if value.starts_with('-') && value.len() > 1 {
                    strip.unresolved = true;
                    j += 1;
                } else {
                    break;
                }
            }
            j
        }
        Wrapper::Nohup => match words.get(start).map(|w| &*w.value) {
            Some("--help" | "--version") if words[start].is_static() => return strip,
            Some("--") if words[start].is_static() => start + 1,
            _ => start,
        },
        Wrapper::Stdbuf => {
            let spec = OptSpec {
                with_arg: "ioe",
                long_flags: &["help", "version"],
                long_with_arg: &["input", "output", "error"],
                ..OptSpec::default()
            };
            let scan = scan_options(words, start, &spec);
            strip.unresolved = scan.unresolved;
            if scan.has_any(&["--help", "--version"]) {
                return strip;
            }
            scan.next
        }
        Wrapper::Command => {
            let scan = scan_options(words, start, &OptSpec { flags: "pvV", ..OptSpec::default() });
            strip.unresolved = scan.unresolved;
            if scan.has("-v") || scan.has("-V") {
                // `command -v` looks a name up; it runs nothing.
                return strip;
            }
            scan.next
        }
        Wrapper::Builtin | Wrapper::Noglob | Wrapper::Coproc => {
            let scan = scan_options(words, start, &OptSpec::default());
            strip.unresolved = scan.unresolved;
            scan.next
        }
        Wrapper::Setsid => {
            let spec = OptSpec {
                flags: "cfwhV",
                long_flags: &["ctty", "fork", "wait", "help", "version"],
                ..OptSpec::default()
            };
            let scan = scan_options(words, start, &spec);
            strip.unresolved = scan.unresolved;
            if scan.has_any(&["-h", "-V", "--help", "--version"]) {
                return strip;
            }
            scan.next
        }
        Wrapper::Ionice => {
            let spec = OptSpec {
                flags: "thV",
                with_arg: "cnpPu",
                long_flags: &["ignore", "help", "version"],
                long_with_arg: &["class", "classdata", "pid", "pgid", "uid"],
                ..OptSpec::default()
            };
            let scan = scan_options(words, start, &spec);
            strip.unresolved = scan.unresolved;
            // On processes that run already (`-p PID`), or printing: it runs nothing.
            let runs_nothing =
                scan.has_any(&["-p", "-P", "-u", "--pid", "--pgid", "--uid", "-h", "-V", "--help", "--version"]);
            if runs_nothing {
                return strip;
            }
            scan.next
        }
        Wrapper::Taskset => {
            let spec = OptSpec {
                flags: "acphV",
                long_flags: &["all-tasks", "cpu-list", "pid", "help", "version"],
                ..OptSpec::default()
            };
            let scan = scan_options(words, start, &spec);
            strip.unresolved = scan.unresolved;
            if scan.has_any(&["-p", "--pid", "-h", "-V", "--help", "--version"]) {
                return strip;
            }
            // The first operand is the CPU mask or list, the command follows it.
            past_operand(words, scan.next, &mut strip)
        }
        Wrapper::Chrt => {
            let spec = OptSpec {
                flags: "abdfioreRvmphV",
                with_arg: "TPD",
                long_flags: &[
                    "all-tasks",
                    "batch",
                    "deadline",
                    "fifo",
                    "idle",
                    "other",
                    "rr",
                    "ext",
                    "reset-on-fork",
                    "verbose",
                    "max",
                    "pid",
                    "help",
                    "version",
                ],
                long_with_arg: &["sched-runtime", "sched-period", "sched-deadline"],
                ..OptSpec::default()
            };
            let scan = scan_options(words, start, &spec);
            strip.unresolved = scan.unresolved;
            let runs_nothing = scan.has_any(&["-m", "-p", "-h", "-V", "--max", "--pid", "--help", "--version"]);
            if runs_nothing {
                return strip;
            }
            // The first operand is the priority, the command follows it. Newer chrt takes no
            // priority for the policies that have none (`chrt -o CMD`): then the command is first.
            let priority =
                words.get(scan.next).is_none_or(|w| !w.is_static() || w.value.bytes().all(|b| b.is_ascii_digit()));
            if priority { past_operand(words, scan.next, &mut strip) } else { scan.next }
        }
        Wrapper::Exec => {
            let scan = scan_options(words, start, &OptSpec { flags: "cl", with_arg: "a", ..OptSpec::default() });
            strip.unresolved = scan.unresolved;
            scan.next
        }
        Wrapper::Env => {
            let spec = OptSpec {
                flags: "i0v",
                with_arg: "uCS",
                long_flags: &["ignore-environment", "null", "debug", "help", "version"],
                long_with_arg: &["unset", "chdir", "split-string"],
                long_optional: &["block-signal", "default-signal", "ignore-signal", "list-signal-handling"],
                ..OptSpec::default()
            };
            let scan = scan_options(words, start, &spec);
            strip.unresolved = scan.unresolved;
            if scan.has_any(&["--help", "--version"]) {
                return strip;
            }
            strip.chdir = scan.has("-C") || scan.has("--chdir");
            if let Some(split) = scan.value("-S").or_else(|| scan.value("--split-string")) {
                strip.unresolved = true;
                strip.split_string = Some(split.to_owned());
            }
            let mut j = scan.next;
            // A lone `-` is `-i`.
            while words.get(j).is_some_and(|w| w.is_static() && w.value == "-") {
                j += 1;
            }
            take_assignments(words, j, &mut strip)
        }
        Wrapper::Sudo => {
            let spec = OptSpec {
                flags: "AbBEeHiKklnNPSsVv",
                with_arg: "CDgpRrTtUuh",
                long_flags: &[
                    "askpass",
                    "background",
                    "bell",
                    "edit",
                    "set-home",
                    "help",
                    "login",
                    "remove-timestamp",
                    "reset-timestamp",
                    "list",
                    "non-interactive",
                    "preserve-groups",
                    "stdin",
                    "shell",
                    "version",
                    "validate",
                ],
                long_with_arg: &[
                    "close-from",
                    "chdir",
                    "group",
                    "host",
                    "prompt",
                    "chroot",
                    "role",
                    "type",
                    "command-timeout",
                    "other-user",
                    "user",
                ],
                long_optional: &["preserve-env"],
                ..OptSpec::default()
            };
            let mut scan = scan_options(words, start, &spec);
            let mut next = take_assignments(words, scan.next, &mut strip);
            // sudo reads options after an assignment too (`sudo X=1 -u root cmd`, `sudo X=1 -- cmd`).
            while next > scan.next && words.get(next).is_some_and(|w| w.is_static() && w.value.starts_with('-')) {
                let more = scan_options(words, next, &spec);
                scan.unresolved |= more.unresolved;
                scan.seen.extend(more.seen);
                scan.next = more.next;
                next = take_assignments(words, scan.next, &mut strip);
            }
            strip.unresolved = scan.unresolved;
            let runs_nothing =
                scan.has_any(&["-e", "-l", "-v", "-V", "-K", "--edit", "--list", "--validate", "--version", "--help"])
                    || scan.seen.iter().any(|(name, value)| name == "-h" && value.is_none())
                    || scan.has("--remove-timestamp");
            if runs_nothing {
                return strip;
            }
            strip.chdir = scan.has_any(&["-D", "--chdir", "-R", "--chroot"]);
            // With `-s` or `-i`, sudo hands the command to a shell with every character but
            // letters, digits, `_`, `-` and `$` escaped: a `$` still expands there.
            if scan.has_any(&["-s", "-i", "--shell", "--login"])
                && words[next.min(words.len())..].iter().any(|w| w.value.contains('$'))
            {
                strip.unresolved = true;
            }
            next
        }
        Wrapper::Doas => {
            let scan = scan_options(words, start, &OptSpec { flags: "nsL", with_arg: "uC", ..OptSpec::default() });
            strip.unresolved = scan.unresolved;
            if scan.has("-C") || scan.has("-L") {
                return strip;
            }
            scan.next
        }
        Wrapper::Runner => match runner_payload(words, at, &mut strip) {
            Some(next) => next,
            None => return strip,
        },
        Wrapper::Xargs => {
            let scan = scan_options(words, start, &xargs_options());
            strip.unresolved = scan.unresolved;
            if scan.has_any(&["--help", "--version"]) {
                return strip;
            }
            strip.replace = scan.seen.iter().find_map(|(name, value)| match name.as_str() {
                "-I" => value.clone(),
                "-i" | "--replace" => Some(value.clone().unwrap_or_else(|| "{}".to_owned())),
                _ => None,
            });
            scan.next
        }
    };
    if next < words.len() {
        strip.next = Some(next);
    }
    strip
}

/// Where the command a project's runner runs starts: `poetry run CMD`, `pipenv run CMD`, `uv
/// run CMD`, `bundle exec CMD`, `yarn exec CMD`, `pnpm exec CMD`, `direnv exec DIR CMD`,
/// `mise exec … -- CMD` (or `mise x`), with `--` before the command allowed. `None` when the
/// runner runs no command of its own (`poetry install`): then it is the command. Options
/// before the subcommand are followed where they are known (`-C DIR` and `--directory`
/// change directory), and an unknown one there leaves the runner unresolved when a
/// subcommand that runs a command may come; the runner's own options after the subcommand
/// are skipped (`uv run --frozen --with x pytest`).
fn runner_payload(words: &[Word<'_>], at: usize, strip: &mut Strip<'_>) -> Option<usize> {
    let name = basename(&words[at].value);
    let sub_names = runner_subcommands(name)?;
    // Global options: `-C DIR`/`--directory DIR` change directory; other known ones that
    // take a value skip it.
    let mut j = at + 1;
    while let Some(word) = words.get(j).filter(|w| w.is_static() && w.value.starts_with('-')) {
        let value = &*word.value;
        let (option, attached) = match value.split_once('=') {
            Some((option, _)) => (option, true),
            None => (value, value.len() > 2 && !value.starts_with("--")),
        };
        // (`-Cdir`: the option is the first two bytes; `get` keeps a multibyte letter whole.)
        let option = if attached && !option.starts_with("--") { option.get(..2).unwrap_or(option) } else { option };
        if matches!(option, "-C" | "--directory" | "--cd" | "--chdir") {
            strip.chdir = true;
        }
        let takes_value = matches!(
            option,
            "-C" | "--directory" | "--cd" | "--chdir" | "-P" | "--project" | "-p" | "--python" | "--cwd" | "--dir"
        );
        j += if takes_value && !attached { 2 } else { 1 };
    }
    let follows =
        |from: usize| words[from..].iter().take_while(|w| w.is_static()).any(|w| sub_names.contains(&&*w.value));
    if !words.get(j).is_some_and(|w| w.is_static() && sub_names.contains(&&*w.value)) {
        // Options that were not followed, and a subcommand that runs a command may come.
        strip.unresolved = j > at + 1 && follows(at + 1);
        return None;
    }
    let mut start = j + 1;
    // pnpm's shell mode (`-c`, `--shell-mode`, before or after `exec`) runs the command line
    // through a shell.
    let shell_mode = |w: &Word<'_>| name == "pnpm" && matches!(&*w.value, "-c" | "--shell-mode");
    strip.unresolved |= words[at + 1..j].iter().any(shell_mode);
    if name == "mise" {
        // `mise exec -c 'CMD'` runs a command line through a shell.
        let before_dashdash = words[start..].iter().take_while(|w| w.value != "--");
        let command = before_dashdash.into_iter().any(|w| w.value == "-c" || w.value.starts_with("--command"));
        strip.unresolved |= command;
    }
    if name == "yarn" {
        // `yarn exec` runs its arguments, joined, as a script of yarn's own shell.
        strip.unresolved |= !words[start..].iter().all(|w| is_plain(&w.value));
    }
    if name == "direnv" {
        // The folder whose `.envrc` is loaded.
        words.get(start)?;
        start += 1;
    }
    if name == "mise" {
        // Tool versions (`node@20`) and options come before `--`.
        let dashdash = words[start..].iter().position(|w| w.is_static() && w.value == "--");
        return match dashdash {
            Some(at) => Some(start + at + 1),
            None => {
                strip.unresolved = start < words.len();
                None
            }
        };
    }
    // The runner's own options (`uv run --frozen --with x pytest`): flags, and the options
    // known to take a value with it.
    while let Some(word) = words.get(start).filter(|w| w.is_static() && w.value.starts_with('-')) {
        if word.value == "--" {
            return Some(start + 1);
        }
        strip.unresolved |= shell_mode(word);
        let value = &*word.value;
        // uv's short forms of `--with`, `--index-url` and `--find-links`.
        let takes_value =
            RUNNER_VALUE_OPTIONS.contains(&value) || (name == "uv" && matches!(value, "-w" | "-i" | "-f"));
        start += if takes_value { 2 } else { 1 };
    }
    Some(start)
}

/// Options of `uv run`, `pnpm exec` and `bundle exec` that take the next word as their value.
const RUNNER_VALUE_OPTIONS: &[&str] = &[
    "--with",
    "--color",
    "--index-url",
    "--extra-index-url",
    "--default-index",
    "--find-links",
    "--cache-dir",
    "--config-file",
    "--config-setting",
    "--python-preference",
    "--only-group",
    "--no-group",
    "--exclude-newer",
    "--prerelease",
    "--resolution",
    "--link-mode",
    "--index-strategy",
    "--keyring-provider",
    "--allow-insecure-host",
    "--refresh-package",
    "--reinstall-package",
    "--upgrade-package",
    "--no-build-package",
    "--no-binary-package",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--extra",
    "--group",
    "--env-file",
    "--package",
    "--index",
    "--directory",
    "--project",
    "--filter",
    "-F",
    "--gemfile",
];

/// Where the wrapped command starts when one operand (`timeout`'s duration, `taskset`'s
/// mask, `chrt`'s priority) stands at `at` before it; an operand that is not static leaves
/// the wrapper unresolved.
fn past_operand(words: &[Word<'_>], at: usize, strip: &mut Strip<'_>) -> usize {
    match words.get(at) {
        Some(operand) => {
            if !operand.is_static() {
                strip.unresolved = true;
            }
            at + 1
        }
        None => at,
    }
}

/// The options of GNU `xargs`.
fn xargs_options() -> OptSpec {
    OptSpec {
        flags: "0rtpxo",
        with_arg: "adEILnPs",
        optional_arg: "eil",
        long_flags: &[
            "null",
            "no-run-if-empty",
            "verbose",
            "interactive",
            "exit",
            "open-tty",
            "show-limits",
            "help",
            "version",
        ],
        long_with_arg: &["arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"],
        long_optional: &["eof", "replace", "max-lines"],
    }
}

/// Where the payload of an `xargs` command (its argv, from `xargs` on) starts: `Some(index)`
/// into `argv`, `Some(argv.len())` when there is none (the payload is `echo`), `None` when its
/// options cannot be followed. Used by the read-only classifier.
pub(super) fn xargs_payload(argv: &[Text<'_>]) -> Option<usize> {
    let scan = scan_options(argv, 1, &xargs_options());
    (!scan.unresolved).then_some(scan.next)
}

/// Whether `program` runs a command given in its arguments in a way the analysis does not
/// follow: under another root, user or namespace (`chroot`, `su`, `unshare`, `bwrap`), as a
/// shell string (`watch`, `flock -c`, `script -c`, `parallel`, `hyperfine`), as an applet
/// (`busybox`), in a container or job system (`systemd-nspawn`, `srun`), or after options not
/// modelled here (`strace`, `valgrind`, `xvfb-run`, `chronic` …). Each is
/// [`Hazard::UnfollowedLauncher`].
fn is_unfollowed_launcher(program: &str) -> bool {
    matches!(
        program,
        "chroot"
            | "unshare"
            | "nsenter"
            | "bwrap"
            | "firejail"
            | "proot"
            | "fakeroot"
            | "fakechroot"
            | "su"
            | "runuser"
            | "sg"
            | "pkexec"
            | "script"
            | "watch"
            | "flock"
            | "parallel"
            | "sem"
            | "busybox"
            | "toybox"
            | "systemd-run"
            | "gdb"
            | "lldb"
            | "perf"
            | "strace"
            | "ltrace"
            | "valgrind"
            | "unbuffer"
            | "xvfb-run"
            | "dbus-run-session"
            | "dbus-launch"
            | "faketime"
            | "torsocks"
            | "torify"
            | "proxychains"
            | "proxychains4"
            | "numactl"
            | "prlimit"
            | "cgexec"
            | "catchsegv"
            | "entr"
            | "caffeinate"
            // Benchmark and retry runners, which take shell strings (`hyperfine 'cmd'`).
            | "hyperfine"
            | "watchexec"
            | "nodemon"
            | "concurrently"
            // Runners of one command under changed conditions, with options not modelled.
            | "chronic"
            | "ifne"
            | "rlwrap"
            | "cpulimit"
            | "eatmydata"
            | "nocache"
            | "trickle"
            | "tsocks"
            | "nocorrect"
            | "cross-env"
            | "env-cmd"
            // Under another user, label or capability set.
            | "gosu"
            | "su-exec"
            | "setpriv"
            | "runcon"
            | "capsh"
            | "aa-exec"
            | "run0"
            | "chpst"
            | "setuidgid"
            | "softlimit"
            | "envdir"
            | "envuidgid"
            // In a container, sandbox or job system.
            | "schroot"
            | "systemd-nspawn"
            | "flatpak-spawn"
            | "distrobox-enter"
            | "lxc-attach"
            | "lxc-execute"
            | "sandbox-exec"
            | "tini"
            | "dumb-init"
            | "daemonize"
            | "start-stop-daemon"
            | "tsp"
            | "nq"
            | "mpirun"
            | "mpiexec"
            | "srun"
    )
}

/// Whether `program ARGS` hands a command to something that runs it later or elsewhere, where
/// the analysis does not follow it: tmux's `new-session`, `send-keys`, `run-shell` … (keys
/// typed into a shell), `screen` with a command or `-X`, an `at`/`batch` job, a `crontab`
/// installed. Listing (`tmux ls`, `screen -ls`, `atq`, `crontab -l`) runs nothing.
fn schedules_commands(program: &str, args: &[Word<'_>]) -> bool {
    const TMUX_RUNS: &[&str] = &[
        "new",
        "new-session",
        "new-window",
        "neww",
        "split-window",
        "splitw",
        "respawn-pane",
        "respawnp",
        "respawn-window",
        "respawnw",
        "send-keys",
        "send",
        "run-shell",
        "run",
        "if-shell",
        "if",
        "display-popup",
        "popup",
        "pipe-pane",
        "pipep",
        "source-file",
        "source",
    ];
    if !matches!(program, "tmux" | "screen" | "at" | "batch" | "crontab") {
        return false;
    }
    let has = |names: &[&str]| args.iter().any(|word| word.is_static() && names.contains(&&*word.value));
    // A word known only at run time may be anything.
    let dynamic = args.iter().any(|word| !word.is_static());
    match program {
        // `tmux` alone starts a session with a shell, as `tmux new` does.
        "tmux" => args.is_empty() || dynamic || has(TMUX_RUNS),
        "screen" => !args.iter().all(|word| {
            word.is_static()
                && matches!(&*word.value, "-ls" | "-list" | "-wipe" | "-v" | "-version" | "--version" | "-q")
        }),
        "at" | "batch" => dynamic || !has(&["-l", "-r", "-d", "-c", "-V"]),
        // Anything but listing or removing installs a table (from a file, or standard input).
        "crontab" => dynamic || !has(&["-l", "-r", "-V"]),
        _ => false,
    }
}

/// Whether the bash builtin `program`, given `args`, runs what the analysis cannot list:
/// `hash -p FILE NAME` makes a later `NAME` run `FILE`, `enable -f LIB` loads a builtin from a
/// shared object, `fc` (but for `fc -l`, which lists) runs commands of the history, and
/// `mapfile -C`/`readarray -C` evaluate a callback with each line read. A word known only at
/// run time may be any of these options.
fn builtin_runs_unseen(program: &str, args: &[Word<'_>]) -> bool {
    let option = match program {
        "hash" => 'p',
        "enable" => 'f',
        "mapfile" | "readarray" => 'C',
        "fc" => {
            let lists = args.iter().any(|word| is_short_flag_with(word, 'l'));
            return !lists || args.iter().any(|word| !word.is_static());
        }
        _ => return false,
    };
    args.iter().any(|word| !word.is_static() || is_short_flag_with(word, option))
}

/// The bash builtins that may evaluate an argument as arithmetic or as a variable name whose
/// subscript bash expands, so that a `$(…)` in it runs however it was quoted (`read 'a[$(id)]'`,
/// `printf %d 'a[$(id)]'`, `shift`, `kill -s`, `[ 1 -eq … ]` all ran `id` in bash 5.2): every
/// builtin of `compgen -b` but those that only print or take paths (`echo`, `:`, `true`,
/// `false`, `cd`, `pwd`, `type`, `help`) and those whose arguments are analysed as commands
/// already (`eval`, `source`, `.`, `trap`, `alias`, `exec`, `command`, `builtin`). Sorted.
const EVALUATING_BUILTINS: &[&str] = &[
    "[",
    "bg",
    "bind",
    "break",
    "caller",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "declare",
    "dirs",
    "disown",
    "enable",
    "exit",
    "export",
    "fc",
    "fg",
    "getopts",
    "hash",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "suspend",
    "test",
    "times",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
];

/// Whether `word` is a cluster of short options (`-rp`) that includes `flag`.
fn is_short_flag_with(word: &Word<'_>, flag: char) -> bool {
    word.is_static()
        && word.value.strip_prefix('-').is_some_and(|cluster| !cluster.starts_with('-') && cluster.contains(flag))
}

/// Whether `git config ARGS` may set a key whose value git runs as a command (`core.pager`,
/// `core.sshCommand`, `alias.*`, a filter's `clean` …), which a later `git` then runs: a key
/// among the operands that is not only read or removed ([`GIT_CONFIG_GETS`], `--unset`,
/// `--list` …).
/// An operand known only at run time may be any key.
fn sets_command_config(args: &[Word<'_>]) -> bool {
    const READS: &[&str] =
        &["--list", "-l", "--unset", "--unset-all", "--remove-section", "--rename-section", "--edit", "-e"];
    const ENDS: &[&str] = &[
        ".pager",
        ".editor",
        ".sshcommand",
        ".fsmonitor",
        ".hookspath",
        ".askpass",
        ".external",
        ".command",
        ".textconv",
        ".driver",
        ".clean",
        ".smudge",
        ".process",
        ".helper",
        ".program",
        ".cmd",
        ".path",
        ".difffilter",
        ".packobjectshook",
        ".gitproxy",
        ".uploadpack",
        ".receivepack",
        ".allow",
        ".browser",
        ".proxy",
    ];
    let reads = |value: &str| {
        GIT_CONFIG_GETS.contains(&value) || READS.contains(&value) || matches!(value, "get" | "list" | "unset")
    };
    if args.iter().any(|w| w.is_static() && reads(&w.value)) {
        return false;
    }
    args.iter().filter(|w| !w.value.starts_with('-')).any(|w| {
        let key = w.value.to_ascii_lowercase();
        !w.is_static()
            || key.starts_with("alias.")
            || key.starts_with("pager.")
            || ENDS.iter().any(|end| key.ends_with(end))
    })
}

/// Variables whose value a program runs as a command line: pagers, editors, git's and ssh's
/// helpers, the browser, bash's `PROMPT_COMMAND`, less's input filters, the compilers `make`
/// runs. Set anywhere in a command, their values are commands of it (`GIT_PAGER='rm -rf ~'
/// git log` runs `rm`).
const COMMAND_VARIABLES: &[&str] = &[
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_PAGER",
    "PAGER",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "GIT_EDITOR",
    "EDITOR",
    "SUDO_EDITOR",
    "VISUAL",
    "GIT_SEQUENCE_EDITOR",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "GIT_PROXY_COMMAND",
    "BROWSER",
    "PROMPT_COMMAND",
    "LESSOPEN",
    "LESSCLOSE",
    "FZF_DEFAULT_COMMAND",
    "RUSTC_WRAPPER",
    "CC",
    "CXX",
];

/// The command-carrying variables ([`COMMAND_VARIABLES`]) that `assignments` set, and those a
/// declaration (`export`, `declare`, `typeset`, `local`, `readonly`; `words` from its name on)
/// sets, as `(name, value)`.
pub(super) fn carried_commands<'s>(
    assignments: &[(Text<'s>, Text<'s>)],
    words: &[Word<'s>],
) -> Vec<(Text<'s>, Text<'s>)> {
    let mut carried: Vec<(Text<'s>, Text<'s>)> =
        assignments.iter().filter(|(name, _)| COMMAND_VARIABLES.contains(&&**name)).cloned().collect();
    let declares = words
        .first()
        .is_some_and(|w| w.is_static() && matches!(&*w.value, "export" | "declare" | "typeset" | "local" | "readonly"));
    if declares {
        for word in &words[1..] {
            if let Some((name, value)) = split_once(&word.value, '=')
                && COMMAND_VARIABLES.contains(&&*name)
            {
                carried.push((name, value));
            }
        }
    }
    carried
}

/// Whether a script path names a stream rather than a file: standard input or an open
/// descriptor (`/dev/stdin`, `/dev/fd/0`, `/proc/self/fd/3`), whose text is only known at
/// run time (`curl … | source /dev/stdin`).
fn reads_a_stream(path: &str) -> bool {
    path == "-"
        || path == "/dev/stdin"
        || path.starts_with("/dev/fd/")
        || (path.starts_with("/proc/") && path.contains("/fd/"))
}

/// Whether `shell` is one whose `-c` string is parsed as Bash. (Shells with a `-c` option
/// whose language the analyser does not parse are `fish`, `csh`, `tcsh`, `nu`, `elvish`,
/// `xonsh`, `pwsh` and `powershell`: their strings are dynamic evaluation.)
pub(crate) fn is_bash_like_shell(shell: &str) -> bool {
    matches!(shell, "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "yash" | "posh")
}

impl<'s> Walker<'s, '_, '_> {
    /// Lists the simple command made of `words` (after `assignments`), stripping wrappers.
    pub(super) fn emit(
        &mut self,
        words: Vec<Word<'s>>,
        assignments: Vec<(Text<'s>, Text<'s>)>,
        wrappers: Vec<Text<'s>>,
        chdir: bool,
    ) {
        let words = self.join_continuations(words);
        self.emit_from(&words, assignments, wrappers, chdir);
    }

    /// Joins words that only a line continuation separates: tree-sitter splits `r\<newline>m`
    /// in two, bash runs `rm`.
    pub(super) fn join_continuations(&self, words: Vec<Word<'s>>) -> Vec<Word<'s>> {
        let continued =
            |pair: &[Word<'s>]| pair[0].end < pair[1].start && is_continuation(self.slice(pair[0].end, pair[1].start));
        if !words.windows(2).any(continued) {
            return words;
        }
        let mut joined: Vec<Word<'s>> = Vec::with_capacity(words.len());
        for word in words {
            match joined.last_mut() {
                Some(previous)
                    if previous.end < word.start && is_continuation(self.slice(previous.end, word.start)) =>
                {
                    previous.join(word);
                }
                _ => joined.push(word),
            }
        }
        joined
    }

    /// [`Walker::emit`] on borrowed words.
    fn emit_from(
        &mut self,
        words: &[Word<'s>],
        mut assignments: Vec<(Text<'s>, Text<'s>)>,
        mut wrappers: Vec<Text<'s>>,
        mut chdir: bool,
    ) {
        let mut i = 0;
        // Where the first wrapper that Claude Code does not strip stands (see
        // `SimpleCommand::wrapped`).
        let mut wrapped_from: Option<(usize, usize)> = None;
        while let Some(name) = words.get(i) {
            if !self.check_name(name) {
                break;
            }
            let Some(wrapper) = wrapper_kind(&name.value) else { break };
            if wrapper == Wrapper::Coproc {
                // `coproc NAME { …; }` is a form tree-sitter does not parse as bash does.
                self.out.hazard(Hazard::UnknownConstruct { kind: "coproc".to_owned() });
            }
            let mut stripped = strip(wrapper, words, i);
            if wrapper == Wrapper::Time
                && let Some(mut next) = stripped.next
            {
                // `time X=1 cmd`: bash's parser reads unquoted assignments after the keyword
                // (and after a `!` that negates the pipeline).
                while words.get(next).is_some_and(|w| self.slice(w.start, w.end) == "!") {
                    next += 1;
                }
                while let Some(word) = words.get(next).filter(|w| is_shell_assignment(self.slice(w.start, w.end))) {
                    stripped.assignments.extend(as_assignment(word));
                    next += 1;
                }
                stripped.next = (next < words.len()).then_some(next);
            }
            if stripped.unresolved {
                self.out.hazard(Hazard::UnresolvedWrapper { wrapper: excerpt(&name.value) });
            }
            if let Some(split) = &stripped.split_string {
                let mut outer = wrappers.clone();
                outer.push(name.value.clone());
                self.nested(Cow::Owned(split.clone()), &outer);
            }
            // No wrapped command: the wrapper is the command (`env` printing, `sudo -l`).
            let Some(next) = stripped.next else { break };
            let stripped_assignments = stripped.assignments.len();
            assignments.extend(stripped.assignments);
            if stripped.chdir {
                // `env -C DIR`, `sudo -D DIR`: the wrapped command's relative paths are relative
                // to a directory the path checks do not follow.
                self.out.hazard(Hazard::UnresolvedWrapper { wrapper: format!("{} (changes directory)", name.value) });
            }
            chdir |= stripped.chdir;
            if wrapped_from.is_none() && wrapper.kept_for_rules() {
                wrapped_from = Some((i, assignments.len() - stripped_assignments));
            }
            if wrapper == Wrapper::Xargs {
                // `xargs` stays a command of its own, so that a rule on it can match.
                let wrapped = wrapped_from.map(|(from, leading)| (&words[from..], leading));
                self.push_command(&words[i..], assignments.clone(), wrappers.clone(), chdir, wrapped);
                let replace = stripped.replace.as_deref();
                self.fed_payload(&words[next..], replace.as_slice(), "xargs", replace.is_none());
            }
            if wrapper == Wrapper::Exec && !words[next].is_static() {
                self.out.hazard(Hazard::DynamicEval { command: excerpt(&name.value) });
            }
            wrappers.push(name.value.clone());
            i = next;
        }
        let wrapped = wrapped_from.map(|(from, leading)| (&words[from..], leading));
        self.push_command(&words[i.min(words.len())..], assignments, wrappers, chdir, wrapped);
    }

    /// Records the hazards of a command-name word; `false` when it is not static (then it
    /// cannot be a wrapper either).
    fn check_name(&mut self, name: &Word<'s>) -> bool {
        if name.ansi_c {
            self.out.hazard(Hazard::AnsiCQuoting);
        }
        // A name made by brace expansion (`r{m,} -rf ~`) is known, but not what the source
        // text says: rules and readers of the text would misjudge it.
        if name.expansion || name.glob || name.braced {
            let text = excerpt(self.slice(name.start, name.end));
            self.out.hazard(Hazard::DynamicCommandName { text });
            return false;
        }
        true
    }

    /// Runs `src` through the analysis as a nested command string.
    fn nested(&mut self, src: Text<'s>, wrappers: &[Text<'s>]) {
        self.out.analyze_nested(src, wrappers);
    }

    /// Lists a payload (`find -exec`, `fd -x`) as a command of its own.
    fn payload(&mut self, words: &[Word<'s>], wrappers: Vec<Text<'s>>) {
        if words.is_empty() {
            return;
        }
        if self.out.nesting >= MAX_NESTING {
            self.out.too_deep();
            return;
        }
        self.out.nesting += 1;
        self.emit_from(words, Vec::new(), wrappers, false);
        self.out.nesting -= 1;
    }

    /// The source text of `words`: as written where they are adjacent in the source, joined
    /// by a space where something else (a redirect) sits between them.
    fn text_of(&self, words: &[Word<'s>]) -> Text<'s> {
        let (first, last) = match (words.first(), words.last()) {
            (Some(first), Some(last)) => (first.start, last.end),
            _ => return Cow::Borrowed(""),
        };
        // The words brace expansion made of one word as written are that word's text, once.
        let words: Cow<'_, [Word<'s>]> = if words.windows(2).any(|pair| pair[0].start == pair[1].start) {
            let mut distinct = words.to_vec();
            distinct.dedup_by(|next, previous| next.start == previous.start && next.end == previous.end);
            Cow::Owned(distinct)
        } else {
            Cow::Borrowed(words)
        };
        // Words apart only by blanks or line continuations: the source between them as it is.
        let adjacent = words.windows(2).all(|pair| {
            pair[0].end <= pair[1].start && {
                let gap = self.slice(pair[0].end, pair[1].start);
                !gap.is_empty() && gap.chars().all(|c| c.is_whitespace() || c == '\\')
            }
        });
        if adjacent && first <= last {
            return Cow::Borrowed(self.slice(first, last));
        }
        let mut text = String::with_capacity(last.saturating_sub(first));
        for (k, word) in words.iter().enumerate() {
            if let Some(previous) = k.checked_sub(1).and_then(|p| words.get(p)) {
                let gap = if previous.end <= word.start { self.slice(previous.end, word.start) } else { "" };
                if !gap.is_empty() && gap.chars().all(|c| c.is_whitespace() || c == '\\') {
                    text.push_str(gap);
                } else {
                    text.push(' ');
                }
            }
            text.push_str(self.slice(word.start, word.end));
        }
        Cow::Owned(text)
    }

    /// Lists one command (wrappers already stripped) and looks at what it runs.
    fn push_command(
        &mut self,
        words: &[Word<'s>],
        assignments: Vec<(Text<'s>, Text<'s>)>,
        wrappers: Vec<Text<'s>>,
        chdir: bool,
        wrapped: Option<(&[Word<'s>], usize)>,
    ) {
        let carried = carried_commands(&assignments, words);
        if words.is_empty() {
            if !assignments.is_empty() {
                self.out.commands.push(SimpleCommand { assignments, wrappers, ..SimpleCommand::default() });
            }
            self.command_variables(carried);
            return;
        }
        if self.out.aliases.iter().any(|alias| *alias == *words[0].value) {
            self.out.hazard(Hazard::AliasedCommand { name: excerpt(&words[0].value) });
        }
        let command = SimpleCommand {
            argv: words.iter().map(|word| word.value.clone()).collect(),
            text: self.text_of(words),
            assignments,
            wrappers,
            has_expansion: words.iter().any(|word| word.expansion),
            has_glob: words.iter().skip(1).any(|word| word.glob),
            glob_words: words.iter().enumerate().skip(1).filter(|(_, word)| word.glob).map(|(at, _)| at).collect(),
            static_words: words.iter().position(|word| !word.is_static()).unwrap_or(words.len()),
            wrapped: wrapped.map(|(from, leading)| Wrapped {
                text: self.text_of(from),
                joined: from.iter().map(|word| &*word.value).collect::<Vec<_>>().join(" "),
                assignments: leading,
            }),
        };
        self.out.commands.push(command);
        self.evaluated_arguments(words);
        self.program(words, chdir);
        self.command_variables(carried);
    }

    /// Lists the commands a builtin's arguments run when bash evaluates them as arithmetic or
    /// as variable names with a subscript: `read 'a[$(rm x)]'`, `unset`, `printf -v`, `test
    /// -v`, `let` … expand a `$(…)` or backtick inside the subscript however it was quoted.
    fn evaluated_arguments(&mut self, words: &[Word<'s>]) {
        // `[[` is a keyword, not a builtin, and evaluates `-eq` operands as arithmetic.
        if EVALUATING_BUILTINS.binary_search(&&*words[0].value).is_err() && words[0].value != "[[" {
            return;
        }
        for word in &words[1..] {
            if word.is_static() && super::walk::has_substitution_text(&word.value) {
                self.out.hazard(Hazard::CommandSubstitution);
                let mut scripts = super::walk::backtick_scripts(&word.value);
                scripts.extend(super::walk::dollar_paren_scripts(&word.value, &[]));
                for script in super::walk::bounded(self.out, scripts) {
                    self.nested(Cow::Owned(script), &[]);
                }
            }
        }
    }

    /// Analyses the commands that variables set by a command carry ([`carried_commands`]):
    /// a static value as a command string of its own, one known only at run time as
    /// [`Hazard::DynamicEval`].
    pub(super) fn command_variables(&mut self, carried: Vec<(Text<'s>, Text<'s>)>) {
        for (name, value) in carried {
            if value.contains(['$', '`']) {
                self.out.hazard(Hazard::DynamicEval { command: name.into_owned() });
                continue;
            }
            // `LESSOPEN='|lesspipe %s'`: the pipe marks a command, and is not part of it.
            let script = match value {
                Cow::Borrowed(value) => Cow::Borrowed(value.trim_start_matches('|')),
                Cow::Owned(value) => Cow::Owned(value.trim_start_matches('|').to_owned()),
            };
            self.nested(script, &[name]);
        }
    }

    /// The wrappers of the command listed last, then `name`: those of the commands it runs.
    fn outer(&self, name: &str) -> Vec<Text<'s>> {
        let mut outer = self.out.commands.last().map(|command| command.wrappers.clone()).unwrap_or_default();
        outer.push(Cow::Owned(name.to_owned()));
        outer
    }

    /// What the command just listed (`words`) runs, or needs a hazard for: `cd` before
    /// `git`, git's configuration options, `rm` under a variable, `find -exec` and `fd -x`
    /// payloads, `eval`, `source`, `trap`, `alias`, shells' `-c` strings.
    #[inline(never)]
    fn program(&mut self, words: &[Word<'s>], chdir: bool) {
        let name = basename(&words[0].value);
        let outer = |this: &Self| this.outer(name);
        match name {
            "cd" | "pushd" | "popd" => self.change_dir(words),
            "git" => {
                if self.out.changed_dir || chdir {
                    self.out.hazard(Hazard::CdThenGit);
                }
                let git_config_env =
                    self.out.commands.last().is_some_and(|command| {
                        command.assignments.iter().any(|(name, _)| name.starts_with("GIT_CONFIG"))
                    });
                if git_config_env {
                    self.out.hazard(Hazard::GitConfigOverride);
                }
                self.git_options(words);
            }
            "rm" | "rmdir" => {
                for word in &words[1..] {
                    if rm_glob_under_variable(&word.value) {
                        self.out.hazard(Hazard::RmGlobUnderVariable { arg: excerpt(&word.value) });
                    }
                }
            }
            "tar" | "rsync" | "zip" | "ssh" | "scp" | "sftp" | "man" | "sort" | "npx" | "npm" => {
                self.program_option_commands(name, &words[1..]);
            }
            "find" => self.find_payloads(words, outer(self)),
            "fd" | "fdfind" => self.fd_payloads(words, outer(self)),
            "eval" => self.eval(words, outer(self)),
            "source" | "." if words.get(1).is_some_and(|word| !word.is_static() || reads_a_stream(&word.value)) => {
                self.out.hazard(Hazard::DynamicEval { command: name.to_owned() });
            }
            "trap" => self.trap(words, outer(self)),
            "alias" => {
                // An alias body is a command string (run when aliases are expanded). (The
                // wrappers are taken before any body is listed.)
                let outer = outer(self);
                for word in &words[1..] {
                    match split_once(&word.value, '=') {
                        Some((alias, body)) if word.is_static() => {
                            self.nested(body, &outer);
                            self.out.aliases.push(alias.into_owned());
                        }
                        Some(_) => self.out.hazard(Hazard::DynamicEval { command: name.to_owned() }),
                        None => {}
                    }
                }
            }
            shell if is_bash_like_shell(shell) => self.shell_string(words, name, outer(self)),
            launcher
                if is_unfollowed_launcher(launcher)
                    || schedules_commands(launcher, &words[1..])
                    || builtin_runs_unseen(launcher, &words[1..]) =>
            {
                self.out.hazard(Hazard::UnfollowedLauncher { launcher: launcher.to_owned() });
            }
            "fish" | "csh" | "tcsh" | "nu" | "elvish" | "xonsh" | "pwsh" | "powershell" => {
                let runs_string = words[1..].iter().any(|word| {
                    word.value == "-c"
                        || word.value.eq_ignore_ascii_case("-command")
                        || (word.value.starts_with('-') && !word.value.starts_with("--") && word.value.contains('c'))
                });
                if runs_string {
                    self.out.hazard(Hazard::DynamicEval { command: name.to_owned() });
                }
            }
            _ => {}
        }
    }

    /// Notes a `cd`/`pushd`/`popd` to somewhere other than `.`.
    fn change_dir(&mut self, words: &[Word<'s>]) {
        let mut operands = words[1..].iter().skip_while(|word| {
            word.is_static() && word.value.starts_with('-') && word.value.len() > 1 && word.value != "--"
        });
        let mut target = operands.next();
        if target.is_some_and(|word| word.is_static() && word.value == "--") {
            target = operands.next();
        }
        let stays = basename(&words[0].value) == "cd"
            && target.is_some_and(|word| word.is_static() && matches!(&*word.value, "." | "./"));
        if !stays {
            self.out.changed_dir = true;
        }
    }

    /// `git` global options: `-c` and `--config-env` are [`Hazard::GitConfigOverride`].
    fn git_options(&mut self, words: &[Word<'s>]) {
        let mut j = 1;
        while let Some(word) = words.get(j) {
            if !word.is_static() {
                break;
            }
            let value = &*word.value;
            if value == "-c" || value == "--config-env" || value.starts_with("--config-env=") {
                self.out.hazard(Hazard::GitConfigOverride);
            }
            if matches!(
                value,
                "-c" | "-C" | "--config-env" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix"
            ) {
                j += 2;
            } else if value.starts_with('-') {
                j += 1;
            } else {
                break;
            }
        }
        if words.get(j).is_some_and(|w| w.is_static() && w.value == "config") && sets_command_config(&words[j + 1..]) {
            self.out.hazard(Hazard::GitConfigOverride);
        }
        if let Some(sub) = words.get(j).filter(|w| w.is_static()) {
            self.git_payloads(&sub.value, &words[j + 1..]);
        }
    }

    /// What a git subcommand runs that its arguments name: the shell command of `submodule
    /// foreach`, `rebase --exec`, `filter-branch --*-filter`, `difftool --extcmd`, `grep
    /// --open-files-in-pager`, `send-email --*-cmd` and the transport commands
    /// (`--upload-pack`, `--receive-pack`, `--exec`), each parsed as a command string; and
    /// the command `bisect run` runs. One known only at run time is [`Hazard::DynamicEval`].
    /// `clone`/`init` given configuration (`-c`) is [`Hazard::GitConfigOverride`], and given
    /// a template folder of hooks (`--template`) [`Hazard::UnfollowedLauncher`].
    #[inline(never)]
    fn git_payloads(&mut self, sub: &str, args: &[Word<'s>]) {
        let dynamic = |this: &mut Self| this.out.hazard(Hazard::DynamicEval { command: format!("git {sub}") });
        if matches!(sub, "clone" | "init") {
            // The new repository's configuration (`-c core.hooksPath=…`, which the checkout of
            // `clone` already runs) and hooks copied from a template folder.
            let options = args.iter().take_while(|w| w.value != "--");
            for word in options {
                let value = &*word.value;
                if matches!(value, "-c" | "--config")
                    || value.starts_with("--config=")
                    || (value.starts_with("-c") && sub == "clone")
                {
                    self.out.hazard(Hazard::GitConfigOverride);
                } else if value == "--template" || value.starts_with("--template=") {
                    self.out.hazard(Hazard::UnfollowedLauncher { launcher: format!("git {sub} --template") });
                }
            }
        }
        match sub {
            "submodule" => {
                // `submodule [--quiet] foreach [--recursive] COMMAND…`: the words, joined, are
                // evaluated by a shell.
                let Some(at) = args.iter().position(|w| w.value == "foreach") else { return };
                let command: Vec<&Word<'s>> = args[at + 1..].iter().skip_while(|w| w.value.starts_with('-')).collect();
                if command.iter().all(|w| w.is_static()) {
                    let joined: Vec<&str> = command.iter().map(|w| &*w.value).collect();
                    let outer = self.outer("git");
                    self.nested(Cow::Owned(joined.join(" ")), &outer);
                } else {
                    dynamic(self);
                }
            }
            "bisect" => {
                if args.first().is_some_and(|w| w.value == "run") {
                    let outer = self.outer("git");
                    self.payload(&args[1..], outer);
                }
            }
            _ => {
                let options: &[&str] = match sub {
                    "rebase" => &["--exec", "-x"],
                    "filter-branch" => &[
                        "--tree-filter",
                        "--index-filter",
                        "--msg-filter",
                        "--env-filter",
                        "--commit-filter",
                        "--parent-filter",
                        "--tag-name-filter",
                    ],
                    "difftool" => &["--extcmd", "-x"],
                    "grep" => &["--open-files-in-pager", "-O"],
                    "send-email" => &["--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd", "--smtp-server"],
                    "fetch" | "pull" | "ls-remote" => &["--upload-pack"],
                    "clone" => &["--upload-pack", "-u"],
                    "push" => &["--receive-pack", "--exec"],
                    "archive" => &["--exec"],
                    _ => return,
                };
                // `grep -O` alone opens the pager git is configured with; `--smtp-server`
                // names a host unless it is a path to a program.
                let takes_next = |name: &str| !(sub == "grep" && matches!(name, "-O" | "--open-files-in-pager"));
                self.option_commands(args, options, &format!("git {sub}"), &takes_next, &|name, value| {
                    (name != "--smtp-server" || value.starts_with('/')).then(|| value.to_owned())
                });
            }
        }
    }

    /// The commands other programs run from their options, each parsed as a command of the
    /// line: tar's `--to-command`, `--use-compress-program`/`-I`, `--info-script`/`-F`,
    /// `--new-volume-script`, `--rsh-command` and `--checkpoint-action=exec=CMD`; rsync's
    /// `--rsh`/`-e`; zip's `--unzip-command`/`-TT`; ssh's (and scp's, sftp's)
    /// `-o ProxyCommand=…`, `LocalCommand`, `KnownHostsCommand`, and the `-S` program of scp
    /// and sftp; man's pager
    /// and browser (`-P`, `--pager`, `-H`, `--html`); sort's `--compress-program`; and the
    /// `-c`/`--call` string of `npx` and `npm exec`.
    #[inline(never)]
    fn program_option_commands(&mut self, name: &str, args: &[Word<'s>]) {
        let all = |_: &str| true;
        let as_is = |_: &str, value: &str| Some(value.to_owned());
        match name {
            "tar" => {
                let options = [
                    "--to-command",
                    "--use-compress-program",
                    "-I",
                    "--info-script",
                    "--new-volume-script",
                    "-F",
                    "--rsh-command",
                    "--checkpoint-action",
                ];
                self.option_commands(args, &options, "tar", &all, &|name, value| match name {
                    // Only the `exec=` action runs anything (`dot`, `echo`, `sleep=1` … do not).
                    "--checkpoint-action" => value.strip_prefix("exec=").map(str::to_owned),
                    _ => Some(value.to_owned()),
                });
            }
            "rsync" => {
                self.option_commands(args, &["--rsh"], "rsync", &all, &as_is);
                self.rsync_e(args);
            }
            "zip" => self.option_commands(args, &["--unzip-command", "-TT"], "zip", &all, &as_is),
            "ssh" | "scp" | "sftp" => {
                let options: &[&str] = if name == "ssh" { &["-o"] } else { &["-o", "-S"] };
                self.option_commands(args, options, name, &all, &|option, value| {
                    if option == "-S" {
                        return Some(value.to_owned());
                    }
                    // `Key=value` or `Key value`, the key in any case.
                    let (key, command) = value.split_once(['=', ' ', '\t'])?;
                    let runs = ["ProxyCommand", "LocalCommand", "KnownHostsCommand"];
                    runs.iter().any(|k| k.eq_ignore_ascii_case(key.trim())).then(|| command.trim().to_owned())
                });
            }
            "man" => {
                // The browser of `-H`/`--html` is attached only (`-Hfirefox`): a word after a
                // bare `-H` is the page.
                let takes_next = |option: &str| matches!(option, "--pager" | "-P");
                self.option_commands(args, &["--pager", "-P", "--html", "-H"], "man", &takes_next, &as_is);
            }
            "sort" => self.option_commands(args, &["--compress-program"], "sort", &all, &as_is),
            "npx" => self.option_commands(args, &["--call", "-c"], "npx", &all, &as_is),
            "npm" if args.first().is_some_and(|w| matches!(&*w.value, "exec" | "x")) => {
                self.option_commands(&args[1..], &["--call", "-c"], "npm exec", &all, &as_is);
            }
            _ => {}
        }
    }

    /// rsync's `-e CMD`, also at the end of a cluster of flags (`-avze CMD`) or attached
    /// (`-essh`, `-aessh`): getopt gives the rest of the word, or the next word, to the first
    /// letter that takes a value.
    fn rsync_e(&mut self, args: &[Word<'s>]) {
        // rsync's short options that take a value (`-e` among them).
        const WITH_VALUE: &str = "eBfTM";
        let outer = self.outer("rsync");
        let mut k = 0;
        while let Some(word) = args.get(k) {
            k += 1;
            if word.value == "--" {
                break;
            }
            let Some(cluster) = word.value.strip_prefix('-').filter(|c| !c.is_empty() && !c.starts_with('-')) else {
                continue;
            };
            let Some(at) = cluster.find(|c| WITH_VALUE.contains(c)) else { continue };
            let rest = &cluster[at + 1..];
            let next = if rest.is_empty() {
                k += 1;
                args.get(k - 1)
            } else {
                None
            };
            if !cluster[at..].starts_with('e') {
                continue;
            }
            match (rest.is_empty(), next) {
                (false, _) if word.is_static() => self.nested(Cow::Owned(rest.to_owned()), &outer),
                (true, Some(value)) if word.is_static() && value.is_static() => {
                    self.nested(value.value.clone(), &outer);
                }
                // `-e` last, with nothing after it: rsync refuses to start.
                (true, None) => {}
                _ => self.out.hazard(Hazard::DynamicEval { command: "rsync".to_owned() }),
            }
        }
    }

    /// The command strings the options `options` of a command (`args`, after its name) hand a
    /// shell: `--name=VALUE`, `--name VALUE` (when `takes_next` says so), `-xVALUE` or
    /// `-x VALUE` for a short one, each parsed as a command of the line once `pick` has taken
    /// the command out of it (or skipped it); one known only at run time is
    /// [`Hazard::DynamicEval`] of `owner`. Scanning stops at `--`.
    fn option_commands(
        &mut self,
        args: &[Word<'s>],
        options: &[&str],
        owner: &str,
        takes_next: &dyn Fn(&str) -> bool,
        pick: &dyn Fn(&str, &str) -> Option<String>,
    ) {
        let outer = self.outer(owner.split(' ').next().unwrap_or(owner));
        let mut k = 0;
        while let Some(word) = args.get(k) {
            k += 1;
            if word.value == "--" {
                break;
            }
            let (name, attached) = match word.value.split_once('=') {
                Some((name, value)) if name.starts_with("--") => (name, Some(value)),
                _ => (&*word.value, None),
            };
            // A short option takes the rest of its word (`-xmake`, `-Ovim`).
            let short = options.iter().find(|o| o.len() == 2 && name.len() > 2 && name.starts_with(*o));
            let value = if let Some(short) = short {
                Some(word.value[short.len()..].to_owned())
            } else if options.contains(&name) {
                match attached {
                    Some(value) => Some(value.to_owned()),
                    None if !takes_next(name) => None,
                    None => {
                        k += 1;
                        args.get(k - 1).map(|w| w.value.to_string())
                    }
                }
            } else {
                None
            };
            let Some(value) = value else { continue };
            if word.is_static() && args.get(k - 1).is_none_or(|w| w.is_static()) {
                if let Some(command) = pick(name, &value) {
                    self.nested(Cow::Owned(command), &outer);
                }
            } else {
                self.out.hazard(Hazard::DynamicEval { command: owner.to_owned() });
            }
        }
    }

    /// The payloads of `find -exec/-execdir/-ok/-okdir CMD … ;|+`.
    fn find_payloads(&mut self, words: &[Word<'s>], wrappers: Vec<Text<'s>>) {
        let mut k = 1;
        while k < words.len() {
            let word = &words[k];
            if !matches!(&*word.value, "-exec" | "-execdir" | "-ok" | "-okdir") {
                k += 1;
                continue;
            }
            let start = k + 1;
            let mut end = start;
            while let Some(word) = words.get(end) {
                let closes = word.value == ";" || (word.value == "+" && end > start && words[end - 1].value == "{}");
                if closes {
                    break;
                }
                end += 1;
            }
            self.fed_payload(&words[start..end], &["{}"], "find", false);
            self.payload(&words[start..end], wrappers.clone());
            k = end + 1;
        }
    }

    /// What a launcher feeds a payload at run time (`xargs` its input, `find` its paths):
    /// a command name with the replace string in it is only known then
    /// ([`Hazard::DynamicCommandName`]), and so is what a shell runs whose `-c` string or
    /// script holds it (`xargs -I{} sh -c '{}'`, not `sh -c '…' _ {}`), or, where the launcher
    /// `appends` what it reads, one given neither (`xargs sh`): [`Hazard::DynamicEval`].
    #[inline(never)]
    fn fed_payload(&mut self, payload: &[Word<'s>], replace: &[&str], launcher: &str, appends: bool) {
        // Wrappers in front (`xargs nice sh -c`, `find -exec env {} ;`) hand on what is fed:
        // judge the command they run, and a wrapper left without one runs what is appended.
        let mut at = 0;
        while let Some(word) = payload.get(at).filter(|word| word.is_static()) {
            let Some(wrapper) = wrapper_kind(&word.value) else { break };
            match strip(wrapper, payload, at).next {
                Some(next) => at = next,
                None => {
                    if appends {
                        self.out
                            .hazard(Hazard::DynamicEval { command: format!("{launcher} {}", excerpt(&word.value)) });
                    }
                    return;
                }
            }
        }
        let Some((program, args)) = payload[at..].split_first() else { return };
        let holds = |word: &Word<'s>| replace.iter().any(|r| !r.is_empty() && word.value.contains(r));
        if holds(program) {
            self.out.hazard(Hazard::DynamicCommandName { text: excerpt(&program.value) });
            return;
        }
        let shell = basename(&program.value);
        if !is_bash_like_shell(shell) {
            return;
        }
        // The script: the string after `-c` (or a cluster with `c`), else the first operand.
        let runs_string =
            |word: &&Word<'s>| word.value.starts_with('-') && !word.value.starts_with("--") && word.value.contains('c');
        let script = match args.iter().position(|word| runs_string(&word)) {
            Some(at) => args.get(at + 1),
            None => args.iter().find(|word| !word.value.starts_with('-')),
        };
        let fed = match script {
            Some(script) => holds(script),
            None => appends,
        };
        if fed {
            self.out.hazard(Hazard::DynamicEval { command: format!("{launcher} {shell}") });
        }
    }

    /// The payloads of `fd -x/--exec/-X/--exec-batch CMD … [;]`.
    fn fd_payloads(&mut self, words: &[Word<'s>], wrappers: Vec<Text<'s>>) {
        let mut k = 1;
        while k < words.len() {
            let value = &*words[k].value;
            // `--exec=CMD`, `-xCMD` and `-HIx CMD` run a command too; where it starts is not
            // followed.
            let attached = value.starts_with("--exec=")
                || value.starts_with("--exec-batch=")
                || (value.len() > 2
                    && !value.starts_with("--")
                    && value.starts_with('-')
                    && value.contains(['x', 'X']));
            if attached {
                self.out
                    .hazard(Hazard::UnresolvedWrapper { wrapper: format!("{} {}", words[0].value, excerpt(value)) });
            }
            if !matches!(value, "-x" | "--exec" | "-X" | "--exec-batch") {
                k += 1;
                continue;
            }
            let start = k + 1;
            let end = words[start..].iter().position(|word| word.value == ";").map_or(words.len(), |p| start + p);
            // fd appends the path where no placeholder stands in the command.
            const PLACEHOLDERS: &[&str] = &["{}", "{/}", "{//}", "{.}", "{/.}"];
            let placed = words[start..end].iter().any(|w| PLACEHOLDERS.iter().any(|p| w.value.contains(p)));
            self.fed_payload(&words[start..end], PLACEHOLDERS, "fd", !placed);
            self.payload(&words[start..end], wrappers.clone());
            k = end + 1;
        }
    }

    /// The arguments of `eval`, joined and parsed recursively when all static.
    fn eval(&mut self, words: &[Word<'s>], wrappers: Vec<Text<'s>>) {
        // `eval -- TEXT`: bash's builtins take `--` as the end of (no) options.
        let first = if words.get(1).is_some_and(|word| word.is_static() && word.value == "--") { 2 } else { 1 };
        let args = words.get(first..).unwrap_or_default();
        if args.iter().all(Word::is_static) {
            let joined: Vec<&str> = args.iter().map(|word| &*word.value).collect();
            self.nested(Cow::Owned(joined.join(" ")), &wrappers);
        } else {
            self.out.hazard(Hazard::DynamicEval { command: "eval".to_owned() });
        }
    }

    /// The action of `trap ACTION SIGNAL…`, parsed recursively when static.
    fn trap(&mut self, words: &[Word<'s>], wrappers: Vec<Text<'s>>) {
        let mut j = 1;
        match words.get(1) {
            Some(word) if word.is_static() && matches!(&*word.value, "-p" | "-l") => return,
            Some(word) if word.is_static() && word.value == "--" => j = 2,
            _ => {}
        }
        if words.len() < j + 2 {
            return;
        }
        let action = &words[j];
        if !action.is_static() {
            self.out.hazard(Hazard::DynamicEval { command: "trap".to_owned() });
        } else if !action.value.is_empty() && action.value != "-" {
            self.nested(action.value.clone(), &wrappers);
        }
    }

    /// The string of `bash -c STRING`, parsed recursively when static.
    fn shell_string(&mut self, words: &[Word<'s>], name: &str, wrappers: Vec<Text<'s>>) {
        let options = shell_options(|at| words.get(at).map(|w| (&*w.value, w.is_static())));
        let (j, runs_string, reads_stdin) = (options.next, options.string_option.is_some(), options.reads_stdin);
        if !runs_string {
            match words.get(j).filter(|_| !reads_stdin) {
                // With no script operand the shell reads its script from standard input: a
                // here-document's, or what the pipeline stage before it prints.
                None => match self.stdin.take() {
                    Some(Stdin::Static(script)) => self.nested(script, &wrappers),
                    Some(Stdin::Dynamic) => self.out.hazard(Hazard::DynamicEval { command: name.to_owned() }),
                    None if self.out.piped => self.out.hazard(Hazard::DynamicEval { command: name.to_owned() }),
                    None => {}
                },
                // A script named at run time (`bash <(curl …)`, `sh $SCRIPT`), or read from a
                // stream (`sh /dev/stdin`).
                Some(script) if !script.is_static() || reads_a_stream(&script.value) => {
                    self.out.hazard(Hazard::DynamicEval { command: name.to_owned() });
                }
                Some(_) => {}
            }
            return;
        }
        match words.get(j) {
            Some(string) if string.is_static() => self.nested(string.value.clone(), &wrappers),
            Some(_) => self.out.hazard(Hazard::DynamicEval { command: name.to_owned() }),
            None => {}
        }
    }
}

/// What the leading options of a bash-like shell say (see [`shell_options`]).
pub(crate) struct ShellOptions {
    /// The index of the first word after the options (the script, or the `-c` string).
    pub next: usize,
    /// The index of the option cluster with `c` (`-c`, `-lc`), when the shell runs a string.
    pub string_option: Option<usize>,
    /// `-s`: the script comes from standard input, the operands are its arguments.
    pub reads_stdin: bool,
}

/// Reads a shell's options from word 1 on (`word_at(k)`: the word's text and whether it is
/// static): clusters of `-`/`+` letters, each `o`/`O` among them taking a word, `--rcfile`/
/// `--init-file` taking the next word, other long options, up to `--`, `-`, a word known only
/// at run time or an operand.
pub(crate) fn shell_options<'a>(word_at: impl Fn(usize) -> Option<(&'a str, bool)>) -> ShellOptions {
    let mut options = ShellOptions { next: 1, string_option: None, reads_stdin: false };
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
            // Each `o` or `O` of the cluster takes a word of its own (`-ooc errexit nounset`).
            options.next += 1 + cluster.matches(['o', 'O']).count();
            continue;
        }
        break;
    }
    options
}

/// Whether `gap` is nothing but line continuations (`\\<newline>`, once or more).
fn is_continuation(gap: &str) -> bool {
    !gap.is_empty() && gap.len().is_multiple_of(2) && gap.as_bytes().chunks(2).all(|pair| pair == b"\\\n")
}

/// Whether an `rm` argument is a glob or trailing slash directly under a variable (`$DIR/*`,
/// `${X}/`, `$1/*.txt`), which names `/`-level paths when the variable is empty.
pub(super) fn rm_glob_under_variable(value: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::EVALUATING_BUILTINS;

    /// The list is sorted (it is searched by bisection), and every name in it is a builtin of
    /// the bash on this machine, as `compgen -b` lists them.
    #[test]
    fn evaluating_builtins_are_sorted_bash_builtins() {
        assert!(EVALUATING_BUILTINS.windows(2).all(|pair| pair[0] < pair[1]), "not sorted");
        let run = toolgate_core::process::ProcessSpec::exec("/usr/bin/bash", ["-c", "compgen -b"]).cwd("/");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let outcome = runtime.block_on(run.run(&toolgate_core::CancellationToken::new())).unwrap();
        let listed = outcome.stdout.text();
        let builtins: Vec<&str> = listed.lines().collect();
        for name in EVALUATING_BUILTINS {
            assert!(builtins.contains(name), "{name} is not a builtin of this bash");
        }
    }
}
