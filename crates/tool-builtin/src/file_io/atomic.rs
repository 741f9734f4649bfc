//! Writes that land whole or not at all.
//!
//! A write goes to a temporary file in the target's own directory (so the final rename
//! never crosses a file system), which gets the target's permission bits and owner, is
//! flushed to disk (`fsync`), and is then renamed over the target; the directory is
//! synced afterwards so the rename itself survives a crash. A reader, or a process killed
//! at any moment, sees the old content or the new, never a mix.
//!
//! A symlink is written through: the file it points to is replaced and the link stays.
//! (A hard link, like with any rename-based write, ends up pointing at the old content.)
//!
//! [`commit_all`] applies several staged changes (writes and removals) as one: each
//! replaced file is first hard-linked (or copied) to a backup, each removed file renamed
//! to one, and when a step fails every earlier step is undone from those backups.
//!
//! **Leftovers of a killed process.** A process killed between creating its temporary
//! file (or backup) and renaming or removing it leaves that file behind; the target is
//! untouched or wholly replaced either way. Both kinds of names carry the writer's
//! process id (`.<name>.<pid>.<random>.toolgate-tmp`, `.<name>.<pid>.<n>.toolgate-bak`),
//! and the first write into a directory in a process removes the leftovers there whose
//! writer no longer runs ([`sweep_leftovers`]). (A backup left by a removal that a kill
//! interrupted holds the removed file; removing it completes the removal.)

use std::collections::HashSet;
use std::fs;
use std::io::{self, Write as _};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use tempfile::TempPath;

/// A new file's mode before the umask: `rw-rw-rw-`, as editors and `touch` create files.
const NEW_FILE_MODE: u32 = 0o666;

/// Content written to a temporary file beside its target, ready to be renamed into place.
#[derive(Debug)]
pub(crate) struct Staged {
    temp: TempPath,
    target: PathBuf,
}

impl Staged {
    /// Renames the temporary file over the target and syncs the directory.
    pub(crate) fn commit(self) -> io::Result<()> {
        let target = self.target;
        self.temp.persist(&target).map_err(|e| e.error)?;
        sync_parent(&target);
        Ok(())
    }
}

/// Where a write to `path` really goes: through a symlink to the file it names.
pub(crate) fn real_target(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

/// Writes `bytes` to a temporary file beside `path` (creating missing parent
/// directories), with `path`'s permission bits and owner when it exists, synced to disk.
/// Nothing visible changes until [`Staged::commit`]; dropping the result removes the
/// temporary file.
pub(crate) fn stage(path: &Path, bytes: &[u8]) -> io::Result<Staged> {
    let target = real_target(path);
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir)?;
    sweep_once(&dir);
    let existing = fs::metadata(&target).ok().filter(fs::Metadata::is_file);
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut builder = tempfile::Builder::new();
    let prefix = format!(".{name}.{}.", std::process::id());
    builder.prefix(&prefix).suffix(TEMP_SUFFIX);
    if existing.is_none() {
        // Subject to the umask, like any newly created file.
        builder.permissions(fs::Permissions::from_mode(NEW_FILE_MODE));
    }
    let mut file = builder.tempfile_in(&dir)?;
    file.write_all(bytes)?;
    if let Some(meta) = &existing {
        // Owner first: changing the owner clears set-user-ID bits, which the mode then restores.
        if meta.uid() != file.as_file().metadata()?.uid() || meta.gid() != file.as_file().metadata()?.gid() {
            // Only root may give a file away; anyone else keeps ownership, as any editor does.
            let _ = std::os::unix::fs::fchown(file.as_file(), Some(meta.uid()), Some(meta.gid()));
        }
        file.as_file().set_permissions(fs::Permissions::from_mode(meta.mode() & 0o7777))?;
    }
    file.as_file().sync_all()?;
    Ok(Staged { temp: file.into_temp_path(), target })
}

/// The suffix of a temporary file.
const TEMP_SUFFIX: &str = ".toolgate-tmp";

/// The suffix of a backup.
const BACKUP_SUFFIX: &str = ".toolgate-bak";

/// The process id in a temporary file's or backup's name: the second-to-last
/// dot-separated part before the suffix (`.<name>.<pid>.<x>.toolgate-tmp`).
fn writer_pid(file_name: &str) -> Option<u32> {
    let stem = file_name.strip_suffix(TEMP_SUFFIX).or_else(|| file_name.strip_suffix(BACKUP_SUFFIX))?;
    if !stem.starts_with('.') {
        return None;
    }
    let mut parts = stem.rsplit('.');
    let _unique = parts.next()?;
    parts.next()?.parse().ok()
}

/// Whether a process with this id runs (or is a zombie not yet reaped).
fn process_runs(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Removes the temporary files and backups in `dir` whose writer no longer runs (see the
/// module docs); returns how many were removed. Only regular files with both the name
/// shape and a dead writer are touched; anything else stays.
pub(crate) fn sweep_leftovers(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let me = std::process::id();
    let mut removed = 0;
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(writer_pid) else {
            continue;
        };
        if pid == me || process_runs(pid) {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_file()) && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// [`sweep_leftovers`] once per directory per process: the first write into a directory
/// pays one directory listing, later ones nothing.
fn sweep_once(dir: &Path) {
    static SWEPT: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    let first = {
        let mut swept = SWEPT.lock().unwrap_or_else(PoisonError::into_inner);
        let swept = swept.get_or_insert_with(HashSet::new);
        // Bounded: a process writing into very many directories forgets the oldest
        // knowledge wholesale; a second sweep is harmless.
        if swept.len() >= 4096 {
            swept.clear();
        }
        swept.insert(dir.to_path_buf())
    };
    if first {
        sweep_leftovers(dir);
    }
}

/// Replaces `path`'s content with `bytes` atomically (see the module docs).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    stage(path, bytes)?.commit()
}

/// Best-effort `fsync` of `path`'s directory, so a completed rename is durable.
fn sync_parent(path: &Path) {
    if let Some(dir) = path.parent()
        && let Ok(handle) = fs::File::open(if dir.as_os_str().is_empty() { Path::new(".") } else { dir })
    {
        let _ = handle.sync_all();
    }
}

/// One change of a multi-file commit.
#[derive(Debug)]
pub(crate) enum Step {
    /// Rename a staged file over its target.
    Write(Staged),
    /// Remove a file.
    Remove(PathBuf),
}

/// How to undo a step that was carried out.
#[derive(Debug)]
enum Undo {
    /// A write over `target`; `backup` holds the old content when there was one.
    Written { target: PathBuf, backup: Option<PathBuf> },
    /// A removal; the file waits at `backup`.
    Removed { target: PathBuf, backup: PathBuf },
}

/// A step that failed, after every earlier step was undone.
#[derive(Debug)]
pub(crate) struct CommitError {
    /// The file whose step failed.
    pub path: PathBuf,
    /// Why.
    pub error: io::Error,
    /// Files whose earlier step could not be undone (empty when the rollback worked).
    pub not_restored: Vec<PathBuf>,
}

/// A name beside `path` that does not exist yet, for a backup.
fn backup_name(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let candidate = path.with_file_name(format!(".{name}.{}.{n}{BACKUP_SUFFIX}", std::process::id()));
        if fs::symlink_metadata(&candidate).is_err() {
            return candidate;
        }
    }
}

/// Keeps `path`'s current content at a new backup name: a hard link when the file
/// system allows it, a copy otherwise.
fn back_up(path: &Path) -> io::Result<PathBuf> {
    let backup = backup_name(path);
    if fs::hard_link(path, &backup).is_err() {
        fs::copy(path, &backup)?;
    }
    Ok(backup)
}

/// Carries out `steps` in order, all or none: when one fails, the earlier ones are undone
/// in reverse order and the error says which file failed. Backups are removed after
/// success.
pub(crate) fn commit_all(steps: Vec<Step>) -> Result<(), CommitError> {
    let mut done: Vec<Undo> = Vec::with_capacity(steps.len());
    let mut steps = steps.into_iter();
    while let Some(step) = steps.next() {
        let outcome = match step {
            Step::Write(staged) => {
                let target = staged.target.clone();
                let result = (|| {
                    let backup = if fs::symlink_metadata(&target).is_ok() { Some(back_up(&target)?) } else { None };
                    match staged.commit() {
                        Ok(()) => Ok(Undo::Written { target: target.clone(), backup }),
                        Err(err) => {
                            if let Some(backup) = backup {
                                let _ = fs::remove_file(backup);
                            }
                            Err(err)
                        }
                    }
                })();
                result.map_err(|error| (target, error))
            }
            Step::Remove(target) => {
                let backup = backup_name(&target);
                match fs::rename(&target, &backup) {
                    Ok(()) => Ok(Undo::Removed { target, backup }),
                    Err(error) => Err((target, error)),
                }
            }
        };
        match outcome {
            Ok(undo) => done.push(undo),
            Err((path, error)) => {
                // Staged files not yet committed are removed as `steps` drops.
                drop(steps);
                let not_restored = roll_back(done);
                return Err(CommitError { path, error, not_restored });
            }
        }
    }
    for undo in done {
        let backup = match undo {
            Undo::Written { backup, .. } => backup,
            Undo::Removed { target, backup } => {
                sync_parent(&target);
                Some(backup)
            }
        };
        if let Some(backup) = backup {
            let _ = fs::remove_file(backup);
        }
    }
    Ok(())
}

/// Undoes `done` in reverse order; returns the files that could not be restored.
fn roll_back(done: Vec<Undo>) -> Vec<PathBuf> {
    let mut failed = Vec::new();
    for undo in done.into_iter().rev() {
        let (target, ok) = match undo {
            Undo::Written { target, backup: Some(backup) } => {
                let ok = fs::rename(&backup, &target).is_ok();
                (target, ok)
            }
            Undo::Written { target, backup: None } => {
                let ok = fs::remove_file(&target).is_ok();
                (target, ok)
            }
            Undo::Removed { target, backup } => {
                let ok = fs::rename(&backup, &target).is_ok();
                (target, ok)
            }
        };
        if ok {
            sync_parent(&target);
        } else {
            failed.push(target);
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("toolgate-"))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn write_keeps_permission_bits_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.sh");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o7777, 0o750);
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn new_files_get_ordinary_permissions_and_parents() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/new.txt");
        write_atomic(&path, b"x").unwrap();
        let mode = fs::metadata(&path).unwrap().mode() & 0o777;
        // rw for the owner at least, never the 0600 of a bare temp file when the umask allows more.
        assert_eq!(mode & 0o600, 0o600);
        assert_ne!(mode, 0o600, "umask-derived mode expected, got {mode:o}");
    }

    #[test]
    fn symlinks_are_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    }

    /// Regression: temporary files of a process killed mid-write stayed forever.
    #[test]
    fn leftovers_of_dead_writers_are_swept_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        // A pid that cannot run: above the kernel's pid_max (at most 2^22).
        let dead = 4_194_305 + 17;
        let me = std::process::id();
        let names = [
            format!(".a.txt.{dead}.Xy12ab.toolgate-tmp"),
            format!(".a.txt.{dead}.3.toolgate-bak"),
            format!(".a.txt.{me}.Qw34cd.toolgate-tmp"),
            ".a.txt.notapid.Xy12ab.toolgate-tmp".to_owned(),
            format!("a.txt.{dead}.Xy12ab.toolgate-tmp"),
            "a.txt".to_owned(),
        ];
        for name in &names {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        assert_eq!(sweep_leftovers(dir.path()), 2);
        let mut left: Vec<String> =
            fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        let mut want = names[2..].to_vec();
        want.sort();
        assert_eq!(left, want);
        assert_eq!(writer_pid(&names[0]), Some(dead));
        assert_eq!(writer_pid(".x.5.toolgate-tmp"), None, "too few parts");
    }

    #[test]
    fn commit_all_applies_every_step() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let b = dir.path().join("b.txt");
        let gone = dir.path().join("gone.txt");
        fs::write(&a, "old a").unwrap();
        fs::write(&gone, "bye").unwrap();
        let steps = vec![
            Step::Write(stage(&a, b"new a").unwrap()),
            Step::Write(stage(&b, b"b").unwrap()),
            Step::Remove(gone.clone()),
        ];
        commit_all(steps).unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "new a");
        assert_eq!(fs::read_to_string(&b).unwrap(), "b");
        assert!(!gone.exists());
        assert!(leftovers(dir.path()).is_empty(), "{:?}", leftovers(dir.path()));
    }

    /// A failing step in the middle leaves every file as it was.
    #[test]
    fn commit_all_rolls_back_when_a_step_fails() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let gone = dir.path().join("gone.txt");
        let created = dir.path().join("created.txt");
        let blocked = dir.path().join("blocked");
        fs::write(&a, "old a").unwrap();
        fs::write(&gone, "keep me").unwrap();
        let steps = vec![
            Step::Write(stage(&a, b"new a").unwrap()),
            Step::Remove(gone.clone()),
            Step::Write(stage(&created, b"c").unwrap()),
            Step::Write(stage(&blocked, b"never").unwrap()),
        ];
        // The last target turns into a non-empty directory after staging: its rename fails.
        fs::create_dir(&blocked).unwrap();
        fs::write(blocked.join("inside"), "x").unwrap();
        let err = commit_all(steps).unwrap_err();
        assert_eq!(err.path, blocked);
        assert!(err.not_restored.is_empty());
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
        assert_eq!(fs::read_to_string(&gone).unwrap(), "keep me");
        assert!(!created.exists());
        assert!(leftovers(dir.path()).is_empty(), "{:?}", leftovers(dir.path()));
    }
}
