//! Rendering as plain data: a UI styles [`Rendered`] spans however it likes (terminal
//! colours, HTML classes); nothing here depends on a terminal crate.

use serde::{Deserialize, Serialize};

/// The role of a span; a renderer maps roles to colours or markup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Style {
    /// Ordinary text.
    Plain,
    /// The tool's name or the key fact.
    Emphasis,
    /// Secondary detail.
    Dim,
    /// A file path.
    Path,
    /// A command or code.
    Code,
    /// An added line of a diff.
    Added,
    /// A removed line of a diff.
    Removed,
    /// An error.
    Error,
}

/// A run of text with one style.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// The text (may contain newlines).
    pub text: String,
    /// Its role.
    pub style: Style,
}

/// Styled text for people: one or more lines of spans.
///
/// ```
/// use toolgate_core::{Rendered, Style};
/// let r = Rendered::plain("Read ").push("src/lib.rs", Style::Path);
/// assert_eq!(r.to_plain_text(), "Read src/lib.rs");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rendered {
    /// The spans, in order.
    pub spans: Vec<Span>,
}

impl Rendered {
    /// One plain span.
    pub fn plain(text: impl Into<String>) -> Self {
        Self::styled(text, Style::Plain)
    }

    /// One span with a style.
    pub fn styled(text: impl Into<String>, style: Style) -> Self {
        Self { spans: vec![Span { text: text.into(), style }] }
    }

    /// Appends a span.
    #[must_use]
    pub fn push(mut self, text: impl Into<String>, style: Style) -> Self {
        self.spans.push(Span { text: text.into(), style });
        self
    }

    /// The text without styles.
    pub fn to_plain_text(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }
}
