//! Errors as data for the model: every failed call becomes a [`ToolError`] with a stable
//! [`ToolErrorKind`], a sentence the model can act on, and an optional hint.

use std::fmt;

/// What class of failure a [`ToolError`] is.
///
/// The kind is stable and machine-readable (hosts count, colour and retry by it); the
/// message is the part a model reads.
///
/// ```
/// use toolgate_core::ToolErrorKind;
/// assert_eq!(ToolErrorKind::NotFound.as_str(), "not_found");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// The input is malformed or fails a tool's own validation.
    InvalidInput,
    /// A file, tool or other named thing does not exist.
    NotFound,
    /// The permission engine, a hook or the person refused the call.
    Permission,
    /// The call ran out of time.
    Timeout,
    /// The call was cancelled (interrupt, sibling failure, shutdown).
    Cancelled,
    /// A network request failed.
    Network,
    /// A file-system or process I/O operation failed.
    Io,
    /// An MCP server reported an error or misbehaved.
    Mcp,
    /// A bug or an unexpected state inside toolgate or a tool (including a caught panic).
    Internal,
}

impl ToolErrorKind {
    /// The stable snake_case name of the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidInput => "invalid_input",
            Self::NotFound => "not_found",
            Self::Permission => "permission",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::Network => "network",
            Self::Io => "io",
            Self::Mcp => "mcp",
            Self::Internal => "internal",
        }
    }
}

impl fmt::Display for ToolErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed tool call, phrased for the model: what went wrong and what to do instead.
///
/// ```
/// use toolgate_core::{ToolError, ToolErrorKind};
/// let err = ToolError::invalid_input("old_string appears 3 times in the file")
///     .with_hint("add surrounding lines to make it unique, or set replace_all");
/// assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
/// assert_eq!(
///     err.to_model_text(),
///     "old_string appears 3 times in the file\nadd surrounding lines to make it unique, or set replace_all"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
    hint: Option<String>,
}

impl ToolError {
    /// An error of the given kind with a message for the model.
    pub fn new(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), hint: None }
    }

    /// [`ToolErrorKind::InvalidInput`].
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::InvalidInput, message)
    }

    /// [`ToolErrorKind::NotFound`].
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::NotFound, message)
    }

    /// [`ToolErrorKind::Permission`].
    pub fn permission(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::Permission, message)
    }

    /// [`ToolErrorKind::Timeout`].
    pub fn timeout(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::Timeout, message)
    }

    /// [`ToolErrorKind::Cancelled`].
    pub fn cancelled(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::Cancelled, message)
    }

    /// [`ToolErrorKind::Network`].
    pub fn network(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::Network, message)
    }

    /// [`ToolErrorKind::Io`].
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::Io, message)
    }

    /// [`ToolErrorKind::Mcp`].
    pub fn mcp(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::Mcp, message)
    }

    /// [`ToolErrorKind::Internal`].
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::Internal, message)
    }

    /// An I/O error on `path`, classified: a missing file is [`ToolErrorKind::NotFound`],
    /// a refused one [`ToolErrorKind::Permission`], the rest [`ToolErrorKind::Io`].
    ///
    /// ```
    /// use toolgate_core::{ToolError, ToolErrorKind};
    /// let e = std::io::Error::from(std::io::ErrorKind::NotFound);
    /// let err = ToolError::from_io(&e, std::path::Path::new("/tmp/x"));
    /// assert_eq!(err.kind(), ToolErrorKind::NotFound);
    /// ```
    pub fn from_io(err: &std::io::Error, path: &std::path::Path) -> Self {
        let path = path.display();
        match err.kind() {
            std::io::ErrorKind::NotFound => Self::not_found(format!("{path} does not exist")),
            std::io::ErrorKind::PermissionDenied => {
                Self::permission(format!("the operating system refused access to {path}"))
            }
            _ => Self::io(format!("{path}: {err}")),
        }
    }

    /// Adds a hint: the action the model should take instead.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The kind.
    pub fn kind(&self) -> ToolErrorKind {
        self.kind
    }

    /// The message, without the hint.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The hint, if any.
    pub fn hint(&self) -> Option<&str> {
        self.hint.as_deref()
    }

    /// The text the model reads: the message, then the hint on its own line.
    pub fn to_model_text(&self) -> String {
        match &self.hint {
            Some(hint) => format!("{}\n{hint}", self.message),
            None => self.message.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_are_snake_case_and_match_serde() {
        for kind in [
            ToolErrorKind::InvalidInput,
            ToolErrorKind::NotFound,
            ToolErrorKind::Permission,
            ToolErrorKind::Timeout,
            ToolErrorKind::Cancelled,
            ToolErrorKind::Network,
            ToolErrorKind::Io,
            ToolErrorKind::Mcp,
            ToolErrorKind::Internal,
        ] {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, serde_json::Value::String(kind.as_str().to_owned()));
        }
    }

    #[test]
    fn io_errors_are_classified() {
        let p = std::path::Path::new("/x");
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert_eq!(ToolError::from_io(&denied, p).kind(), ToolErrorKind::Permission);
        let other = std::io::Error::other("disk on fire");
        let err = ToolError::from_io(&other, p);
        assert_eq!(err.kind(), ToolErrorKind::Io);
        assert_eq!(err.message(), "/x: disk on fire");
    }
}
