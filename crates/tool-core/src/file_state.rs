//! What the model has read, so Edit and Write can refuse to clobber a file it has not
//! seen, or one that changed since it looked.
//!
//! Read records a [`FileState`] (a content hash, the mtime, the size, whether the view
//! was partial) in the session's [`FileStateCache`]; Edit and Write call
//! [`FileStateCache::check_writable`] before writing and [`FileStateCache::record_write`]
//! after. The cache is bounded (least recently used entries go first) and keeps no file
//! contents, only metadata, so it can be persisted with the session
//! ([`FileStateCache::snapshot`], [`FileStateCache::restore`]).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

/// What was known about a file when it was last read or written.
///
/// ```
/// use toolgate_core::FileState;
/// let state = FileState::new(b"fn main() {}\n", None, false);
/// assert_eq!(state.size, 13);
/// assert_eq!(state.hash, FileState::hash_bytes(b"fn main() {}\n"));
/// assert!(!state.partial);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// [`FileState::hash_bytes`] of the bytes read (the whole file unless `partial`).
    pub hash: u64,
    /// The file's modification time when read, if the platform reports one.
    pub mtime: Option<SystemTime>,
    /// The number of bytes read (the file's size unless `partial`).
    pub size: u64,
    /// Whether only part of the file was read (a line range, or the first page of a file
    /// over the read cap). A partial read does not permit writing.
    pub partial: bool,
}

impl FileState {
    /// The state of a file whose read produced `bytes`.
    pub fn new(bytes: &[u8], mtime: Option<SystemTime>, partial: bool) -> Self {
        Self { hash: Self::hash_bytes(bytes), mtime, size: bytes.len() as u64, partial }
    }

    /// The content hash: 64-bit FNV-1a over the bytes (offset basis
    /// `0xcbf29ce484222325`, prime `0x100000001b3`).
    ///
    /// It is fixed by this definition, not by the Rust version or the process, so hashes
    /// persisted with a session stay comparable. It detects changes, it does not resist
    /// forgery; nothing here needs that.
    ///
    /// ```
    /// use toolgate_core::FileState;
    /// assert_eq!(FileState::hash_bytes(b""), 0xcbf2_9ce4_8422_2325);
    /// assert_eq!(FileState::hash_bytes(b"a"), 0xaf63_dc4c_8601_ec8c);
    /// ```
    pub fn hash_bytes(bytes: &[u8]) -> u64 {
        const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        bytes.iter().fold(OFFSET_BASIS, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(PRIME))
    }
}

/// Why a file may not be written yet.
///
/// The messages are the sentences the model reads, worded as Claude Code words them, so
/// they break the house rule for library errors (lowercase, no trailing period) on
/// purpose.
///
/// ```
/// use toolgate_core::FileStateError;
/// assert_eq!(
///     FileStateError::NotRead.to_string(),
///     "File has not been read yet. Read it first before writing to it."
/// );
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileStateError {
    /// The file exists but was never read in this session.
    #[error("File has not been read yet. Read it first before writing to it.")]
    NotRead,
    /// Only part of the file was read.
    #[error("File has only been partially read. Read the whole file before writing to it.")]
    PartiallyRead,
    /// The file's content changed after it was read.
    #[error(
        "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
    )]
    Modified,
    /// The file was read but no longer exists. The stale record is dropped, so writing
    /// again creates the file afresh.
    #[error(
        "File has been deleted since it was read. Check whether it should still exist; writing it again will create it as a new file."
    )]
    Deleted,
    /// The file's metadata or content could not be read.
    #[error("Could not check the file before writing to it: {0}")]
    Io(#[from] io::Error),
}

/// Bookkeeping for one path.
#[derive(Debug)]
struct Slot {
    state: FileState,
    /// Position in the LRU order: larger is more recent.
    tick: u64,
    /// Bytes accounted to this entry.
    cost: usize,
}

/// The cache proper, behind the mutex.
#[derive(Debug, Default)]
struct Inner {
    slots: HashMap<PathBuf, Slot>,
    /// Tick to path, oldest first.
    order: BTreeMap<u64, PathBuf>,
    next_tick: u64,
    bytes: usize,
}

impl Inner {
    fn tick(&mut self) -> u64 {
        self.next_tick += 1;
        self.next_tick
    }

    /// Moves `path` to the most recent position, returning its state.
    fn touch(&mut self, path: &Path) -> Option<FileState> {
        let tick = self.tick();
        let slot = self.slots.get_mut(path)?;
        let old = std::mem::replace(&mut slot.tick, tick);
        let state = slot.state.clone();
        if let Some(key) = self.order.remove(&old) {
            self.order.insert(tick, key);
        }
        Some(state)
    }

    fn insert(&mut self, path: &Path, state: FileState) {
        let tick = self.tick();
        let cost = FileStateCache::entry_cost(path);
        if let Some(old) = self.slots.insert(path.to_path_buf(), Slot { state, tick, cost }) {
            self.order.remove(&old.tick);
            self.bytes -= old.cost;
        }
        self.order.insert(tick, path.to_path_buf());
        self.bytes += cost;
    }

    fn remove(&mut self, path: &Path) -> Option<FileState> {
        let slot = self.slots.remove(path)?;
        self.order.remove(&slot.tick);
        self.bytes -= slot.cost;
        Some(slot.state)
    }

    /// Evicts the least recently used entries until both bounds hold.
    fn shrink(&mut self, max_entries: usize, max_bytes: usize) {
        while self.slots.len() > max_entries || self.bytes > max_bytes {
            let Some((_, path)) = self.order.pop_first() else {
                break;
            };
            if let Some(slot) = self.slots.remove(&path) {
                self.bytes -= slot.cost;
            }
        }
    }
}

/// The session's record of what has been read, for read-before-write checks.
///
/// Thread-safe (every method takes `&self`; share it in an `Arc`) and bounded: at most
/// `max_entries` paths and `max_bytes` of accounted memory (each entry counts its path's
/// length plus [`FileStateCache::ENTRY_OVERHEAD_BYTES`]; no file contents are kept).
/// When either bound is exceeded the least recently used entries are evicted; recording,
/// [`get`](FileStateCache::get) and [`check_writable`](FileStateCache::check_writable)
/// count as use. An evicted file simply has to be read again.
///
/// Paths are keys as given: callers pass the resolved absolute path (as
/// [`ToolContext::resolve_path`](crate::ToolContext::resolve_path) returns it), the same for
/// reads and writes.
///
/// Default bounds: [`FileStateCache::DEFAULT_MAX_ENTRIES`] entries and
/// [`FileStateCache::DEFAULT_MAX_BYTES`] bytes.
///
/// ```
/// use toolgate_core::{FileStateCache, FileStateError};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("notes.txt");
/// std::fs::write(&path, "hello\n")?;
///
/// let cache = FileStateCache::default();
/// assert!(matches!(cache.check_writable(&path), Err(FileStateError::NotRead)));
///
/// // The Read tool records what it read ...
/// let bytes = std::fs::read(&path)?;
/// let mtime = std::fs::metadata(&path)?.modified().ok();
/// cache.record_read(&path, &bytes, mtime, false);
/// assert!(cache.check_writable(&path).is_ok());
///
/// // ... and a change behind the model's back is caught.
/// std::fs::write(&path, "hello, world\n")?;
/// assert!(matches!(cache.check_writable(&path), Err(FileStateError::Modified)));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct FileStateCache {
    inner: Mutex<Inner>,
    max_entries: usize,
    max_bytes: usize,
}

impl Default for FileStateCache {
    /// A cache of at most 1,000 entries and 25 MB.
    fn default() -> Self {
        Self::with_limits(Self::DEFAULT_MAX_ENTRIES, Self::DEFAULT_MAX_BYTES)
    }
}

impl FileStateCache {
    /// The default bound on the number of entries.
    pub const DEFAULT_MAX_ENTRIES: usize = 1_000;
    /// The default bound on accounted bytes (25 MB).
    pub const DEFAULT_MAX_BYTES: usize = 25 * 1024 * 1024;
    /// The bytes each entry is accounted beyond its path's length (the state, the map
    /// and LRU bookkeeping, rounded up).
    pub const ENTRY_OVERHEAD_BYTES: usize = 128;

    /// A cache bounded to `max_entries` paths and `max_bytes` accounted bytes. An entry
    /// that alone exceeds `max_bytes` is not kept.
    pub fn with_limits(max_entries: usize, max_bytes: usize) -> Self {
        Self { inner: Mutex::new(Inner::default()), max_entries, max_bytes }
    }

    /// The bytes an entry for `path` is accounted.
    pub fn entry_cost(path: &Path) -> usize {
        path.as_os_str().len() + Self::ENTRY_OVERHEAD_BYTES
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Every update leaves the maps consistent before anything can panic, so a
        // poisoned lock still guards valid data.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn store(&self, path: &Path, state: FileState) {
        let mut inner = self.lock();
        inner.insert(path, state);
        inner.shrink(self.max_entries, self.max_bytes);
    }

    /// Records that `bytes` were read from `path`, whose mtime was `mtime`; `partial`
    /// when they are not the whole file. Replaces any earlier record. For a full read,
    /// `bytes` must be the file's raw bytes as on disk (before any decoding), since
    /// [`FileStateCache::check_writable`] compares them with the disk.
    pub fn record_read(&self, path: &Path, bytes: &[u8], mtime: Option<SystemTime>, partial: bool) -> FileState {
        let state = FileState::new(bytes, mtime, partial);
        self.store(path, state.clone());
        state
    }

    /// Records that toolgate itself just wrote `bytes` to `path` (whose mtime is now
    /// `mtime`): the model knows the whole content, so the file counts as read in full.
    pub fn record_write(&self, path: &Path, bytes: &[u8], mtime: Option<SystemTime>) -> FileState {
        self.record_read(path, bytes, mtime, false)
    }

    /// The recorded state of `path`, marking it recently used.
    pub fn get(&self, path: &Path) -> Option<FileState> {
        self.lock().touch(path)
    }

    /// Forgets `path`, returning what was recorded.
    pub fn remove(&self, path: &Path) -> Option<FileState> {
        self.lock().remove(path)
    }

    /// Forgets everything.
    pub fn clear(&self) {
        *self.lock() = Inner::default();
    }

    /// The number of recorded paths.
    pub fn len(&self) -> usize {
        self.lock().slots.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes currently accounted (see [`FileStateCache::entry_cost`]).
    pub fn accounted_bytes(&self) -> usize {
        self.lock().bytes
    }

    /// Whether `path` may be written now, given what was read.
    ///
    /// In order:
    ///
    /// 1. A missing file: fine if never recorded (writing creates it); if recorded,
    ///    [`FileStateError::Deleted`], and the stale record is dropped so a deliberate
    ///    second write creates the file.
    /// 2. Never recorded: [`FileStateError::NotRead`].
    /// 3. Recorded from a partial read: [`FileStateError::PartiallyRead`].
    /// 4. A size other than the recorded one: [`FileStateError::Modified`].
    /// 5. The same size and mtime as recorded: fine, without reading the file (the cheap
    ///    path; like any mtime check it misses a same-size rewrite within the file
    ///    system's timestamp granularity).
    /// 6. Otherwise the content is hashed: a different hash is
    ///    [`FileStateError::Modified`]; the same hash is fine (a `touch`, or a rewrite
    ///    with identical content), and the new mtime is recorded so the next check takes
    ///    the cheap path.
    ///
    /// # Errors
    ///
    /// The cases above, and [`FileStateError::Io`] when the metadata or content cannot
    /// be read.
    pub fn check_writable(&self, path: &Path) -> Result<(), FileStateError> {
        let recorded = self.get(path);
        let meta = match fs::metadata(path) {
            Ok(meta) => meta,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                return self.missing(path, recorded.is_some());
            }
            Err(err) => return Err(FileStateError::Io(err)),
        };
        let Some(recorded) = recorded else {
            return Err(FileStateError::NotRead);
        };
        if recorded.partial {
            return Err(FileStateError::PartiallyRead);
        }
        if meta.len() != recorded.size {
            return Err(FileStateError::Modified);
        }
        let mtime = meta.modified().ok();
        if mtime.is_some() && mtime == recorded.mtime {
            return Ok(());
        }
        let bytes = match fs::read(path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return self.missing(path, true),
            Err(err) => return Err(FileStateError::Io(err)),
        };
        if bytes.len() as u64 != recorded.size || FileState::hash_bytes(&bytes) != recorded.hash {
            return Err(FileStateError::Modified);
        }
        // Same content, newer mtime: remember it, unless someone recorded since.
        let mut inner = self.lock();
        if let Some(slot) = inner.slots.get_mut(path)
            && slot.state == recorded
        {
            slot.state.mtime = mtime;
        }
        Ok(())
    }

    fn missing(&self, path: &Path, recorded: bool) -> Result<(), FileStateError> {
        if recorded {
            self.remove(path);
            Err(FileStateError::Deleted)
        } else {
            Ok(())
        }
    }

    /// Every entry, least recently used first, for saving with the session.
    pub fn snapshot(&self) -> Vec<(PathBuf, FileState)> {
        let inner = self.lock();
        inner
            .order
            .values()
            .filter_map(|path| inner.slots.get(path).map(|slot| (path.clone(), slot.state.clone())))
            .collect()
    }

    /// Records `entries` in order (as [`FileStateCache::snapshot`] lists them, so the
    /// last is the most recently used), replacing records for the same paths and
    /// evicting as usual when the bounds are exceeded.
    ///
    /// ```
    /// use std::path::Path;
    /// use toolgate_core::FileStateCache;
    ///
    /// let cache = FileStateCache::default();
    /// cache.record_read(Path::new("/repo/a.rs"), b"a", None, false);
    /// let saved = serde_json::to_string(&cache.snapshot()).unwrap();
    ///
    /// let resumed = FileStateCache::default();
    /// resumed.restore(serde_json::from_str::<Vec<_>>(&saved).unwrap());
    /// assert_eq!(resumed.get(Path::new("/repo/a.rs")), cache.get(Path::new("/repo/a.rs")));
    /// ```
    pub fn restore(&self, entries: impl IntoIterator<Item = (PathBuf, FileState)>) {
        let mut inner = self.lock();
        for (path, state) in entries {
            inner.insert(&path, state);
        }
        inner.shrink(self.max_entries, self.max_bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;
    use std::time::Duration;

    fn p(name: &str) -> PathBuf {
        PathBuf::from(format!("/repo/{name}"))
    }

    fn paths(cache: &FileStateCache) -> Vec<PathBuf> {
        cache.snapshot().into_iter().map(|(path, _)| path).collect()
    }

    /// Writes `content` to `path` and records a full read of it, as Read would.
    fn read_file(cache: &FileStateCache, path: &Path, content: &str) {
        fs::write(path, content).unwrap();
        let mtime = fs::metadata(path).unwrap().modified().ok();
        cache.record_read(path, content.as_bytes(), mtime, false);
    }

    fn set_mtime(path: &Path, time: SystemTime) {
        fs::File::options().write(true).open(path).unwrap().set_modified(time).unwrap();
    }

    #[test]
    fn fnv1a_matches_published_vectors() {
        assert_eq!(FileState::hash_bytes(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(FileState::hash_bytes(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(FileState::hash_bytes(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn count_bound_evicts_the_least_recently_used() {
        let cache = FileStateCache::with_limits(3, usize::MAX);
        for name in ["a", "b", "c"] {
            cache.record_read(&p(name), name.as_bytes(), None, false);
        }
        // `get` refreshes a, so b is now the oldest.
        assert!(cache.get(&p("a")).is_some());
        cache.record_read(&p("d"), b"d", None, false);
        assert_eq!(paths(&cache), [p("c"), p("a"), p("d")]);
        assert_eq!(cache.get(&p("b")), None);
        assert_eq!(cache.len(), 3);
    }

    #[test]
    fn byte_bound_evicts_the_least_recently_used() {
        let cost = FileStateCache::entry_cost(&p("a"));
        let cache = FileStateCache::with_limits(100, 2 * cost);
        cache.record_read(&p("a"), b"a", None, false);
        cache.record_read(&p("b"), b"b", None, false);
        assert_eq!(cache.accounted_bytes(), 2 * cost);
        assert!(cache.get(&p("a")).is_some());
        cache.record_read(&p("c"), b"c", None, false);
        assert_eq!(paths(&cache), [p("a"), p("c")]);
        assert_eq!(cache.accounted_bytes(), 2 * cost);
        // A longer path costs more: it pushes out both others.
        let long = p(&"x".repeat(cost));
        cache.record_read(&long, b"x", None, false);
        assert_eq!(paths(&cache), [long]);
    }

    #[test]
    fn an_entry_over_the_byte_bound_is_not_kept() {
        let cache = FileStateCache::with_limits(10, 10);
        cache.record_read(&p("a"), b"a", None, false);
        assert!(cache.is_empty());
        assert_eq!(cache.accounted_bytes(), 0);
    }

    #[test]
    fn rerecording_replaces_without_double_counting() {
        let cache = FileStateCache::default();
        cache.record_read(&p("a"), b"one", None, true);
        let state = cache.record_write(&p("a"), b"two!", None);
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.accounted_bytes(), FileStateCache::entry_cost(&p("a")));
        assert_eq!(cache.get(&p("a")), Some(state.clone()));
        assert!(!state.partial);
        assert_eq!(state.size, 4);
        assert_eq!(cache.remove(&p("a")), Some(state));
        assert_eq!(cache.accounted_bytes(), 0);
    }

    #[test]
    fn unread_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "x").unwrap();
        let cache = FileStateCache::default();
        assert!(matches!(cache.check_writable(&path), Err(FileStateError::NotRead)));
    }

    #[test]
    fn new_file_needs_no_read() {
        let dir = tempfile::tempdir().unwrap();
        let cache = FileStateCache::default();
        assert!(cache.check_writable(&dir.path().join("new.txt")).is_ok());
    }

    #[test]
    fn partial_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        fs::write(&path, "1\n2\n3\n").unwrap();
        let cache = FileStateCache::default();
        cache.record_read(&path, b"1\n", fs::metadata(&path).unwrap().modified().ok(), true);
        assert!(matches!(cache.check_writable(&path), Err(FileStateError::PartiallyRead)));
        read_file(&cache, &path, "1\n2\n3\n");
        assert!(cache.check_writable(&path).is_ok());
    }

    #[test]
    fn modified_content_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        let cache = FileStateCache::default();
        read_file(&cache, &path, "same size");
        assert!(cache.check_writable(&path).is_ok());

        // Same size, different bytes, different mtime: caught by the hash.
        fs::write(&path, "SAME SIZE").unwrap();
        set_mtime(&path, SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000));
        assert!(matches!(cache.check_writable(&path), Err(FileStateError::Modified)));

        // Different size: caught without hashing.
        read_file(&cache, &path, "same size");
        fs::write(&path, "longer content").unwrap();
        assert!(matches!(cache.check_writable(&path), Err(FileStateError::Modified)));
    }

    #[test]
    fn touched_but_unchanged_file_is_writable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        let cache = FileStateCache::default();
        read_file(&cache, &path, "content\n");
        let touched = SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000);
        set_mtime(&path, touched);
        assert!(cache.check_writable(&path).is_ok());
        // The new mtime is remembered, so the next check is the cheap one.
        assert_eq!(cache.get(&path).unwrap().mtime, Some(touched));
    }

    #[test]
    fn unknown_mtime_falls_back_to_the_hash() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "abc").unwrap();
        let cache = FileStateCache::default();
        cache.record_read(&path, b"abc", None, false);
        assert!(cache.check_writable(&path).is_ok());
        cache.record_read(&path, b"abd", None, false);
        assert!(matches!(cache.check_writable(&path), Err(FileStateError::Modified)));
    }

    #[test]
    fn deleted_file_is_refused_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gone.txt");
        let cache = FileStateCache::default();
        read_file(&cache, &path, "bye");
        fs::remove_file(&path).unwrap();
        assert!(matches!(cache.check_writable(&path), Err(FileStateError::Deleted)));
        // The stale record is gone: writing again deliberately creates the file.
        assert_eq!(cache.get(&path), None);
        assert!(cache.check_writable(&path).is_ok());
    }

    #[test]
    fn unreadable_path_is_an_io_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        fs::write(&file, "x").unwrap();
        // A path through a regular file fails with NotADirectory, not NotFound.
        let cache = FileStateCache::default();
        let err = cache.check_writable(&file.join("child")).unwrap_err();
        assert!(matches!(err, FileStateError::Io(_)), "{err:?}");
        assert!(err.to_string().starts_with("Could not check the file before writing to it: "));
    }

    #[test]
    fn messages_match_claude_code() {
        assert_eq!(
            FileStateError::Modified.to_string(),
            "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
        );
        assert_eq!(
            FileStateError::PartiallyRead.to_string(),
            "File has only been partially read. Read the whole file before writing to it."
        );
    }

    #[test]
    fn snapshot_round_trips_through_json_in_lru_order() {
        let cache = FileStateCache::default();
        let mtime = SystemTime::UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789);
        cache.record_read(&p("a"), b"a", Some(mtime), false);
        cache.record_read(&p("b"), b"b", None, true);
        cache.get(&p("a"));
        let saved = serde_json::to_string(&cache.snapshot()).unwrap();

        let resumed = FileStateCache::with_limits(2, usize::MAX);
        resumed.restore(serde_json::from_str::<Vec<(PathBuf, FileState)>>(&saved).unwrap());
        assert_eq!(resumed.snapshot(), cache.snapshot());
        assert_eq!(paths(&resumed), [p("b"), p("a")]);
        // b is least recently used, so it goes first.
        resumed.record_read(&p("c"), b"c", None, false);
        assert_eq!(paths(&resumed), [p("a"), p("c")]);
    }

    #[test]
    fn concurrent_use_keeps_the_cache_consistent() {
        const THREADS: usize = 8;
        const ROUNDS: usize = 200;
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("shared.txt");
        fs::write(&shared, "shared").unwrap();
        let cache = FileStateCache::with_limits(50, usize::MAX);
        let barrier = Barrier::new(THREADS);
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let (cache, barrier, shared) = (&cache, &barrier, &shared);
                scope.spawn(move || {
                    barrier.wait();
                    for round in 0..ROUNDS {
                        let own = p(&format!("t{t}/{round}"));
                        cache.record_read(&own, own.as_os_str().as_encoded_bytes(), None, round % 2 == 0);
                        cache.get(&p(&format!("t{}/{round}", (t + 1) % THREADS)));
                        let mtime = fs::metadata(shared).unwrap().modified().ok();
                        cache.record_read(shared, b"shared", mtime, false);
                        // Other threads may evict it in between; anything else is a bug.
                        match cache.check_writable(shared) {
                            Ok(()) | Err(FileStateError::NotRead) => {}
                            Err(err) => panic!("{err:?}"),
                        }
                        if round % 7 == 0 {
                            cache.remove(&own);
                        }
                    }
                });
            }
        });
        assert!(cache.len() <= 50);
        let snapshot = cache.snapshot();
        assert_eq!(snapshot.len(), cache.len());
        let expected: usize = snapshot.iter().map(|(path, _)| FileStateCache::entry_cost(path)).sum();
        assert_eq!(cache.accounted_bytes(), expected);
        assert!(cache.get(&shared).is_some_and(|state| !state.partial));
    }
}
