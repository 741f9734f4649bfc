//! Real paths behind symlinks, resolved component by component the way the kernel resolves
//! them, with what each lookup found remembered for the rest of one decision.
//!
//! A decision checks many paths below the same directories (the working directory, its
//! roots, every operand of a compound command): resolving each from scratch with
//! `realpath(3)` repeats one `readlink` per component of every path. A [`Resolver`] asks the
//! file system about each directory entry once, so a decision costs one `readlink` per
//! distinct component it meets.
//!
//! The answers are kept only for one decision: the file system may change between calls
//! (a model can create a symlink in one call and use it in the next).

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use toolgate_core::normalize_path;

/// How many symlinks one resolution follows before it gives up, as Linux does (`ELOOP`).
const MAX_HOPS: usize = 40;

/// What a directory entry turned out to be.
#[derive(Debug, Clone)]
enum Entry {
    /// It exists and is not a symlink.
    Plain,
    /// A symlink, with its target as stored.
    Link(PathBuf),
    /// It does not exist, or cannot be looked at (a missing or unreadable parent, a file
    /// used as a directory).
    Missing,
}

/// Resolves paths for one decision, remembering each directory entry it looked at.
#[derive(Debug, Default)]
pub(crate) struct Resolver {
    seen: HashMap<PathBuf, Entry>,
}

impl Resolver {
    /// `path` as written with `.` and `..` removed lexically, and, when it differs, the real
    /// path the kernel would open for it (see [`Resolver::real`]).
    ///
    /// Deny and ask rules fire if *any* form matches; allow rules and "inside the working
    /// directories" need *every* form to match.
    pub(crate) fn forms(&mut self, path: &Path) -> Vec<PathBuf> {
        let lexical = normalize_path(path);
        let real = self.real(path);
        if real == lexical { vec![lexical] } else { vec![lexical, real] }
    }

    /// The real path behind an absolute `path`: symlinks followed and `..` applied to the
    /// directory reached so far, as the kernel does (`link/..` is the parent of the link's
    /// target, not the directory holding the link). Where a component does not exist, the
    /// rest is appended as written (`..` still removing the component before it), which is
    /// the path a command would create. A chain of more than [`MAX_HOPS`] symlinks is
    /// treated as missing from the link that would exceed it.
    pub(crate) fn real(&mut self, path: &Path) -> PathBuf {
        let mut real = PathBuf::from("/");
        // Components still to walk, the next one last.
        let mut pending: Vec<OsString> = Vec::new();
        push_components(&mut pending, path);
        let mut depth = 0usize;
        // The depth at which the walk left the existing file system, if it has.
        let mut missing_from: Option<usize> = None;
        let mut hops = 0usize;
        while let Some(part) = pending.pop() {
            if part == ".." {
                if real.pop() {
                    depth -= 1;
                }
                if missing_from.is_some_and(|m| depth < m) {
                    missing_from = None;
                }
                continue;
            }
            real.push(&part);
            depth += 1;
            if missing_from.is_some() {
                continue;
            }
            match self.entry(&real) {
                Entry::Plain => {}
                Entry::Missing => missing_from = Some(depth),
                Entry::Link(_) if hops >= MAX_HOPS => missing_from = Some(depth),
                Entry::Link(target) if target.as_os_str().is_empty() => missing_from = Some(depth),
                Entry::Link(target) => {
                    hops += 1;
                    real.pop();
                    depth -= 1;
                    if target.is_absolute() {
                        real = PathBuf::from("/");
                        depth = 0;
                    }
                    push_components(&mut pending, &target);
                }
            }
        }
        real
    }

    /// What `path` (whose parent is a real directory path) is, asking the file system once.
    fn entry(&mut self, path: &Path) -> Entry {
        if let Some(entry) = self.seen.get(path) {
            return entry.clone();
        }
        let entry = match std::fs::read_link(path) {
            Ok(target) => Entry::Link(target),
            // EINVAL: it exists and is not a symlink.
            Err(e) if e.kind() == ErrorKind::InvalidInput => Entry::Plain,
            Err(_) => Entry::Missing,
        };
        self.seen.insert(path.to_path_buf(), entry.clone());
        entry
    }
}

/// Pushes the normal and `..` components of `path` onto `pending` so that the first one is
/// popped first (the root and `.` are dropped).
fn push_components(pending: &mut Vec<OsString>, path: &Path) {
    let start = pending.len();
    for component in path.components() {
        match component {
            Component::Normal(name) => pending.push(name.to_owned()),
            Component::ParentDir => pending.push(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    pending[start..].reverse();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A temp dir by its real path (the temp root itself may sit behind a symlink).
    fn tmp() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        (dir, real)
    }

    #[test]
    fn agrees_with_canonicalize_on_existing_paths() {
        let (_guard, root) = tmp();
        std::fs::create_dir_all(root.join("a/b/c")).unwrap();
        std::fs::write(root.join("a/b/c/f.txt"), "x").unwrap();
        symlink(root.join("a/b"), root.join("abs")).unwrap();
        symlink("a/b/c", root.join("rel")).unwrap();
        symlink("../..", root.join("a/b/c/up")).unwrap();
        symlink("rel", root.join("chain")).unwrap();
        let mut resolver = Resolver::default();
        for p in ["a/b/c/f.txt", "abs/c/f.txt", "rel/f.txt", "chain/f.txt", "rel/up/b", "a/b/c/up/b/c/up", "a/./b/../b"]
        {
            let path = root.join(p);
            assert_eq!(resolver.real(&path), path.canonicalize().unwrap(), "{p}");
        }
    }

    #[test]
    fn dot_dot_after_a_link_leaves_the_target_not_the_link() {
        let (_guard, root) = tmp();
        std::fs::create_dir_all(root.join("outside/inner")).unwrap();
        std::fs::create_dir(root.join("repo")).unwrap();
        symlink(root.join("outside/inner"), root.join("repo/link")).unwrap();
        let forms = Resolver::default().forms(&root.join("repo/link/../.env"));
        assert_eq!(forms, [root.join("repo/.env"), root.join("outside/.env")]);
    }

    #[test]
    fn missing_parts_are_appended_and_dot_dot_returns_to_real_ground() {
        let (_guard, root) = tmp();
        std::fs::create_dir(root.join("real")).unwrap();
        symlink(root.join("real"), root.join("link")).unwrap();
        let mut resolver = Resolver::default();
        assert_eq!(resolver.real(&root.join("link/new/deeper/f")), root.join("real/new/deeper/f"));
        // Back out of the missing part into the link again: it is still followed.
        assert_eq!(resolver.real(&root.join("new/../link/x")), root.join("real/x"));
        // A file used as a directory is missing below it.
        std::fs::write(root.join("real/file"), "").unwrap();
        let mut fresh = Resolver::default();
        assert_eq!(fresh.real(&root.join("link/file/x")), root.join("real/file/x"));
    }

    #[test]
    fn loops_and_dangling_links_end() {
        let (_guard, root) = tmp();
        symlink(root.join("b"), root.join("a")).unwrap();
        symlink(root.join("a"), root.join("b")).unwrap();
        symlink(root.join("nowhere/target"), root.join("dangling")).unwrap();
        let mut resolver = Resolver::default();
        let looped = resolver.real(&root.join("a/x"));
        assert!(looped.starts_with(&root) && looped.ends_with("x"), "{looped:?}");
        // A dangling link resolves to where a write through it would land.
        assert_eq!(resolver.real(&root.join("dangling")), root.join("nowhere/target"));
    }

    #[test]
    fn each_entry_is_looked_up_once_per_resolver() {
        let (_guard, root) = tmp();
        std::fs::create_dir(root.join("d")).unwrap();
        let mut resolver = Resolver::default();
        resolver.real(&root.join("d/x"));
        let after_first = resolver.seen.len();
        resolver.real(&root.join("d/x"));
        resolver.real(&root.join("d"));
        assert_eq!(resolver.seen.len(), after_first);
        // The answers do not outlive the resolver: a link made now is seen by a new one.
        symlink(root.join("d"), root.join("l")).unwrap();
        assert_eq!(Resolver::default().real(&root.join("l/x")), root.join("d/x"));
    }
}
