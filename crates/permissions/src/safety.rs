//! Safety checks no allow rule can lift: protected paths (writes never auto-approved) and
//! critical paths for `rm`/`rmdir` (never approved by rules or hooks).

use std::path::{Component, Path};

use toolgate_core::normalize_path;

/// A name that makes a path protected wherever it appears (compared without case: on a
/// case-insensitive file system `.GIT` is `.git`).
#[derive(Debug, Clone, Copy)]
enum Protected {
    /// A directory: itself and everything below it (a file of that name too, such as a
    /// worktree's `.git` file).
    Dir(&'static str),
    /// A file of this name.
    File(&'static str),
    /// A directory below another (`.config/git`): itself and everything below it.
    Under(&'static str, &'static str),
}

/// What writes are never auto-approved for, each with a path it protects (checked by a test):
/// version control and editor configuration, what makes a tool run another program (toolchain
/// and tool configuration a repository can ship: `cargo --version` runs the toolchain
/// `rust-toolchain.toml` names), and the start-up and credential files of a home folder.
const PROTECTED: &[(Protected, &str)] = &[
    (Protected::Dir(".git"), "/r/.git/hooks/pre-commit"),
    (Protected::Dir(".vscode"), "/r/.vscode/settings.json"),
    (Protected::Dir(".idea"), "/r/.idea/workspace.xml"),
    (Protected::Dir(".husky"), "/r/.husky/pre-commit"),
    (Protected::Dir(".cargo"), "/r/.cargo/config.toml"),
    (Protected::Dir(".devcontainer"), "/r/.devcontainer/devcontainer.json"),
    (Protected::Dir(".yarn"), "/r/.yarn/plugins/p.cjs"),
    (Protected::Dir(".mvn"), "/r/.mvn/jvm.config"),
    (Protected::Dir(".claude"), "/r/.claude/settings.json"),
    (Protected::Dir(".mise"), "/r/.mise/config.toml"),
    (Protected::Dir(".ssh"), "/h/.ssh/authorized_keys"),
    (Protected::Dir(".gnupg"), "/h/.gnupg/gpg-agent.conf"),
    (Protected::Dir(".aws"), "/h/.aws/config"),
    (Protected::Dir(".kube"), "/h/.kube/config"),
    (Protected::Dir(".docker"), "/h/.docker/config.json"),
    (Protected::Under(".config", "git"), "/h/.config/git/config"),
    (Protected::Under(".config", "fish"), "/h/.config/fish/config.fish"),
    (Protected::Under(".config", "autostart"), "/h/.config/autostart/x.desktop"),
    (Protected::Under(".config", "systemd"), "/h/.config/systemd/user/x.service"),
    (Protected::Under(".config", "environment.d"), "/h/.config/environment.d/x.conf"),
    (Protected::Under(".config", "mise"), "/h/.config/mise/config.toml"),
    (Protected::Under(".local", "bin"), "/h/.local/bin/ls"),
    (Protected::File(".gitconfig"), "/h/.gitconfig"),
    (Protected::File(".gitmodules"), "/r/.gitmodules"),
    (Protected::File(".gitattributes"), "/r/.gitattributes"),
    (Protected::File(".bashrc"), "/h/.bashrc"),
    (Protected::File(".bash_profile"), "/h/.bash_profile"),
    (Protected::File(".bash_login"), "/h/.bash_login"),
    (Protected::File(".bash_logout"), "/h/.bash_logout"),
    (Protected::File(".bash_aliases"), "/h/.bash_aliases"),
    (Protected::File(".profile"), "/h/.profile"),
    (Protected::File(".zshrc"), "/h/.zshrc"),
    (Protected::File(".zprofile"), "/h/.zprofile"),
    (Protected::File(".zshenv"), "/h/.zshenv"),
    (Protected::File(".zlogin"), "/h/.zlogin"),
    (Protected::File(".zlogout"), "/h/.zlogout"),
    (Protected::File(".cshrc"), "/h/.cshrc"),
    (Protected::File(".tcshrc"), "/h/.tcshrc"),
    (Protected::File(".kshrc"), "/h/.kshrc"),
    (Protected::File(".inputrc"), "/h/.inputrc"),
    (Protected::File(".xprofile"), "/h/.xprofile"),
    (Protected::File(".xinitrc"), "/h/.xinitrc"),
    (Protected::File(".xsessionrc"), "/h/.xsessionrc"),
    (Protected::File(".pam_environment"), "/h/.pam_environment"),
    (Protected::File(".netrc"), "/h/.netrc"),
    (Protected::File(".npmrc"), "/r/.npmrc"),
    (Protected::File(".yarnrc"), "/r/.yarnrc"),
    (Protected::File(".yarnrc.yml"), "/r/.yarnrc.yml"),
    (Protected::File(".pnpmfile.cjs"), "/r/.pnpmfile.cjs"),
    (Protected::File(".envrc"), "/r/.envrc"),
    (Protected::File(".bazelrc"), "/r/.bazelrc"),
    (Protected::File(".pre-commit-config.yaml"), "/r/.pre-commit-config.yaml"),
    (Protected::File(".mcp.json"), "/r/.mcp.json"),
    (Protected::File(".claude.json"), "/h/.claude.json"),
    (Protected::File("rust-toolchain"), "/r/rust-toolchain"),
    (Protected::File("rust-toolchain.toml"), "/r/rust-toolchain.toml"),
    (Protected::File("mise.toml"), "/r/mise.toml"),
    (Protected::File("mise.local.toml"), "/r/mise.local.toml"),
    (Protected::File(".mise.toml"), "/r/.mise.toml"),
    (Protected::File(".mise.local.toml"), "/r/.mise.local.toml"),
    (Protected::File(".tool-versions"), "/r/.tool-versions"),
    (Protected::File(".devcontainer.json"), "/r/.devcontainer.json"),
    (Protected::File(".ripgreprc"), "/r/.ripgreprc"),
];

/// The first bytes, in lower case, of the names [`PROTECTED`] lists: a path's other
/// components are passed over without comparing them with every entry.
const FIRST_BYTES: [bool; 256] = {
    let mut set = [false; 256];
    let mut at = 0;
    while at < PROTECTED.len() {
        let name = match PROTECTED[at].0 {
            Protected::Dir(name) | Protected::File(name) | Protected::Under(name, _) => name.as_bytes(),
        };
        if let [first, ..] = name {
            set[first.to_ascii_lowercase() as usize] = true;
        }
        at += 1;
    }
    set
};

/// Why writing `path` is never auto-approved, or `None` when it is an ordinary path. A
/// worktree under `.claude/worktrees/` is a working tree like the project's: its ordinary files
/// are not protected, and its `.git`, settings and tool configuration are.
///
/// ```
/// use std::path::Path;
/// use toolgate_permissions::protected_path_reason;
/// assert!(protected_path_reason(Path::new("/repo/.git/config")).is_some());
/// assert!(protected_path_reason(Path::new("/home/u/.bashrc")).is_some());
/// assert!(protected_path_reason(Path::new("/repo/.claude/worktrees/x/a.rs")).is_none());
/// assert!(protected_path_reason(Path::new("/repo/.claude/worktrees/x/.git")).is_some());
/// assert!(protected_path_reason(Path::new("/repo/src/git.rs")).is_none());
/// ```
pub fn protected_path_reason(path: &Path) -> Option<String> {
    let path = normalize_path(path);
    let names: Vec<&str> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect();
    if let Some(dir) = claude_config_dir()
        && path.starts_with(dir)
    {
        return Some(format!("{} is inside {}, the Claude configuration folder", path.display(), dir.display()));
    }
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    let mut i = 0;
    while i < names.len() {
        let name = names[i];
        let is_last = i + 1 == names.len();
        // `.claude/worktrees/NAME/` holds a working tree: judged from NAME/ on as a project.
        if same(name, ".claude") && names.get(i + 1).is_some_and(|n| same(n, "worktrees")) && names.len() > i + 3 {
            i += 3;
            continue;
        }
        if !name.as_bytes().first().is_some_and(|b| FIRST_BYTES[usize::from(b.to_ascii_lowercase())]) {
            i += 1;
            continue;
        }
        for (protected, _) in PROTECTED {
            match *protected {
                Protected::Dir(dir) if same(name, dir) => {
                    return Some(if is_last {
                        format!("{} is protected ({dir})", path.display())
                    } else {
                        format!("{} is inside {name}/, a protected directory", path.display())
                    });
                }
                Protected::File(file) if is_last && same(name, file) => {
                    return Some(format!("{} is a protected file", path.display()));
                }
                Protected::Under(parent, dir)
                    if same(name, parent) && names.get(i + 1).is_some_and(|next| same(next, dir)) =>
                {
                    return Some(format!("{} is protected configuration ({parent}/{dir})", path.display()));
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// `$CLAUDE_CONFIG_DIR`, when set: the user's Claude folder under another name than `.claude`
/// (settings, hooks, toolgate's LSP approvals), as protected as `~/.claude`. Read once: the
/// process's environment is the session's.
fn claude_config_dir() -> Option<&'static Path> {
    static DIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty())?;
        let dir = std::path::PathBuf::from(dir);
        dir.is_absolute().then(|| normalize_path(&dir))
    })
    .as_deref()
}

/// Why `rm`/`rmdir` of `target` is critical (the filesystem root, a top-level directory,
/// the home directory, or the working directory or one of its parents), or `None`.
///
/// ```
/// use std::path::Path;
/// use toolgate_permissions::critical_rm_reason;
/// let (cwd, home) = (Path::new("/home/u/repo"), Some(Path::new("/home/u")));
/// assert!(critical_rm_reason("/", cwd, home).is_some());
/// assert!(critical_rm_reason("/usr", cwd, home).is_some());
/// assert!(critical_rm_reason("~", cwd, home).is_some());
/// assert!(critical_rm_reason("..", cwd, home).is_some());
/// assert!(critical_rm_reason(".", cwd, home).is_some());
/// assert!(critical_rm_reason("/*", cwd, home).is_some());
/// assert!(critical_rm_reason("target", cwd, home).is_none());
/// ```
pub fn critical_rm_reason(target: &str, cwd: &Path, home: Option<&Path>) -> Option<String> {
    let raw = target.trim();
    if raw.is_empty() {
        return None;
    }
    // `dir/*` removes everything in dir: judge dir.
    let stripped = raw.trim_end_matches('*').trim_end_matches('/');
    let expanded = if stripped == "~" || raw == "~/" {
        home.map(Path::to_path_buf)?
    } else if let Some(rest) = stripped.strip_prefix("~/") {
        home?.join(rest)
    } else if stripped.is_empty() {
        if raw.starts_with('/') { Path::new("/").to_path_buf() } else { cwd.to_path_buf() }
    } else {
        cwd.join(stripped)
    };
    let path = normalize_path(&expanded);
    let depth = path.components().filter(|c| matches!(c, Component::Normal(_))).count();
    if depth == 0 {
        return Some(format!("`rm {raw}` would remove the filesystem root"));
    }
    if depth == 1 {
        return Some(format!("`rm {raw}` would remove the top-level directory {}", path.display()));
    }
    if home.is_some_and(|h| normalize_path(h) == path) {
        return Some(format!("`rm {raw}` would remove the home directory"));
    }
    if normalize_path(cwd).starts_with(&path) {
        return Some(format!("`rm {raw}` would remove the working directory or a parent of it"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry protects its example, a path beside it (a sibling name) does not, and the
    /// table holds each name once.
    #[test]
    fn every_protected_entry_protects_its_example() {
        for (protected, example) in PROTECTED {
            assert!(protected_path_reason(Path::new(example)).is_some(), "{protected:?} should protect {example}");
            let upper = example.to_ascii_uppercase();
            assert!(protected_path_reason(Path::new(&upper)).is_some(), "{protected:?} should protect {upper}");
            let beside = format!("{example}.txt.d/x");
            let ordinary = beside.replacen("/r/", "/r/src/", 1).replacen("/h/", "/h/code/", 1);
            assert!(
                !matches!(protected, Protected::File(_)) || protected_path_reason(Path::new(&ordinary)).is_none(),
                "{protected:?} should not protect {ordinary}"
            );
        }
        let mut names: Vec<String> = PROTECTED.iter().map(|(p, _)| format!("{p:?}").to_lowercase()).collect();
        names.sort();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count, "an entry is listed twice");
    }

    #[test]
    fn protected_table() {
        for (path, protected) in [
            ("/r/.git/config", true),
            ("/r/.claude/settings.local.json", true),
            ("/r/.claude/worktrees/feature/src/a.rs", false),
            ("/r/.claude/worktrees/feature", true),
            ("/r/.claude/worktrees/feature/.git", true),
            ("/r/.claude/worktrees/feature/.claude/settings.json", true),
            ("/r/.claude/worktrees/feature/.mcp.json", true),
            ("/r/.claude/worktrees/feature/rust-toolchain.toml", true),
            ("/r/src/.git", true),
            ("/r/src/main.rs", false),
            ("/r/.github/workflows/ci.yml", false),
            ("/r/.gitignore", false),
            ("/r/a/../.git/HEAD", true),
            ("/r/.GIT/config", true),
            ("/r/.Git/hooks/pre-commit", true),
            ("/h/.BashRC", true),
            ("/h/.Config/Git/config", true),
            ("/h/.config/other/x", false),
            ("/h/.local/share/x", false),
            ("/r/docs/ssh.md", false),
        ] {
            assert_eq!(protected_path_reason(Path::new(path)).is_some(), protected, "{path}");
        }
        for (path, reason) in [
            ("/r/.git", "/r/.git is protected (.git)"),
            ("/r/.git/config", "/r/.git/config is inside .git/, a protected directory"),
            ("/h/.zshrc", "/h/.zshrc is a protected file"),
            ("/h/.config/git/config", "/h/.config/git/config is protected configuration (.config/git)"),
        ] {
            assert_eq!(protected_path_reason(Path::new(path)).as_deref(), Some(reason));
        }
    }

    #[test]
    fn critical_table() {
        let cwd = Path::new("/home/u/code/repo");
        let home = Some(Path::new("/home/u"));
        for (target, critical) in [
            ("/", true),
            ("//", true),
            ("/*", true),
            ("/etc", true),
            ("/etc/", true),
            ("~", true),
            ("~/", true),
            ("~/*", true),
            ("$HOME", false),
            ("../..", true),
            ("../", true),
            ("./", true),
            ("*", true),
            ("build", false),
            ("./target/debug", false),
            ("/home/u/code", true),
            ("/home/u/code/other", false),
            ("/tmp/x", false),
        ] {
            assert_eq!(critical_rm_reason(target, cwd, home).is_some(), critical, "{target}");
        }
    }
}
