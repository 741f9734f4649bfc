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
use toolgate_shell::programs::{self, DirChange, Operands, Options, Role, Walk};
use toolgate_shell::{BashAnalysis, FlagList, SimpleCommand, Strs, Text, flags_and_operands, is_read_only_command};

/// More directories than this after `cd`s and the command's relative paths count as unknown.
const MAX_BASES: usize = 8;

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
            let Role::ChangesDir(change) = programs::get(program).role else { continue };
            let operands = operands(cmd);
            let target = match (change, operands.as_slice()) {
                (DirChange::Pop, _) => None,
                (DirChange::Cd, []) => home.map(|h| h.to_string_lossy().into_owned()),
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

/// Adds to `out` the values of the options of `cmd` that name a file its program reads
/// ([`Program::reads_from`](toolgate_shell::programs::Program::reads_from): `-fFILE`,
/// `-f FILE`, `--file FILE`).
fn file_option_values<'c>(cmd: &'c SimpleCommand<'_>, out: &mut Strs<'c>) {
    let program = cmd.argv.first().map(|p| basename(p)).unwrap_or_default();
    let Options { letters, longs } = programs::get(program).reads_from;
    if letters.is_empty() && longs.is_empty() {
        return;
    }
    let mut args = cmd.argv.iter().skip(1).take(cmd.static_words.saturating_sub(1));
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if longs.contains(&long) {
                out.extend(args.next().map(|v| &**v));
            }
        } else if let Some(cluster) = arg.strip_prefix('-') {
            // The first letter that takes a value takes the rest of the word, or the next one.
            if let Some(at) = cluster.find(|c| letters.contains(&c)) {
                let rest = &cluster[at + 1..];
                if rest.is_empty() {
                    out.extend(args.next().map(|v| &**v));
                } else {
                    out.push(rest);
                }
            }
        }
    }
}

/// The values of `--name=VALUE` options of `cmd` that may name a file (static, not empty, no
/// glob), whatever the command: `wc --files0-from=.env` reads `.env` for the names it
/// lists, so the deny and ask path rules hold against such values as against operands.
pub(crate) fn option_values<'c>(cmd: &'c SimpleCommand<'_>) -> Strs<'c> {
    let mut out = Strs::new();
    file_option_values(cmd, &mut out);
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
    let entry = programs::get(program);
    let mut args = cmd.argv.iter().skip(1).map(|a| &**a);
    // tar's first word is its options even without a dash (`tar czf out.tgz src`).
    if entry.options_first
        && let Some(first) = cmd.argv.get(1).filter(|a| !a.starts_with('-'))
    {
        args.next();
        if first.contains(entry.output_letters()) {
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
            if OUTPUT_OPTIONS.contains(&name) || entry.output_longs.contains(&name) {
                match value {
                    Some(value) => out.push(value),
                    None => out.extend(args.next()),
                }
            }
        } else if let Some(prefix) = entry.output_operand {
            out.extend(arg.strip_prefix(prefix));
        } else if let Some(short) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            let letters = entry.output_letters();
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

/// Whether `word`, if a glob, may name a hidden entry (`.git` from `.g*` or `.gi?`): after
/// brace expansion, a component with a glob character that starts with `.`. (`{.git,x}` names
/// `.git` as written, which the protected-path check sees.)
pub(crate) fn glob_may_name_hidden(word: &str) -> bool {
    let Some(words) = expand_braces(word) else { return true };
    words.iter().any(|word| word.split('/').any(|part| part.starts_with('.') && part.contains(['*', '?', '['])))
}

pub(crate) use toolgate_shell::basename;

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
#[path = "bash_paths_tests.rs"]
mod tests;
