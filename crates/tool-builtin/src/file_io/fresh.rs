//! Read-before-write and stale-file checks, phrased for the model.
//!
//! Two strengths:
//!
//! - [`Need::Whole`] (Write, which replaces everything): the whole file must have been
//!   read, and be unchanged since (the cache's own check: size, mtime, then hash);
//! - [`Need::Seen`] (Edit, MultiEdit, NotebookEdit, ApplyPatch, which change only text
//!   they quote exactly): any read counts, a window of lines included, as long as the
//!   file is unchanged since. For a windowed read the cache holds only the window's
//!   hash, so "unchanged" means the same modification time as when it was read.
//!
//! A file toolgate itself just wrote counts as read in full (`record_write`).

use std::fs;
use std::io;
use std::path::Path;

use toolgate_core::{FileStateCache, FileStateError, ToolError};

/// How much of the file the model must have read before writing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// All of it (Write).
    Whole,
    /// Any part (the editing tools).
    Seen,
}

/// Checks that the model may write `path` now. A missing file needs no read.
///
/// # Errors
///
/// Not read (or, for [`Need::Whole`], only partly read), changed or deleted since it was
/// read, or its metadata cannot be read.
pub(crate) fn check(cache: &FileStateCache, path: &Path, need: Need) -> Result<(), ToolError> {
    if need == Need::Seen
        && let Some(state) = cache.get(path)
        && state.partial
    {
        return match fs::metadata(path) {
            Ok(meta) if meta.modified().ok().is_some_and(|m| Some(m) == state.mtime) => Ok(()),
            Ok(_) => Err(to_tool_error(FileStateError::Modified, path)),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                cache.remove(path);
                Err(to_tool_error(FileStateError::Deleted, path))
            }
            Err(err) => Err(to_tool_error(FileStateError::Io(err), path)),
        };
    }
    cache.check_writable(path).map_err(|err| to_tool_error(err, path))
}

/// The model-facing error for a failed check, with what to do next.
pub(crate) fn to_tool_error(err: FileStateError, path: &Path) -> ToolError {
    let shown = path.display();
    match err {
        FileStateError::NotRead => ToolError::invalid_input(err.to_string()).with_hint(format!(
            "Read {shown} with the Read tool first, then retry. (Only a file that does not exist yet can be written without reading it.)"
        )),
        FileStateError::PartiallyRead => ToolError::invalid_input(err.to_string()).with_hint(format!(
            "Read all of {shown} (no offset or limit) before replacing it with Write, or change just the part you read with Edit."
        )),
        FileStateError::Modified => ToolError::invalid_input(err.to_string())
            .with_hint(format!("Read {shown} again and make your change against its current content.")),
        FileStateError::Deleted => ToolError::not_found(err.to_string())
            .with_hint("Check with the user whether it should still exist; writing it again creates it as a new file."),
        FileStateError::Io(io_err) => {
            let base = ToolError::from_io(&io_err, path);
            ToolError::new(base.kind(), format!("Could not check {shown} before writing it: {io_err}"))
                .with_hint("Check that the path is a readable file.")
        }
        other => ToolError::invalid_input(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_core::ToolErrorKind;

    #[test]
    fn windowed_read_allows_edits_but_not_whole_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "1\n2\n3\n").unwrap();
        let cache = FileStateCache::default();
        let mtime = fs::metadata(&path).unwrap().modified().ok();
        cache.record_read(&path, b"2\n", mtime, true);
        assert!(check(&cache, &path, Need::Seen).is_ok());
        let err = check(&cache, &path, Need::Whole).unwrap_err();
        assert!(err.message().contains("partially read"), "{err:?}");
    }

    #[test]
    fn windowed_read_of_a_changed_file_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "1\n2\n3\n").unwrap();
        let cache = FileStateCache::default();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000);
        cache.record_read(&path, b"2\n", Some(old), true);
        let err = check(&cache, &path, Need::Seen).unwrap_err();
        assert!(err.message().contains("modified since read"), "{err:?}");
        fs::remove_file(&path).unwrap();
        assert_eq!(check(&cache, &path, Need::Seen).unwrap_err().kind(), ToolErrorKind::NotFound);
    }

    #[test]
    fn unread_files_are_refused_and_new_files_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        let cache = FileStateCache::default();
        assert!(check(&cache, &path, Need::Whole).is_ok());
        fs::write(&path, "x").unwrap();
        let err = check(&cache, &path, Need::Seen).unwrap_err();
        assert!(err.message().starts_with("File has not been read yet"));
        assert!(err.hint().unwrap().contains("Read"));
    }
}
