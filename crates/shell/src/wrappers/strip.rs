//! Stripping one wrapper: its options, assignments and operands, and where the command it
//! runs starts (runners' subcommands, `xargs`' payload).

use super::*;
use crate::Text;
use crate::word::Word;
use crate::word::is_plain;

/// Strips `wrapper`, whose name is `words[at]`.
pub(crate) fn strip<'s>(wrapper: Wrapper, words: &[Word<'s>], at: usize) -> Strip<'s> {
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
            // The keyword takes `-p` only as written so: `time \-p` and `time '-p'` run a
            // command named `-p`.
            if words.get(start).is_some_and(|w| w.value.starts_with('-') && w.end - w.start != w.value.len()) {
                strip.unresolved = true;
            }
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
pub(crate) fn runner_payload(words: &[Word<'_>], at: usize, strip: &mut Strip<'_>) -> Option<usize> {
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
pub(crate) const RUNNER_VALUE_OPTIONS: &[&str] = &[
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
pub(crate) fn past_operand(words: &[Word<'_>], at: usize, strip: &mut Strip<'_>) -> usize {
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
pub(crate) fn xargs_options() -> OptSpec {
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
pub(crate) fn xargs_payload(argv: &[Text<'_>]) -> Option<usize> {
    let scan = scan_options(argv, 1, &xargs_options());
    (!scan.unresolved).then_some(scan.next)
}
