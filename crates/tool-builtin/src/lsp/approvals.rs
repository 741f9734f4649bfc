//! Which language servers were approved for which projects, remembered across sessions.
//!
//! Starting a language server runs the project's code (rust-analyzer runs build scripts and
//! proc macros), so the first start of a server for a workspace is no read: a rule, a mode or a
//! person approves it. Once approved, later sessions start the same command for the same
//! workspace without asking. The record is a JSON file in the user's Claude folder
//! (`~/.claude/toolgate/lsp-approved.json`), a protected path that no tool call may write
//! without a person, and outside every repository:
//!
//! ```json
//! {"approved": [{"root": "/home/u/code/app", "command": ["rust-analyzer"]}]}
//! ```
//!
//! An approval names the whole command line and the variables the configuration adds to its
//! environment: a configuration that changes any of them asks again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::config::ServerConfig;

/// The name of the record, in the user's Claude folder.
pub const APPROVALS_FILE: &str = "toolgate/lsp-approved.json";

/// The record's contents.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Record {
    #[serde(default)]
    approved: Vec<Approval>,
}

/// One server command approved for one workspace root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Approval {
    root: PathBuf,
    command: Vec<String>,
    /// The variables the configuration adds to the server's environment, `NAME=value`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    env: Vec<String>,
}

impl Approval {
    fn of(server: &ServerConfig, root: &Path) -> Self {
        let command = std::iter::once(&server.command).chain(&server.args).cloned().collect();
        let env = server.env.iter().map(|(name, value)| format!("{name}={value}")).collect();
        Self { root: root.to_path_buf(), command, env }
    }
}

/// The approvals kept in one file.
///
/// ```
/// use toolgate_builtin::lsp::{LspApprovals, ServerConfig};
///
/// let dir = tempfile::tempdir().unwrap();
/// let approvals = LspApprovals::at(dir.path().join("lsp-approved.json"));
/// let ra = ServerConfig::new("rust-analyzer", "rust-analyzer", [], [(".rs", "rust")]);
/// let project = dir.path().join("app");
/// assert!(!approvals.approved(&ra, &project));
/// approvals.record(&ra, &project).unwrap();
/// assert!(approvals.approved(&ra, &project));
/// assert!(!approvals.approved(&ra, &dir.path().join("other")));
/// ```
#[derive(Debug, Clone)]
pub struct LspApprovals {
    file: PathBuf,
}

impl LspApprovals {
    /// Approvals kept in `file`.
    pub fn at(file: impl Into<PathBuf>) -> Self {
        Self { file: file.into() }
    }

    /// Approvals kept in the user's Claude folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`), or
    /// `None` with neither set.
    pub fn for_user() -> Option<Self> {
        crate::user_claude_dir().map(|dir| Self::at(dir.join(APPROVALS_FILE)))
    }

    /// The file the approvals are kept in.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Whether `server`'s command line was approved for the workspace `root`. An unreadable
    /// or malformed record approves nothing.
    pub fn approved(&self, server: &ServerConfig, root: &Path) -> bool {
        if too_broad(root) {
            return false;
        }
        let wanted = Approval::of(server, root);
        self.read().approved.contains(&wanted)
    }

    /// Records that `server`'s command line is approved for `root`.
    ///
    /// # Errors
    /// The folder cannot be created or the file written, or `root` is the file system's root,
    /// the home folder or above it (an approval there would cover every project below it, so
    /// the next session asks again). A malformed record is replaced.
    pub fn record(&self, server: &ServerConfig, root: &Path) -> std::io::Result<()> {
        if too_broad(root) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} holds every project below it: an approval there is not kept", root.display()),
            ));
        }
        let mut record = self.read();
        let approval = Approval::of(server, root);
        if record.approved.contains(&approval) {
            return Ok(());
        }
        record.approved.push(approval);
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text = serde_json::to_string_pretty(&record).map_err(std::io::Error::other)?;
        // Written beside and renamed into place, so a reader never sees half a record.
        static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let nth = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let partial = self.file.with_extension(format!("json.{}.{nth}", std::process::id()));
        std::fs::write(&partial, text + "\n")?;
        std::fs::rename(&partial, &self.file)
    }

    fn read(&self) -> Record {
        std::fs::read_to_string(&self.file).ok().and_then(|text| serde_json::from_str(&text).ok()).unwrap_or_default()
    }
}

/// Whether `root` holds every project below it: the file system's root, or the home folder
/// or a folder above it.
fn too_broad(root: &Path) -> bool {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    root.parent().is_none() || home.is_some_and(|home| home.starts_with(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_approval_is_of_the_whole_command_line_and_one_root() {
        let dir = tempfile::tempdir().unwrap();
        let approvals = LspApprovals::at(dir.path().join("nested/lsp-approved.json"));
        let ra = ServerConfig::new("rust-analyzer", "rust-analyzer", [], [(".rs", "rust")]);
        let root = dir.path().join("app");
        approvals.record(&ra, &root).unwrap();
        approvals.record(&ra, &root).unwrap();
        let text = std::fs::read_to_string(approvals.file()).unwrap();
        assert_eq!(text.matches("rust-analyzer").count(), 1, "recorded once: {text}");
        let mut wrapped = ra.clone();
        wrapped.args = vec!["--log-file".into(), "/tmp/x".into()];
        assert!(!approvals.approved(&wrapped, &root), "other arguments ask again");
        let mut other = ra.clone();
        other.command = "/tmp/evil".into();
        assert!(!approvals.approved(&other, &root), "another program asks again");
        let mut preloaded = ra.clone();
        preloaded.env.insert("LD_PRELOAD".into(), "/tmp/x.so".into());
        assert!(!approvals.approved(&preloaded, &root), "another environment asks again");
        assert!(approvals.approved(&ra, &root));
    }

    #[test]
    fn no_approval_is_kept_for_a_folder_that_holds_every_project() {
        let dir = tempfile::tempdir().unwrap();
        let approvals = LspApprovals::at(dir.path().join("lsp-approved.json"));
        let ra = ServerConfig::new("rust-analyzer", "rust-analyzer", [], [(".rs", "rust")]);
        assert!(approvals.record(&ra, Path::new("/")).is_err());
        if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
            assert!(approvals.record(&ra, &home).is_err());
            // A forged record for the home folder approves nothing.
            let forged = format!(r#"{{"approved": [{{"root": {:?}, "command": ["rust-analyzer"]}}]}}"#, home);
            std::fs::write(approvals.file(), forged).unwrap();
            assert!(!approvals.approved(&ra, &home));
        }
    }

    #[test]
    fn a_malformed_record_approves_nothing_and_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lsp-approved.json");
        std::fs::write(&file, "{not json").unwrap();
        let approvals = LspApprovals::at(&file);
        let ra = ServerConfig::new("rust-analyzer", "rust-analyzer", [], [(".rs", "rust")]);
        assert!(!approvals.approved(&ra, dir.path()));
        approvals.record(&ra, dir.path()).unwrap();
        assert!(approvals.approved(&ra, dir.path()));
    }
}
