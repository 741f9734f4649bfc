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

mod cases;
use cases::*;

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
