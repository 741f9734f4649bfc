//! Table-driven tests of the Bash analysis and the read-only classifier.
//!
//! Each [`Case`] is a command and what must hold of its analysis: the commands (argv joined by
//! spaces), the exact set of hazards, the writes, whether it is read-only, and per-command
//! details. Every failing case is reported, not only the first.

use super::*;

/// One expectation about an analysis.
#[derive(Debug)]
enum E {
    /// The commands, each argv joined by single spaces, exactly and in order.
    Cmds(&'static [&'static str]),
    /// Exactly these hazards, in any order (`Name` or `Name:payload`).
    Hazards(&'static [&'static str]),
    /// At least this hazard.
    Has(&'static str),
    /// Among the commands, one whose argv joined by single spaces is this.
    Lists(&'static str),
    /// Exactly these writes: (path, append, dynamic).
    Writes(&'static [(&'static str, bool, bool)]),
    /// What [`is_read_only`] says.
    ReadOnly(bool),
    /// The argv of command `n`.
    Argv(usize, &'static [&'static str]),
    /// The wrappers of command `n`.
    Wrappers(usize, &'static [&'static str]),
    /// The assignments of command `n`.
    Assign(usize, &'static [(&'static str, &'static str)]),
    /// The text of command `n`.
    Text(usize, &'static str),
    /// `has_expansion` of command `n`.
    Expansion(usize, bool),
    /// `has_glob` of command `n`.
    Glob(usize, bool),
    /// `glob_words` of command `n`.
    GlobWords(usize, &'static [usize]),
}

use E::*;

/// A command and what must hold of its analysis.
struct Case {
    src: &'static str,
    expect: &'static [E],
}

/// Shorthand for a [`Case`].
const fn c(src: &'static str, expect: &'static [E]) -> Case {
    Case { src, expect }
}

/// A hazard as `Name` or `Name:payload`.
fn hazard_name(hazard: &Hazard) -> String {
    match hazard {
        Hazard::TooLong { len } => format!("TooLong:{len}"),
        Hazard::ParseError => "ParseError".to_owned(),
        Hazard::CommandSubstitution => "CommandSubstitution".to_owned(),
        Hazard::ProcessSubstitution => "ProcessSubstitution".to_owned(),
        Hazard::ParameterExpansion => "ParameterExpansion".to_owned(),
        Hazard::DynamicCommandName { text } => format!("DynamicCommandName:{text}"),
        Hazard::DynamicEval { command } => format!("DynamicEval:{command}"),
        Hazard::AnsiCQuoting => "AnsiCQuoting".to_owned(),
        Hazard::UnknownConstruct { kind } => format!("UnknownConstruct:{kind}"),
        Hazard::CdThenGit => "CdThenGit".to_owned(),
        Hazard::RmGlobUnderVariable { arg } => format!("RmGlobUnderVariable:{arg}"),
        Hazard::GitConfigOverride => "GitConfigOverride".to_owned(),
        Hazard::UnresolvedWrapper { wrapper } => format!("UnresolvedWrapper:{wrapper}"),
        Hazard::ArithmeticName { name } => format!("ArithmeticName:{name}"),
        Hazard::UnfollowedLauncher { launcher } => format!("UnfollowedLauncher:{launcher}"),
        Hazard::AliasedCommand { name } => format!("AliasedCommand:{name}"),
        Hazard::BraceExpansionTooLarge => "BraceExpansionTooLarge".to_owned(),
        Hazard::Background => "Background".to_owned(),
    }
}

/// The failures of one expectation on `analysis`, if any.
fn check(analysis: &BashAnalysis, expect: &E) -> Option<String> {
    let command = |n: usize| analysis.commands.get(n);
    let ok = match expect {
        Cmds(cmds) => {
            let got: Vec<String> = analysis.commands.iter().map(|c| c.argv.join(" ")).collect();
            got == *cmds
        }
        Hazards(hazards) => {
            let mut got: Vec<String> = analysis.hazards.iter().map(hazard_name).collect();
            let mut want: Vec<String> = hazards.iter().map(|h| (*h).to_owned()).collect();
            got.sort();
            want.sort();
            got == want
        }
        Has(hazard) => analysis.hazards.iter().any(|h| hazard_name(h) == *hazard),
        Lists(cmd) => analysis.commands.iter().any(|c| c.argv.join(" ") == *cmd),
        Writes(writes) => {
            let got: Vec<(&str, bool, bool)> =
                analysis.writes.iter().map(|w| (&*w.path, w.append, w.dynamic)).collect();
            got == *writes
        }
        ReadOnly(read_only) => is_read_only(analysis) == *read_only,
        Argv(n, argv) => command(*n).is_some_and(|c| c.argv == *argv),
        Wrappers(n, wrappers) => command(*n).is_some_and(|c| c.wrappers == *wrappers),
        Assign(n, assignments) => command(*n)
            .is_some_and(|c| c.assignments.iter().map(|(k, v)| (&**k, &**v)).collect::<Vec<_>>() == *assignments),
        Text(n, text) => command(*n).is_some_and(|c| c.text == *text),
        Expansion(n, expansion) => command(*n).is_some_and(|c| c.has_expansion == *expansion),
        Glob(n, glob) => command(*n).is_some_and(|c| c.has_glob == *glob),
        GlobWords(n, at) => command(*n).is_some_and(|c| c.glob_words == *at),
    };
    (!ok).then(|| format!("expected {expect:?}"))
}

/// Runs every case and fails with all the failures.
fn run(cases: &[Case]) {
    let mut failures = Vec::new();
    for case in cases {
        let analysis = analyze(case.src);
        let problems: Vec<String> = case.expect.iter().filter_map(|e| check(&analysis, e)).collect();
        if !problems.is_empty() {
            failures.push(format!(
                "{:?}\n    {}\n    got commands {:?}\n    hazards {:?}\n    writes {:?}\n    read-only {}\n    {:#?}",
                case.src,
                problems.join("\n    "),
                analysis.commands.iter().map(|c| c.argv.join(" ")).collect::<Vec<_>>(),
                analysis.hazards.iter().map(hazard_name).collect::<Vec<_>>(),
                analysis.writes,
                is_read_only(&analysis),
                analysis.commands,
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// Smuggling a second command after an allowed prefix.
const SMUGGLING: &[Case] = &[
    // Found by the differential oracle: where tree-sitter's tokens are not bash's words.
    c("ls ''\\7", &[Cmds(&["ls 7"]), ReadOnly(true)]),
    c("git push ''\\--force", &[Cmds(&["git push --force"])]),
    c("diff t<(ls)", &[Cmds(&["diff t<(ls)", "ls"])]),
    c("echo$'\\0' hi", &[Cmds(&["echo hi"])]),
    c("echo $'\\c\\\\'", &[Cmds(&["echo \u{1c}"])]),
    c("echo } {b", &[Has("ParseError"), ReadOnly(false)]),
    c("[[-f a ]] && cat a", &[Has("ParseError"), ReadOnly(false)]),
    c("[-f a ] && cat a", &[Has("ParseError"), ReadOnly(false)]),
    c("!} x", &[Has("ParseError"), ReadOnly(false)]),
    c("! true", &[Cmds(&["true"]), Hazards(&[])]),
    c("cat <<'EOF'\n\\\nEOF\nrm -rf y\nEOF", &[Has("ParseError"), Lists("rm -rf y"), ReadOnly(false)]),
    c("[[\\ a ]]", &[Has("ParseError"), ReadOnly(false)]),
    c("cat >$ f", &[Has("ParseError"), ReadOnly(false)]),
    c("wc -<<E\nE", &[Has("ParseError"), ReadOnly(false)]),
    // The oracle's sixth round: what tree-sitter takes into a here-document operator, leaves
    // as a piece of a word, or ends elsewhere than bash.
    c("rm -rf<<E\nE", &[Has("ParseError"), ReadOnly(false)]),
    c("wc -l<<E\nE", &[Has("ParseError"), ReadOnly(false)]),
    c("rm$\"\" -rf x", &[Argv(0, &["rm", "-rf", "x"]), Has("DynamicCommandName:rm$\"\""), ReadOnly(false)]),
    c("r``m -rf x", &[Argv(0, &["rm", "-rf", "x"]), Has("DynamicCommandName:r``m"), ReadOnly(false)]),
    c(">}$\"\"", &[Writes(&[("}", false, true)])]),
    c(">.``t", &[Writes(&[(".t", false, true)])]),
    c("c<<EOF\nx\n\\\nEOF\nEOF", &[Cmds(&["c", "EOF"])]),
    c("cat <<EOF\nhello", &[Has("ParseError"), ReadOnly(false)]),
    c("o $`}cat '\\\\'`", &[Lists("}cat \\"), ReadOnly(false)]),
    c("echo $'\\cA'", &[Has("ParseError"), ReadOnly(false)]),
    c("echo `a``b`", &[Has("ParseError"), ReadOnly(false)]),
    c("echo '\\\r'\nls", &[Cmds(&["echo \\\r", "ls"])]),
    c("time X=1 rm x", &[Cmds(&["rm x"])]),
    c("echo a$\\\t#; rm x", &[Cmds(&["echo a$\t#", "rm x"])]),
    c("echo \\\\$\r\nls", &[Cmds(&["echo \\$\r", "ls"])]),
    c("echo $\\\r\nls", &[Cmds(&["echo $\r", "ls"])]),
    c("echo 'rm x' | bash +", &[Has("DynamicEval:bash"), ReadOnly(false)]),
    c("time 'X=1 rm' x", &[Cmds(&["X=1 rm x"])]),
    c("read 'a[$(rm x)]'", &[Cmds(&["read a[$(rm x)]", "rm x"]), ReadOnly(false)]),
    c("echo $(('$(rm x)'))", &[Cmds(&["echo $(('$(rm x)'))", "rm x"]), ReadOnly(false)]),
    c("true && sh <<EOF\nrm x\nEOF", &[Cmds(&["true", "sh", "rm x"]), ReadOnly(false)]),
    c("echo `cat '\\\\'`", &[Cmds(&["echo `cat '\\\\'`", "cat \\"])]),
    c("git status; rm -rf x", &[Cmds(&["git status", "rm -rf x"]), Hazards(&[]), ReadOnly(false)]),
    c(
        "git log $(curl x)",
        &[Cmds(&["git log $(curl x)", "curl x"]), Hazards(&["CommandSubstitution"]), ReadOnly(false)],
    ),
    c("git log `curl x`", &[Cmds(&["git log `curl x`", "curl x"]), Hazards(&["CommandSubstitution"])]),
    c("ls && curl x | sh", &[Cmds(&["ls", "curl x", "sh"]), Hazards(&["DynamicEval:sh"]), ReadOnly(false)]),
    c("git status\nrm -rf x", &[Cmds(&["git status", "rm -rf x"]), ReadOnly(false)]),
    c("ls & rm x", &[Cmds(&["ls", "rm x"]), ReadOnly(false)]),
    c("ls || rm x", &[Cmds(&["ls", "rm x"]), ReadOnly(false)]),
    c("ls |& tee t", &[Cmds(&["ls", "tee t"]), ReadOnly(false)]),
    c("echo \"$(rm x)\"", &[Cmds(&["echo $(rm x)", "rm x"]), Hazards(&["CommandSubstitution"])]),
    c("ls; ; rm x", &[Has("ParseError"), ReadOnly(false)]),
    c("git status && git push", &[Cmds(&["git status", "git push"]), ReadOnly(false)]),
    c("echo \"a;rm x\"", &[Cmds(&["echo a;rm x"]), ReadOnly(true)]),
    c("echo 'a && rm x'", &[Cmds(&["echo a && rm x"]), ReadOnly(true)]),
    c("ls -la # && rm -rf /", &[Cmds(&["ls -la"]), ReadOnly(true)]),
    c("cat file | sh", &[Cmds(&["cat file", "sh"]), ReadOnly(false)]),
    c("echo ok; `rm x`", &[Cmds(&["echo ok", "`rm x`", "rm x"]), Has("DynamicCommandName:`rm x`")]),
    c("ls $(echo -la) ", &[Cmds(&["ls $(echo -la)", "echo -la"]), ReadOnly(false)]),
    // A here-document's delimiter is its word with quotes removed, ended at a metacharacter; a
    // delimiter line is exactly the delimiter; only an unquoted body joins lines ending in `\`.
    c("cat <<E'O'F\nx\nEOF\ntouch pwned\nE'O'F", &[Cmds(&["cat", "touch pwned", "EOF"]), Hazards(&[])]),
    c("cat <<E\"O\"F\nx\nEOF\nrm -rf x\nE\"O\"F", &[Cmds(&["cat", "rm -rf x", "EOF"]), Hazards(&[])]),
    c("cat <<EO'F'\nx\nEOF\ntouch pwned\nEO'F'", &[Cmds(&["cat", "touch pwned", "EOF"])]),
    c("cat <<E''OF\nx\nEOF\ntouch pwned\nE''OF", &[Cmds(&["cat", "touch pwned", "EOF"])]),
    c("cat <<E$'O'F\nx\nEOF\ntouch pwned\nE$'O'F", &[Cmds(&["cat", "touch pwned", "EOF"]), Has("AnsiCQuoting")]),
    c("cat <<E''\nx\nE\ntouch pwned\nE''", &[Cmds(&["cat", "touch pwned", "E"])]),
    c("cat <<E\\OF\n$(rm x)\nEOF", &[Cmds(&["cat"]), Hazards(&[]), ReadOnly(true)]),
    c("cat <<'EOF'\nx\\\nEOF\nrm -rf y\nEOF", &[Cmds(&["cat", "rm -rf y", "EOF"])]),
    c("cat <<EOF\nx\\\nEOF\nrm -rf y\nEOF", &[Cmds(&["cat"]), Hazards(&[]), ReadOnly(true)]),
    c("cat <<EOF\nx\nEOFX\nrm -rf y\nEOF", &[Cmds(&["cat"]), Hazards(&[]), ReadOnly(true)]),
    c("cat <<-EOF\n\tx\n  EOF\nrm y\n\tEOF\nls", &[Cmds(&["cat", "ls"]), Hazards(&[]), ReadOnly(true)]),
    c("cat <<EOF;echo hi\nx\nEOF", &[Has("ParseError"), ReadOnly(false)]),
    // An ANSI-C string ends at the first quote that no backslash takes.
    c("echo $'\\\\' ; touch pwned #'", &[Cmds(&["echo \\", "touch pwned"]), Hazards(&[])]),
    c("echo $'a\\'b' ; rm x", &[Cmds(&["echo a'b", "rm x"])]),
    c("echo $'\\c\\\\' ; rm x #'", &[Cmds(&["echo \u{1c}", "rm x"])]),
    c("echo $'x\\'", &[Has("ParseError"), ReadOnly(false)]),
];

/// Wrappers are stripped; the wrapped command is what rules see.
const WRAPPERS: &[Case] = &[
    c("sudo rm x", &[Cmds(&["rm x"]), Wrappers(0, &["sudo"]), Hazards(&[])]),
    c("sudo -u root rm x", &[Cmds(&["rm x"]), Wrappers(0, &["sudo"]), Text(0, "rm x")]),
    c("sudo --user=root -- rm x", &[Cmds(&["rm x"]), Hazards(&[])]),
    // sudo reads options after an assignment; under -s/-i a `$` expands in sudo's shell.
    c("sudo X=1 -u root rm -rf x", &[Cmds(&["rm -rf x"]), Wrappers(0, &["sudo"]), Assign(0, &[("X", "1")])]),
    c("sudo X=1 -- rm x", &[Cmds(&["rm x"]), Hazards(&[])]),
    c("sudo -s 'rm$IFS-rf$IFS$HOME'", &[Has("UnresolvedWrapper:sudo")]),
    c("sudo -i ls -la", &[Cmds(&["ls -la"]), Hazards(&[])]),
    c("SUDO_EDITOR='rm -rf x' sudo -e /etc/hosts", &[Lists("rm -rf x")]),
    // A wrapper in front of what xargs or find feeds hands it on.
    c("echo rm x | xargs env", &[Has("DynamicEval:xargs env")]),
    c("echo 5 rm x | xargs timeout", &[Has("DynamicEval:xargs timeout")]),
    c("xargs nice sh -c < f", &[Has("DynamicEval:xargs sh")]),
    c("xargs -I{} env sh -c '{}' < f", &[Has("DynamicEval:xargs sh")]),
    c("find . -exec env {} \\;", &[Has("DynamicCommandName:{}")]),
    c("xargs nice -n 5 wc -l < f", &[Lists("wc -l"), Hazards(&[])]),
    // Runners that run a command line through a shell.
    c("pnpm -c exec 'rm -rf x'", &[Has("UnresolvedWrapper:pnpm")]),
    c("pnpm exec --shell-mode 'rm x'", &[Has("UnresolvedWrapper:pnpm")]),
    c("yarn exec 'rm -rf x'", &[Has("UnresolvedWrapper:yarn")]),
    c("yarn exec jest --ci", &[Lists("jest --ci"), Hazards(&[])]),
    c("mise exec -c 'rm x' -- true", &[Has("UnresolvedWrapper:mise")]),
    c("uv run --color always rm -rf x", &[Lists("rm -rf x")]),
    c("uv run -w requests python x.py", &[Lists("python x.py")]),
    c("pnpm exec -w tsc", &[Lists("tsc")]),
    c("pnpm exec eslint -c eslint.config.js .", &[Lists("eslint -c eslint.config.js ."), Hazards(&[])]),
    c("fd . --exec=rm", &[Has("UnresolvedWrapper:fd --exec=rm")]),
    c("fd -Hx rm", &[Has("UnresolvedWrapper:fd -Hx")]),
    c("chrt -o rm -rf x", &[Lists("rm -rf x")]),
    c("chrt -f 10 rm x", &[Lists("rm x")]),
    c("sudo -E FOO=bar ls", &[Cmds(&["ls"]), Assign(0, &[("FOO", "bar")]), ReadOnly(false)]),
    c("sudo ls", &[Cmds(&["ls"]), ReadOnly(false)]),
    c("sudo -s", &[Cmds(&["sudo -s"]), Wrappers(0, &[])]),
    c("sudo -i", &[Cmds(&["sudo -i"])]),
    c("sudo -l rm", &[Cmds(&["sudo -l rm"])]),
    c("sudo $CMD x", &[Cmds(&["$CMD x"]), Wrappers(0, &["sudo"]), Hazards(&["DynamicCommandName:$CMD"])]),
    c("doas -u root rm x", &[Cmds(&["rm x"]), Wrappers(0, &["doas"])]),
    // A project's runner runs the command after its subcommand, and is kept for rules.
    c("poetry run pytest -x", &[Cmds(&["pytest -x"]), Wrappers(0, &["poetry"]), ReadOnly(false)]),
    c("uv run --frozen --with requests python x.py", &[Cmds(&["python x.py"]), Wrappers(0, &["uv"])]),
    c("uv --quiet run -- rm x", &[Cmds(&["rm x"]), Wrappers(0, &["uv"]), Hazards(&[])]),
    c("uv --cache-dir /tmp run pytest", &[Has("UnresolvedWrapper:uv")]),
    c("poetry -C sub run pytest", &[Has("UnresolvedWrapper:poetry (changes directory)")]),
    c("bundle exec cat Gemfile", &[Cmds(&["cat Gemfile"]), Wrappers(0, &["bundle"]), ReadOnly(false)]),
    c("direnv exec . make test", &[Cmds(&["make test"]), Wrappers(0, &["direnv"])]),
    c("mise exec node@20 -- node app.js", &[Cmds(&["node app.js"]), Wrappers(0, &["mise"])]),
    c("mise x node@20", &[Has("UnresolvedWrapper:mise")]),
    c("pnpm exec eslint .", &[Cmds(&["eslint ."]), Wrappers(0, &["pnpm"])]),
    c("poetry install", &[Cmds(&["poetry install"]), Wrappers(0, &[]), Hazards(&[])]),
    c("pnpm -r test", &[Cmds(&["pnpm -r test"]), Hazards(&[])]),
    c("mise run build", &[Cmds(&["mise run build"]), Hazards(&[])]),
    c("env -i rm", &[Cmds(&["rm"]), Wrappers(0, &["env"])]),
    c("env FOO=1 rm", &[Cmds(&["rm"]), Assign(0, &[("FOO", "1")]), Wrappers(0, &["env"])]),
    c("env -u X FOO=bar rm x", &[Cmds(&["rm x"]), Assign(0, &[("FOO", "bar")]), Hazards(&[])]),
    c("env -- rm x", &[Cmds(&["rm x"])]),
    c("env", &[Cmds(&["env"]), ReadOnly(false)]),
    c("env -u HOME FOO=1", &[Cmds(&["env -u HOME FOO=1"]), Assign(0, &[]), ReadOnly(false)]),
    c(
        "env -C /tmp git status",
        &[Cmds(&["git status"]), Hazards(&["CdThenGit", "UnresolvedWrapper:env (changes directory)"])],
    ),
    c("eval -- 'rm x'", &[Cmds(&["eval -- rm x", "rm x"])]),
    // Arithmetic evaluates a variable's value as an expression: `a[$(cmd)]` in it runs cmd.
    c("for x in 'a[$(rm -rf v)]'; do echo $((x)); done", &[Has("ArithmeticName:x"), ReadOnly(false)]),
    c(": 'a[$(id)]'; echo $((_))", &[Has("ArithmeticName:_"), ReadOnly(false)]),
    c("(( x ))", &[Hazards(&["ArithmeticName:x"]), ReadOnly(false)]),
    c("echo $[x]", &[Hazards(&["ArithmeticName:x"]), ReadOnly(false)]),
    c("for ((i=x;;)); do :; done", &[Has("ArithmeticName:i"), ReadOnly(false)]),
    c("echo $(( $HOME ))", &[Hazards(&["ArithmeticName:$"]), ReadOnly(false)]),
    c("echo $((0x1f + 2#101 + 16#ff * 3))", &[Hazards(&[]), ReadOnly(true)]),
    c("[[ _ -eq 0 ]]", &[ReadOnly(false)]),
    c("env -C /etc cat shadow", &[Cmds(&["cat shadow"]), Has("UnresolvedWrapper:env (changes directory)")]),
    c("sudo -D /etc cat shadow", &[Cmds(&["cat shadow"]), Has("UnresolvedWrapper:sudo (changes directory)")]),
    c("env -S 'rm -rf x'", &[Cmds(&["rm -rf x", "env -S rm -rf x"]), Hazards(&["UnresolvedWrapper:env"])]),
    c("/usr/bin/env rm x", &[Cmds(&["rm x"]), Wrappers(0, &["/usr/bin/env"])]),
    c("./timeout ls", &[Cmds(&["./timeout ls"]), Wrappers(0, &[]), ReadOnly(false)]),
    c("timeout 5 rm", &[Cmds(&["rm"]), Wrappers(0, &["timeout"])]),
    c("timeout -s KILL 5 rm x", &[Cmds(&["rm x"]), Hazards(&[])]),
    c("timeout --signal=KILL 5s ls", &[Cmds(&["ls"]), ReadOnly(true)]),
    c("timeout $T rm x", &[Cmds(&["rm x"]), Hazards(&["UnresolvedWrapper:timeout"]), ReadOnly(false)]),
    c("timeout 5", &[Cmds(&["timeout 5"])]),
    c("time -p ls", &[Cmds(&["ls"]), Wrappers(0, &["time"]), ReadOnly(true)]),
    c("nice -n 5 rm", &[Cmds(&["rm"]), Wrappers(0, &["nice"])]),
    c("nice -10 ls", &[Cmds(&["ls"]), ReadOnly(true)]),
    c("nohup rm x &", &[Cmds(&["rm x"]), Wrappers(0, &["nohup"])]),
    c("nohup ls", &[Cmds(&["ls"]), ReadOnly(false)]),
    c("stdbuf -oL grep x f", &[Cmds(&["grep x f"]), Wrappers(0, &["stdbuf"]), ReadOnly(true)]),
    c("command rm x", &[Cmds(&["rm x"]), Wrappers(0, &["command"])]),
    c("command -v rm", &[Cmds(&["command -v rm"]), Wrappers(0, &[]), ReadOnly(true)]),
    c("builtin cd x", &[Cmds(&["cd x"]), Wrappers(0, &["builtin"]), ReadOnly(true)]),
    c("noglob ls *", &[Cmds(&["ls *"]), Glob(0, true), ReadOnly(true)]),
    c("exec rm x", &[Cmds(&["rm x"]), Wrappers(0, &["exec"])]),
    c("exec $X", &[Cmds(&["$X"]), Hazards(&["DynamicEval:exec", "DynamicCommandName:$X"])]),
    c("coproc ls", &[Cmds(&["ls"]), Wrappers(0, &["coproc"])]),
    c("setsid -f rm -rf x", &[Cmds(&["rm -rf x"]), Wrappers(0, &["setsid"]), Hazards(&[])]),
    c("setsid --wait npm run dev", &[Cmds(&["npm run dev"]), Wrappers(0, &["setsid"])]),
    c("setsid -q rm x", &[Cmds(&["rm x"]), Hazards(&["UnresolvedWrapper:setsid"])]),
    c("ionice -c 3 -n 7 rm -rf x", &[Cmds(&["rm -rf x"]), Wrappers(0, &["ionice"]), Hazards(&[])]),
    c("ionice -p 42", &[Cmds(&["ionice -p 42"]), Wrappers(0, &[])]),
    c("taskset -c 0,1 rm x", &[Cmds(&["rm x"]), Wrappers(0, &["taskset"]), Hazards(&[])]),
    c("taskset 0x3 make -j2", &[Cmds(&["make -j2"]), Wrappers(0, &["taskset"])]),
    c("taskset $MASK rm x", &[Cmds(&["rm x"]), Hazards(&["UnresolvedWrapper:taskset"])]),
    c("taskset -p 42", &[Cmds(&["taskset -p 42"]), Wrappers(0, &[])]),
    c("chrt -f 10 rm x", &[Cmds(&["rm x"]), Wrappers(0, &["chrt"]), Hazards(&[])]),
    c("chrt --idle 0 nice cargo build", &[Cmds(&["cargo build"]), Wrappers(0, &["chrt", "nice"])]),
    c("chrt -m", &[Cmds(&["chrt -m"]), Wrappers(0, &[])]),
    c(
        "strace -f -o t.txt rm -rf x",
        &[Cmds(&["strace -f -o t.txt rm -rf x"]), Hazards(&["UnfollowedLauncher:strace"])],
    ),
    c("watch -n1 'rm -rf x'", &[Hazards(&["UnfollowedLauncher:watch"]), ReadOnly(false)]),
    // A login or interactive shell runs its startup files first (found by the oracle:
    // `bash -lc ls` ran `/etc/profile`'s `id -u`).
    c("bash -lc ls", &[Hazards(&["UnfollowedLauncher:bash -lc"]), ReadOnly(false)]),
    c("sh -i -c ls", &[Has("UnfollowedLauncher:sh -i")]),
    c("bash --login -c ls", &[Has("UnfollowedLauncher:bash --login")]),
    c("bash --rcfile x -ic ls", &[Has("UnfollowedLauncher:bash --rcfile")]),
    c("bash +l -c ls", &[Hazards(&[])]),
    c("hyperfine 'rm -rf x'", &[Hazards(&["UnfollowedLauncher:hyperfine"]), ReadOnly(false)]),
    // Commands other programs run from their options are commands of the line.
    c("tar -xf a.tar --to-command='rm -rf x'", &[Cmds(&["tar -xf a.tar --to-command=rm -rf x", "rm -rf x"])]),
    c("tar -cf x.tar --checkpoint=1 --checkpoint-action=exec='sh s.sh' .", &[Lists("sh s.sh")]),
    c("tar --checkpoint-action=dot -cf x.tar .", &[Cmds(&["tar --checkpoint-action=dot -cf x.tar ."])]),
    c("tar -I zstd -cf x.tar.zst src", &[Lists("zstd")]),
    c("tar --use-compress-program=\"$Z\" -cf x src", &[Hazards(&["DynamicEval:tar"])]),
    c("rsync -avze 'ssh -p 2222' src/ host:dst", &[Lists("ssh -p 2222")]),
    c("rsync -e 'rm -rf x' a b:c", &[Lists("rm -rf x")]),
    c("rsync -aessh a b:c", &[Lists("ssh")]),
    c("rsync --rsh='sh -c x' a b:c", &[Lists("sh -c x"), Lists("x")]),
    c("rsync -avf '- *.o' src/ dst/", &[Cmds(&["rsync -avf - *.o src/ dst/"])]),
    c("zip -T -TT 'rm -rf x' a.zip f", &[Lists("rm -rf x")]),
    c("ssh -o ProxyCommand='rm -rf x' host", &[Lists("rm -rf x")]),
    c("ssh -oProxyCommand=nc\\ %h\\ %p host", &[Lists("nc %h %p")]),
    c("ssh -o StrictHostKeyChecking=no host ls", &[Cmds(&["ssh -o StrictHostKeyChecking=no host ls"])]),
    c("scp -S ./evil f host:", &[Lists("./evil")]),
    c("man -P 'rm -rf x' ls", &[Lists("rm -rf x")]),
    c("man -H ls", &[Cmds(&["man -H ls"])]),
    c("sort --compress-program=sh f", &[Lists("sh")]),
    c("npx -c 'rm -rf x'", &[Lists("rm -rf x")]),
    c("npm exec -c 'rm -rf x'", &[Lists("rm -rf x")]),
    c("npm run -c x", &[Cmds(&["npm run -c x"])]),
    c("hash -p /bin/rm ls; ls x", &[Cmds(&["hash -p /bin/rm ls", "ls x"]), Has("UnfollowedLauncher:hash")]),
    c("hash -rp /bin/rm ls", &[Hazards(&["UnfollowedLauncher:hash"])]),
    c("hash -r", &[Hazards(&[])]),
    c("hash $OPT /bin/rm ls", &[Has("UnfollowedLauncher:hash")]),
    c("enable -f ./evil.so rm", &[Hazards(&["UnfollowedLauncher:enable"])]),
    c("enable -n echo", &[Hazards(&[])]),
    c("fc -s", &[Hazards(&["UnfollowedLauncher:fc"])]),
    c("fc", &[Hazards(&["UnfollowedLauncher:fc"])]),
    c("fc -ln -5", &[Hazards(&[])]),
    c("mapfile -C 'rm -rf' -c 1 < list", &[Hazards(&["UnfollowedLauncher:mapfile"])]),
    c("readarray -t lines < list", &[Hazards(&[])]),
    c("readarray -tC cb lines < list", &[Hazards(&["UnfollowedLauncher:readarray"])]),
    c("chronic rm -rf x", &[Hazards(&["UnfollowedLauncher:chronic"])]),
    c("gosu nobody rm -rf x", &[Hazards(&["UnfollowedLauncher:gosu"])]),
    c("systemd-nspawn -D /srv/c rm -rf x", &[Hazards(&["UnfollowedLauncher:systemd-nspawn"])]),
    c("/usr/bin/cpulimit -l 10 rm -rf x", &[Hazards(&["UnfollowedLauncher:cpulimit"])]),
    c("sudo rlwrap rm -rf x", &[Hazards(&["UnfollowedLauncher:rlwrap"])]),
    // Commands run later or elsewhere: tmux and screen sessions, at jobs, crontabs.
    c("tmux new -d 'rm -rf x'", &[Hazards(&["UnfollowedLauncher:tmux"])]),
    c("tmux send-keys -t 0 'rm -rf x' Enter", &[Hazards(&["UnfollowedLauncher:tmux"])]),
    c("tmux ls", &[Hazards(&[])]),
    c("tmux capture-pane -p -t 0", &[Hazards(&[])]),
    c("screen -dm rm -rf x", &[Hazards(&["UnfollowedLauncher:screen"])]),
    c("screen -ls", &[Hazards(&[])]),
    c("echo 'rm -rf x' | at now", &[Has("UnfollowedLauncher:at")]),
    c("at -l", &[Hazards(&[])]),
    c("crontab jobs.txt", &[Hazards(&["UnfollowedLauncher:crontab"])]),
    c("echo x | crontab -", &[Has("UnfollowedLauncher:crontab")]),
    c("crontab -u bob -l", &[Hazards(&[])]),
    c("crontab $F", &[Has("UnfollowedLauncher:crontab")]),
    // What xargs and find feed a payload: a command name, a shell's script.
    c("xargs -I{} sh -c '{}' < cmds", &[Has("DynamicEval:xargs sh")]),
    c("xargs -i bash -c 'echo {}' < f", &[Has("DynamicEval:xargs bash")]),
    c("xargs sh < scripts", &[Has("DynamicEval:xargs sh")]),
    c("xargs sh -c 'echo \"$@\"' _ < f", &[Hazards(&[])]),
    c("xargs -I% % < f", &[Has("DynamicCommandName:%")]),
    c("find . -exec sh -c '{}' \\;", &[Has("DynamicEval:find sh")]),
    c("find . -name '*.sh' -exec sh {} \\;", &[Has("DynamicEval:find sh")]),
    c("find . -exec sh -c 'echo \"$1\"' _ {} \\;", &[Hazards(&[])]),
    c("find . -exec {} \\;", &[Has("DynamicCommandName:{}")]),
    c("fd -e sh -x sh", &[Has("DynamicEval:fd sh")]),
    c("fd -e sh -x bash -c 'source {.}.sh'", &[Has("DynamicEval:fd bash")]),
    c("fd -e txt -x sh -c 'wc -l \"$0\"'", &[Hazards(&[])]),
    c("uv --directory=é run x", &[Has("UnresolvedWrapper:uv (changes directory)")]),
    c("uv -é run x", &[Cmds(&["x"]), Wrappers(0, &["uv"])]),
    c("chroot /srv rm -rf /", &[Hazards(&["UnfollowedLauncher:chroot"])]),
    c("su -c 'rm -rf /' root", &[Hazards(&["UnfollowedLauncher:su"])]),
    c("/bin/busybox rm -rf x", &[Hazards(&["UnfollowedLauncher:busybox"])]),
    c("sudo valgrind ./a.out", &[Cmds(&["valgrind ./a.out"]), Hazards(&["UnfollowedLauncher:valgrind"])]),
    c(
        "sudo env FOO=1 timeout 5 nice rm x",
        &[Cmds(&["rm x"]), Wrappers(0, &["sudo", "env", "timeout", "nice"]), Assign(0, &[("FOO", "1")])],
    ),
    c("xargs rm", &[Cmds(&["xargs rm", "rm"]), Wrappers(0, &[]), Wrappers(1, &["xargs"]), ReadOnly(false)]),
    c("xargs -0 -n1 rm -f", &[Cmds(&["xargs -0 -n1 rm -f", "rm -f"]), Hazards(&[]), ReadOnly(false)]),
    c("xargs sudo rm", &[Cmds(&["xargs sudo rm", "rm"]), Wrappers(1, &["xargs", "sudo"])]),
    c("xargs -I{} cp {} /tmp", &[Cmds(&["xargs -I{} cp {} /tmp", "cp {} /tmp"]), ReadOnly(false)]),
    c("xargs", &[Cmds(&["xargs"]), ReadOnly(true)]),
    c("find . -type f | xargs wc -l", &[Cmds(&["find . -type f", "xargs wc -l", "wc -l"]), ReadOnly(false)]),
    c("find . -type f | xargs basename", &[Cmds(&["find . -type f", "xargs basename", "basename"]), ReadOnly(true)]),
    c("find . -type f -print0 | xargs -0 rm", &[ReadOnly(false)]),
    c("find . -exec rm {} +", &[Cmds(&["find . -exec rm {} +", "rm {}"]), Wrappers(1, &["find"]), ReadOnly(false)]),
    c(
        "find . -name x -execdir sh -c 'rm $1' _ {} \\;",
        &[
            Cmds(&["find . -name x -execdir sh -c rm $1 _ {} ;", "sh -c rm $1 _ {}", "rm $1"]),
            Wrappers(2, &["find", "sh"]),
            Text(1, "sh -c 'rm $1' _ {}"),
            Hazards(&[]),
        ],
    ),
    c("find . -ok rm {} \\; -exec ls \\;", &[Cmds(&["find . -ok rm {} ; -exec ls ;", "rm {}", "ls"])]),
    c("fd -e rs -x rm", &[Cmds(&["fd -e rs -x rm", "rm"]), Wrappers(1, &["fd"]), ReadOnly(false)]),
    c("bash -c 'rm x'", &[Cmds(&["bash -c rm x", "rm x"]), Wrappers(1, &["bash"]), Text(1, "rm x"), Hazards(&[])]),
    c("sh -c \"git status && rm y\"", &[Cmds(&["sh -c git status && rm y", "git status", "rm y"]), ReadOnly(false)]),
    c("bash -lc 'ls'", &[Cmds(&["bash -lc ls", "ls"]), ReadOnly(false)]),
    c("bash -o pipefail -c 'ls | wc'", &[Cmds(&["bash -o pipefail -c ls | wc", "ls", "wc"])]),
    c("sh -c 'sh -c \"rm x\"'", &[Cmds(&["sh -c sh -c \"rm x\"", "sh -c rm x", "rm x"]), Wrappers(2, &["sh", "sh"])]),
    c("zsh -c 'rm x'", &[Cmds(&["zsh -c rm x", "rm x"])]),
    c("bash script.sh", &[Cmds(&["bash script.sh"]), Hazards(&[]), ReadOnly(false)]),
    c("bash -c \"$X\"", &[Hazards(&["DynamicEval:bash"])]),
    // `+c` runs a string as `-c` does; each `o` of a cluster takes a word.
    c("bash +c 'rm x'", &[Cmds(&["bash +c rm x", "rm x"]), Hazards(&[])]),
    c("sh +xc 'rm x'", &[Lists("rm x")]),
    c("bash -ooc errexit nounset 'rm x'", &[Cmds(&["bash -ooc errexit nounset rm x", "rm x"])]),
    c("bash -oOc errexit extglob 'rm x'", &[Lists("rm x")]),
    c("echo 'rm x' | bash +s", &[Has("DynamicEval:bash")]),
    c("fish -c 'rm x'", &[Hazards(&["DynamicEval:fish"])]),
    c("sudo bash -c 'rm -rf /'", &[Cmds(&["bash -c rm -rf /", "rm -rf /"]), Wrappers(1, &["sudo", "bash"])]),
];

/// Output redirections are writes; descriptor duplications and `/dev/null` are not.
const REDIRECTS: &[Case] = &[
    c("echo x > .git/config", &[Cmds(&["echo x"]), Writes(&[(".git/config", false, false)]), ReadOnly(false)]),
    c("cat a >> ~/.bashrc", &[Writes(&[("~/.bashrc", true, true)]), ReadOnly(false)]),
    c("ls 2> err.txt", &[Writes(&[("err.txt", false, false)])]),
    c("ls &> all.log", &[Writes(&[("all.log", false, false)])]),
    c("ls &>> all.log", &[Writes(&[("all.log", true, false)])]),
    c("ls > /dev/null", &[Writes(&[]), ReadOnly(true)]),
    c("ls 2>&1", &[Writes(&[]), ReadOnly(true)]),
    c("ls > /dev/null 2>&1", &[Writes(&[]), ReadOnly(true)]),
    c("ls >&2", &[Writes(&[]), ReadOnly(true)]),
    c("ls 2>&-", &[Writes(&[]), ReadOnly(true)]),
    c("ls >&out.txt", &[Writes(&[("out.txt", false, false)])]),
    c("ls > /dev/stderr", &[Writes(&[])]),
    c("ls > /dev/fd/3", &[Writes(&[])]),
    // Regression: a descriptor opened on a file for reading, written through its device name,
    // reopens that file for writing (Linux): the write is the file's.
    c("echo pwned 3<target >/dev/fd/3", &[Writes(&[("target", false, false)]), ReadOnly(false)]),
    c("echo pwned 3<target >>/dev/fd/3", &[Writes(&[("target", true, false)])]),
    c("echo pwned 1<target >/dev/stdout", &[Writes(&[("target", false, false)])]),
    c("echo pwned 2<target 1>/dev/stderr", &[Writes(&[("target", false, false)])]),
    c("{ echo x >/dev/fd/3; } 3<t", &[Writes(&[("t", false, false)])]),
    c("exec 3<t; echo x >/dev/fd/3", &[Writes(&[("t", false, false)])]),
    c("bash -c 'echo x >/dev/fd/3' 3<t", &[Writes(&[("t", false, false)])]),
    c("exec {f}<t; echo x >/dev/fd/9", &[Writes(&[("t", false, false)])]),
    c("echo x 0<t 3<&0 >/dev/fd/3", &[Writes(&[("t", false, false)])]),
    c("echo x 3<\"$F\" >/dev/fd/3", &[Writes(&[("$F", false, true)])]),
    // Another descriptor's device, or none opened on a file: nothing written.
    c("cat <in.txt >/dev/stderr", &[Writes(&[]), ReadOnly(true)]),
    c("cat 3<in.txt >/dev/fd/4", &[Writes(&[])]),
    // tree-sitter reads the `0` of `0<t` as an argument (found by the oracle).
    c("echo 0<t", &[Cmds(&["echo"])]),
    c("cat 0< ./.env x", &[Cmds(&["cat x"])]),
    c("echo 0<t >/dev/fd/0", &[Writes(&[("t", false, false)])]),
    c("ls > /dev/tty", &[Writes(&[("/dev/tty", false, false)])]),
    c("ls 3> f", &[Writes(&[("f", false, false)])]),
    c("echo x >| f", &[Writes(&[("f", false, false)])]),
    c("ls > \"$OUT\"", &[Writes(&[("$OUT", false, true)])]),
    c("ls > out-*.txt", &[Writes(&[("out-*.txt", false, true)])]),
    c("ls > 'my file'", &[Writes(&[("my file", false, false)])]),
    c(
        "a && b | tee out.txt > /etc/x",
        &[Cmds(&["a", "b", "tee out.txt"]), Writes(&[("/etc/x", false, false)]), ReadOnly(false)],
    ),
    c("cat <<EOF > out\nhi\nEOF", &[Cmds(&["cat"]), Writes(&[("out", false, false)]), ReadOnly(false)]),
    c("echo > f hi", &[Cmds(&["echo hi"]), Text(0, "echo hi"), Writes(&[("f", false, false)])]),
    c("sort > /dev/null -o out in", &[Cmds(&["sort -o out in"]), Writes(&[]), ReadOnly(false)]),
    c("> out", &[Cmds(&[]), Writes(&[("out", false, false)]), ReadOnly(false)]),
    c("{ ls; rm x; } > out", &[Cmds(&["ls", "rm x"]), Writes(&[("out", false, false)])]),
    c("(ls) > out", &[Cmds(&["ls"]), Writes(&[("out", false, false)])]),
    c("exec 3> log", &[Cmds(&["exec"]), Writes(&[("log", false, false)])]),
    c(
        "ls > $(mktemp)",
        &[Cmds(&["ls", "mktemp"]), Writes(&[("$(mktemp)", false, true)]), Hazards(&["CommandSubstitution"])],
    ),
    c("cat < in > out", &[Writes(&[("out", false, false)])]),
    c("cat < in", &[Writes(&[]), ReadOnly(true)]),
    c("echo hi 1>&2 2>/dev/null", &[Writes(&[]), ReadOnly(true)]),
    c("f() { ls; } > out", &[Writes(&[("out", false, false)])]),
    c("> f echo hi", &[Cmds(&["echo hi"]), Writes(&[("f", false, false)])]),
    c("ls > a > b", &[Writes(&[("a", false, false), ("b", false, false)])]),
    c("echo $(ls > x)", &[Cmds(&["echo $(ls > x)", "ls"]), Writes(&[("x", false, false)])]),
];

/// Quote removal: the command name is what runs.
const QUOTING: &[Case] = &[
    c("r''m -rf x", &[Cmds(&["rm -rf x"]), Text(0, "r''m -rf x"), Hazards(&[])]),
    c("\"rm\" x", &[Cmds(&["rm x"]), Text(0, "\"rm\" x")]),
    c("\\rm x", &[Cmds(&["rm x"])]),
    c("'r'\"m\" x", &[Cmds(&["rm x"])]),
    c("r\\m x", &[Cmds(&["rm x"])]),
    c("\"r\"m -rf /", &[Cmds(&["rm -rf /"])]),
    c("$'rm' x", &[Cmds(&["rm x"]), Hazards(&["AnsiCQuoting"]), ReadOnly(false)]),
    c("$'\\x72m' x", &[Cmds(&["rm x"]), Hazards(&["AnsiCQuoting"])]),
    c("$'ls'", &[Cmds(&["ls"]), ReadOnly(false)]),
    c("echo $'a\\nb'", &[Argv(0, &["echo", "a\nb"]), Hazards(&[]), ReadOnly(true)]),
    c("ls \"a b\"", &[Argv(0, &["ls", "a b"]), ReadOnly(true)]),
    c("echo \"a\\\"b\"", &[Argv(0, &["echo", "a\"b"])]),
    c("echo 'it'\\''s'", &[Argv(0, &["echo", "it's"])]),
    c("grep -e \"\\$HOME\" f", &[Argv(0, &["grep", "-e", "$HOME", "f"]), Expansion(0, false), ReadOnly(true)]),
    c("echo \\$HOME", &[Argv(0, &["echo", "$HOME"]), Expansion(0, false)]),
    c("echo \"$HOME/x\"", &[Argv(0, &["echo", "$HOME/x"]), Expansion(0, true), ReadOnly(true)]),
    c("ls \\\n  -la", &[Argv(0, &["ls", "-la"]), Text(0, "ls \\\n  -la"), ReadOnly(true)]),
    c("r\\\nm -rf x", &[Cmds(&["rm -rf x"]), Text(0, "r\\\nm -rf x"), ReadOnly(false)]),
    c("git sta\\\ntus", &[Cmds(&["git status"]), ReadOnly(true)]),
    c("su\\\n\\\ndo rm x", &[Cmds(&["rm x"]), Wrappers(0, &["sudo"])]),
    c("echo $\"hi\" x", &[Text(0, "echo $\"hi\" x"), Expansion(0, true)]),
    c("ls '*.rs'", &[Glob(0, false), Argv(0, &["ls", "*.rs"])]),
    c("ls *.rs", &[Glob(0, true)]),
    // Regression: an escaped character inside brackets is still a bracket expression to bash
    // (`secre[\t]` matches `secret`).
    c("cat secre[\\t]/x", &[Argv(0, &["cat", "secre[t]/x"]), GlobWords(0, &[1])]),
    c("cat [\\s]ecret/x", &[GlobWords(0, &[1])]),
    c(
        "echo ~/* '/etc/*' ~/.ss?/id_* {a,/e*}",
        &[GlobWords(0, &[1, 3, 5]), Argv(0, &["echo", "~/*", "/etc/*", "~/.ss?/id_*", "a", "/e*"])],
    ),
    // Brace expansion makes the words bash runs (checked with `bash -c 'printf "<%s>" …'`).
    c("ls {a,b}", &[Glob(0, false), Argv(0, &["ls", "a", "b"]), Text(0, "ls {a,b}")]),
    c("find . -{de,x}lete", &[Argv(0, &["find", ".", "-delete", "-xlete"]), ReadOnly(false)]),
    c("wc {--files0-from=.env,}", &[Argv(0, &["wc", "--files0-from=.env"]), ReadOnly(false)]),
    c("diff {--from-file=.env,} f", &[Argv(0, &["diff", "--from-file=.env", "f"]), ReadOnly(false)]),
    c("grep {-R,} PRIV .", &[Argv(0, &["grep", "-R", "PRIV", "."]), ReadOnly(false)]),
    c("echo x{a,}y {a,\"\"} {,} {a}b,c}", &[Argv(0, &["echo", "xay", "xy", "a", "", "a}b", "c"])]),
    c(
        "echo {\"a,b\"} '{a,b}' \\{a,b} {a} {} {a,b",
        &[Argv(0, &["echo", "{a,b}", "{a,b}", "{a,b}", "{a}", "{}", "{a,b"])],
    ),
    c(
        "echo {a,{b,c}}{1..3..2} {x{a,b} {-01..2} {Z..b..3}",
        &[Argv(
            0,
            &["echo", "a1", "a3", "b1", "b3", "c1", "c3", "{xa", "{xb", "-01", "000", "001", "002", "Z", "]", "`"],
        )],
    ),
    c(
        "echo {1..'3'} {1..a} {a..} {1..3,x} {a,'b,c'} {a,b\\,c}",
        &[Argv(0, &["echo", "{1..3}", "{1..a}", "{a..}", "1..3", "x", "a", "b,c", "a", "b,c"])],
    ),
    c("echo {a,b}$X", &[Argv(0, &["echo", "{a,b}$X"]), Glob(0, true)]),
    c("echo {a,b}*.rs", &[Argv(0, &["echo", "a*.rs", "b*.rs"]), Glob(0, true)]),
    c("r{m,} -rf ~", &[Argv(0, &["rm", "r", "-rf", "~"]), Has("DynamicCommandName:r{m,}")]),
    c("echo {1..1000}{1..1000}{1..1000}", &[Has("BraceExpansionTooLarge"), ReadOnly(false)]),
    c("echo {1..257}", &[Has("BraceExpansionTooLarge"), ReadOnly(false)]),
    c("echo {1..256}", &[Hazards(&[]), ReadOnly(true)]),
    c("git log @{u}", &[Glob(0, false), ReadOnly(true)]),
    // Where tree-sitter reads a line apart from bash (each with a `$` so that the tree reads it).
    c("_=1 A=2 rm -rf $HOME", &[Cmds(&["rm -rf $HOME"]), Assign(0, &[("_", "1"), ("A", "2")])]),
    c("_='x y' rm $X", &[Cmds(&["rm $X"]), Assign(0, &[("_", "x y")])]),
    c("echo \" \" $X", &[Argv(0, &["echo", " ", "$X"])]),
    c("echo \"\t\" $X", &[Argv(0, &["echo", "\t", "$X"])]),
    c("-nameGIT_PAGER=less-cecho", &[Has("UnknownConstruct:assignment_name"), ReadOnly(false)]),
];

/// Command names that are not static.
const DYNAMIC: &[Case] = &[
    c("$CMD x", &[Cmds(&["$CMD x"]), Hazards(&["DynamicCommandName:$CMD"]), ReadOnly(false)]),
    c("${X} y", &[Hazards(&["ParameterExpansion", "DynamicCommandName:${X}"])]),
    c("\"$@\"", &[Hazards(&["DynamicCommandName:\"$@\""])]),
    c(
        "$(echo rm) x",
        &[Cmds(&["$(echo rm) x", "echo rm"]), Hazards(&["CommandSubstitution", "DynamicCommandName:$(echo rm)"])],
    ),
    c("*.sh", &[Hazards(&["DynamicCommandName:*.sh"])]),
    c("/bin/r? x", &[Hazards(&["DynamicCommandName:/bin/r?"])]),
    c("x=rm; $x -rf y", &[Cmds(&["", "$x -rf y"]), Assign(0, &[("x", "rm")]), Has("DynamicCommandName:$x")]),
    c("eval \"$X\"", &[Cmds(&["eval $X"]), Hazards(&["DynamicEval:eval"])]),
    c("eval ls $X", &[Cmds(&["eval ls $X"]), Hazards(&["DynamicEval:eval"])]),
    c("eval 'ls'", &[Cmds(&["eval ls", "ls"]), Wrappers(1, &["eval"]), Hazards(&[]), ReadOnly(false)]),
    c("eval rm -rf x", &[Cmds(&["eval rm -rf x", "rm -rf x"])]),
    c(". ./script.sh", &[Cmds(&[". ./script.sh"]), Hazards(&[]), ReadOnly(false)]),
    c("source $F", &[Hazards(&["DynamicEval:source"])]),
    c("trap 'rm -f tmp' EXIT", &[Cmds(&["trap rm -f tmp EXIT", "rm -f tmp"]), ReadOnly(false)]),
    c("trap \"$X\" EXIT", &[Hazards(&["DynamicEval:trap"])]),
    c("alias ls='rm -rf x'; ls", &[Cmds(&["alias ls=rm -rf x", "rm -rf x", "ls"]), ReadOnly(false)]),
    // Where aliases expand (an `eval`, a later line), a command named as one runs its body.
    c("shopt -s expand_aliases; alias ls=rm; eval ls -rf ~", &[Has("AliasedCommand:ls"), ReadOnly(false)]),
    c("alias c=rm\nc -rf /", &[Hazards(&["AliasedCommand:c"])]),
    c("alias ll='ls -l'", &[Hazards(&[]), ReadOnly(false)]),
    c("alias ls='ls --color'", &[Hazards(&[])]),
    c("bash <<EOF\nrm -rf x\nEOF", &[Cmds(&["bash", "rm -rf x"]), Wrappers(1, &["bash"]), ReadOnly(false)]),
    c("sh <<< 'rm x'", &[Cmds(&["sh", "rm x"])]),
    c("sh <<< \"$X\"", &[Hazards(&["DynamicEval:sh"])]),
    c("bash script.sh <<EOF\nrm x\nEOF", &[Cmds(&["bash script.sh"])]),
];

/// Compound statements: every command inside counts.
const STRUCTURE: &[Case] = &[
    c("(cd /tmp && rm x)", &[Cmds(&["cd /tmp", "rm x"]), ReadOnly(false)]),
    c("{ ls; rm x; }", &[Cmds(&["ls", "rm x"]), ReadOnly(false)]),
    c("if true; then rm x; fi", &[Cmds(&["true", "rm x"]), ReadOnly(false)]),
    c("if [ -f a ]; then cat a; else echo no; fi", &[Cmds(&["[ -f a ]", "cat a", "echo no"]), ReadOnly(true)]),
    c("if false; then :; elif rm x; then :; fi", &[Cmds(&["false", ":", "rm x", ":"])]),
    c("for f in *; do rm \"$f\"; done", &[Cmds(&["rm $f"]), Expansion(0, true), Hazards(&[])]),
    c("for f in $(ls); do echo $f; done", &[Cmds(&["ls", "echo $f"]), Hazards(&["CommandSubstitution"])]),
    c("while read l; do echo $l; done < in", &[Cmds(&["read l", "echo $l"]), Writes(&[]), ReadOnly(false)]),
    c("until false; do sleep 1; done", &[Cmds(&["false", "sleep 1"]), ReadOnly(true)]),
    c("f() { rm x; }; f", &[Cmds(&["rm x", "f"]), ReadOnly(false)]),
    c("function g { ls; }", &[Cmds(&["ls"])]),
    c("case $x in a) rm y;; esac", &[Cmds(&["rm y"]), ReadOnly(false)]),
    c("case $(id) in a) ls;; esac", &[Cmds(&["id", "ls"])]),
    c(
        "diff <(ls a) <(ls b)",
        &[Cmds(&["diff <(ls a) <(ls b)", "ls a", "ls b"]), Hazards(&["ProcessSubstitution"]), ReadOnly(false)],
    ),
    c("tee >(rm x)", &[Cmds(&["tee >(rm x)", "rm x"]), Hazards(&["ProcessSubstitution"])]),
    c("echo $((1+2))", &[Cmds(&["echo $((1+2))"]), Hazards(&[]), Expansion(0, true), ReadOnly(true)]),
    c("echo $((1+$(rm x)))", &[Cmds(&["echo $((1+$(rm x)))", "rm x"]), Hazards(&["CommandSubstitution"])]),
    c("! grep -q x f", &[Cmds(&["grep -q x f"]), ReadOnly(true)]),
    // A name in arithmetic is evaluated as an expression: its value could run a command.
    c("((i++))", &[Cmds(&[]), Hazards(&["ArithmeticName:i"]), ReadOnly(false)]),
    c("echo $(( 'a[$(rm x)]' ))", &[Has("CommandSubstitution"), ReadOnly(false)]),
    c("(( a['$(rm x)'] ))", &[Has("CommandSubstitution"), ReadOnly(false)]),
    c("coproc NAME { rm x; }", &[Has("UnknownConstruct:coproc"), ReadOnly(false)]),
    c("for ((i=0;i<3;i++)); do echo $i; done", &[Cmds(&["echo $i"]), Hazards(&["ArithmeticName:i"])]),
    c("select x in a b; do echo $x; done", &[Cmds(&["echo $x"])]),
    c("[[ -f a ]] && cat a", &[Cmds(&["[[ -f a ]]", "cat a"]), ReadOnly(true)]),
    c("[[ $(rm x) ]]", &[Cmds(&["[[ $(rm x) ]]", "rm x"]), Hazards(&["CommandSubstitution"])]),
    c("test -d x || mkdir x", &[Cmds(&["test -d x", "mkdir x"]), ReadOnly(false)]),
    c("export PATH=/tmp:$PATH; ls", &[Cmds(&["export PATH=/tmp:$PATH", "ls"]), ReadOnly(false)]),
    c("export A=$(rm x)", &[Cmds(&["export A=$(rm x)", "rm x"]), Hazards(&["CommandSubstitution"])]),
    c("unset X", &[Cmds(&["unset X"]), ReadOnly(false)]),
    c("X=1", &[Cmds(&[""]), Assign(0, &[("X", "1")]), ReadOnly(false)]),
    c("PATH=/tmp/evil; ls", &[Cmds(&["", "ls"]), ReadOnly(false)]),
    c("LANG=C ls -la", &[Cmds(&["ls -la"]), Assign(0, &[("LANG", "C")]), Text(0, "ls -la"), ReadOnly(true)]),
    c("PATH=. ls", &[Cmds(&["ls"]), ReadOnly(false)]),
    c("PAGER=cat git log", &[ReadOnly(false)]),
    c("FOO=$(rm x) ls", &[Cmds(&["ls", "rm x"]), Hazards(&["CommandSubstitution"])]),
    c("a=(x $(rm y))", &[Cmds(&["", "rm y"]), Hazards(&["CommandSubstitution"])]),
    c("cat <<EOF\nhi\nEOF", &[Cmds(&["cat"]), Writes(&[]), ReadOnly(true)]),
    c("cat <<EOF\n$(rm x)\nEOF", &[Cmds(&["cat", "rm x"]), Hazards(&["CommandSubstitution"])]),
    // tree-sitter-bash leaves backticks in a here-document body as text; bash runs them.
    c("cat <<EOF\n`rm -rf ~`\nEOF", &[Cmds(&["cat", "rm -rf ~"]), Hazards(&["CommandSubstitution"]), ReadOnly(false)]),
    c("cat <<-EOF\n\tx `rm a` y 'q`rm b`'\nEOF", &[Cmds(&["cat", "rm a", "rm b"]), ReadOnly(false)]),
    c("wc -l <<EOF\n`echo \\`rm x\\``\nEOF", &[Cmds(&["wc -l", "echo `rm x`", "rm x"]), ReadOnly(false)]),
    c("cat <<EOF\nx \\`rm x\\` \\\\\nEOF", &[Cmds(&["cat"]), Hazards(&[]), ReadOnly(true)]),
    c("cat <<EOF\nunclosed `rm x\nEOF", &[Cmds(&["cat", "rm x"]), ReadOnly(false)]),
    c("cat <<'EOF'\n`rm x`\nEOF", &[Cmds(&["cat"]), Hazards(&[]), ReadOnly(true)]),
    c("cat <<\\EOF\n`rm x`\nEOF", &[Cmds(&["cat"]), Hazards(&[]), ReadOnly(true)]),
    c("cat <<\"EOF\"\n`rm x`\nEOF", &[Cmds(&["cat"]), Hazards(&[]), ReadOnly(true)]),
    // tree-sitter-bash misses a `$(` that starts a body line after blanks.
    c("cat <<EOF\n $(touch /tmp/pwn)\nEOF", &[Has("CommandSubstitution"), ReadOnly(false)]),
    c("cat > f <<EOF\n\t$(echo hi; rm x)\nEOF", &[Has("CommandSubstitution"), ReadOnly(false)]),
    c("cat <<EOF\nx \\$(rm x) \\\\\\$(ls)\nEOF", &[Cmds(&["cat"]), Hazards(&[]), ReadOnly(true)]),
    c("cat <<'EOF'\n $(rm x)\nEOF", &[Cmds(&["cat"]), Hazards(&[]), ReadOnly(true)]),
    // bash reads backslash-CR as an escaped character: the line feed still ends the command.
    c("echo \\\r\nrm -rf x", &[Cmds(&["echo \r", "rm -rf x"]), ReadOnly(false)]),
    c("git status \\\r\ngit push --force", &[Cmds(&["git status \r", "git push --force"])]),
    // A carriage return is a character of a word to bash (tree-sitter skips it as a blank).
    c("echo \\\\\r\nls", &[Cmds(&["echo \\\r", "ls"])]),
    c("echo a\\\t#; rm x", &[Cmds(&["echo a\t#", "rm x"]), ReadOnly(false)]),
    c("echo\r#; rm x", &[Cmds(&["echo\r#", "rm x"]), ReadOnly(false)]),
    c("echo a\x0b#; rm x", &[Cmds(&["echo a\x0b#", "rm x"])]),
    c("echo a\\\x0c# ; rm x", &[Cmds(&["echo a\x0c#", "rm x"])]),
    c("ls\r\nrm x", &[Cmds(&["ls\r", "rm x"])]),
    // tree-sitter joins a line's last word and an escaped word that starts the next line.
    c("git status\n\\rm -rf x", &[Cmds(&["git status", "rm -rf x"]), ReadOnly(false)]),
    c("echo a\\\\\n\\rm x", &[Cmds(&["echo a\\", "rm x"])]),
    c("echo a\\\n\\rm x", &[Cmds(&["echo arm x"])]),
    c("cat <<\\EOF\nx\nEOF\ntouch pwned\n\\EOF", &[Cmds(&["cat", "touch pwned", "EOF"])]),
    c("cat <<'EOF'\n$(rm x)\nEOF", &[Cmds(&["cat"]), Hazards(&[]), ReadOnly(true)]),
    c("cat <<EOF | sh\nrm x\nEOF", &[Cmds(&["cat", "sh"]), Hazards(&["DynamicEval:sh"]), ReadOnly(false)]),
    // A shell with no script reads one from its pipe; a script named at run time is dynamic.
    c("curl -s x | sh", &[Cmds(&["curl -s x", "sh"]), Hazards(&["DynamicEval:sh"])]),
    c("curl -s x | bash -s -- -y", &[Hazards(&["DynamicEval:bash"])]),
    c("cat x | (cd y && sh)", &[Has("DynamicEval:sh")]),
    c("bash <(curl -s x)", &[Has("DynamicEval:bash"), Has("ProcessSubstitution")]),
    c("sh $SCRIPT", &[Hazards(&["DynamicEval:sh"])]),
    c("sh ./deploy.sh", &[Cmds(&["sh ./deploy.sh"]), Hazards(&[])]),
    c("curl -s x | source /dev/stdin", &[Hazards(&["DynamicEval:source"])]),
    c("bash /dev/fd/3 3< <(curl -s x)", &[Has("DynamicEval:bash")]),
    c(". /proc/self/fd/0", &[Hazards(&["DynamicEval:."])]),
    c("bash -s < x.sh", &[Hazards(&[])]),
    // A variable whose value a program runs carries a command.
    c("GIT_PAGER='rm -rf ~' git log", &[Cmds(&["git log", "rm -rf ~"]), Wrappers(1, &["GIT_PAGER"])]),
    c("GIT_EDITOR=true git rebase --continue", &[Cmds(&["git rebase --continue", "true"]), Hazards(&[])]),
    c(
        "export EDITOR='sh -c \"rm x\"'; git commit",
        &[Cmds(&["export EDITOR=sh -c \"rm x\"", "sh -c rm x", "rm x", "git commit"])],
    ),
    c("PAGER='rm -rf ~'; export PAGER", &[Cmds(&["", "rm -rf ~", "export PAGER"])]),
    c("env GIT_SSH_COMMAND='ssh -i k' git fetch", &[Cmds(&["git fetch", "ssh -i k"])]),
    c("GIT_SSH_COMMAND=\"$X\" git fetch", &[Hazards(&["DynamicEval:GIT_SSH_COMMAND"])]),
    c("LESSOPEN='|lesspipe %s' less f", &[Cmds(&["less f", "lesspipe %s"]), Hazards(&[])]),
    c("FOO='rm -rf ~' ls", &[Cmds(&["ls"]), Hazards(&[])]),
    // Commands git subcommands run, named in their arguments.
    c(
        "git rebase -x 'cargo test' main",
        &[Cmds(&["git rebase -x cargo test main", "cargo test"]), Wrappers(1, &["git"])],
    ),
    c("git rebase --exec=make -i main", &[Cmds(&["git rebase --exec=make -i main", "make"])]),
    c("git rebase -xmake main", &[Cmds(&["git rebase -xmake main", "make"])]),
    c(
        "git submodule --quiet foreach --recursive git pull",
        &[Cmds(&["git submodule --quiet foreach --recursive git pull", "git pull"])],
    ),
    c("git submodule foreach 'rm -rf x; ls'", &[Cmds(&["git submodule foreach rm -rf x; ls", "rm -rf x", "ls"])]),
    c("git submodule foreach \"$CMD\"", &[Hazards(&["DynamicEval:git submodule"])]),
    c("git bisect run make -j4 test", &[Cmds(&["git bisect run make -j4 test", "make -j4 test"])]),
    c(
        "git filter-branch --tree-filter 'rm -f secret' HEAD",
        &[Cmds(&["git filter-branch --tree-filter rm -f secret HEAD", "rm -f secret"])],
    ),
    c("git difftool --extcmd='diff -u' HEAD", &[Cmds(&["git difftool --extcmd=diff -u HEAD", "diff -u"])]),
    c("git grep -Ovim foo", &[Cmds(&["git grep -Ovim foo", "vim"])]),
    c("git grep -O foo", &[Cmds(&["git grep -O foo"])]),
    c("git fetch --upload-pack 'sh x' origin", &[Cmds(&["git fetch --upload-pack sh x origin", "sh x"])]),
    c("git clone -u \"$P\" repo", &[Hazards(&["DynamicEval:git clone"])]),
    c("git push --receive-pack=evil origin", &[Cmds(&["git push --receive-pack=evil origin", "evil"])]),
    c("git log -x --exec=x", &[Cmds(&["git log -x --exec=x"])]),
    c("git clone -c core.hooksPath=/tmp/h https://x/r", &[Hazards(&["GitConfigOverride"])]),
    c("git clone --config=core.fsmonitor=x r", &[Hazards(&["GitConfigOverride"])]),
    c("git clone --template=/tmp/t https://x/r", &[Hazards(&["UnfollowedLauncher:git clone --template"])]),
    c("git init --template /tmp/t", &[Hazards(&["UnfollowedLauncher:git init --template"])]),
    c("git clone --depth 1 https://x/r", &[Hazards(&[])]),
    c("git init -q", &[Hazards(&[])]),
    // Git configuration a later git runs.
    c("git config core.pager 'rm -rf ~' && git log", &[Hazards(&["GitConfigOverride"])]),
    c("git config --global alias.x '!rm -rf ~'", &[Hazards(&["GitConfigOverride"])]),
    c("git config set core.sshCommand 'ssh -i k'", &[Hazards(&["GitConfigOverride"])]),
    c("git --no-pager config filter.lfs.clean x", &[Hazards(&["GitConfigOverride"])]),
    c("git config $K $V", &[Hazards(&["GitConfigOverride"])]),
    c("git config user.email a@b.c", &[Hazards(&[])]),
    c("git config --get core.pager", &[Hazards(&[])]),
    c("git config --unset core.pager", &[Hazards(&[])]),
    c("sh < <(curl -s x)", &[Has("DynamicEval:sh")]),
    c("echo 'rm -rf ~' > >(sh)", &[Has("DynamicEval:sh")]),
    c("tee >(bash) < x", &[Has("DynamicEval:bash")]),
    c("cat < $F", &[Hazards(&[])]),
    c("sh | cat", &[Hazards(&[])]),
    c("echo x | bash -c 'cat'", &[Cmds(&["echo x", "bash -c cat", "cat"]), Hazards(&[])]),
    c("cat <<EOF && rm x\nhi\nEOF", &[Cmds(&["cat", "rm x"])]),
    c("cat <<< \"$(ls)\"", &[Cmds(&["cat", "ls"]), Hazards(&["CommandSubstitution"])]),
    c("echo ${HOME}", &[Hazards(&["ParameterExpansion"]), ReadOnly(false)]),
    c("echo ${a[$(rm x)]}", &[Cmds(&["echo ${a[$(rm x)]}", "rm x"]), Has("CommandSubstitution")]),
    c("git commit -m \"$(cat <<EOF\nmsg\nEOF\n)\"", &[Cmds(&["git commit -m $(cat <<EOF\nmsg\nEOF\n)", "cat"])]),
    c("GIT_CONFIG_PARAMETERS=\"'core.pager=sh'\" git log", &[Hazards(&["GitConfigOverride"]), ReadOnly(false)]),
];

/// Hazards from particular commands.
const HAZARDS: &[Case] = &[
    c("cd .. && git status", &[Hazards(&["CdThenGit"]), ReadOnly(false)]),
    c("cd . && git status", &[Hazards(&[]), ReadOnly(true)]),
    c("cd /tmp/repo; git log", &[Hazards(&["CdThenGit"])]),
    c("cd && git status", &[Hazards(&["CdThenGit"])]),
    c("pushd x && git status", &[Hazards(&["CdThenGit"])]),
    c("git status && cd ..", &[Hazards(&[]), ReadOnly(true)]),
    c("cd src && ls", &[Hazards(&[]), ReadOnly(true)]),
    c("rm -rf \"$DIR\"/*", &[Hazards(&["RmGlobUnderVariable:$DIR/*"])]),
    c("rm -rf $X/", &[Hazards(&["RmGlobUnderVariable:$X/"])]),
    c("rm -rf ${BUILD}/*.o", &[Hazards(&["ParameterExpansion", "RmGlobUnderVariable:${BUILD}/*.o"])]),
    c("rm -rf \"$DIR\"/build", &[Hazards(&[])]),
    c("rmdir $D/", &[Hazards(&["RmGlobUnderVariable:$D/"])]),
    c("sudo rm -rf \"$1\"/*", &[Hazards(&["RmGlobUnderVariable:$1/*"])]),
    c("git -c core.pager=sh log", &[Hazards(&["GitConfigOverride"]), ReadOnly(false)]),
    c("git --config-env=core.pager=X log", &[Hazards(&["GitConfigOverride"])]),
    c("git --no-pager -c alias.x=!sh x", &[Hazards(&["GitConfigOverride"])]),
    c("git branch -c a b", &[Hazards(&[]), ReadOnly(false)]),
    c("ls (", &[Has("ParseError"), ReadOnly(false)]),
    c("ls \"", &[Has("ParseError"), ReadOnly(false)]),
    c("echo hi && ", &[Has("ParseError"), ReadOnly(false)]),
    c("", &[Cmds(&[]), Hazards(&[]), Writes(&[]), ReadOnly(true)]),
    c("   \n\t ", &[Cmds(&[]), Hazards(&[]), Writes(&[])]),
    c("ls # rm x", &[Cmds(&["ls"]), Hazards(&[]), ReadOnly(true)]),
    c("# just a comment", &[Cmds(&[]), Hazards(&[])]),
];

/// Commands that must classify read-only.
const READ_ONLY: &[Case] = &[
    c("ls -la", &[ReadOnly(true)]),
    c("git status", &[ReadOnly(true)]),
    c("git log --oneline -5", &[ReadOnly(true)]),
    c("grep -rn foo src", &[ReadOnly(true)]),
    c("find . -name '*.rs'", &[ReadOnly(true)]),
    c("rg -l TODO", &[ReadOnly(true)]),
    c("cat Cargo.toml | head -5", &[Cmds(&["cat Cargo.toml", "head -5"]), ReadOnly(true)]),
    c("wc -l src/*.rs", &[Glob(0, true), ReadOnly(true)]),
    c("sed -n '1,5p' f", &[ReadOnly(true)]),
    c("git diff HEAD~1", &[ReadOnly(true)]),
    c("jq .name package.json", &[ReadOnly(true)]),
    c("git log --format='%H %s' -n 3", &[ReadOnly(true)]),
    c("git diff --stat -- src", &[ReadOnly(true)]),
    c("head -n 5 file.txt | sort | uniq -c", &[ReadOnly(true)]),
    c("ps aux | grep cargo", &[ReadOnly(true)]),
    c("du -sh * | sort -h", &[ReadOnly(true)]),
    c("git stash list", &[ReadOnly(true)]),
    c("docker ps", &[ReadOnly(true)]),
    c("type -a ls", &[ReadOnly(true)]),
    c("date +%s", &[ReadOnly(true)]),
    c("tree -L 2", &[ReadOnly(true)]),
    c("pwd", &[ReadOnly(true)]),
    c("true && false", &[ReadOnly(true)]),
    c("echo $HOME", &[ReadOnly(true)]),
    c("git ls-files | xargs echo", &[ReadOnly(true)]),
    c("git show HEAD --stat", &[ReadOnly(true)]),
    c("git branch --show-current", &[ReadOnly(true)]),
    c("git rev-parse HEAD", &[ReadOnly(true)]),
    c("LC_ALL=C sort a", &[ReadOnly(true)]),
    c("uname -a && id && whoami", &[ReadOnly(true)]),
    c("stat -c '%s' Cargo.toml", &[ReadOnly(true)]),
    c("diff -u a b", &[ReadOnly(true)]),
    c("sed -E 's/x+/y/g' a", &[ReadOnly(true)]),
    c("printf '%s\\n' a b", &[ReadOnly(true)]),
    c("cargo tree --locked", &[ReadOnly(true)]),
];

/// Near misses that must not classify read-only.
const NOT_READ_ONLY: &[Case] = &[
    c("sed -i s/a/b/ f", &[ReadOnly(false)]),
    c("sort -o out in", &[ReadOnly(false)]),
    c("find . -delete", &[ReadOnly(false)]),
    c("find -P -- / -delete", &[ReadOnly(false)]),
    c("git branch -D x", &[ReadOnly(false)]),
    c("git config user.name x", &[ReadOnly(false)]),
    c("fd -x rm", &[ReadOnly(false)]),
    c("rg --pre sh x", &[ReadOnly(false)]),
    c("date -s now", &[ReadOnly(false)]),
    c("awk '{print}' f", &[ReadOnly(false)]),
    c("tee f", &[ReadOnly(false)]),
    c("cp a b", &[ReadOnly(false)]),
    c("ls $DIR", &[ReadOnly(false)]),
    c("find . -name *.rs", &[ReadOnly(false)]),
    c("cat $(ls)", &[ReadOnly(false)]),
    c("/bin/ls", &[ReadOnly(false)]),
    c("less f", &[ReadOnly(false)]),
    c("printf -v x %s y", &[ReadOnly(false)]),
    c("git -C x status", &[ReadOnly(false)]),
    c("cargo tree", &[ReadOnly(false)]),
    c("git show --output=/tmp/x HEAD", &[ReadOnly(false)]),
    c("git log --out=x", &[ReadOnly(false)]),
    c("echo x | tee -a log", &[ReadOnly(false)]),
    c("git stash", &[ReadOnly(false)]),
    c("cd $HOME", &[ReadOnly(false)]),
    c("docker run x", &[ReadOnly(false)]),
    c("uniq a b", &[ReadOnly(false)]),
    c("xxd a b", &[ReadOnly(false)]),
    c("sed 's/a/b/w /etc/passwd' f", &[ReadOnly(false)]),
    c("mkdir x", &[ReadOnly(false)]),
    c("git fetch", &[ReadOnly(false)]),
    c("grep -r \"$PATTERN\" .", &[ReadOnly(false)]),
    c("ls > out.txt", &[ReadOnly(false)]),
    c("python -c 'print(1)'", &[ReadOnly(false)]),
    c("curl https://example.com", &[ReadOnly(false)]),
    c("jq -f prog.jq a.json", &[ReadOnly(false)]),
    c("git ls-files | xargs cat", &[ReadOnly(false)]),
    c("echo /etc/shadow | xargs cat", &[ReadOnly(false)]),
    c("grep -f /etc/shadow x", &[ReadOnly(false)]),
    c("grep --fil=/etc/shadow x", &[ReadOnly(false)]),
    c("grep --deref x .", &[ReadOnly(false)]),
    c("sed '1r /etc/shadow' x", &[ReadOnly(false)]),
    c("git diff --no-index /etc/shadow /dev/null", &[ReadOnly(false)]),
    c("xargs -a /etc/shadow", &[ReadOnly(false)]),
    c("read 'a[$(rm x)]' <<< x", &[ReadOnly(false)]),
    c("unset 'a[$(rm x)]'", &[ReadOnly(false)]),
    c("declare 'a[$(rm x)]=1'", &[ReadOnly(false)]),
    c("typeset 'a[$(rm x)]=1'", &[ReadOnly(false)]),
    c("local 'a[$(rm x)]=1'", &[ReadOnly(false)]),
    c("export 'a[$(rm x)]=1'", &[ReadOnly(false)]),
    c("readonly 'a[$(rm x)]=1'", &[ReadOnly(false)]),
    c("let 'a[$(rm x)]=1'", &[ReadOnly(false)]),
    c("printf -v 'a[$(rm x)]' x", &[ReadOnly(false)]),
];

#[test]
fn smuggling_after_an_allowed_prefix() {
    run(SMUGGLING);
}

#[test]
fn wrappers_and_payloads() {
    run(WRAPPERS);
}

#[test]
fn redirect_writes() {
    run(REDIRECTS);
}

#[test]
fn quoting_tricks() {
    run(QUOTING);
}

#[test]
fn dynamic_names_and_eval() {
    run(DYNAMIC);
}

#[test]
fn compound_statements() {
    run(STRUCTURE);
}

#[test]
fn command_hazards() {
    run(HAZARDS);
}

#[test]
fn read_only_commands() {
    run(READ_ONLY);
}

#[test]
fn near_misses_are_not_read_only() {
    run(NOT_READ_ONLY);
}

/// The command of every case here and every fuzz seed of the analysis.
pub(super) fn case_and_seed_sources() -> Vec<String> {
    let mut sources: Vec<String> =
        [SMUGGLING, WRAPPERS, REDIRECTS, QUOTING, DYNAMIC, STRUCTURE, HAZARDS, READ_ONLY, NOT_READ_ONLY]
            .iter()
            .flat_map(|cases| cases.iter().map(|c| c.src.to_owned()))
            .collect();
    let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/bash_analyze");
    for entry in std::fs::read_dir(&seeds).unwrap() {
        sources.push(String::from_utf8_lossy(&std::fs::read(entry.unwrap().path()).unwrap()).into_owned());
    }
    sources
}

/// Reading a `command` child's field from its kind agrees with tree-sitter's field, for every
/// command node of every case here and of the fuzz seeds.
#[test]
fn command_fields_from_kinds_agree_with_tree_sitter() {
    let mut sources = case_and_seed_sources();
    sources.extend(
        [
            "echo $\"hi\" x",
            "[[ $a =~ ^x ]]",
            "a=1 b=2 >f cmd x <<<s y > g",
            "cmd (x)",
            "f 2>&1 # c",
            "x=$(y) z",
            "cmd {a,b} $((1+2)) <(ls) $'q' 3<&0",
            "cmd \\\n arg",
            "! cmd",
            "cmd == x",
        ]
        .map(str::to_owned),
    );
    let language: tree_sitter::Language = tree_sitter_bash::LANGUAGE.into();
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language).unwrap();
    let mut checked = 0;
    for src in &sources {
        let tree = parser.parse(src, None).unwrap();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            let mut named = false;
            for index in 0..node.child_count() {
                let child = node.child(index).unwrap();
                stack.push(child);
                if kind::kind_of(node) != "command" || kind::kind_of(child) == "variable_assignment" {
                    continue;
                }
                let ours = walk::command_field(node, index as usize, child, named, !tree.root_node().has_error());
                assert_eq!(ours, node.field_name_for_child(index), "{src:?}: child {index} ({})", child.kind());
                named |= ours == Some("name");
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "only {checked} children checked");
}

#[test]
fn there_are_at_least_150_cases() {
    let total = [SMUGGLING, WRAPPERS, REDIRECTS, QUOTING, DYNAMIC, STRUCTURE, HAZARDS, READ_ONLY, NOT_READ_ONLY]
        .iter()
        .map(|cases| cases.len())
        .sum::<usize>();
    assert!(total >= 150, "only {total} cases");
}

#[test]
fn a_command_over_10000_chars_is_too_long() {
    let long = format!("echo {}", "a".repeat(9_996));
    assert_eq!(long.chars().count(), 10_001);
    let analysis = analyze(&long);
    assert_eq!(analysis.hazards, [Hazard::TooLong { len: 10_001 }]);
    assert_eq!(analysis.commands.len(), 1);
    assert!(!is_read_only(&analysis));

    let exact = format!("echo {}", "a".repeat(9_995));
    assert!(analyze(&exact).hazards.is_empty());
}

#[test]
fn a_huge_command_is_not_parsed() {
    let huge = "ls; ".repeat(100_000);
    let analysis = analyze(&huge);
    assert_eq!(analysis.hazards, [Hazard::TooLong { len: huge.len() }]);
    assert!(analysis.commands.is_empty());
}

#[test]
fn deep_nesting_is_cut_off_without_overflowing_the_stack() {
    for depth in [50, 300, 3_000] {
        for (open, close) in [("$(", ")"), ("(", ")"), ("{ ", "; }"), ("\"$(", ")\""), ("bash -c '", "'")] {
            let src = format!("{}ls{}", open.repeat(depth), close.repeat(depth));
            let analysis = analyze(&src);
            assert!(!is_read_only(&analysis) || depth < 60, "{open} × {depth}");
        }
    }
    // Each `eval` parses its arguments as a nested command string.
    let source = format!("{}rm x", "eval ".repeat(20));
    let analysis = analyze(&source);
    assert!(analysis.hazards.contains(&Hazard::UnknownConstruct { kind: "too_deep".to_owned() }));
    assert!(!is_read_only(&analysis));
    // Hazard texts stay short however long the word.
    let source = format!("$X{} y", "a".repeat(5_000));
    let analysis = analyze(&source);
    let Some(Hazard::DynamicCommandName { text }) = analysis.hazards.first() else { panic!("{analysis:?}") };
    assert!(text.chars().count() <= 201, "{}", text.len());
}

#[test]
fn the_parser_is_reused_and_still_right_after_a_failed_parse() {
    assert!(analyze("ls (").hazards.contains(&Hazard::ParseError));
    let analysis = analyze("git status");
    assert!(analysis.hazards.is_empty());
    assert_eq!(analysis.commands[0].argv, ["git", "status"]);
}

#[test]
fn arbitrary_input_never_panics() {
    const ALPHABET: &[&str] = &[
        "a", "rm", " ", "\t", "\n", ";", "&", "|", "&&", "||", "(", ")", "{", "}", "[", "]", "[[", "]]", "$", "${",
        "$(", "`", "'", "\"", "\\", "<", ">", ">>", "<<", "<<<", "EOF", "*", "?", "~", "#", "=", "!", "-c", "-exec",
        ";", "+", "{}", "xargs", "sudo", "env", "bash", "eval", "$'", "é", "\u{0}", "if", "then", "fi", "for", "in",
        "do", "done", "case", "esac", "))", "((", "<(", ">(", "2>&1", "&>", "-", "--", "find", "sed", "git", "-C",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..3_000 {
        let len = (next() % 24) as usize;
        let src: String = (0..len).map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize]).collect();
        let analysis = analyze(&src);
        // Whatever it is, a classification exists and is consistent.
        let _ = is_read_only(&analysis);
    }
    for src in [
        "sudo",
        "sudo -u",
        "timeout",
        "timeout -s",
        "env -u",
        "xargs -n",
        "find . -exec",
        "find . -exec rm",
        "bash -c",
        "nice -n",
        "stdbuf -o",
        "$'\\",
        "$'\\x",
        "$'\\u{",
        "eval",
        "trap",
        "trap -",
        "cd --",
        "rm $",
        "rm ${",
        "git -c",
        "\u{feff}ls",
    ] {
        let _ = is_read_only(&analyze(src));
    }
}

#[test]
fn text_is_the_source_from_the_command_name() {
    let analysis = analyze("FOO=1 sudo -u root  git   log  --oneline 2>/dev/null | head");
    assert_eq!(analysis.commands[0].text, "git   log  --oneline");
    assert_eq!(analysis.commands[1].text, "head");
}

#[test]
fn substitutions_are_found_in_here_document_text() {
    let scripts = |body: &str| walk::dollar_paren_scripts(body, &[]);
    assert_eq!(scripts(" $(touch x)\n"), ["touch x"]);
    assert_eq!(scripts("$(echo \")\" 'a)b' $(ls (x)))"), ["echo \")\" 'a)b' $(ls (x))", "ls (x)"]);
    assert_eq!(scripts("\\$(no) \\\\$(yes)"), ["yes"]);
    assert_eq!(scripts("$((1 + $(id -u)))"), ["id -u"]);
    assert_eq!(scripts("$(unclosed rm x"), ["unclosed rm x"]);
    assert_eq!(walk::dollar_paren_scripts("a $(b) $(c)", &[(2, 6)]), ["c"]);
    assert_eq!(walk::backtick_scripts("a `rm x` \\`b\\` `echo \\$y`"), ["rm x", "echo $y"]);
}

/// Every line of plain words is analysed as its syntax tree says: the reading of plain lines
/// without the tree ([`plain::line`]) gives the same analysis, for the cases here, the fuzz
/// seeds and thousands of generated lines of the words agents use and the wrappers, payloads
/// and shells the analysis follows.
#[test]
fn plain_lines_are_analysed_as_their_trees_say() {
    let mut sources = case_and_seed_sources();
    const PIECES: &[&str] = &[
        "git",
        "status",
        "log",
        "--oneline",
        "-20",
        "diff",
        "HEAD~1",
        "--",
        "src/lib.rs",
        "push",
        "-c",
        "core.pager=less",
        "--config-env=a=b",
        "GIT_DIR=x",
        "config",
        "alias.x",
        "'!rm x'",
        "rebase",
        "--exec",
        "'rm -rf x'",
        "cargo",
        "test",
        "-p",
        "core",
        "npm",
        "run",
        "build",
        "npx",
        "--call",
        "'rm x'",
        "rm",
        "-rf",
        "/",
        "~",
        "~/x",
        "x=~/y",
        "./a",
        "../b",
        "/etc/passwd",
        ".git/config",
        "cd",
        "..",
        "pushd",
        "sudo",
        "-u",
        "root",
        "doas",
        "env",
        "-i",
        "-C",
        "/tmp",
        "-S",
        "'rm x'",
        "A=1",
        "FOO=bar",
        "PATH=/x",
        "GIT_PAGER=less",
        "EDITOR=vim",
        "_=1",
        "A=",
        "A='a b'",
        "timeout",
        "5",
        "-s",
        "KILL",
        "nice",
        "-n",
        "10",
        "nohup",
        "stdbuf",
        "-oL",
        "command",
        "-v",
        "builtin",
        "exec",
        "eval",
        "'echo hi'",
        "\"a b\"",
        "xargs",
        "-n1",
        "-I",
        "X",
        "find",
        ".",
        "-name",
        "-exec",
        "-delete",
        "+",
        "fd",
        "-x",
        "bash",
        "sh",
        "zsh",
        "fish",
        "-lc",
        "'ls && rm x'",
        "\"echo 'q'\"",
        "source",
        "trap",
        "'rm x'",
        "EXIT",
        "alias",
        "ll='ls -l'",
        "setsid",
        "ionice",
        "-c3",
        "chroot",
        "watch",
        "tar",
        "-xf",
        "a.tar",
        "--to-command=rm",
        "rsync",
        "-avze",
        "'sh x'",
        "ssh",
        "-o",
        "ProxyCommand=nc",
        "host",
        "man",
        "-P",
        "less",
        "sort",
        "-o",
        "out",
        "sed",
        "-i",
        "s/a/b/",
        "-n",
        "10,20p",
        "awk",
        "'{print $1}'",
        "curl",
        "-sSLo",
        "f",
        "http://x.y/z",
        "cp",
        "mv",
        "mkdir",
        "-p",
        "dd",
        "if=/dev/zero",
        "of=x",
        "hash",
        "-p",
        "mapfile",
        "-C",
        "fc",
        "-l",
        "let",
        "x=1",
        "test",
        "-f",
        "echo",
        "printf",
        "%s",
        "date",
        "+%Y-%m-%d",
        "user@host",
        "a:b",
        "a,b",
        "-",
        "''",
        "\"\"",
        "a'b'c",
        "'a'\"b\"",
        "#",
        "#c",
        "# run 3",
        "&&",
        "&&",
        "||",
        "|",
        "|",
        ";",
        ";",
        "if",
        "then",
        "fi",
        "for",
        "in",
        "do",
        "done",
        "time",
        "coproc",
        "export",
        "local",
        "readonly",
        "unset",
        "A+=1",
        "git",
        "git",
        "ls",
        "-la",
        "python3.11",
        "./scripts/x.sh",
        "/usr/bin/env",
        "apt-get",
        "~/bin/t",
        "a+b",
        "_a",
        ".a",
        "1",
        "CC=gcc",
        "--",
        "-",
        "+x",
        ":",
        ",",
        "x.y",
        "a~b",
        "make",
        "all",
        "-j4",
        "go",
        "./...",
        "'a b'c",
        "\"x\"y",
        "ENV_A=1",
        "a=b=c",
        "noglob",
        "pnpm",
        "yarn",
        "docker",
        "kubectl",
        "pip",
        "install",
        "-r",
        "req.txt",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..20_000 {
        let count = 1 + next() % 9;
        let words: Vec<&str> = (0..count).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect();
        let separator = if next() % 5 == 0 { "" } else { " " };
        sources.push(words.join(separator));
    }
    // Lines of characters drawn one by one from those plain lines are made of.
    const CHARS: &[u8] = b"aZ09-_./+:,=@%~'\"  \t&|;#xgit";
    for _ in 0..20_000 {
        let len = 1 + next() % 24;
        sources.push((0..len).map(|_| char::from(CHARS[(next() % CHARS.len() as u64) as usize])).collect());
    }
    let mut compared = 0;
    let mut differ = Vec::new();
    for src in &sources {
        if plain::line(src).is_none() {
            continue;
        }
        compared += 1;
        let (plain, tree) = (analyze(src), analyze_with_tree(src));
        if plain != tree {
            differ.push(format!("{src:?}\n  plain: {plain:?}\n  tree:  {tree:?}"));
        }
    }
    assert!(
        differ.is_empty(),
        "{} lines read apart from their trees:\n{}",
        differ.len(),
        differ[..differ.len().min(12)].join("\n")
    );
    assert!(compared > 3_000, "only {compared} plain lines compared");
}

/// A text whose substitutions each hold all the next ones is not read substitution by
/// substitution (that grows with the square of the line): it hides what runs instead.
#[test]
fn nested_substitutions_in_text_stay_linear() {
    for line in [
        format!("read '{}'", "a[$(".repeat(2400)),
        format!("echo \"${{a['{}']}}\"", "$(".repeat(2400)),
        format!("echo $(('{}'))", "$(".repeat(2400)),
    ] {
        let analysis = analyze(&line);
        assert!(analysis.hazards.iter().any(Hazard::hides_what_runs), "{:?}", analysis.hazards);
        assert!(analysis.commands.len() < 100, "{} commands", analysis.commands.len());
    }
}
