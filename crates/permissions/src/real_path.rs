//! Real paths behind symlinks, resolved component by component the way the kernel resolves
//! them, with what each lookup found remembered for the rest of one decision.
//!
//! The real path of an absolute path has its symlinks followed and each `..` applied to the
//! directory reached so far, as the kernel does (`link/..` is the parent of the link's
//! target, not the directory holding the link). Where a component does not exist, the rest
//! is appended as written (`..` still removing the component before it): the path a
//! command would create. A chain of more than [`MAX_HOPS`] symlinks counts as missing from
//! the link that would exceed it.
//!
//! A decision checks many paths below the same directories (the working directory, its
//! roots, every operand of a compound command): resolving each from scratch with
//! `realpath(3)` repeats one `readlink` per component of every path. A [`Resolver`] asks the
//! file system about each directory entry once, so a decision costs one `readlink` per
//! distinct component it meets; the working directory itself, when it is three or more
//! components deep, costs one `openat2` refusing symlinks (when none is on it, its real path
//! is itself).
//!
//! The answers are kept only for one decision: the file system may change between calls
//! (a model can create a symlink in one call and use it in the next).

use std::ffi::{OsStr, OsString};
use std::io::ErrorKind;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// The forms of one path: as written (normalised), then its real path when that differs.
pub(crate) type Forms = SmallVec<[PathBuf; 2]>;

/// How many symlinks one resolution follows before it gives up, as Linux does (`ELOOP`).
const MAX_HOPS: usize = 40;

/// What a directory entry turned out to be.
#[derive(Debug, Clone)]
enum Entry {
    /// It exists and is not a symlink.
    Plain,
    /// A symlink, with its target as stored.
    Link(Vec<u8>),
    /// It does not exist, or cannot be looked at (a missing or unreadable parent, a file
    /// used as a directory).
    Missing,
}

/// Resolves paths for one decision, remembering each directory entry it looked at.
#[derive(Debug)]
pub(crate) struct Resolver<'a> {
    /// What each real path looked at so far is.
    seen: Seen,
    /// The working directory as written (without trailing `/`), and the walk that resolved
    /// it (once, on first use): paths below it continue from there.
    base: &'a [u8],
    base_walk: Option<Walk>,
    /// A walk whose buffer is reused from path to path.
    scratch: Walk,
}

/// The directory entries one decision looked at. A decision meets a handful, so they are
/// kept end to end in small inline buffers and searched in order; past [`Seen::LINEAR`]
/// entries they move into a hash map.
#[derive(Debug, Default)]
struct Seen {
    /// The paths of `entries`, end to end.
    names: SmallVec<[u8; 192]>,
    /// Each entry: where its path ends in `names` (it starts where the previous one ends),
    /// and what it is.
    entries: SmallVec<[(usize, Entry); 6]>,
    /// Every entry, once there are more than [`Seen::LINEAR`].
    map: FxHashMap<Vec<u8>, Entry>,
}

impl Seen {
    /// How many entries are searched in order before they move into the map.
    const LINEAR: usize = 16;

    fn get(&self, path: &[u8]) -> Option<&Entry> {
        if !self.map.is_empty() {
            return self.map.get(path);
        }
        let mut start = 0;
        for (end, entry) in &self.entries {
            if &self.names[start..*end] == path {
                return Some(entry);
            }
            start = *end;
        }
        None
    }

    fn insert(&mut self, path: &[u8], entry: Entry) {
        if !self.map.is_empty() {
            self.map.insert(path.to_vec(), entry);
            return;
        }
        if self.entries.len() < Self::LINEAR {
            self.names.extend_from_slice(path);
            self.entries.push((self.names.len(), entry));
            return;
        }
        let mut start = 0;
        for (end, entry) in self.entries.drain(..) {
            self.map.insert(self.names[start..end].to_vec(), entry);
            start = end;
        }
        self.names.clear();
        self.map.insert(path.to_vec(), entry);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len() + self.map.len()
    }

    #[cfg(test)]
    fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().map(|(_, entry)| entry).chain(self.map.values())
    }
}

/// Where a resolution stands: the real path reached so far and how it got there.
#[derive(Debug, Clone, Default)]
struct Walk {
    /// The real path so far, absolute, without a trailing `/` (except the root itself;
    /// empty stands for the root too, before the first component). Inline: most paths are
    /// short, and a decision walks several.
    real: SmallVec<[u8; 120]>,
    /// How many components `real` has.
    depth: usize,
    /// The depth at which the walk left the existing file system, if it has.
    missing_from: Option<usize>,
    /// How many symlinks were followed.
    hops: usize,
}

impl Walk {
    /// Back at the root, keeping the buffer.
    fn reset(&mut self) {
        self.real.clear();
        self.real.push(b'/');
        self.depth = 0;
        self.missing_from = None;
        self.hops = 0;
    }

    fn push(&mut self, name: &[u8]) {
        if self.real.is_empty() {
            self.real.push(b'/');
        }
        if self.real.len() > 1 {
            self.real.push(b'/');
        }
        self.real.extend_from_slice(name);
        self.depth += 1;
    }

    fn pop(&mut self) {
        if self.depth == 0 {
            return;
        }
        let cut = self.real.iter().rposition(|&b| b == b'/').unwrap_or(0);
        self.real.truncate(cut.max(1));
        self.depth -= 1;
        if self.missing_from.is_some_and(|m| self.depth < m) {
            self.missing_from = None;
        }
    }
}

impl<'a> Resolver<'a> {
    /// A resolver for paths mostly below `cwd` (an absolute directory path).
    pub(crate) fn new(cwd: &'a Path) -> Self {
        let mut base = cwd.as_os_str().as_bytes();
        while base.len() > 1 && base.last() == Some(&b'/') {
            base = &base[..base.len() - 1];
        }
        Resolver { seen: Seen::default(), base, base_walk: None, scratch: Walk::default() }
    }

    /// `path` as written with `.` and `..` removed lexically, and, when it differs, the real
    /// path the kernel would open for it (see the module documentation).
    ///
    /// Deny and ask rules fire if *any* form matches; allow rules and "inside the working
    /// directories" need *every* form to match.
    pub(crate) fn forms(&mut self, path: &Path) -> Forms {
        let path = absolute(path);
        let bytes = path.as_os_str().as_bytes();
        let lexical = lexical(bytes);
        let walk = self.resolve(bytes);
        let differs = walk.real[..] != lexical[..];
        let mut forms = Forms::new();
        forms.push(to_path(lexical));
        if differs {
            forms.push(to_path(walk.real.to_vec()));
        }
        self.scratch = walk;
        forms
    }

    /// Whether `path` leads to something that exists: no missing component on the way and no
    /// chain of more than [`MAX_HOPS`] symlinks (`..` out of a missing folder is taken
    /// lexically, so `missing/../d` exists where `d` does, though the kernel would refuse
    /// it). Entries the resolver has seen are not asked again, so after [`Resolver::forms`]
    /// of the same path this costs no system call.
    pub(crate) fn exists(&mut self, path: &Path) -> bool {
        let path = absolute(path);
        let walk = self.resolve(path.as_os_str().as_bytes());
        let exists = walk.missing_from.is_none();
        self.scratch = walk;
        exists
    }

    /// [`Resolver::forms`] of `path`, taken by value: when `path` lies below the working
    /// directory and the working directory does not exist and has no symlink on it, nothing
    /// below it exists either, so a path already without `.`, `..` and repeated `/` is its
    /// own only form, with no copy and no lookup.
    pub(crate) fn forms_owned(&mut self, path: PathBuf) -> Forms {
        let bytes = path.as_os_str().as_bytes();
        if self.below_base(bytes) && is_lexical(bytes) && self.base_missing_without_links() {
            let mut forms = Forms::new();
            forms.push(path);
            return forms;
        }
        self.forms(&path)
    }

    /// Whether `path` is the working directory or below it.
    fn below_base(&self, path: &[u8]) -> bool {
        !self.base.is_empty() && is_below(path, self.base)
    }

    /// The walk of the working directory, resolved on first use.
    fn base_walk(&mut self) -> &Walk {
        if self.base_walk.is_none() {
            let mut base_walk = Walk::default();
            base_walk.reset();
            self.walk_from_root(&mut base_walk, self.base);
            self.base_walk = Some(base_walk);
        }
        self.base_walk.get_or_insert_with(Walk::default)
    }

    /// Whether the working directory does not exist and its real path is itself.
    fn base_missing_without_links(&mut self) -> bool {
        self.base_walk();
        self.base_walk.as_ref().is_some_and(|walk| walk.missing_from.is_some() && walk.real[..] == *self.base)
    }

    /// The real path behind `path` (see the module documentation).
    #[cfg(test)]
    pub(crate) fn real(&mut self, path: &Path) -> PathBuf {
        let path = absolute(path);
        let walk = self.resolve(path.as_os_str().as_bytes());
        let real = to_path(walk.real.to_vec());
        self.scratch = walk;
        real
    }

    /// Resolves `path` into a walk that reuses the resolver's scratch buffer (hand it back
    /// through `self.scratch`).
    fn resolve(&mut self, path: &[u8]) -> Walk {
        let mut walk = std::mem::take(&mut self.scratch);
        // Below the working directory: continue from its walk.
        if !self.below_base(path) {
            walk.reset();
            self.walk_from_root(&mut walk, path);
            return walk;
        }
        let base = self.base_walk();
        walk.real.clear();
        walk.real.extend_from_slice(&base.real);
        walk.depth = base.depth;
        walk.missing_from = base.missing_from;
        walk.hops = base.hops;
        let rest = &path[self.base.len()..];
        self.walk(&mut walk, rest);
        walk
    }

    /// Walks `path` from the root into `walk` (which stands at the root). A path of three or
    /// more components without `.` or `..` is first put to the kernel whole: when no symlink
    /// is on it, its real path is itself, known from one open instead of one lookup per
    /// component.
    fn walk_from_root(&mut self, walk: &mut Walk, path: &[u8]) {
        let mut parts = path.split(|&b| b == b'/').filter(|part| !part.is_empty());
        // Two system calls (open, close) pay off from three components on.
        let worth_it = parts.clone().nth(2).is_some() && parts.all(|part| part != b"." && part != b"..");
        let verdict = if worth_it { links_on(path) } else { Links::Unknown };
        match verdict {
            Links::NoneExists | Links::NoneBeforeMissing => {
                for part in path.split(|&b| b == b'/').filter(|part| !part.is_empty()) {
                    walk.push(part);
                }
                if matches!(verdict, Links::NoneBeforeMissing) {
                    // Some component is missing, so everything below the path is too; which
                    // one is not known, so `..` out of it is looked at again.
                    walk.missing_from = Some(walk.depth);
                }
            }
            Links::Unknown => self.walk(walk, path),
        }
    }

    /// Continues `walk` through the components of `rest`.
    fn walk(&mut self, walk: &mut Walk, rest: &[u8]) {
        // The components still to walk: `rest`, with the targets of links met spliced in
        // front (copied only when a link is met).
        let mut pending = std::borrow::Cow::Borrowed(rest);
        let mut at = 0;
        while at < pending.len() {
            let end = pending[at..].iter().position(|&b| b == b'/').map_or(pending.len(), |i| at + i);
            let part = &pending[at..end];
            at = end + 1;
            match part {
                b"" | b"." => continue,
                b".." => {
                    walk.pop();
                    continue;
                }
                _ => {}
            }
            walk.push(part);
            if walk.missing_from.is_some() {
                continue;
            }
            match self.entry(&walk.real) {
                Entry::Plain => {}
                Entry::Missing => walk.missing_from = Some(walk.depth),
                Entry::Link(_) if walk.hops >= MAX_HOPS => walk.missing_from = Some(walk.depth),
                Entry::Link(target) if target.is_empty() => walk.missing_from = Some(walk.depth),
                Entry::Link(target) => {
                    walk.hops += 1;
                    walk.pop();
                    if target.first() == Some(&b'/') {
                        let hops = walk.hops;
                        walk.reset();
                        walk.hops = hops;
                    }
                    let mut spliced = target;
                    spliced.push(b'/');
                    spliced.extend_from_slice(pending.get(at..).unwrap_or_default());
                    pending = std::borrow::Cow::Owned(spliced);
                    at = 0;
                }
            }
        }
    }

    /// What `path` (whose parent is a real directory path) is, asking the file system once.
    fn entry(&mut self, path: &[u8]) -> Entry {
        if let Some(entry) = self.seen.get(path) {
            return entry.clone();
        }
        let entry = read_entry(path);
        self.seen.insert(path, entry.clone());
        entry
    }
}

/// What `path` is, asked of the kernel with one `readlink` into a buffer on the stack (one
/// that fills it, a long link target, is asked again through std).
#[cfg(target_os = "linux")]
fn read_entry(path: &[u8]) -> Entry {
    use rustix::fs::{CWD, readlinkat_raw};
    use rustix::io::Errno;
    // A name with a NUL byte cannot exist (and rustix would refuse it as EINVAL, which from
    // the kernel means "not a symlink").
    if path.contains(&0) {
        return Entry::Missing;
    }
    let mut buffer = [0u8; 256];
    match readlinkat_raw(CWD, OsStr::from_bytes(path), &mut buffer[..]) {
        Ok(len) if len < buffer.len() => Entry::Link(buffer[..len].to_vec()),
        Ok(_) => std_entry(path),
        // EINVAL: it exists and is not a symlink.
        Err(Errno::INVAL) => Entry::Plain,
        Err(_) => Entry::Missing,
    }
}

/// Elsewhere, std's `read_link`.
#[cfg(not(target_os = "linux"))]
fn read_entry(path: &[u8]) -> Entry {
    std_entry(path)
}

/// What `path` is, asked through std's `read_link`.
fn std_entry(path: &[u8]) -> Entry {
    match std::fs::read_link(OsStr::from_bytes(path)) {
        Ok(target) => Entry::Link(target.into_os_string().into_vec()),
        // EINVAL from the kernel: it exists and is not a symlink. (A path std refuses
        // before asking, one with a NUL byte, is InvalidInput too, without an OS error:
        // nothing by that name can exist.)
        Err(e) if e.kind() == ErrorKind::InvalidInput && e.raw_os_error().is_some() => Entry::Plain,
        Err(_) => Entry::Missing,
    }
}

/// What the kernel says of the symlinks on a path (one without `.` or `..`).
enum Links {
    /// The path exists and no component of it is a symlink.
    NoneExists,
    /// A component is missing (or a file is used as a folder), and none before it is a
    /// symlink.
    NoneBeforeMissing,
    /// A symlink is on the path, or the kernel could not say (no `openat2`, no permission).
    Unknown,
}

/// Opens `path` (`O_PATH`, nothing read) refusing every symlink on the way, the last
/// component's included (`RESOLVE_NO_SYMLINKS` without `O_NOFOLLOW`): success means no
/// symlink is on the path; `ENOENT`/`ENOTDIR` mean none is before the missing component;
/// anything else (`ELOOP` for a symlink, `ENOSYS` on kernels before 5.6, `EACCES`) is left
/// to the component walk.
#[cfg(target_os = "linux")]
fn links_on(path: &[u8]) -> Links {
    use rustix::fs::{CWD, Mode, OFlags, ResolveFlags, openat2};
    use rustix::io::Errno;
    let flags = OFlags::PATH | OFlags::CLOEXEC;
    match openat2(CWD, OsStr::from_bytes(path), flags, Mode::empty(), ResolveFlags::NO_SYMLINKS) {
        Ok(_fd) => Links::NoneExists,
        Err(Errno::NOENT | Errno::NOTDIR) => Links::NoneBeforeMissing,
        Err(_) => Links::Unknown,
    }
}

/// Elsewhere there is no `openat2`: every path is walked component by component.
#[cfg(not(target_os = "linux"))]
fn links_on(_path: &[u8]) -> Links {
    Links::Unknown
}

/// `path`, made absolute against the process's directory if it is not (the engine always
/// passes absolute paths).
fn absolute(path: &Path) -> std::borrow::Cow<'_, Path> {
    if path.is_absolute() {
        return std::borrow::Cow::Borrowed(path);
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    std::borrow::Cow::Owned(cwd.join(path))
}

/// An absolute path with `.`, `..` and repeated `/` removed lexically (`..` at the root stays
/// at the root), as [`toolgate_core::normalize_path`] does.
fn lexical(path: &[u8]) -> Vec<u8> {
    if is_lexical(path) {
        return path.to_vec();
    }
    let mut walk = Walk::default();
    walk.reset();
    for part in path.split(|&b| b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => walk.pop(),
            _ => walk.push(part),
        }
    }
    walk.real.into_vec()
}

/// Whether `path` is `dir` or below it, both absolute and normal (as [`is_lexical`] says, or
/// `dir` with a trailing `/`): `Path::starts_with` on their bytes, a component boundary
/// after `dir`.
pub(crate) fn is_below(path: &[u8], dir: &[u8]) -> bool {
    path.starts_with(dir) && (path.len() == dir.len() || dir.ends_with(b"/") || path[dir.len()] == b'/')
}

/// Whether the absolute `path` is already as [`lexical`] would make it: no empty, `.` or
/// `..` component, no trailing `/` (the root alone excepted).
pub(crate) fn is_lexical(path: &[u8]) -> bool {
    if path == b"/" {
        return true;
    }
    path.first() == Some(&b'/')
        && path[1..].split(|&b| b == b'/').all(|part| !part.is_empty() && part != b"." && part != b"..")
}

fn to_path(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(OsString::from_vec(bytes))
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
    fn exists_follows_links_and_stops_at_missing_entries() {
        let (_guard, root) = tmp();
        std::fs::create_dir_all(root.join("d/e")).unwrap();
        symlink("d", root.join("to_d")).unwrap();
        symlink("nowhere", root.join("dangling")).unwrap();
        symlink("loop_b", root.join("loop_a")).unwrap();
        symlink("loop_a", root.join("loop_b")).unwrap();
        let mut resolver = Resolver::new(&root);
        for (path, exists) in [
            ("d", true),
            ("d/e", true),
            ("to_d/e", true),
            ("d/e/../../d", true),
            ("d/x", false),
            ("missing/d", false),
            ("dangling", false),
            ("dangling/x", false),
            ("loop_a", false),
        ] {
            assert_eq!(resolver.exists(&root.join(path)), exists, "{path}");
            assert_eq!(root.join(path).exists(), exists, "{path} (std)");
        }
        // `..` out of a missing folder is taken lexically: the kernel would refuse the path,
        // and "exists" is the side a caller that skips work for missing paths can afford.
        assert!(resolver.exists(&root.join("missing/../d")));
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
        let mut resolver = Resolver::new(Path::new("/"));
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
        let forms = Resolver::new(Path::new("/")).forms(&root.join("repo/link/../.env"));
        assert_eq!(forms.as_slice(), [root.join("repo/.env"), root.join("outside/.env")]);
    }

    #[test]
    fn missing_parts_are_appended_and_dot_dot_returns_to_real_ground() {
        let (_guard, root) = tmp();
        std::fs::create_dir(root.join("real")).unwrap();
        symlink(root.join("real"), root.join("link")).unwrap();
        let mut resolver = Resolver::new(Path::new("/"));
        assert_eq!(resolver.real(&root.join("link/new/deeper/f")), root.join("real/new/deeper/f"));
        // Back out of the missing part into the link again: it is still followed.
        assert_eq!(resolver.real(&root.join("new/../link/x")), root.join("real/x"));
        // A file used as a directory is missing below it.
        std::fs::write(root.join("real/file"), "").unwrap();
        let mut fresh = Resolver::new(Path::new("/"));
        assert_eq!(fresh.real(&root.join("link/file/x")), root.join("real/file/x"));
    }

    #[test]
    fn loops_and_dangling_links_end() {
        let (_guard, root) = tmp();
        symlink(root.join("b"), root.join("a")).unwrap();
        symlink(root.join("a"), root.join("b")).unwrap();
        symlink(root.join("nowhere/target"), root.join("dangling")).unwrap();
        let mut resolver = Resolver::new(Path::new("/"));
        let looped = resolver.real(&root.join("a/x"));
        assert!(looped.starts_with(&root) && looped.ends_with("x"), "{looped:?}");
        // A dangling link resolves to where a write through it would land.
        assert_eq!(resolver.real(&root.join("dangling")), root.join("nowhere/target"));
    }

    #[test]
    fn paths_below_the_working_directory_resolve_as_from_the_root() {
        let (_guard, root) = tmp();
        std::fs::create_dir_all(root.join("real/sub")).unwrap();
        std::fs::create_dir(root.join("other")).unwrap();
        symlink(root.join("real"), root.join("link")).unwrap();
        symlink(root.join("other"), root.join("real/sub/away")).unwrap();
        for cwd in ["link", "link/", "link/sub/..", "real/sub/away", "missing/dir", "link/missing"] {
            let cwd = root.join(cwd);
            let mut based = Resolver::new(&cwd);
            for p in ["", "x", "sub/away/y", "../z", "../../real/sub", "./a/../b", "a//b"] {
                let path = cwd.join(p);
                let expected = Resolver::new(Path::new("/")).forms(&path);
                assert_eq!(based.forms(&path), expected, "{cwd:?} + {p}");
                // By value (in a missing working directory, a lexical path is its own form).
                assert_eq!(Resolver::new(&cwd).forms_owned(path.clone()), expected, "{cwd:?} + {p}, by value");
                assert_eq!(based.forms_owned(path.clone()), expected, "{cwd:?} + {p}, by value, reused");
            }
            // Paths elsewhere are resolved from the root.
            assert_eq!(based.real(&root.join("link/sub")), root.join("real/sub"));
        }
    }

    /// Random trees of folders, files and symlinks (relative, absolute, dangling, looping),
    /// and random paths through them with `.` and `..`: wherever the path exists, the
    /// resolver agrees with the kernel's `realpath`, from the root and from a working
    /// directory alike.
    #[test]
    fn random_trees_agree_with_realpath() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            usize::try_from(seed % n as u64).unwrap_or(0)
        };
        let names = ["a", "b", "c", "d", "e"];
        let mut compared = 0;
        for _ in 0..40 {
            let (_guard, root) = tmp();
            let mut dirs = vec![root.clone()];
            for _ in 0..14 {
                let parent = dirs[next(dirs.len())].clone();
                let at = parent.join(names[next(names.len())]);
                if std::fs::symlink_metadata(&at).is_ok() {
                    continue;
                }
                match next(4) {
                    0 | 1 => {
                        std::fs::create_dir(&at).unwrap();
                        dirs.push(at);
                    }
                    2 => std::fs::write(&at, "").unwrap(),
                    _ => {
                        // A target somewhere in the tree (or above it, or missing), written
                        // absolute or relative with `..`.
                        let target_dir = &dirs[next(dirs.len())];
                        let target = target_dir.join(names[next(names.len())]);
                        let target = if next(2) == 0 {
                            target
                        } else {
                            let depth = at.strip_prefix(&root).map_or(0, |p| p.components().count() - 1);
                            let mut rel = PathBuf::new();
                            for _ in 0..depth {
                                rel.push("..");
                            }
                            rel.join(target.strip_prefix(&root).unwrap_or(&target))
                        };
                        symlink(&target, &at).unwrap();
                    }
                }
            }
            for _ in 0..60 {
                let mut path = root.clone();
                for _ in 0..1 + next(5) {
                    path.push(match next(7) {
                        0 => "..",
                        1 => ".",
                        _ => names[next(names.len())],
                    });
                }
                let Ok(expected) = std::fs::canonicalize(&path) else { continue };
                let cwd = &dirs[next(dirs.len())];
                assert_eq!(Resolver::new(Path::new("/")).real(&path), expected, "{path:?}");
                assert_eq!(Resolver::new(cwd).real(&path), expected, "{path:?} from {cwd:?}");
                compared += 1;
            }
        }
        assert!(compared > 300, "only {compared} paths existed");
    }

    #[test]
    fn names_no_file_can_have_are_missing() {
        let (_guard, root) = tmp();
        std::fs::create_dir(root.join("d")).unwrap();
        let odd = root.join("d/a\0b/c");
        assert_eq!(Resolver::new(&root).forms(&odd).as_slice(), std::slice::from_ref(&odd));
        let mut resolver = Resolver::new(Path::new("/"));
        assert_eq!(resolver.real(&odd), odd);
        assert!(resolver.seen.entries().any(|e| matches!(e, Entry::Missing)));
    }

    /// Past the entries searched in order, the rest are found through the map, the early
    /// ones included.
    #[test]
    fn many_entries_are_all_remembered() {
        let (_guard, root) = tmp();
        let mut resolver = Resolver::new(Path::new("/"));
        let count = Seen::LINEAR * 3;
        for i in 0..count {
            std::fs::create_dir(root.join(format!("d{i}"))).unwrap();
            assert_eq!(resolver.real(&root.join(format!("d{i}/x"))), root.join(format!("d{i}/x")));
        }
        let seen = resolver.seen.len();
        assert!(seen > count, "{seen}");
        for i in (0..count).rev() {
            resolver.real(&root.join(format!("d{i}")));
        }
        assert_eq!(resolver.seen.len(), seen, "nothing looked up twice");
        assert!(resolver.seen.entries().filter(|e| matches!(e, Entry::Plain)).count() >= count);
    }

    #[test]
    fn each_entry_is_looked_up_once_per_resolver() {
        let (_guard, root) = tmp();
        std::fs::create_dir(root.join("d")).unwrap();
        let mut resolver = Resolver::new(Path::new("/"));
        resolver.real(&root.join("d/x"));
        let after_first = resolver.seen.len();
        assert!(after_first > 0);
        resolver.real(&root.join("d/x"));
        resolver.real(&root.join("d"));
        assert_eq!(resolver.seen.len(), after_first);
        // The answers do not outlive the resolver: a link made now is seen by a new one.
        symlink(root.join("d"), root.join("l")).unwrap();
        assert_eq!(Resolver::new(Path::new("/")).real(&root.join("l/x")), root.join("d/x"));
    }
}
