//! What a `git` command prints of a repository's files, and where git takes each path from
//! (the folder it runs in, after `-C`, or the top of the repository), for the content layer to
//! hold to the Read rules (`Check::git_reads` in `bash/mod.rs`).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use smallvec::SmallVec;
use toolgate_shell::{SimpleCommand, Strs, git_global_options};

/// Where git takes a path it reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GitAnchor {
    /// The folder git runs in (the working directory, after `-C`): pathspecs, and `REV:./path`.
    Here,
    /// The top of the repository: `REV:path` and `:N:path`, a pathspec `:/path` or `:(top)path`.
    Top,
    /// A pathspec that is a pattern (`'*.env'`, `:(icase)x`), naming any file below the folder
    /// it is taken from (its literal leading folders, here).
    PatternHere,
    /// A pattern taken from the top of the repository (`:(top)*.env`, `:(icase)x`).
    PatternTop,
}

/// What a `git` command prints of a repository's files (see [`git_content_paths`]).
#[derive(Debug, Default)]
pub(crate) struct GitReads<'c> {
    /// The folders of `-C`, in order, each taken from the one before.
    pub dirs: Strs<'c>,
    /// `--git-dir`, `--work-tree` or a `GIT_DIR=`/`GIT_WORK_TREE=` assignment names the
    /// repository: its top is known only at run time.
    pub elsewhere: bool,
    /// The paths, each with where git takes it from.
    pub paths: Vec<(&'c str, GitAnchor)>,
}

/// The paths of a repository whose content a `git` command prints: `REV:PATH` objects of any
/// revision spelling and index stages (`git show :0:.env`, `refs/heads/main:.env`,
/// `git cat-file -p HEAD:secrets/key`), taken from the top of the repository unless they start
/// with `./` or `../`; the files of `log -L…:FILE`, the pathspecs after `--`, and, where a word
/// may be a revision or a path, every word that is not an option (`git blame .env`,
/// `git log -p .env`, `git grep x .env`), taken from the folder git runs in: a revision checked
/// as a path costs nothing, a path missed is a read past a deny rule.
///
/// ```text
/// git -C sub show HEAD:a/b   → dirs ["sub"], ("a/b", Top)
/// git log -p -- '*.env'      → ("*.env", PatternHere)
/// ```
pub(crate) fn git_content_paths<'c>(cmd: &'c SimpleCommand<'_>) -> GitReads<'c> {
    let mut out = GitReads::default();
    let args = cmd.argv.get(1..cmd.static_words.max(1)).unwrap_or_default();
    let sub = git_global_options(args);
    let Some(subcommand) = args.get(sub) else { return out };
    let prints = matches!(
        &**subcommand,
        "show" | "log" | "blame" | "annotate" | "whatchanged" | "cat-file" | "grep" | "archive" | "diff" | "difftool"
    );
    if !prints {
        return out;
    }
    git_repository_options(cmd, &args[..sub], &mut out);
    // `--icase-pathspecs` and `--glob-pathspecs` make every pathspec a pattern (`../.ENV`).
    let wide = args[..sub].iter().any(|a| matches!(&**a, "--icase-pathspecs" | "--glob-pathspecs"));
    let spec = |arg| if wide { ("", GitAnchor::PatternTop) } else { pathspec(arg) };
    // Words that are not options may be paths, except grep's pattern (its first such word).
    let mut pattern = &**subcommand == "grep";
    let mut pathspecs = false;
    let mut words = args[sub + 1..].iter().map(|arg| &**arg);
    while let Some(arg) = words.next() {
        if pathspecs {
            out.paths.push(spec(arg));
        } else if arg == "--" {
            pathspecs = true;
        } else if let Some(range) = arg.strip_prefix("-L") {
            // `-L1,9:FILE`, `-L:func:FILE`, `-L 1,9:FILE`: the file after the last colon.
            let range = if range.is_empty() { words.next().unwrap_or_default() } else { range };
            if let Some((_, file)) = range.rsplit_once(':')
                && !file.is_empty()
            {
                out.paths.push((file, GitAnchor::Here));
            }
        } else if arg.starts_with('-') {
            // grep's `-f FILE` (`-fFILE`, `--file=FILE`) reads its patterns from FILE; `-e`
            // gives the pattern.
            let file = match arg {
                "-f" | "--file" => words.next(),
                _ => arg.strip_prefix("--file=").or_else(|| arg.strip_prefix("-f").filter(|f| !f.is_empty())),
            };
            if let Some(file) = file {
                pattern = false;
                out.paths.push((file, GitAnchor::Here));
            } else if matches!(arg, "-e" | "--regexp") {
                pattern = false;
                words.next();
            }
        } else if let Some((_, path)) = revision_and_path(arg) {
            // `:N:PATH` is a stage of the index.
            let path = match path.split_once(':') {
                Some((stage, rest)) if arg.starts_with(':') && matches!(stage, "0" | "1" | "2" | "3") => rest,
                _ => path,
            };
            if !path.is_empty() {
                let relative = path.starts_with("./") || path.starts_with("../") || path == "." || path == "..";
                out.paths.push((path, if relative { GitAnchor::Here } else { GitAnchor::Top }));
            }
            // `:(top)x`, `:/x`: a word that may be a revision may be a pathspec too.
            if arg.starts_with(":(") || arg.starts_with(":!") || arg.starts_with(":^") {
                out.paths.push(spec(arg));
            }
        } else if !std::mem::take(&mut pattern) {
            out.paths.push(spec(arg));
        }
    }
    out
}

/// `REV:PATH` split at the colon git splits it at: the first outside braces (`HEAD^{/fix:}:a`
/// and `HEAD@{2 days ago}:a` name `a`); `None` without one.
fn revision_and_path(word: &str) -> Option<(&str, &str)> {
    let mut depth = 0usize;
    for (at, c) in word.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => return Some((&word[..at], &word[at + 1..])),
            _ => {}
        }
    }
    None
}

/// The `-C` folders of git's global options `globals`, and whether the repository is named
/// elsewhere (`--git-dir`, `--work-tree`, `GIT_DIR=`, `GIT_WORK_TREE=`).
fn git_repository_options<'c>(cmd: &'c SimpleCommand<'_>, globals: &'c [Cow<'_, str>], out: &mut GitReads<'c>) {
    let mut at = 0;
    while let Some(arg) = globals.get(at) {
        let value = globals.get(at + 1).map(|v| &**v);
        match &**arg {
            "-C" => out.dirs.extend(value),
            "--git-dir" | "--work-tree" => out.elsewhere = true,
            other if other.starts_with("--git-dir=") || other.starts_with("--work-tree=") => out.elsewhere = true,
            _ => {}
        }
        at += if toolgate_shell::git_takes_value(arg) { 2 } else { 1 };
    }
    if cmd.assignments.iter().any(|(name, _)| matches!(&**name, "GIT_DIR" | "GIT_WORK_TREE" | "GIT_COMMON_DIR")) {
        out.elsewhere = true;
    }
}

/// A pathspec and where git takes it from: its magic (`:/`, `:(top)`, `:(literal)`, others)
/// read, and a pattern where it has glob characters (git matches pathspecs as patterns); magic
/// that widens it (`icase`, `exclude`, `attr`) makes it a pattern over the whole repository.
fn pathspec(spec: &str) -> (&str, GitAnchor) {
    let (top, literal, wide, rest) = if let Some(rest) = spec.strip_prefix(":(") {
        let Some((magic, rest)) = rest.split_once(')') else { return (spec, GitAnchor::PatternTop) };
        let words: Vec<&str> = magic.split(',').map(str::trim).collect();
        let top = words.contains(&"top");
        let literal = words.contains(&"literal");
        let wide = words.iter().any(|w| !matches!(*w, "top" | "literal" | "glob"));
        (top, literal, wide, rest)
    } else if let Some(rest) = spec.strip_prefix(":/") {
        (true, false, false, rest)
    } else if spec.starts_with(":!") || spec.starts_with(":^") || spec.starts_with(':') {
        // An exclusion (or magic git may learn later): what it leaves may be any file.
        return ("", GitAnchor::PatternTop);
    } else {
        (false, false, false, spec)
    };
    if wide {
        // `icase` matches `.ENV` for `.env`, `exclude` leaves any file: the whole repository.
        return ("", GitAnchor::PatternTop);
    }
    // git matches pathspecs with fnmatch, where `\\` quotes a character (`.\\env` is `.env`).
    let pattern = !literal && rest.contains(['*', '?', '[', '\\']);
    let anchor = match (top, pattern) {
        (true, true) => GitAnchor::PatternTop,
        (true, false) => GitAnchor::Top,
        (false, true) => GitAnchor::PatternHere,
        (false, false) => GitAnchor::Here,
    };
    // A pattern is judged on the folders before its first glob character.
    (if pattern { literal_folders(rest) } else { rest }, anchor)
}

/// The tops of the repositories git may find from `dir`: the nearest folder above it, or it,
/// holding a `.git`, and the nearest holding a valid one, looked for from `dir` as written and
/// with its links followed (git starts from the real folder); `dir` itself where none is
/// found (git then reads nothing).
pub(crate) fn repository_tops(dir: &Path) -> SmallVec<[PathBuf; 2]> {
    // git stops at a `.git` that is a repository (a folder with `HEAD`, or a `gitdir:` file)
    // and walks past one that is not; both are candidates here, so neither reading is missed.
    let any = |d: &Path| d.join(".git").symlink_metadata().is_ok();
    let valid = |d: &Path| {
        let dot_git = d.join(".git");
        dot_git.join("HEAD").is_file() || std::fs::read(&dot_git).is_ok_and(|text| text.starts_with(b"gitdir:"))
    };
    let mut tops: SmallVec<[PathBuf; 2]> = SmallVec::new();
    let real = std::fs::canonicalize(dir).ok();
    for start in std::iter::once(dir).chain(real.as_deref()) {
        for found in [start.ancestors().find(|d| any(d)), start.ancestors().find(|d| valid(d))].into_iter().flatten() {
            if !tops.iter().any(|t| t == found) {
                tops.push(found.to_path_buf());
            }
        }
    }
    if tops.is_empty() {
        tops.push(dir.to_path_buf());
    }
    tops
}

/// The leading folders of a pattern that hold no glob character (`src/a` of `src/a/*.rs`).
fn literal_folders(pattern: &str) -> &str {
    let glob = pattern.find(['*', '?', '[', '\\']).unwrap_or(pattern.len());
    pattern[..glob].rfind('/').map_or("", |slash| &pattern[..slash])
}

/// What a `git` command writes in a work tree (see [`git_written_paths`]).
#[derive(Debug, Default)]
pub(crate) struct GitWrites<'c> {
    /// The folders of `-C`, in order, each taken from the one before.
    pub dirs: Strs<'c>,
    /// The work tree is named elsewhere (`--work-tree`, `--git-dir`, `GIT_WORK_TREE=` …): what
    /// it writes, and where, is known only at run time.
    pub elsewhere: bool,
    /// It writes files a patch or mailbox names (`git apply`, `git am`), a word known only at
    /// run time does (`git checkout -- "$F"`) or a pattern matches (`'*.json'`): unknown
    /// beforehand.
    pub unlisted: bool,
    /// The paths it writes, creates or removes, taken from the folder git runs in.
    pub paths: Strs<'c>,
}

/// What a `git` command writes that a rule's approval must not cover if it is protected: the
/// pathspecs of `checkout`, `restore`, `rm`, `mv`, `clean`, `reset` and `stash` (`git
/// checkout HEAD -- .claude/settings.json`), the folder `clone`, `init` and `worktree add`
/// create, and, for a command that writes the work tree, whether that tree is named elsewhere
/// (`git --work-tree=$HOME checkout -- .bashrc`) or what it writes is named only in a patch.
/// A subcommand's first word that may be a revision is taken as a path too: checking a
/// branch name as a path costs nothing.
///
/// ```text
/// git checkout HEAD -- .mcp.json     → paths ["HEAD", ".mcp.json"]
/// git clone URL ~/.claude/x          → paths ["~/.claude/x"]
/// ```
pub(crate) fn git_written_paths<'c>(cmd: &'c SimpleCommand<'_>) -> GitWrites<'c> {
    let mut out = GitWrites::default();
    let args = cmd.argv.get(1..cmd.static_words.max(1)).unwrap_or_default();
    let sub = git_global_options(args);
    let Some(subcommand) = args.get(sub) else { return out };
    let words: Strs<'c> = args[sub + 1..].iter().map(|a| &**a).collect();
    let operands: Strs<'c> = {
        let mut after_dashes = false;
        words
            .iter()
            .copied()
            .filter(|w| {
                if *w == "--" && !after_dashes {
                    after_dashes = true;
                    return false;
                }
                after_dashes || !w.starts_with('-')
            })
            .collect()
    };
    let writes_tree = match &**subcommand {
        "checkout" | "restore" | "rm" | "mv" | "clean" | "reset" | "stash" | "switch" | "merge" | "pull" | "rebase"
        | "cherry-pick" | "revert" | "read-tree" | "checkout-index" | "sparse-checkout" => {
            out.paths = operands;
            true
        }
        "apply" | "am" => {
            out.unlisted = !words.iter().any(|w| matches!(*w, "--check" | "--stat" | "--numstat" | "--summary"));
            out.unlisted
        }
        // `git clone URL DIR`, `git init DIR`, `git worktree add DIR …`.
        "clone" => {
            out.paths.extend(operands.get(1).copied());
            true
        }
        "init" => {
            out.paths.extend(operands.first().copied());
            true
        }
        "worktree" if operands.first() == Some(&"add") => {
            out.paths.extend(operands.get(1).copied());
            true
        }
        _ => false,
    };
    if writes_tree {
        // A word known only at run time may name any file (`git checkout HEAD -- "$F"`), and
        // so may a pathspec that is a pattern or has magic (`'*.json'` is `.mcp.json` too).
        out.unlisted |= cmd.static_words < cmd.argv.len();
        out.unlisted |= out.paths.iter().any(|path| {
            path.starts_with(':') || matches!(pathspec(path).1, GitAnchor::PatternHere | GitAnchor::PatternTop)
        });
        let mut reads = GitReads::default();
        git_repository_options(cmd, &args[..sub], &mut reads);
        out.dirs = reads.dirs;
        out.elsewhere = reads.elsewhere;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_content_paths_say_where_git_takes_each() {
        let git = |src: &str| {
            let cmd = toolgate_shell::analyze(src).commands.remove(0);
            let reads = git_content_paths(&cmd);
            let mut shown: Vec<String> = reads.dirs.iter().map(|d| format!("-C {d}")).collect();
            if reads.elsewhere {
                shown.push("elsewhere".into());
            }
            for (path, anchor) in &reads.paths {
                let from = match anchor {
                    GitAnchor::Here => "here",
                    GitAnchor::Top => "top",
                    GitAnchor::PatternHere => "pattern-here",
                    GitAnchor::PatternTop => "pattern-top",
                };
                shown.push(format!("{from}:{path}"));
            }
            shown.join(" ")
        };
        assert_eq!(git("git show :.env HEAD:./src/a.rs"), "top:.env here:./src/a.rs");
        assert_eq!(git("git -C sub cat-file -p v1:secrets/k"), "-C sub top:secrets/k");
        assert_eq!(git("git log -p -- .env src"), "here:.env here:src");
        assert_eq!(git("git show origin/main:x"), "top:x");
        assert_eq!(git("git show :0:.env :3:b"), "top:.env top:b");
        assert_eq!(git("git diff -- a"), "here:a");
        assert_eq!(git("git blame -w .env"), "here:.env");
        assert_eq!(git("git log -L1,9:.env -L :f:./src/a.rs"), "here:.env here:./src/a.rs");
        assert_eq!(git("git grep -n secret .env"), "here:.env");
        assert_eq!(git("git grep -e secret -- .env"), "here:.env");
        assert_eq!(
            git("git log -p -- 'src/*.rs' ':(top)k/a?' ':/b' ':(literal)c*'"),
            "pattern-here:src pattern-top:k top:b here:c*"
        );
        assert_eq!(git("git log -p -- ':(icase)x' ':!y' ':(top,exclude)z'"), "pattern-top: pattern-top: pattern-top:");
        assert_eq!(git("git --git-dir=/o/.git show HEAD:x"), "elsewhere top:x");
        assert_eq!(git("GIT_DIR=/o git -C a -C b log -p x"), "-C a -C b elsewhere here:x");
        assert_eq!(git("git push origin HEAD:main"), "");
        assert_eq!(git("git show 'HEAD^{/first:}:.env' 'HEAD@{1 day ago}:a'"), "top:.env top:a");
        assert_eq!(git("git log -p -- '../.\\env'"), "pattern-here:..");
        assert_eq!(git("git --icase-pathspecs log -p -- ../.ENV"), "pattern-top:");
        assert_eq!(git("git grep -f../.env -- a"), "here:../.env here:a");
        assert_eq!(git("git grep --file=p -e x b"), "here:p here:b");
    }

    #[test]
    fn git_written_paths_are_pathspecs_and_created_folders() {
        let written = |src: &str| {
            let cmd = toolgate_shell::analyze(src).commands.remove(0);
            let w = git_written_paths(&cmd);
            let mut shown: Vec<String> = w.dirs.iter().map(|d| format!("-C {d}")).collect();
            shown.extend(w.elsewhere.then(|| "elsewhere".to_owned()));
            shown.extend(w.unlisted.then(|| "unlisted".to_owned()));
            shown.extend(w.paths.iter().map(|p| (*p).to_owned()));
            shown.join(" ")
        };
        assert_eq!(written("git checkout HEAD -- .claude/settings.json"), "HEAD .claude/settings.json");
        assert_eq!(written("git restore --source=HEAD -- a b"), "a b");
        assert_eq!(written("git --work-tree=/h checkout -- .bashrc"), "elsewhere .bashrc");
        assert_eq!(written("GIT_WORK_TREE=/h git checkout .bashrc"), "elsewhere .bashrc");
        assert_eq!(written("git -C sub clone https://x/y.git ~/.claude/t"), "-C sub ~/.claude/t");
        assert_eq!(written("git worktree add ../wt main"), "../wt");
        assert_eq!(written("git init ~/.claude/toolgate"), "~/.claude/toolgate");
        assert_eq!(written("git apply fix.patch"), "unlisted");
        assert_eq!(written("git apply --check fix.patch"), "");
        assert_eq!(written("git commit -m x"), "");
        assert_eq!(written("git status"), "");
        assert_eq!(written("git checkout HEAD -- \"$F\""), "unlisted HEAD");
        assert_eq!(written("git checkout HEAD -- '*.json'"), "unlisted HEAD *.json");
        assert_eq!(written("git checkout HEAD -- ':(top)a'"), "unlisted HEAD :(top)a");
    }
}
