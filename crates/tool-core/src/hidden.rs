//! What a session's `Read` deny rules hide from searches and listings.
//!
//! The permission engine decides whether a call may read a path it names; a search or a
//! listing of a folder (Glob, Grep, LS) meets paths nobody named. Claude Code leaves the files
//! its `Read` deny rules cover out of Glob and Grep results; the host puts a [`HiddenPaths`]
//! built from its permission engine in the session's [`crate::Extensions`], and the walking
//! tools skip every entry it hides (a folder with everything below it).

use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// The paths searches and listings leave out: a predicate over an absolute path met in a
/// walk and whether that entry is a symbolic link (whose target must then be judged too).
/// Without one in the context, nothing is hidden.
///
/// ```
/// use std::path::Path;
/// use toolgate_core::HiddenPaths;
/// let hidden = HiddenPaths::new(|path, _link| path.ends_with(".env"));
/// assert!(hidden.hides(Path::new("/repo/.env"), false));
/// assert!(!hidden.hides(Path::new("/repo/src/main.rs"), false));
/// ```
#[derive(Clone)]
pub struct HiddenPaths(Arc<Hides>);

/// The predicate of a [`HiddenPaths`]: an absolute path, and whether it is a symbolic link.
type Hides = dyn Fn(&Path, bool) -> bool + Send + Sync;

impl HiddenPaths {
    /// Hides what `hides` says of a path and whether it is a symbolic link.
    pub fn new(hides: impl Fn(&Path, bool) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(hides))
    }

    /// Whether `path` (absolute; `link`: it is a symbolic link) is left out.
    pub fn hides(&self, path: &Path, link: bool) -> bool {
        (self.0)(path, link)
    }
}

impl fmt::Debug for HiddenPaths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HiddenPaths(..)")
    }
}
