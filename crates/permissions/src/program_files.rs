//! Files a repository can ship that choose what a program runs: `cargo --version` runs the
//! toolchain `rust-toolchain.toml` names, `pnpm` runs `.pnpmfile.cjs`, `git status` runs
//! the `core.fsmonitor` of the repository's configuration. Where such a file is present, the
//! program is not a read: it starts what the repository says.
//!
//! Each program looks for its files in the working directory and every folder above it; the
//! home folder's own (`~/.cargo/config.toml`) are the user's, not a repository's.

use std::path::{Path, PathBuf};

use toolgate_shell::programs::{self, DirChange, Role};

/// A program and the files that choose what it runs (a test checks each). Sorted by program.
const PROGRAM_FILES: &[(&str, &[&str])] = &[
    ("cargo", RUST),
    ("cargo-clippy", RUST),
    ("clippy-driver", RUST),
    ("npm", NODE),
    ("npx", NODE),
    ("pnpm", &[".pnpmfile.cjs", ".npmrc"]),
    ("rust-analyzer", RUST),
    ("rustc", RUST),
    ("rustdoc", RUST),
    ("rustfmt", RUST),
    ("rustup", RUST),
    ("yarn", &[".yarnrc.yml", ".yarnrc", ".npmrc"]),
];

/// What chooses the Rust toolchain and its wrappers.
const RUST: &[&str] = &["rust-toolchain", "rust-toolchain.toml", ".cargo/config", ".cargo/config.toml"];

/// What npm reads its scripts' shell, node options and hooks from.
const NODE: &[&str] = &[".npmrc"];

/// Keys of a repository's git configuration (lower case) whose value git runs or loads: a
/// `git status` there runs it.
const GIT_RUNNING_KEYS: &[&str] = &[
    "alternaterefscommand",
    "askpass",
    "cmd",
    "command",
    "defaultkeycommand",
    "editor",
    "external",
    "fsmonitor",
    "gitproxy",
    "helper",
    "hookspath",
    "packobjectshook",
    "pager",
    "program",
    "sshcommand",
    "textconv",
    "[alias",
    "[filter",
    "[include",
    "[includeif",
    "driver",
];

/// The file that makes `program`, run in `cwd`, start what the repository chooses, if any.
///
/// ```
/// let tmp = tempfile::tempdir().unwrap();
/// std::fs::write(tmp.path().join("rust-toolchain.toml"), "[toolchain]\npath = \"/tmp/evil\"\n").unwrap();
/// let sub = tmp.path().join("crates/a");
/// std::fs::create_dir_all(&sub).unwrap();
/// assert!(toolgate_permissions::program_redirect("cargo", &sub, None).is_some());
/// assert!(toolgate_permissions::program_redirect("ls", &sub, None).is_none());
/// // The home folder's own configuration is the user's.
/// assert!(toolgate_permissions::program_redirect("cargo", &sub, Some(tmp.path())).is_none());
/// ```
pub fn program_redirect(program: &str, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if programs::get(program).role == Role::Git {
        return git_config_that_runs(cwd);
    }
    let (_, files) = PROGRAM_FILES.iter().find(|(name, _)| *name == program)?;
    let below_home = |dir: &Path| home.is_none_or(|home| !home.starts_with(dir));
    cwd.ancestors()
        .take_while(|dir| below_home(dir))
        .flat_map(|dir| files.iter().map(move |file| dir.join(file)))
        .find(|path| path.exists())
}

/// Whether a repository file can choose what `program` runs (git, or a program of the table).
pub(crate) fn redirectable(program: &str) -> bool {
    programs::get(program).role == Role::Git || PROGRAM_FILES.iter().any(|(name, _)| *name == program)
}

/// The folders a line's commands may run in: `cwd` and every folder its `cd` and `pushd`
/// commands reach, each taken from the one before (more folders than bash visits, never
/// fewer), both as written and with links followed (programs look above the folder they
/// really run in: `cd a/link` into a folder whose parent holds `rust-toolchain.toml`);
/// `None` when one is known only at run time (`cd "$D"`, `cd -`, a bare `cd`, `popd`).
pub(crate) fn folders_reached(analysis: &toolgate_shell::BashAnalysis<'_>, cwd: &Path) -> Option<Vec<PathBuf>> {
    let mut dirs = vec![cwd.to_path_buf()];
    dirs.extend(std::fs::canonicalize(cwd).ok().filter(|real| real != cwd));
    for cmd in &analysis.commands {
        let Some(name) = cmd.argv.first().map(|name| toolgate_shell::basename(name)) else { continue };
        let Role::ChangesDir(change) = programs::get(name).role else { continue };
        let operands: Vec<&str> = cmd.argv[1..].iter().map(|w| &**w).filter(|w| !w.starts_with('-')).collect();
        let [target] = operands[..] else { return None };
        if change == DirChange::Pop || target.contains(['$', '`', '*', '?', '[', '~']) {
            return None;
        }
        // From every folder reached so far (a `cd` in a subshell or one that failed leaves
        // the folder as it was): the logical path bash's `cd` takes, and the physical one
        // `cd -P` and the programs themselves see.
        let mut reached = Vec::new();
        for dir in &dirs {
            let joined = dir.join(target);
            reached.push(toolgate_core::normalize_path(&joined));
            reached.extend(std::fs::canonicalize(&joined).ok());
        }
        for dir in reached {
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        // Past a bound the line moves too much to follow.
        if dirs.len() > 64 {
            return None;
        }
    }
    Some(dirs)
}

/// The repository configuration above `cwd` that sets a key git runs (`core.fsmonitor`,
/// `core.pager`, an alias, a filter …), if any. A worktree's `.git` file is followed to its
/// git folder and the main repository's.
fn git_config_that_runs(cwd: &Path) -> Option<PathBuf> {
    let dot_git = cwd.ancestors().map(|dir| dir.join(".git")).find(|path| path.exists())?;
    let mut git_dirs = vec![dot_git.clone()];
    if dot_git.is_file() {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let target = text.lines().find_map(|line| line.strip_prefix("gitdir:")).map(str::trim)?;
        let dir = dot_git.parent().unwrap_or(cwd).join(target);
        if let Ok(common) = std::fs::read_to_string(dir.join("commondir")) {
            git_dirs.push(dir.join(common.trim()));
        }
        git_dirs[0] = dir;
    }
    // `config.worktree` is read too where `extensions.worktreeConfig` is on.
    git_dirs
        .into_iter()
        .flat_map(|dir| [dir.join("config"), dir.join("config.worktree")])
        .find(|config| runs_a_program(config))
}

/// Whether the git configuration file `config` sets a key of [`GIT_RUNNING_KEYS`].
fn runs_a_program(config: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(config) else { return false };
    let text = text.to_ascii_lowercase();
    text.lines().map(str::trim).filter(|line| !line.starts_with(['#', ';'])).any(|line| {
        GIT_RUNNING_KEYS.iter().any(|key| {
            if key.starts_with('[') { line.starts_with(key) } else { line.split(['=', ' ', '\t']).next() == Some(key) }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_every_program_is_redirected_by_each_of_its_files() {
        assert!(PROGRAM_FILES.windows(2).all(|pair| pair[0].0 < pair[1].0), "not sorted");
        for (program, files) in PROGRAM_FILES {
            for file in *files {
                let tmp = tempfile::tempdir().unwrap();
                let path = tmp.path().join(file);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, "x").unwrap();
                assert_eq!(program_redirect(program, tmp.path(), None), Some(path), "{program} {file}");
            }
            let empty = tempfile::tempdir().unwrap();
            assert_eq!(program_redirect(program, empty.path(), None), None, "{program}");
        }
    }

    #[test]
    fn a_repository_config_that_runs_a_program_redirects_git() {
        let tmp = tempfile::tempdir().unwrap();
        let git = tmp.path().join(".git");
        std::fs::create_dir_all(&git).unwrap();
        let plain = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = x\n";
        std::fs::write(git.join("config"), plain).unwrap();
        assert_eq!(program_redirect("git", tmp.path(), None), None);
        for runs in [
            "[core]\n\tfsmonitor = ./evil\n",
            "[core]\n  hooksPath=h\n",
            "[alias]\n\tst = !sh\n",
            // `git log` runs gpg.program where log.showSignature is set.
            "[gpg]\n\tprogram = ./evil\n[log]\n\tshowSignature = true\n",
            "[gpg \"ssh\"]\n\tdefaultKeyCommand = ./evil\n",
            "[diff \"x\"]\n\tcommand = ./evil\n",
            "[difftool \"x\"]\n\tcmd = ./evil\n",
            "[core]\n\talternateRefsCommand = ./evil\n",
            "[uploadpack]\n\tpackObjectsHook = ./evil\n",
        ] {
            std::fs::write(git.join("config"), format!("{plain}{runs}")).unwrap();
            assert!(program_redirect("git", tmp.path(), None).is_some(), "{runs}");
        }
        std::fs::write(git.join("config"), plain).unwrap();
        std::fs::write(git.join("config.worktree"), "[core]\n\tfsmonitor = ./evil\n").unwrap();
        assert!(program_redirect("git", tmp.path(), None).is_some(), "config.worktree");
        std::fs::remove_file(git.join("config.worktree")).unwrap();
        std::fs::write(git.join("config"), format!("{plain}[core]\n\tfsmonitor = ./evil\n")).unwrap();
        // A worktree: its `.git` file leads to its git folder, whose `commondir` is the main one.
        let worktree = tmp.path().join("wt");
        let wt_git = git.join("worktrees/wt");
        std::fs::create_dir_all(&wt_git).unwrap();
        std::fs::create_dir_all(&worktree).unwrap();
        std::fs::write(wt_git.join("commondir"), "../..\n").unwrap();
        std::fs::write(worktree.join(".git"), format!("gitdir: {}\n", wt_git.display())).unwrap();
        assert!(program_redirect("git", &worktree, None).is_some(), "the main repository's config runs fsmonitor");
        std::fs::write(git.join("config"), plain).unwrap();
        assert_eq!(program_redirect("git", &worktree, None), None);
    }
}
