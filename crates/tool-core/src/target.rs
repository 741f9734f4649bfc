//! [`Target`] and [`Access`]: a path one call touches and what it does there, as
//! [`crate::Tool::targets`] names them for the permission engine.

/// What a call does to one path.
///
/// The engine holds a reading access ([`Access::Read`], [`Access::List`]) to the `Read` rules
/// and a changing one ([`Access::Write`], [`Access::Create`], [`Access::Delete`]) to the `Edit`
/// rules and the protected paths. `walked` exists only for the reading accesses, so a walked
/// write cannot be stated.
///
/// ```
/// use toolgate_core::Access;
/// assert!(Access::Delete.changes());
/// assert!(!Access::Read { walked: true }.changes());
/// assert!(Access::List { walked: true }.walked());
/// assert!(!Access::Write.walked());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Access {
    /// Reads the file's content. `walked`: when the path is a folder, every file below it is
    /// read (Grep, which cannot tell a file from a folder without the file system, says
    /// `walked: true` for both; a walked read of a file is a read of that file).
    Read {
        /// Whether a folder's whole tree is read.
        walked: bool,
    },
    /// Lists the names in a folder. `walked`: every name below it (Glob), not only the
    /// folder's own entries (LS).
    List {
        /// Whether the folder's whole tree is listed.
        walked: bool,
    },
    /// Writes a file that may or may not exist yet (Write, Edit, MultiEdit, NotebookEdit, a
    /// patch's updated file): the tool cannot know which without the file system, and the
    /// rules treat both alike.
    Write,
    /// Makes a file that the call expects not to exist (a patch's added file, the destination
    /// of a move).
    Create,
    /// Removes a file (a patch's deleted file, the source of a move).
    Delete,
}

impl Access {
    /// Whether the access changes the file system (write, create or delete): such a target is
    /// held to the `Edit` rules and the protected paths.
    ///
    /// ```
    /// use toolgate_core::Access;
    /// assert!(Access::Create.changes());
    /// assert!(!Access::List { walked: false }.changes());
    /// ```
    pub fn changes(self) -> bool {
        matches!(self, Self::Write | Self::Create | Self::Delete)
    }

    /// Whether a folder's whole tree is read or listed.
    ///
    /// ```
    /// use toolgate_core::Access;
    /// assert!(Access::Read { walked: true }.walked());
    /// assert!(!Access::List { walked: false }.walked());
    /// ```
    pub fn walked(self) -> bool {
        matches!(self, Self::Read { walked: true } | Self::List { walked: true })
    }

    /// A word for messages: `read`, `list`, `write`, `create`, `delete`.
    ///
    /// ```
    /// assert_eq!(toolgate_core::Access::Delete.verb(), "delete");
    /// ```
    pub fn verb(self) -> &'static str {
        match self {
            Self::Read { .. } => "read",
            Self::List { .. } => "list",
            Self::Write => "write",
            Self::Create => "create",
            Self::Delete => "delete",
        }
    }
}

/// One path a call touches, and how.
///
/// `path` is spelled as the input names it (relative, with `..`, through a symlink); the
/// engine resolves it against the call's working directory and checks every form it has.
///
/// ```
/// use toolgate_core::{Access, Target};
/// // A patch that moves `a.txt` to `b.txt` deletes the one and creates the other.
/// let moved = [Target::new("a.txt", Access::Delete), Target::new("b.txt", Access::Create)];
/// assert!(moved.iter().all(|t| t.access.changes()));
/// assert_eq!(Target::new("src", Access::List { walked: true }).path, "src");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    /// The path as the input names it.
    pub path: String,
    /// What the call does there.
    pub access: Access,
}

impl Target {
    /// A target of `access` at `path`.
    ///
    /// ```
    /// use toolgate_core::{Access, Target};
    /// let t = Target::new("/repo/.env", Access::Read { walked: false });
    /// assert_eq!((t.path.as_str(), t.access), ("/repo/.env", Access::Read { walked: false }));
    /// ```
    pub fn new(path: impl Into<String>, access: Access) -> Self {
        Self { path: path.into(), access }
    }
}
