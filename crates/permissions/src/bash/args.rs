//! How a command uses its words, read against its program's entry in the program table
//! ([`toolgate_shell::programs`]): which words are operands and which options name files,
//! each with its role (a file it writes its output to, one it reads, a value that may name a
//! file), and, for the checks that need more, find's starting points, a recursive read's
//! folders and the paths `acceptEdits`' file commands write through their options.
//!
//! Where the table cannot say whether an option takes a value (every program's `-o` is taken
//! for an output option, a guess for most), a word is read both ways: as the value of the
//! option before it and as an option of its own. So no reading of the options names fewer
//! files than the program's own would, which is what the checks need: a word read as a file
//! that is none is only looked up.

use std::borrow::Cow;

use smallvec::SmallVec;
use toolgate_shell::programs::{self, Operands, Program, Role, Walk, Writes};
use toolgate_shell::{FlagList, SimpleCommand, Strs, Text, flags_and_operands, is_read_only_command};

use super::bases::basename;

/// What an option word of a command names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Named {
    /// The file or folder the command writes its output to (`-o F`, `--output=F`, `tar czf
    /// F`, `dd of=F`).
    Output,
    /// A file the command reads (`grep -f F`, `tar -T F`, `curl -K F`).
    ReadsFrom,
    /// The value of a `--name=VALUE` option, which may name a file (`wc --files0-from=.env`
    /// reads `.env` for the names it lists).
    Value,
}

/// A command's words as its program's entry reads them.
///
/// ```text
/// sort -o out.txt in.txt     operands: out.txt in.txt   named: out.txt (output)
/// grep -f pats --color=auto x   operands: pats x        named: pats (reads from), auto (value)
/// ```
#[derive(Debug)]
pub(crate) struct Args<'c> {
    /// The program's entry ([`Program::DEFAULT`] for one the table does not list).
    pub entry: &'static Program,
    /// The words that are not options, in order (after `--`, all). An option's value stays
    /// among them (`head -n 5 f`: `5` and `f`), so they are checked as paths too.
    pub operands: Strs<'c>,
    /// The option words that name files, in order, with what they name.
    pub named: SmallVec<[(&'c str, Named); 2]>,
}

impl<'c> Args<'c> {
    /// Reads the words of `cmd` (see the module documentation).
    pub fn of(cmd: &'c SimpleCommand<'_>) -> Self {
        let entry = programs::get(cmd.argv.first().map(|p| basename(p)).unwrap_or_default());
        let words = cmd.argv.get(1..).unwrap_or_default();
        Args { entry, operands: operands_of(words), named: named(entry, words, cmd.static_words.saturating_sub(1)) }
    }

    /// Where its options send output.
    pub fn outputs(&self) -> impl Iterator<Item = &'c str> + '_ {
        self.named.iter().filter(|(_, named)| *named == Named::Output).map(|(word, _)| *word)
    }

    /// The files its options name that it reads, and the values of its `--name=VALUE`
    /// options.
    pub fn option_values(&self) -> impl Iterator<Item = &'c str> + '_ {
        self.named.iter().filter(|(_, named)| *named != Named::Output).map(|(word, _)| *word)
    }

    /// The index of the first operand a command that is not read-only writes, creates or
    /// removes (`operands.len()` when it writes none the checks know of), from its entry's
    /// [`Writes`]: every operand of `mv`, `rm`, `touch`, `mkdir`, `tee`, `chmod` and the like;
    /// the last (the destination) of `cp`, `ln` and `rsync`, unless a `cp` or `ln` is given
    /// its destination by `-t` (then all, the folder among them).
    pub fn first_written(&self, cmd: &SimpleCommand<'_>) -> usize {
        match self.entry.writes {
            Writes::All => 0,
            Writes::Destination { target_option: true } if has_target_option(cmd) => 0,
            Writes::Destination { .. } => self.operands.len().saturating_sub(1),
            _ => self.operands.len(),
        }
    }
}

/// Long options that name the file or folder a command writes its output to, whatever the
/// command (`git log --output=F`, `sort --output F`, `curl --output-dir D`).
const OUTPUT_OPTIONS: &[&str] = &[
    "output",
    "output-file",
    "outfile",
    "out-file",
    "output-dir",
    "output-directory",
    "outdir",
    "out-dir",
    "output-document",
    "directory-prefix",
];

/// The option words of `words` (a command's, after its name) that name files, as `entry`
/// reads them: output options' values (every word; the entry's output letters, or `-o`, and
/// long options, [`OUTPUT_OPTIONS`] and the entry's), the values of options that name a
/// file it reads and those of `--name=VALUE` options (among the first `known` words, those
/// known before the command runs; a `VALUE` only when not empty and with no glob).
fn named<'c>(entry: &Program, words: &'c [Text<'_>], known: usize) -> SmallVec<[(&'c str, Named); 2]> {
    let mut out = SmallVec::new();
    let reads = entry.reads_from;
    let push = |out: &mut SmallVec<[(&'c str, Named); 2]>, at: usize, word: &'c str, named: Named| {
        if named == Named::Output || at < known {
            out.push((word, named));
        }
    };
    // What the values still owed to the options read so far name, the next word's first.
    let mut owed: SmallVec<[Owed; 2]> = SmallVec::new();
    let mut at = 0;
    // tar's first word is its options even without a dash (`tar czf out.tgz src`): each
    // letter that takes a value takes the next word, in order (`tar cbf 20 F`: `F`).
    if entry.options_first
        && let Some(first) = words.first().filter(|w| !w.starts_with('-'))
    {
        for letter in first.chars() {
            let next =
                Owed { output: entry.output_letters().contains(&letter), reads: reads.letters.contains(&letter) };
            if next.output || next.reads || entry.value_letters.contains(&letter) {
                owed.push(next);
            }
        }
        at = 1;
    }
    while let Some(word) = words.get(at) {
        let word: &'c str = word;
        // A value owed to an option before; the word is read as an option too, in case that
        // one took none.
        let was_owed = !owed.is_empty();
        if was_owed {
            let value = owed.remove(0);
            if value.output {
                push(&mut out, at, word, Named::Output);
            }
            if value.reads {
                push(&mut out, at, word, Named::ReadsFrom);
            }
        }
        if word == "--" && !was_owed {
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let output = OUTPUT_OPTIONS.contains(&name) || entry.output_longs.contains(&name);
            match value {
                Some(value) => {
                    if output {
                        push(&mut out, at, value, Named::Output);
                    }
                    if !value.is_empty() && !value.contains(['*', '?', '[']) {
                        push(&mut out, at, value, Named::Value);
                    }
                }
                None if output || reads.longs.contains(&name) => {
                    owed.push(Owed { output, reads: !output });
                }
                None => {}
            }
        } else if let Some(value) = entry.output_operand.and_then(|prefix| word.strip_prefix(prefix)) {
            push(&mut out, at, value, Named::Output);
        } else if let Some(cluster) = word.strip_prefix('-').filter(|c| !c.is_empty()) {
            // The first letter that takes a value takes the rest of the word, or the next
            // word; an output letter and a letter naming a file read are each looked for.
            let mut next = Owed { output: false, reads: false };
            for (letters, named) in [(entry.output_letters(), Named::Output), (reads.letters, Named::ReadsFrom)] {
                let Some(found) = cluster.find(letters) else { continue };
                let rest = &cluster[found + 1..];
                match (rest.is_empty(), named) {
                    (false, _) => push(&mut out, at, rest, named),
                    (true, Named::Output) => next.output = true,
                    (true, _) => next.reads = true,
                }
            }
            if next.output || next.reads {
                owed.push(next);
            }
        }
        at += 1;
    }
    out
}

/// What the value an option is owed names.
#[derive(Clone, Copy)]
struct Owed {
    /// Where the command writes its output.
    output: bool,
    /// A file it reads.
    reads: bool,
}

/// The operands of a command: its arguments that are not options (after `--`, all).
pub(crate) fn operands<'c>(cmd: &'c SimpleCommand<'_>) -> Strs<'c> {
    operands_of(cmd.argv.get(1..).unwrap_or_default())
}

/// The words of `args` that are not options (after `--`, all).
fn operands_of<'c>(args: &'c [Text<'_>]) -> Strs<'c> {
    let mut out = Strs::new();
    let mut options_done = false;
    for arg in args {
        if !options_done && arg == "--" {
            options_done = true;
            continue;
        }
        if !options_done && arg.starts_with('-') && arg.len() > 1 {
            continue;
        }
        out.push(&**arg);
    }
    out
}

/// Whether a `cp` or `ln` names its destination folder with an option (`-t DIR`, a cluster
/// with `t`, `--target-directory`).
fn has_target_option(cmd: &SimpleCommand<'_>) -> bool {
    let options = cmd.argv.iter().skip(1).take_while(|a| *a != "--");
    options.filter(|a| a.starts_with('-')).any(|a| match a.strip_prefix("--") {
        Some(long) => long.starts_with("target-directory"),
        None => a.contains('t'),
    })
}

/// The words of a read-only command that are files it reads, or `None` when its operands
/// are not files. `find` reads its starting points only; a pattern-first command skips its
/// pattern unless `-e`/`-f` gave it; of `git`, only `git diff` names files (a path outside
/// the repository turns it into `git diff --no-index`, which prints any file).
pub(crate) fn read_operands<'c>(cmd: &'c SimpleCommand<'_>, program: &str) -> Option<Strs<'c>> {
    match programs::get(program).operands {
        Operands::NotFiles => None,
        Operands::Git => {
            let sub = cmd.argv.iter().skip(1).position(|a| !a.starts_with('-'))? + 1;
            if cmd.argv[sub] != "diff" {
                return None;
            }
            Some(operands_of(&cmd.argv[sub + 1..]))
        }
        Operands::StartPoints => Some(find_start_points(&cmd.argv).into_iter().map(|(_, start)| start).collect()),
        Operands::PatternFirst { spelled, unspelled } => {
            // Options' values are not files, and `-e` or `-f` gives the pattern or script
            // (`sed -ne1p f` reads `f`).
            if spelled
                && let Some((flags, mut args)) = flags_and_operands(program, cmd.argv.get(1..).unwrap_or_default())
            {
                let pattern_given = flags.iter().any(|(f, _)| matches!(*f, "-e" | "--regexp" | "-f" | "--file"));
                if !pattern_given && !args.is_empty() {
                    args.remove(0);
                }
                return Some(args);
            }
            let mut args = operands(cmd);
            if unspelled && !cmd.argv.iter().any(|a| a == "-e" || a == "-f") && !args.is_empty() {
                args.remove(0);
            }
            Some(args)
        }
        _ => Some(operands(cmd)),
    }
}

/// find's options that come before its starting points (GNU findutils), each a word of its
/// own: the symbolic-link modes, `-D` with the debug options in the next word, and `-O`
/// with its level attached (`-O3`); a `--` ends them.
///
/// ```text
/// find -P -- ~        find -O3 -D tree /etc -name x        find -L . -type f
/// ```
const FIND_LEADING_OPTIONS: &[(&str, FindOption)] = &[
    ("-H", FindOption::Alone),
    ("-L", FindOption::Alone),
    ("-P", FindOption::Alone),
    ("-D", FindOption::NextWord),
    ("-O", FindOption::Attached),
];

/// How one of find's leading options takes its value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FindOption {
    /// No value.
    Alone,
    /// The next word (`-D tree`).
    NextWord,
    /// Attached to the option (`-O3`).
    Attached,
}

/// The starting points of a `find` command (`argv` with the program first), with their
/// index in `argv`: the words after its leading options ([`FIND_LEADING_OPTIONS`], then an
/// optional `--`) up to the expression, or `.` (index 0) when there are none.
pub(crate) fn find_start_points<'a>(argv: &'a [Text<'_>]) -> Vec<(usize, &'a str)> {
    let mut i = 1;
    while let Some(word) = argv.get(i) {
        let option = FIND_LEADING_OPTIONS.iter().find(|(name, how)| match how {
            FindOption::Attached => word.starts_with(name),
            _ => word == name,
        });
        match option {
            Some((_, FindOption::NextWord)) => i += 2,
            Some(_) => i += 1,
            None if word == "--" => {
                i += 1;
                break;
            }
            None => break,
        }
    }
    let starts: Vec<(usize, &str)> = argv
        .iter()
        .enumerate()
        .skip(i)
        .map(|(at, word)| (at, &**word))
        .take_while(|(_, word)| !(word.starts_with('-') || matches!(*word, "(" | "!" | ")" | ",")))
        .collect();
    if starts.is_empty() { vec![(0, ".")] } else { starts }
}

/// What a read-only command reads recursively: the folders it walks, and whether it skips
/// hidden and ignored files as ripgrep does by default.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Recursion<'c> {
    /// The folders walked (`.` when none is named).
    pub roots: Strs<'c>,
    /// Whether hidden files and those `.gitignore` excludes are skipped.
    pub filtered: bool,
}

/// The recursive read a read-only command does, if any: `grep -r`, `rg` (recursive on
/// folders, filtered unless `--hidden`, `-.`, `-u` or `--no-ignore…`), `diff -r`.
pub(crate) fn recursion<'c>(cmd: &'c SimpleCommand<'_>, program: &str) -> Option<Recursion<'c>> {
    let walk = programs::get(program).walk;
    if walk == Walk::None {
        return None;
    }
    let args = cmd.argv.get(1..).unwrap_or_default();
    let flags: FlagList<'_> = match flags_and_operands(program, args) {
        Some((flags, _)) => flags,
        None => args.iter().take_while(|a| *a != "--").filter(|a| a.starts_with('-')).map(|a| (&**a, None)).collect(),
    };
    let options: Vec<&str> = flags.iter().map(|(flag, _)| *flag).collect();
    let short = |letters: &[char]| {
        options.iter().any(|o| !o.starts_with("--") && o.chars().skip(1).any(|c| letters.contains(&c)))
    };
    // The table's reading reports each option by one name: `--recursiv` and `--recursive` as
    // `-r`, `-d rec` as `-d recurse` (see `Spelling` in the read-only table).
    let (recursive, filtered) = match walk {
        Walk::GrepOptions => {
            (short(&['r', 'R']) || flags.iter().any(|(f, v)| *f == "-d" && *v == Some("recurse")), false)
        }
        // Globs and types override ripgrep's filters (`-g .env` searches `.env`).
        Walk::Ripgrep => (
            true,
            !(short(&['.', 'u', 'g', 't', 'T'])
                || options.iter().any(|o| matches!(*o, "--iglob" | "--type-add") || o.starts_with("--no-ignore"))),
        ),
        // Given two folders, diff reads the files in them (through links) even without `-r`.
        Walk::Always => (true, false),
        _ => (false, false),
    };
    if !recursive {
        return None;
    }
    let mut roots = read_operands(cmd, program).unwrap_or_default();
    if roots.is_empty() && walk != Walk::Always {
        roots.push(".");
    }
    Some(Recursion { roots, filtered })
}

/// The paths an `acceptEdits` command (`mkdir touch rm rmdir mv cp sed`) writes besides its
/// operands, or `None` when an option may send a write somewhere the checks cannot follow:
/// `--target-directory=DIR` and `-tDIR` are paths, and so are the backups a suffix names
/// (`sed -i.json … .mcp` writes `.mcp.json`; a `*` in sed's suffix is the file's name); a
/// suffix with a `/`, `cp -T`, and a source that is a folder's contents (`cp -r pkg/. .`,
/// which would merge `pkg/.git` into `.git`) are refused.
pub(crate) fn option_paths(cmd: &SimpleCommand<'_>) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut suffixes: Vec<&str> = Vec::new();
    let entry = programs::get(cmd.argv.first().map(|p| basename(p)).unwrap_or_default());
    let copies = matches!(entry.role, Role::Copies | Role::Moves);
    let mut args = cmd.argv.iter().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = long.split_once('=').unwrap_or((long, ""));
            match (entry.role, name) {
                (_, "target-directory") if !value.is_empty() => out.push(value.to_owned()),
                (_, "no-target-directory") if copies => return None,
                (_, "suffix") if copies && !value.is_empty() => suffixes.push(value),
                (Role::Sed, "in-place") if !value.is_empty() => suffixes.push(value),
                (_, "suffix") if copies => suffixes.push(args.next()?),
                _ if value.contains('/') => return None,
                _ => {}
            }
        } else if let Some(short) = arg.strip_prefix('-') {
            // A cluster: the first letter that takes a value takes the rest of the word (or
            // the next word).
            for (at, letter) in short.char_indices() {
                let rest = &short[at + letter.len_utf8()..];
                match (entry.role, letter) {
                    (_, 'T') if copies => return None,
                    (_, 't') if copies && !rest.is_empty() => out.push(rest.to_owned()),
                    (_, 'S') if copies && !rest.is_empty() => suffixes.push(rest),
                    (_, 'S') if copies => suffixes.push(args.next()?),
                    (Role::Sed, 'i') if !rest.is_empty() => suffixes.push(rest),
                    _ if entry.value_letters.contains(&letter) => {}
                    _ => continue,
                }
                break;
            }
        }
    }
    if suffixes.iter().any(|s| s.contains('/')) {
        return None;
    }
    let operands = match entry.role {
        Role::Sed => read_operands(cmd, entry.name).unwrap_or_default(),
        _ => operands(cmd),
    };
    if copies {
        let sources = operands.len().saturating_sub(1);
        let contents = |op: &&str| matches!(op.trim_end_matches('/').rsplit('/').next(), Some("." | ".."));
        if operands[..sources].iter().any(contents) {
            return None;
        }
    }
    for suffix in suffixes {
        for operand in &operands {
            out.push(backup_name(operand, suffix, entry.role == Role::Sed));
        }
    }
    Some(out)
}

/// The backup of `file` with `suffix`: appended, or (sed only) with each `*` standing for the
/// file's name in its folder.
fn backup_name(file: &str, suffix: &str, stars: bool) -> String {
    if !stars || !suffix.contains('*') {
        return format!("{file}{suffix}");
    }
    let (dir, name) = file.rsplit_once('/').map_or(("", file), |(d, n)| (d, n));
    let backup = suffix.replace('*', name);
    if dir.is_empty() { backup } else { format!("{dir}/{backup}") }
}

/// Whether a `sed` command does nothing but what `-i` (edit the operand files in place) adds
/// to a read-only `sed`: its script has no `e`, `w` or `r` command, checked by classifying the
/// same command without its in-place option.
pub(crate) fn sed_edits_only_operands(cmd: &SimpleCommand<'_>) -> bool {
    let mut without = cmd.clone();
    without.argv.clear();
    let mut options_done = false;
    for arg in &cmd.argv {
        if options_done || !arg.starts_with('-') || arg == "-" {
            without.argv.push(arg.clone());
            continue;
        }
        if arg == "--" {
            options_done = true;
            without.argv.push(arg.clone());
        } else if arg == "--in-place" || arg.starts_with("--in-place=") {
            // Dropped: the suffix was checked by `option_paths`.
        } else if arg.starts_with("--") {
            without.argv.push(arg.clone());
        } else {
            // `-i` in a cluster takes the rest of the word as its suffix; a letter before it
            // that takes a value (`-e`, `-f`, `-l`) takes the rest instead.
            let mut kept = String::from("-");
            for (at, letter) in arg[1..].char_indices() {
                match letter {
                    'i' => break,
                    'e' | 'f' | 'l' => {
                        kept.push_str(&arg[1 + at..]);
                        break;
                    }
                    other => kept.push(other),
                }
            }
            if kept != "-" {
                without.argv.push(Cow::Owned(kept));
            }
        }
    }
    is_read_only_command(&without)
}

#[cfg(test)]
mod tests {
    use toolgate_shell::analyze;
    use toolgate_shell::programs::{Holds, PROGRAMS};

    use super::*;

    /// Every example of the program table holds as the content layer reads it: the files a
    /// line reads (operands, then the files its options name), the paths it writes (the
    /// operands it writes, then where its options send output) and the folders it walks.
    #[test]
    fn every_example_of_the_program_table_holds() {
        let mut failures = Vec::new();
        for program in PROGRAMS {
            for example in program.examples {
                let analysis = analyze(example.line);
                let cmd = &analysis.commands[0];
                let name = basename(&cmd.argv[0]);
                assert_eq!(name, program.name, "{}: the example runs another program", example.line);
                let args = Args::of(cmd);
                let walked = || recursion(cmd, name).map(|r| r.roots.to_vec()).unwrap_or_default();
                let (got, wanted): (Vec<&str>, &[&str]) = match example.holds {
                    Holds::Reads(wanted) => {
                        let mut got = read_operands(cmd, name).unwrap_or_default().to_vec();
                        got.extend(args.option_values());
                        (got, wanted)
                    }
                    Holds::Writes(wanted) => {
                        let mut got = args.operands[args.first_written(cmd)..].to_vec();
                        got.extend(args.outputs());
                        (got, wanted)
                    }
                    Holds::Walks(wanted) => (walked(), wanted),
                    Holds::WalksNone => (walked(), &[]),
                    // The commands it runs: the shell crate's walker holds those.
                    Holds::Runs(_) => continue,
                    _ => panic!("{}: a kind of example the test does not know", example.line),
                };
                if got != wanted {
                    failures.push(format!("{}: {got:?}, not {wanted:?}", example.line));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// tar's entry names every short option `tar --help` shows with a value (`-b,
    /// --blocking-factor=BLOCKS`): in tar's old style (`tar cbf 20 F`) a letter missing from it
    /// would give the archive's name to the wrong letter.
    #[test]
    fn every_short_option_of_tar_that_takes_a_value_is_in_its_entry() {
        let run = toolgate_core::process::ProcessSpec::exec("tar", ["--help"]).cwd("/");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let Ok(outcome) = runtime.block_on(run.run(&toolgate_core::CancellationToken::new())) else {
            panic!("tar is needed for this test (every Debian system has it)");
        };
        let help = outcome.stdout.text();
        let tar = programs::get("tar");
        let mut seen = 0;
        for line in help.lines() {
            let line = line.trim_start();
            let Some((short, long)) = line.split_once(", --") else { continue };
            let (Some(letter), Some(_)) =
                (short.strip_prefix('-').and_then(|l| l.chars().next()), long.split_once('='))
            else {
                continue;
            };
            let long = long.split_whitespace().next().unwrap_or_default();
            if short.len() != 2 || long.contains("[=") {
                continue;
            }
            seen += 1;
            let listed =
                [tar.value_letters, tar.output_letters, tar.reads_from.letters].iter().any(|l| l.contains(&letter));
            assert!(listed, "tar --help shows `{line}`: add -{letter} to tar's entry");
        }
        assert!(seen >= 10, "tar --help was not read:\n{help}");
    }
}
