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
use toolgate_shell::BashAnalysis;
use toolgate_shell::programs::{self, DirChange, Role};

use super::args::operands;

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
