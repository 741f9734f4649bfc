//! Positions between the model's view and the protocol's.
//!
//! The model counts lines and characters from 1, as editors show them; LSP counts both
//! from 0 and measures characters in UTF-16 code units (the encoding every server must
//! support). Conversions read the line's text, so `é` or `🎉` before the cursor land on
//! the same symbol either way.

/// The lines of `text` (split on `\n`, a trailing `\r` dropped); an empty file has one
/// empty line, as editors show it.
pub(crate) fn lines(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    if out.len() > 1 && out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

/// Why a 1-based position does not exist in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OutOfRange {
    /// The file has fewer lines.
    Line { line: u32, lines: usize },
    /// The line has fewer characters (the position just past the last one is allowed).
    Character { line: u32, character: u32, chars: usize },
}

/// The protocol position (0-based line, UTF-16 column) of a 1-based line and character.
pub(crate) fn to_lsp(text: &str, line: u32, character: u32) -> Result<(u32, u32), OutOfRange> {
    let all = lines(text);
    let index = line.saturating_sub(1) as usize;
    let Some(content) = all.get(index) else {
        return Err(OutOfRange::Line { line, lines: all.len() });
    };
    let chars = content.chars().count();
    let before = character.saturating_sub(1) as usize;
    if before > chars {
        return Err(OutOfRange::Character { line, character, chars });
    }
    let utf16: usize = content.chars().take(before).map(char::len_utf16).sum();
    Ok((index as u32, u32::try_from(utf16).unwrap_or(u32::MAX)))
}

/// The 1-based line and character of a protocol position in `text` (when the text is not
/// known, the UTF-16 column is taken as the character count).
pub(crate) fn from_lsp(text: Option<&str>, line: u32, utf16: u32) -> (u32, u32) {
    let character = text
        .and_then(|t| lines(t).get(line as usize).copied())
        .map(|content| {
            let mut units = 0u32;
            let mut chars = 0u32;
            for c in content.chars() {
                if units >= utf16 {
                    break;
                }
                units += c.len_utf16() as u32;
                chars += 1;
            }
            chars
        })
        .unwrap_or(utf16);
    (line.saturating_add(1), character.saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_for_the_model_and_utf16_for_the_server() {
        let text = "fn main() {\r\n    let café = \"🎉\"; go();\n}\n";
        assert_eq!(to_lsp(text, 1, 4), Ok((0, 3)));
        // `go` after an emoji (2 UTF-16 units) and é (1 unit).
        let col = "    let café = \"🎉\"; ".chars().count() as u32 + 1;
        assert_eq!(to_lsp(text, 2, col), Ok((1, col)));
        assert_eq!(from_lsp(Some(text), 1, col), (2, col));
        assert_eq!(to_lsp(text, 3, 2), Ok((2, 1)));
        assert_eq!(to_lsp(text, 4, 1), Err(OutOfRange::Line { line: 4, lines: 3 }));
        assert_eq!(to_lsp(text, 1, 14), Err(OutOfRange::Character { line: 1, character: 14, chars: 11 }));
        assert_eq!(to_lsp(text, 1, 12), Ok((0, 11)), "just past the end is a position");
        assert_eq!(to_lsp("", 1, 1), Ok((0, 0)));
        assert_eq!(from_lsp(None, 4, 7), (5, 8));
    }
}
