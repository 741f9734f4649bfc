//! Safety checks no allow rule can lift: protected paths (writes never auto-approved) and
//! critical paths for `rm`/`rmdir` (never approved by rules or hooks).

use std::path::{Component, Path};

use toolgate_core::normalize_path;

/// Directories whose contents are protected from automatic writes, matched as a path
/// component anywhere.
const PROTECTED_DIRS: &[&str] =
    &[".git", ".vscode", ".idea", ".husky", ".cargo", ".devcontainer", ".yarn", ".mvn", ".claude"];

/// Files protected from automatic writes, matched by name anywhere.
const PROTECTED_FILES: &[&str] = &[
    ".gitconfig",
    ".gitmodules",
    ".gitattributes",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".inputrc",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".envrc",
    ".bazelrc",
    ".pre-commit-config.yaml",
    ".mcp.json",
    ".claude.json",
];

/// Why writing `path` is never auto-approved, or `None` when it is an ordinary path.
///
/// ```
/// use std::path::Path;
/// use toolgate_permissions::protected_path_reason;
/// assert!(protected_path_reason(Path::new("/repo/.git/config")).is_some());
/// assert!(protected_path_reason(Path::new("/home/u/.bashrc")).is_some());
/// assert!(protected_path_reason(Path::new("/repo/.claude/worktrees/x/a.rs")).is_none());
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
    for (i, name) in names.iter().enumerate() {
        let is_last = i + 1 == names.len();
        if *name == ".claude" && names.get(i + 1) == Some(&"worktrees") && names.len() > i + 2 {
            return None;
        }
        // Compared without case: on a case-insensitive file system `.GIT` is `.git`.
        let dir = PROTECTED_DIRS.iter().any(|d| d.eq_ignore_ascii_case(name));
        if dir && !is_last {
            return Some(format!("{} is inside {name}/, a protected directory", path.display()));
        }
        if name.eq_ignore_ascii_case(".config")
            && names
                .get(i + 1)
                .is_some_and(|next| next.eq_ignore_ascii_case("git") || next.eq_ignore_ascii_case("fish"))
            && !is_last
        {
            return Some(format!("{} is protected configuration", path.display()));
        }
        if is_last && dir {
            return Some(format!("{} is a protected directory", path.display()));
        }
        if is_last && PROTECTED_FILES.iter().any(|f| f.eq_ignore_ascii_case(name)) {
            return Some(format!("{} is a protected file", path.display()));
        }
    }
    None
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

    #[test]
    fn protected_table() {
        for (path, protected) in [
            ("/r/.git/config", true),
            ("/r/.git/hooks/pre-commit", true),
            ("/r/sub/.vscode/settings.json", true),
            ("/r/.claude/settings.json", true),
            ("/r/.claude/settings.local.json", true),
            ("/r/.claude/worktrees/feature/src/a.rs", false),
            ("/h/.config/git/config", true),
            ("/h/.zshrc", true),
            ("/r/.mcp.json", true),
            ("/r/.envrc", true),
            ("/r/src/.git", true),
            ("/r/src/main.rs", false),
            ("/r/.github/workflows/ci.yml", false),
            ("/r/.gitignore", false),
            ("/r/a/../.git/HEAD", true),
            ("/r/.GIT/config", true),
            ("/r/.Git/hooks/pre-commit", true),
            ("/h/.BashRC", true),
            ("/h/.Config/Git/config", true),
        ] {
            assert_eq!(protected_path_reason(Path::new(path)).is_some(), protected, "{path}");
        }
        for (path, reason) in [
            ("/r/.git", "/r/.git is a protected directory"),
            ("/r/.git/config", "/r/.git/config is inside .git/, a protected directory"),
            ("/h/.zshrc", "/h/.zshrc is a protected file"),
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
