//! Where the path words of a Bash command lead: the directories a relative path may be
//! relative to after `cd`, which words are paths at all, and the paths hidden in the options
//! of the commands `acceptEdits` approves.
//!
//! Everything here fails closed: a word whose path is only known at run time (`$X`, `~user`,
//! a relative path after `cd -`) is reported as unknown, and the engine then never
//! auto-approves the command on its account.

use std::path::{Path, PathBuf};

use std::borrow::Cow;

use smallvec::{SmallVec, smallvec};

use crate::bash::{BashAnalysis, FlagList, SimpleCommand, Strs, Text, flags_and_operands, is_read_only_command};

/// More directories than this after `cd`s and the command's relative paths count as unknown.
const MAX_BASES: usize = 8;

/// Whether `program`, a read-only command, takes operands that are not files it reads (it
/// prints, computes or names things); every other read-only command's operands are checked
/// as reads. (Commands whose first operand is a pattern or script, not a file: `grep`,
/// `egrep`, `fgrep`, `rg`, `sed`, `fd`, `fdfind`, `jq`.)
fn is_not_paths(program: &str) -> bool {
    matches!(
        program,
        ":" | "["
            | "[["
            | "basename"
            | "cargo"
            | "command"
            | "date"
            | "dirname"
            | "docker"
            | "echo"
            | "env"
            | "false"
            | "free"
            | "groups"
            | "hostname"
            | "id"
            | "lsof"
            | "nproc"
            | "pgrep"
            | "printenv"
            | "printf"
            | "ps"
            | "pwd"
            | "seq"
            | "sleep"
            | "test"
            | "tr"
            | "true"
            | "type"
            | "uname"
            | "uptime"
            | "whereis"
            | "which"
            | "whoami"
            | "xargs"
    )
}

/// The paths one word may name: one per directory it may be relative to, or what a glob
/// matches.
pub(crate) type Targets = SmallVec<[PathBuf; 1]>;

/// The directories relative paths of one command string may be relative to.
#[derive(Debug)]
pub(crate) struct Bases<'a> {
    /// The working directory first, then every directory a `cd` or `pushd` may have moved
    /// to (each relative target joined to every directory before it).
    pub dirs: SmallVec<[Cow<'a, Path>; 2]>,
    /// Some `cd` went where the analysis cannot follow (`cd -`, `cd $X`, `popd`, too many).
    pub unknown: bool,
}

impl<'a> Bases<'a> {
    /// The bases of `analysis`, run in `cwd`. Commands are taken in the order listed, without
    /// regard to subshells: a `cd` inside `( )` still counts, which only adds directories.
    pub fn of(analysis: &BashAnalysis<'_>, cwd: &'a Path, home: Option<&Path>) -> Self {
        let mut bases = Bases { dirs: smallvec![Cow::Borrowed(cwd)], unknown: false };
        for cmd in &analysis.commands {
            let program = cmd.argv.first().map(|p| basename(p)).unwrap_or_default();
            if !matches!(program, "cd" | "pushd" | "popd") {
                continue;
            }
            let operands = operands(cmd);
            let target = match (program, operands.as_slice()) {
                ("popd", _) => None,
                ("cd", []) => home.map(|h| h.to_string_lossy().into_owned()),
                (_, [target]) if *target != "-" && !target.starts_with('+') => Some((*target).to_owned()),
                _ => None,
            };
            match target {
                Some(target) if is_static_path(&target, home) && !cmd.has_glob => {
                    let next: Vec<PathBuf> = bases.dirs.iter().map(|b| shell_path(b, &target, home)).collect();
                    for dir in next {
                        // By bytes: a base that differs only in spelling (`a//b`) is one more
                        // directory to check, never one missed.
                        if !bases.dirs.iter().any(|known| known.as_os_str() == dir.as_os_str()) {
                            bases.dirs.push(Cow::Owned(dir));
                        }
                    }
                    if bases.dirs.len() > MAX_BASES {
                        bases.unknown = true;
                    }
                }
                _ => bases.unknown = true,
            }
        }
        bases
    }

    /// Every absolute path `word` may name, one per base (just one for an absolute or
    /// home-relative word); `None` when it is only known at run time.
    pub fn paths(&self, word: &str, home: Option<&Path>) -> Option<Targets> {
        if !is_static_path(word, home) {
            return None;
        }
        if word.starts_with('/') || word.starts_with('~') {
            return Some(smallvec![shell_path(&self.dirs[0], word, home)]);
        }
        if self.unknown {
            return None;
        }
        Some(self.dirs.iter().map(|base| shell_path(base, word, home)).collect())
    }

    /// As [`Bases::paths`], for a word of a command with unquoted glob characters: braces
    /// expand first (`a{b,c}`, `{1..3}`), then a word with `*`, `?` or `[` names the entries
    /// it matches now, as bash would expand it (a leading `.` matched only explicitly; the
    /// word itself when nothing matches). `None` also for more than [`MAX_BRACE_WORDS`]
    /// words, a pattern over more than [`MAX_GLOB_ENTRIES`] entries, or a match named like an
    /// option (a file called `-R` turns `grep -rn x *` into `grep -rn x -R …`).
    pub fn glob_paths(&self, word: &str, home: Option<&Path>) -> Option<Targets> {
        if !word.contains(['*', '?', '[', '{']) {
            return self.paths(word, home);
        }
        let mut all = Targets::new();
        for word in expand_braces(word)? {
            let written = self.paths(&word, home)?;
            if !word.contains(['*', '?', '[']) {
                all.extend(written);
                continue;
            }
            for path in written {
                let matched = expand_glob(&path)?;
                // A match named like an option (`-R`, `--delete`) would reach the command as
                // one: what it does is then unknown.
                let option_like = |p: &PathBuf| p.file_name().is_some_and(|n| n.as_encoded_bytes().starts_with(b"-"));
                if !word.starts_with('-') && matched.iter().any(option_like) {
                    return None;
                }
                if matched.is_empty() {
                    all.push(path);
                } else {
                    all.extend(matched);
                }
            }
        }
        Some(all)
    }
}

/// How many words one brace expansion may give before it counts as unknown.
const MAX_BRACE_WORDS: usize = 256;

/// The words bash's brace expansion makes of `word`: comma lists (`a{b,c}d`), nested ones,
/// and sequences of integers or letters with an optional step (`{1..9..2}`, `{a..e}`); a
/// brace without a top-level comma or a valid sequence stays as written. `None` past
/// [`MAX_BRACE_WORDS`] words.
pub(crate) fn expand_braces(word: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    brace_words(word, &mut out)?;
    Some(out)
}

fn brace_words(word: &str, out: &mut Vec<String>) -> Option<()> {
    if out.len() > MAX_BRACE_WORDS {
        return None;
    }
    for (open, _) in word.match_indices('{') {
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        for (at, c) in word[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + at);
                        break;
                    }
                }
                ',' if depth == 1 => commas.push(open + at),
                _ => {}
            }
        }
        let Some(close) = close else { continue };
        let alternatives: Vec<String> = if commas.is_empty() {
            match sequence(&word[open + 1..close]) {
                Some(Some(items)) => items,
                Some(None) => return None,
                None => continue,
            }
        } else {
            let mut bounds = vec![open];
            bounds.extend(&commas);
            bounds.push(close);
            bounds.windows(2).map(|w| word[w[0] + 1..w[1]].to_owned()).collect()
        };
        if alternatives.len() > MAX_BRACE_WORDS {
            return None;
        }
        let (prefix, suffix) = (&word[..open], &word[close + 1..]);
        for alternative in alternatives {
            brace_words(&format!("{prefix}{alternative}{suffix}"), out)?;
        }
        return Some(());
    }
    out.push(word.to_owned());
    Some(())
}

/// The items of a brace sequence body (`1..5`, `a..e`, `10..1..3`): `None` if it is not
/// one, `Some(None)` if it has more than [`MAX_BRACE_WORDS`] items.
fn sequence(body: &str) -> Option<Option<Vec<String>>> {
    let parts: Vec<&str> = body.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [from, to] => (*from, *to, 1i64),
        [from, to, step] => (*from, *to, step.parse::<i64>().ok()?.checked_abs()?.max(1)),
        _ => return None,
    };
    let span = |a: i64, b: i64| -> Option<Vec<i64>> {
        let count = a.abs_diff(b) / step.unsigned_abs() + 1;
        if count > MAX_BRACE_WORDS as u64 {
            return None;
        }
        let stride = if b >= a { step } else { -step };
        (0..count).map(|i| stride.checked_mul(i64::try_from(i).ok()?).and_then(|d| a.checked_add(d))).collect()
    };
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        return Some(span(a, b).map(|items| items.into_iter().map(|n| n.to_string()).collect()));
    }
    let letter = |s: &str| {
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => Some(c),
            _ => None,
        }
    };
    let (a, b) = (letter(from)?, letter(to)?);
    let items = span(i64::from(u32::from(a)), i64::from(u32::from(b)));
    Some(items.map(|items| {
        items.into_iter().filter_map(|n| u32::try_from(n).ok().and_then(char::from_u32)).map(String::from).collect()
    }))
}

/// How many directory entries one glob may look at before it counts as unknown.
const MAX_GLOB_ENTRIES: usize = 10_000;

/// The paths an absolute glob `pattern` matches now, component by component as bash expands
/// it (no `globstar`, no `dotglob`, no `extglob`); `None` when a component is not a valid
/// pattern or the listing grows past [`MAX_GLOB_ENTRIES`].
fn expand_glob(pattern: &Path) -> Option<Vec<PathBuf>> {
    let text = pattern.to_str()?;
    let mut current = vec![PathBuf::from("/")];
    let mut looked = 0usize;
    for part in text.split('/').filter(|part| !part.is_empty()) {
        if !part.contains(['*', '?', '[']) {
            for path in &mut current {
                path.push(part);
            }
            continue;
        }
        // Compiled once a directory to match in exists (compiling costs more than a listing).
        let mut matcher = None;
        let mut next = Vec::new();
        for dir in &current {
            let Ok(entries) = std::fs::read_dir(dir) else { continue };
            if matcher.is_none() {
                let glob = globset::GlobBuilder::new(part).literal_separator(true).backslash_escape(true).build();
                matcher = Some(glob.ok()?.compile_matcher());
            }
            let matcher = matcher.as_ref()?;
            for entry in entries.flatten() {
                looked += 1;
                if looked > MAX_GLOB_ENTRIES {
                    return None;
                }
                let name = entry.file_name();
                let name = name.to_str()?;
                if name.starts_with('.') && !part.starts_with('.') {
                    continue;
                }
                if matcher.is_match(name) {
                    next.push(dir.join(name));
                }
            }
        }
        current = next;
        if current.is_empty() {
            break;
        }
    }
    Some(current)
}

/// Whether `word` names a path known before the command runs: no expansion, and a leading
/// `~` only as `~` or `~/…` with a known home (`~user`, `~+`, `~-` and `~N` depend on the
/// system and the shell's state).
pub(crate) fn is_static_path(word: &str, home: Option<&Path>) -> bool {
    if word.contains('$') || word.contains('`') {
        return false;
    }
    match word.strip_prefix('~') {
        Some(rest) => home.is_some() && (rest.is_empty() || rest.starts_with('/')),
        None => true,
    }
}

/// The words of a read-only command that are files it reads, or `None` when its operands
/// are not files. `find` reads its starting points only; a pattern-first command skips its
/// pattern unless `-e`/`-f` gave it; of `git`, only `git diff` names files (a path outside
/// the repository turns it into `git diff --no-index`, which prints any file).
pub(crate) fn read_operands<'c>(cmd: &'c SimpleCommand<'_>, program: &str) -> Option<Strs<'c>> {
    if is_not_paths(program) {
        return None;
    }
    if program == "git" {
        let sub = cmd.argv.iter().skip(1).position(|a| !a.starts_with('-'))? + 1;
        if cmd.argv[sub] != "diff" {
            return None;
        }
        return Some(operands_of(&cmd.argv[sub + 1..]));
    }
    // grep and rg: their flags' values are not files, and `-e` gives the pattern.
    if matches!(program, "grep" | "egrep" | "fgrep" | "rg")
        && let Some((flags, mut args)) = flags_and_operands(program, cmd.argv.get(1..).unwrap_or_default())
    {
        let pattern_given = flags.iter().any(|(f, _)| matches!(*f, "-e" | "--regexp" | "-f" | "--file"));
        if !pattern_given && !args.is_empty() {
            args.remove(0);
        }
        return Some(args);
    }
    let mut args = operands(cmd);
    if program == "find" {
        return Some(find_start_points(&cmd.argv).into_iter().map(|(_, start)| start).collect());
    }
    if matches!(program, "grep" | "egrep" | "fgrep" | "rg" | "sed" | "fd" | "fdfind" | "jq")
        && !cmd.argv.iter().any(|a| a == "-e" || a == "-f")
        && !args.is_empty()
    {
        args.remove(0);
    }
    Some(args)
}

/// The folder an unquoted glob word lists to match its first pattern component: the
/// word up to the `/` before the component with the first `*`, `?` or `[` (`~/.ss?/id_*`
/// lists `~`, `/etc/*` lists `/etc`, `*.rs` lists `.`, `/*` lists `/`).
pub(crate) fn glob_folder(word: &str) -> &str {
    let first = word.find(['*', '?', '[']).unwrap_or(word.len());
    match word[..first].rfind('/') {
        Some(0) => "/",
        Some(slash) => &word[..slash],
        None => ".",
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
    if !matches!(program, "grep" | "egrep" | "fgrep" | "rg" | "diff") {
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
    let (recursive, filtered) = match program {
        "grep" | "egrep" | "fgrep" => {
            (short(&['r', 'R']) || flags.iter().any(|(f, v)| *f == "-d" && *v == Some("recurse")), false)
        }
        // Globs and types override ripgrep's filters (`-g .env` searches `.env`).
        "rg" => (
            true,
            !(short(&['.', 'u', 'g', 't', 'T'])
                || options.iter().any(|o| matches!(*o, "--iglob" | "--type-add") || o.starts_with("--no-ignore"))),
        ),
        "diff" => (short(&['r']), false),
        _ => (false, false),
    };
    if !recursive {
        return None;
    }
    let mut roots = read_operands(cmd, program).unwrap_or_default();
    if roots.is_empty() && program != "diff" {
        roots.push(".");
    }
    Some(Recursion { roots, filtered })
}

/// How many entries a recursive read's folders may hold before they count as unknown.
pub(crate) const MAX_WALKED: usize = 20_000;

/// Every entry below `root` that a recursive read reaches (links not followed; hidden and
/// ignored entries skipped when `filtered`), or `None` past `limit` entries.
pub(crate) fn walk_below(root: &Path, filtered: bool, limit: usize) -> Option<Vec<PathBuf>> {
    let walk = ignore::WalkBuilder::new(root).standard_filters(filtered).follow_links(false).build();
    let mut out = Vec::new();
    for entry in walk.flatten() {
        if out.len() >= limit {
            return None;
        }
        out.push(entry.into_path());
    }
    Some(out)
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

/// The values of `--name=VALUE` options of `cmd` that may name a file (static, not empty, no
/// glob), whatever the command: `wc --files0-from=.env` reads `.env` for the names it
/// lists, so the deny and ask path rules hold against such values as against operands.
pub(crate) fn option_values<'c>(cmd: &'c SimpleCommand<'_>) -> Strs<'c> {
    let mut out = Strs::new();
    for arg in cmd.argv.iter().skip(1).take(cmd.static_words.saturating_sub(1)) {
        if arg == "--" {
            break;
        }
        if let Some((_, value)) = arg.strip_prefix("--").and_then(|long| long.split_once('='))
            && !value.is_empty()
            && !value.contains(['*', '?', '['])
        {
            out.push(value);
        }
    }
    out
}

/// How many of `args` (git's arguments) are global options before the subcommand
/// (`--no-pager`, `-P`, `-C DIR`, `-c k=v`, `--git-dir=DIR` …).
pub(crate) fn git_global_options(args: &[Text<'_>]) -> usize {
    const WITH_VALUE: &[&str] =
        &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"];
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        if !arg.starts_with('-') || arg == "--" {
            break;
        }
        at += if WITH_VALUE.contains(&&**arg) { 2 } else { 1 };
    }
    at.min(args.len())
}

/// The paths of a repository whose content a `git` command prints: `REV:PATH` objects
/// (`git show :.env`, `git cat-file -p HEAD:secrets/key`), and the pathspecs after `--` of
/// the commands that print history (`git log -p -- .env`), taken from the working directory.
pub(crate) fn git_content_paths<'c>(cmd: &'c SimpleCommand<'_>) -> Strs<'c> {
    let mut out = Strs::new();
    let args = cmd.argv.get(1..cmd.static_words.max(1)).unwrap_or_default();
    let sub = git_global_options(args);
    if sub >= args.len() {
        return out;
    }
    if !matches!(
        &*args[sub],
        "show" | "log" | "blame" | "annotate" | "whatchanged" | "cat-file" | "grep" | "archive" | "diff" | "difftool"
    ) {
        return out;
    }
    let mut pathspecs = false;
    for arg in &args[sub + 1..] {
        if pathspecs {
            out.push(&**arg);
        } else if arg == "--" {
            pathspecs = !matches!(&*args[sub], "grep" | "diff");
        } else if !arg.starts_with('-')
            && let Some((rev, path)) = arg.split_once(':')
            && !rev.contains('/')
            && !path.is_empty()
        {
            out.push(path.trim_start_matches("./"));
        }
    }
    out
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

/// The paths the options of `cmd` send output to: `-o F` or `-oF` (`sort`, `curl`, `cc`,
/// `git format-patch`), the long options of [`OUTPUT_OPTIONS`] (`--output=F`, `--output F`),
/// `wget -O F` and `-P DIR`, `tar`'s archive (`-cf F`, `czf F`, `--file=F`) and `dd of=F`.
/// A value that is not a path is harmless here: it is only ever looked up.
pub(crate) fn output_paths<'c>(cmd: &'c SimpleCommand<'_>, program: &str) -> Strs<'c> {
    let mut out = Strs::new();
    let mut args = cmd.argv.iter().skip(1).map(|a| &**a);
    // tar's first word is its options even without a dash (`tar czf out.tgz src`).
    if program == "tar"
        && let Some(first) = cmd.argv.get(1).filter(|a| !a.starts_with('-'))
    {
        args.next();
        if first.contains('f') {
            out.extend(args.next());
        }
    }
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            if OUTPUT_OPTIONS.contains(&name) || (program == "tar" && name == "file") {
                match value {
                    Some(value) => out.push(value),
                    None => out.extend(args.next()),
                }
            }
        } else if program == "dd" {
            out.extend(arg.strip_prefix("of="));
        } else if let Some(short) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            let letters: &[char] = match program {
                "wget" => &['o', 'O', 'P'],
                "tar" => &['f'],
                _ => &['o'],
            };
            // The first letter that takes a value takes the rest of the word, or the next.
            if let Some(at) = short.find(letters) {
                let rest = &short[at + 1..];
                if rest.is_empty() { out.extend(args.next()) } else { out.push(rest) }
            }
        }
    }
    out
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
    let program = cmd.argv.first().map(|p| basename(p)).unwrap_or_default();
    let mut args = cmd.argv.iter().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = long.split_once('=').unwrap_or((long, ""));
            match (program, name) {
                (_, "target-directory") if !value.is_empty() => out.push(value.to_owned()),
                ("mv" | "cp", "no-target-directory") => return None,
                ("mv" | "cp", "suffix") | ("sed", "in-place") if !value.is_empty() => suffixes.push(value),
                ("mv" | "cp", "suffix") => suffixes.push(args.next()?),
                _ if value.contains('/') => return None,
                _ => {}
            }
        } else if let Some(short) = arg.strip_prefix('-') {
            // A cluster: the first letter that takes a value takes the rest of the word (or
            // the next word).
            for (at, letter) in short.char_indices() {
                let rest = &short[at + letter.len_utf8()..];
                match (program, letter) {
                    ("mv" | "cp", 'T') => return None,
                    ("mv" | "cp", 't') if !rest.is_empty() => out.push(rest.to_owned()),
                    ("mv" | "cp", 'S') if !rest.is_empty() => suffixes.push(rest),
                    ("mv" | "cp", 'S') => suffixes.push(args.next()?),
                    ("sed", 'i') if !rest.is_empty() => suffixes.push(rest),
                    ("mv" | "cp", 't') | ("sed", 'i' | 'e' | 'f' | 'l') | ("mkdir", 'm') => {}
                    _ => continue,
                }
                break;
            }
        }
    }
    if suffixes.iter().any(|s| s.contains('/')) {
        return None;
    }
    let operands = match program {
        "sed" => read_operands(cmd, "sed").unwrap_or_default(),
        _ => operands(cmd),
    };
    if matches!(program, "mv" | "cp") {
        let sources = operands.len().saturating_sub(1);
        let contents = |op: &&str| matches!(op.trim_end_matches('/').rsplit('/').next(), Some("." | ".."));
        if operands[..sources].iter().any(contents) {
            return None;
        }
    }
    for suffix in suffixes {
        for operand in &operands {
            out.push(backup_name(operand, suffix, program == "sed"));
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

/// Whether `word`, if a glob, may name a hidden entry (`.git` from `.g*` or `.gi?`): after
/// brace expansion, a component with a glob character that starts with `.`. (`{.git,x}` names
/// `.git` as written, which the protected-path check sees.)
pub(crate) fn glob_may_name_hidden(word: &str) -> bool {
    let Some(words) = expand_braces(word) else { return true };
    words.iter().any(|word| word.split('/').any(|part| part.starts_with('.') && part.contains(['*', '?', '['])))
}

pub(crate) use crate::bash::basename;

/// The absolute path a shell word names, as the shell would open it: `~/` expanded, relative
/// to `cwd`, `..` left for the resolver (after a symlink it leaves the target, not the link).
pub(crate) fn shell_path(cwd: &Path, word: &str, home: Option<&Path>) -> PathBuf {
    let path = expand_tilde(word, home);
    if path.is_absolute() {
        return path.into_owned();
    }
    // `cwd/word` (what `Path::join` gives, in one allocation).
    let (cwd, word) = (cwd.as_os_str(), path.as_os_str());
    let mut joined = std::ffi::OsString::with_capacity(cwd.len() + 1 + word.len());
    joined.push(cwd);
    if !cwd.as_encoded_bytes().ends_with(b"/") {
        joined.push("/");
    }
    joined.push(word);
    PathBuf::from(joined)
}

fn expand_tilde<'a>(path: &'a str, home: Option<&Path>) -> Cow<'a, Path> {
    match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => Cow::Owned(home.join(rest)),
        _ if path == "~" => home.map_or(Cow::Borrowed(Path::new(path)), |h| Cow::Owned(h.to_path_buf())),
        _ => Cow::Borrowed(Path::new(path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bash::analyze;

    fn first(src: &str) -> SimpleCommand<'_> {
        analyze(src).commands.remove(0)
    }

    #[test]
    fn bases_follow_cd_and_give_up_where_it_cannot() {
        let home = Some(Path::new("/h"));
        let cwd = Path::new("/r");
        let dirs = |src: &str| {
            let bases = Bases::of(&analyze(src), cwd, home);
            (bases.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>(), bases.unknown)
        };
        assert_eq!(dirs("cat a"), (vec!["/r".to_owned()], false));
        assert_eq!(dirs("cd /etc && cat shadow"), (vec!["/r".to_owned(), "/etc".to_owned()], false));
        assert_eq!(
            dirs("cd sub && cd .. && cat x"),
            (vec!["/r".to_owned(), "/r/sub".to_owned(), "/r/..".to_owned(), "/r/sub/..".to_owned()], false)
        );
        assert_eq!(dirs("cd && cat .bashrc"), (vec!["/r".to_owned(), "/h".to_owned()], false));
        assert_eq!(dirs("(cd /tmp); cat x").0, ["/r", "/tmp"]);
        for unknown in ["cd - && cat x", "cd $D && cat x", "cd ~root && cat x", "pushd +1", "popd; cat x", "cd a*"] {
            assert!(dirs(unknown).1, "{unknown}");
        }
        let many = (0..10).map(|i| format!("cd d{i}")).collect::<Vec<_>>().join(" && ");
        assert!(dirs(&many).1);
    }

    #[test]
    fn paths_of_words() {
        let home = Some(Path::new("/h"));
        let bases = Bases::of(&analyze("cd /etc; cat x"), Path::new("/r"), home);
        let shown = |word: &str| {
            bases.paths(word, home).map(|ps| ps.iter().map(|p| p.display().to_string()).collect::<Vec<_>>())
        };
        assert_eq!(shown("shadow"), Some(vec!["/r/shadow".to_owned(), "/etc/shadow".to_owned()]));
        assert_eq!(shown("/x"), Some(vec!["/x".to_owned()]));
        assert_eq!(shown("~/.ssh/id_rsa"), Some(vec!["/h/.ssh/id_rsa".to_owned()]));
        for unknown in ["~root/.ssh/id_rsa", "~+/.env", "~-", "~1", "$HOME/x", "a`b`"] {
            assert_eq!(shown(unknown), None, "{unknown}");
        }
        assert!(!is_static_path("~/x", None));
    }

    #[test]
    fn globs_name_what_they_match_now() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        for file in [".env", "a.md", "b.md", "src/lib.rs"] {
            std::fs::write(root.join(file), "x").unwrap();
        }
        std::os::unix::fs::symlink("/etc", root.join("etclink")).unwrap();
        let bases = Bases::of(&analyze("true"), &root, None);
        let names = |word: &str| {
            bases.glob_paths(word, None).map(|paths| {
                let mut names: Vec<String> =
                    paths.iter().map(|p| p.strip_prefix(&root).unwrap_or(p).display().to_string()).collect();
                names.sort();
                names
            })
        };
        assert_eq!(names("*.md").unwrap(), ["a.md", "b.md"]);
        assert_eq!(names(".e*").unwrap(), [".env"]);
        assert_eq!(names(".en?").unwrap(), [".env"]);
        assert_eq!(names(".en[v]").unwrap(), [".env"]);
        assert_eq!(names("*").unwrap(), ["a.md", "b.md", "etclink", "src"]);
        assert_eq!(names("s*/*.rs").unwrap(), ["src/lib.rs"]);
        assert_eq!(names("etc*/passwd").unwrap(), ["etclink/passwd"]);
        assert_eq!(names("*.none").unwrap(), ["*.none"]);
        assert_eq!(names("plain").unwrap(), ["plain"]);
        std::fs::write(root.join("-R"), "x").unwrap();
        assert_eq!(names("*"), None);
        assert_eq!(names("*.md").unwrap(), ["a.md", "b.md"]);
        assert_eq!(names("{.env,x}").unwrap(), [".env", "x"]);
        assert_eq!(names("*.{md,rs}").unwrap(), ["*.rs", "a.md", "b.md"]);
        assert_eq!(names("{src,none}/*.rs").unwrap(), ["none/*.rs", "src/lib.rs"]);
    }

    #[test]
    fn braces_expand_as_bash_expands_them() {
        let words = |w: &str| expand_braces(w).unwrap();
        assert_eq!(words("a{b,c}d"), ["abd", "acd"]);
        assert_eq!(words("file{,.bak}"), ["file", "file.bak"]);
        assert_eq!(words("{a,b{1,2}}x"), ["ax", "b1x", "b2x"]);
        assert_eq!(words("{x,y}{1,2}"), ["x1", "x2", "y1", "y2"]);
        assert_eq!(words("f{1..3}"), ["f1", "f2", "f3"]);
        assert_eq!(words("{5..1..2}"), ["5", "3", "1"]);
        assert_eq!(words("{a..c}"), ["a", "b", "c"]);
        for literal in ["{}", "{a}", "a{b", "b}c", "{a..}", "{1..b}", "{a..bb}"] {
            assert_eq!(words(literal), [literal], "{literal}");
        }
        assert_eq!(expand_braces("{1..100000}"), None);
        assert_eq!(expand_braces("{-9223372036854775808..9223372036854775807..9223372036854775807}"), None);
        assert_eq!(expand_braces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"), None);
    }

    #[test]
    fn recursive_reads_and_what_they_skip() {
        let rec = |src: &str| {
            let cmd = first(src);
            let program = basename(&cmd.argv[0]).to_owned();
            recursion(&cmd, &program).map(|r| (r.roots.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(), r.filtered))
        };
        assert_eq!(rec("grep -rn TODO"), Some((vec![".".to_owned()], false)));
        assert_eq!(rec("grep -n -r TODO src"), Some((vec!["src".to_owned()], false)));
        assert_eq!(rec("grep -d recurse x ."), Some((vec![".".to_owned()], false)));
        assert_eq!(rec("grep TODO a.txt"), None);
        assert_eq!(rec("rg TODO"), Some((vec![".".to_owned()], true)));
        assert_eq!(rec("rg --hidden TODO src"), Some((vec!["src".to_owned()], false)));
        assert_eq!(rec("rg -uu TODO"), Some((vec![".".to_owned()], false)));
        assert_eq!(rec("rg -t rust TODO"), Some((vec![".".to_owned()], false)));
        assert_eq!(rec("rg -e TODO"), Some((vec![".".to_owned()], true)));
        assert_eq!(rec("rg --max-depth 5 TODO src"), Some((vec!["src".to_owned()], true)));
        assert_eq!(rec("rg -g .env KEY"), Some((vec![".".to_owned()], false)));
        assert_eq!(rec("grep -r -e KEY"), Some((vec![".".to_owned()], false)));
        assert_eq!(rec("diff -r a b"), Some((vec!["a".to_owned(), "b".to_owned()], false)));
        assert_eq!(rec("diff a b"), None);
        // Each option by the one name the table's reading gives it.
        assert_eq!(rec("diff --recursiv --no-dereference a b"), Some((vec!["a".to_owned(), "b".to_owned()], false)));
        assert_eq!(rec("grep --recursiv x ."), Some((vec![".".to_owned()], false)));
        assert_eq!(rec("grep --dir rec x src"), Some((vec!["src".to_owned()], false)));
        assert_eq!(rec("grep -drecu x"), Some((vec![".".to_owned()], false)));
        assert_eq!(rec("grep -d skip x ."), None);
        assert_eq!(rec("rg --unrestricted x"), Some((vec![".".to_owned()], false)));
    }

    #[test]
    fn walks_stop_at_their_bound_and_skip_what_ripgrep_skips() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        // (ripgrep reads `.gitignore` only inside a git repository.)
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".env"), "x").unwrap();
        std::fs::write(root.join("src/a.rs"), "x").unwrap();
        std::fs::write(root.join(".gitignore"), "src/\n").unwrap();
        let names = |filtered: bool| {
            let mut names: Vec<String> = walk_below(root, filtered, MAX_WALKED)
                .unwrap()
                .iter()
                .map(|p| p.strip_prefix(root).unwrap().display().to_string())
                .collect();
            names.sort();
            names
        };
        assert_eq!(names(false), ["", ".env", ".git", ".gitignore", "src", "src/a.rs"]);
        assert_eq!(names(true), [""]);
        assert_eq!(walk_below(root, false, 6).map(|all| all.len()), Some(6));
        assert_eq!(walk_below(root, false, 5), None);
    }

    #[test]
    fn read_operands_skip_patterns_and_find_expressions() {
        let ops = |src: &str| {
            let cmd = first(src);
            let program = basename(&cmd.argv[0]).to_owned();
            read_operands(&cmd, &program).map(|v| v.into_iter().map(str::to_owned).collect::<Vec<_>>())
        };
        assert_eq!(ops("paste a /etc/shadow"), Some(vec!["a".to_owned(), "/etc/shadow".to_owned()]));
        assert_eq!(ops("grep -rn TODO src"), Some(vec!["src".to_owned()]));
        assert_eq!(ops("grep -e TODO src"), Some(vec!["src".to_owned()]));
        assert_eq!(ops("rg -t rust TODO src"), Some(vec!["src".to_owned()]));
        assert_eq!(ops("find / -name x"), Some(vec!["/".to_owned()]));
        assert_eq!(ops("find -L . -newer /etc/x"), Some(vec![".".to_owned()]));
        assert_eq!(ops("find -P -- ~"), Some(vec!["~".to_owned()]));
        assert_eq!(ops("find -O3 -D tree /etc -name x"), Some(vec!["/etc".to_owned()]));
        assert_eq!(ops("find -H -name x"), Some(vec![".".to_owned()]));
        for (word, folder) in
            [("~/.ss?/id_*", "~"), ("/etc/*", "/etc"), ("*.rs", "."), ("/*", "/"), ("src/a/*.rs", "src/a")]
        {
            assert_eq!(glob_folder(word), folder, "{word}");
        }
        assert_eq!(ops("fd pattern /"), Some(vec!["/".to_owned()]));
        assert_eq!(ops("echo /etc/shadow"), None);
        assert_eq!(ops("git log -- /etc"), None);
        assert_eq!(ops("git status"), None);
        assert_eq!(ops("git diff HEAD~1 -- src/lib.rs"), Some(vec!["HEAD~1".to_owned(), "src/lib.rs".to_owned()]));
        assert_eq!(ops("git diff --stat src/a.rs /etc/passwd").unwrap()[1], "/etc/passwd");
        assert_eq!(ops("jq -R . /etc/shadow"), Some(vec!["/etc/shadow".to_owned()]));
    }

    #[test]
    fn option_values_and_git_content_paths() {
        let values = |src: &str| option_values(&first(src)).join(" ");
        assert_eq!(values("wc --files0-from=.env -l"), ".env");
        assert_eq!(values("git log --format=%H --since= -- --x=y"), "%H");
        assert_eq!(values("grep --include=*.rs -r x ."), "");
        assert_eq!(values("ls --color=$C"), "");
        let git = |src: &str| git_content_paths(&first(src)).join(" ");
        assert_eq!(git("git show :.env HEAD:./src/a.rs"), ".env src/a.rs");
        assert_eq!(git("git -C sub cat-file -p v1:secrets/k"), "secrets/k");
        assert_eq!(git("git log -p -- .env src"), ".env src");
        assert_eq!(git("git show origin/main:x"), "");
        assert_eq!(git("git diff -- a"), "");
        assert_eq!(git("git push origin HEAD:main"), "");
    }

    #[test]
    fn output_paths_are_the_values_of_output_options() {
        let paths = |src: &str| {
            let cmd = first(src);
            let program = basename(&cmd.argv[0]).to_owned();
            output_paths(&cmd, &program).join(" ")
        };
        let cases = [
            ("git log --output=.git/hooks/pre-commit", ".git/hooks/pre-commit"),
            ("git log --output out.txt -p", "out.txt"),
            ("git format-patch -o patches HEAD~2", "patches"),
            ("sort -oout.txt in.txt", "out.txt"),
            ("sort -ro out.txt in.txt", "out.txt"),
            ("curl -sSL --output-dir d -O https://x/y", "d"),
            ("go build -o bin/app ./cmd", "bin/app"),
            ("wget -qO ~/.bashrc https://x", "~/.bashrc"),
            ("wget -P downloads https://x", "downloads"),
            ("tar czf out.tgz src", "out.tgz"),
            ("tar -c -f out.tar src", "out.tar"),
            ("tar -xzvf in.tgz", "in.tgz"),
            ("tar --file=a.tar -c src", "a.tar"),
            ("dd if=/dev/zero of=disk.img bs=1M", "disk.img"),
            // Options that do not name outputs, and what follows `--`.
            ("cargo build --release -p core", ""),
            ("rm -f a b", ""),
            ("tar cz src", ""),
            ("npm test -- -o x", ""),
        ];
        for (src, want) in cases {
            assert_eq!(paths(src), want, "{src}");
        }
    }

    #[test]
    fn option_paths_of_accept_edits_commands() {
        let paths = |src: &str| option_paths(&first(src)).map(|v| v.join(" "));
        assert_eq!(paths("mv --target-directory=.git/hooks x").as_deref(), Some(".git/hooks"));
        assert_eq!(paths("cp -t/tmp x").as_deref(), Some("/tmp"));
        assert_eq!(paths("cp -vt/tmp x").as_deref(), Some("/tmp"));
        assert_eq!(paths("cp -t dir x").as_deref(), Some(""));
        assert_eq!(paths("mkdir -p -m755 a").as_deref(), Some(""));
        assert_eq!(paths("sed -i s/a/b/ f").as_deref(), Some(""));
        // Backups are writes too.
        assert_eq!(paths("sed -i.bak s/a/b/ f").as_deref(), Some("f.bak"));
        assert_eq!(paths("sed -i.json s/a/b/ .mcp").as_deref(), Some(".mcp.json"));
        assert_eq!(paths("sed -i'.mcp.jso*' s/a/b/ d/n").as_deref(), Some("d/.mcp.json"));
        // (`-e`'s script counts as an operand too: one backup more to check, never one less.)
        assert_eq!(paths("sed --in-place=rc -e s/a/b/ .bash").as_deref(), Some("s/a/b/rc .bashrc"));
        assert_eq!(paths("cp -b --suffix=rc a .bash").as_deref(), Some("arc .bashrc"));
        assert_eq!(paths("mv -S rc a .bash").as_deref(), Some("rcrc arc .bashrc"));
        assert_eq!(paths("cp -r src/. dest").as_deref(), None);
        assert_eq!(paths("cp -a vendor/pkg/./ .").as_deref(), None);
        assert_eq!(paths("cp -rT vendor/pkg .").as_deref(), None);
        assert_eq!(paths("cp -r src .").as_deref(), Some(""));
        for refused in [
            "sed -i'/root/.bash*' s/x/y/ rc",
            "sed --in-place=/root/x s/x/y/ rc",
            "sed -ni'.git/hooks/pre-*' p f",
            "cp --suffix=/x --backup a b",
            "mv -S/x a b",
        ] {
            assert_eq!(paths(refused), None, "{refused}");
        }
        // `-e` takes the rest of the word: the `i` is part of its script.
        assert_eq!(paths("sed -es/a/i/ f").as_deref(), Some(""));
    }

    #[test]
    fn globs_that_may_name_hidden_entries() {
        for hidden in [".g*", ".gi?", "{.g*,x}", "src/../.gi?", "a/{b,.c*}/d", ".*"] {
            assert!(glob_may_name_hidden(hidden), "{hidden}");
        }
        for plain in ["*.js", "dist/*.js", "src/?.rs", ".gitignore", "a/.b/c", "x[0-9]", "file{,.bak}", "{.git,x}"] {
            assert!(!glob_may_name_hidden(plain), "{plain}");
        }
    }

    #[test]
    fn sed_in_place_is_only_an_edit_of_its_operands() {
        for ok in ["sed -i s/a/b/g f", "sed -i.bak -e s/a/b/ f", "sed -Ei 's/a+/b/' f", "sed --in-place=.orig -n p f"] {
            assert!(sed_edits_only_operands(&first(ok)), "{ok}");
        }
        for refused in [
            "sed -i '1e rm -rf ~' f",
            "sed -i 's/a/b/e' x",
            "sed -i 'w .git/hooks/pre-commit' x",
            "sed -i 's/a/b/w /etc/x' x",
            "sed -ie 's/a/b/w out' x",
        ] {
            assert!(!sed_edits_only_operands(&first(refused)), "{refused}");
        }
    }
}
