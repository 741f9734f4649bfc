//! Programs that run commands the analysis does not follow or that run later, builtins that
//! run what cannot be listed, and variables a program runs as a command line.

use super::*;
use crate::Text;
use crate::git::GIT_CONFIG_GETS;
use crate::word::Word;

/// Whether `program` runs a command given in its arguments in a way the analysis does not
/// follow: under another root, user or namespace (`chroot`, `su`, `unshare`, `bwrap`), as a
/// shell string (`watch`, `flock -c`, `script -c`, `parallel`, `hyperfine`), as an applet
/// (`busybox`), in a container or job system (`systemd-nspawn`, `srun`), or after options not
/// modelled here (`strace`, `valgrind`, `xvfb-run`, `chronic` …). Each is
/// [`Hazard::UnfollowedLauncher`].
pub(crate) fn is_unfollowed_launcher(program: &str) -> bool {
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
pub(crate) fn schedules_commands(program: &str, args: &[Word<'_>]) -> bool {
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
pub(crate) fn builtin_runs_unseen(program: &str, args: &[Word<'_>]) -> bool {
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
pub(crate) const EVALUATING_BUILTINS: &[&str] = &[
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
pub(crate) fn is_short_flag_with(word: &Word<'_>, flag: char) -> bool {
    word.is_static()
        && word.value.strip_prefix('-').is_some_and(|cluster| !cluster.starts_with('-') && cluster.contains(flag))
}

/// Whether `git config ARGS` may set a key whose value git runs as a command (`core.pager`,
/// `core.sshCommand`, `alias.*`, a filter's `clean` …), which a later `git` then runs: a key
/// among the operands that is not only read or removed ([`GIT_CONFIG_GETS`], `--unset`,
/// `--list` …).
/// An operand known only at run time may be any key.
pub(crate) fn sets_command_config(args: &[Word<'_>]) -> bool {
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
pub(crate) const COMMAND_VARIABLES: &[&str] = &[
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
pub(crate) fn carried_commands<'s>(
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
pub(crate) fn reads_a_stream(path: &str) -> bool {
    path == "-"
        || path == "/dev/stdin"
        || path.starts_with("/dev/fd/")
        || (path.starts_with("/proc/") && path.contains("/fd/"))
}

#[cfg(test)]
mod tests {
    use super::EVALUATING_BUILTINS;

    /// The list is sorted (it is searched by bisection), and every name in it is a builtin of
    /// the bash on this machine, as `compgen -b` lists them.
    #[test]
    pub(crate) fn evaluating_builtins_are_sorted_bash_builtins() {
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
