//! `file://` URIs for local paths, both ways: what LSP servers and MCP clients exchange.
//!
//! A path's bytes become the URI's path with every byte that is not an unreserved character
//! or `/` percent-encoded, so any path (spaces, `#`, `?`, `%`, bytes that are not UTF-8)
//! survives the trip back.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::path::{Path, PathBuf};

/// The `file://` URI of an absolute path, percent-encoding every byte that is not an
/// unreserved character or `/`.
///
/// ```
/// use std::path::Path;
/// assert_eq!(toolgate_core::file_uri(Path::new("/work/my repo/ü.rs")), "file:///work/my%20repo/%C3%BC.rs");
/// ```
pub fn file_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path of a `file://` URI (an empty or `localhost` host), percent-decoded; `None` for
/// other schemes and hosts. A `%` not followed by two hex digits stands for itself.
///
/// ```
/// use std::path::PathBuf;
/// assert_eq!(toolgate_core::uri_path("file:///a%20b/c"), Some(PathBuf::from("/a b/c")));
/// assert_eq!(toolgate_core::uri_path("https://example.com/a"), None);
/// ```
pub fn uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (hex(bytes.get(i + 1)), hex(bytes.get(i + 2)))
        {
            out.push(hi * 16 + lo);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    Some(PathBuf::from(OsString::from_vec(out)))
}

fn hex(b: Option<&u8>) -> Option<u8> {
    char::from(*b?).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_odd_paths() {
        let not_utf8 = PathBuf::from(OsString::from_vec(b"/tmp/\xff\xfe".to_vec()));
        for path in
            [PathBuf::from("/tmp/a b/ü#%?.rs"), PathBuf::from("/plain/src/lib.rs"), "/x/[1]/a+b.ts".into(), not_utf8]
        {
            let uri = file_uri(&path);
            assert!(uri[7..].bytes().all(|b| b.is_ascii_alphanumeric() || b"/-._~%".contains(&b)), "{uri}");
            assert_eq!(uri_path(&uri).unwrap(), path);
        }
        assert_eq!(uri_path("file://localhost/a/b").unwrap(), PathBuf::from("/a/b"));
        assert_eq!(uri_path("file:///a/%zz"), Some(PathBuf::from("/a/%zz")));
        assert_eq!(uri_path("file://other/a"), None);
        assert_eq!(uri_path("untitled:1"), None);
    }
}
