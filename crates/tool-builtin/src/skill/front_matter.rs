//! A small front-matter reader: the `---`-fenced block of `key: value` lines at the top of
//! a `SKILL.md` or command file. It reads what skills use (plain and quoted scalars, `|`
//! and `>` blocks, indented continuation lines, lists) and never fails: what it cannot
//! read becomes a diagnostic and the rest of the file still loads.

use std::collections::BTreeMap;

/// A parsed document: the front-matter fields, the body after the block, and what was
/// wrong with the block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FrontMatter {
    /// Scalar fields (lists are joined with `, `), by key.
    pub(crate) fields: BTreeMap<String, String>,
    /// The text after the closing fence (the whole text when there is no block).
    pub(crate) body: String,
    /// Problems, each a sentence.
    pub(crate) diagnostics: Vec<String>,
}

impl FrontMatter {
    /// A field, when present and not empty.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str).filter(|v| !v.is_empty())
    }
}

/// Whether a line is a `---` fence (trailing spaces allowed).
fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Reads `text`.
pub(crate) fn parse(text: &str) -> FrontMatter {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else { return FrontMatter::default() };
    if !is_fence(first) {
        return FrontMatter { body: text.to_owned(), ..FrontMatter::default() };
    }
    let mut block = Vec::new();
    let mut closed = false;
    let mut consumed = first.len();
    for line in lines.by_ref() {
        consumed += line.len();
        if is_fence(line) {
            closed = true;
            break;
        }
        block.push(line.trim_end_matches(['\n', '\r']));
    }
    if !closed {
        return FrontMatter {
            body: text.to_owned(),
            diagnostics: vec![
                "front matter opens with `---` but is never closed; the whole file is read as the body".to_owned(),
            ],
            ..FrontMatter::default()
        };
    }
    let mut out = FrontMatter { body: text[consumed..].to_owned(), ..FrontMatter::default() };
    read_fields(&block, &mut out);
    out
}

/// The fields of the block's lines.
fn read_fields(block: &[&str], out: &mut FrontMatter) {
    let mut i = 0;
    while i < block.len() {
        let line = block[i];
        i += 1;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            out.diagnostics.push(format!("front matter line {i} is indented but follows no key: `{}`", line.trim()));
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            out.diagnostics.push(format!("front matter line {i} is not `key: value`: `{}`", line.trim()));
            continue;
        };
        let key = key.trim().to_owned();
        let rest = rest.trim();
        // Indented lines after the key belong to it.
        let mut continuation = Vec::new();
        while i < block.len() && (block[i].starts_with([' ', '\t']) || block[i].trim().is_empty()) {
            continuation.push(block[i]);
            i += 1;
        }
        while continuation.last().is_some_and(|l| l.trim().is_empty()) {
            continuation.pop();
        }
        let value = match rest {
            "|" | "|-" | "|+" => continuation.iter().map(|l| l.trim()).collect::<Vec<_>>().join("\n"),
            ">" | ">-" | ">+" | "" if !continuation.is_empty() => {
                let items: Vec<&str> = continuation.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
                if rest.is_empty() && items.iter().all(|l| l.starts_with("- ") || *l == "-") {
                    items.iter().map(|l| unquote(l.trim_start_matches('-').trim())).collect::<Vec<_>>().join(", ")
                } else {
                    items.join(" ")
                }
            }
            _ => {
                let mut value = unquote(rest);
                if value.starts_with('[') && value.ends_with(']') {
                    value =
                        value[1..value.len() - 1].split(',').map(|s| unquote(s.trim())).collect::<Vec<_>>().join(", ");
                }
                for extra in &continuation {
                    let extra = extra.trim();
                    if !extra.is_empty() {
                        value.push(' ');
                        value.push_str(extra);
                    }
                }
                value
            }
        };
        if key.is_empty() {
            out.diagnostics.push(format!("front matter line {i} has an empty key"));
        } else if out.fields.insert(key.clone(), value).is_some() {
            out.diagnostics.push(format!("front matter key `{key}` appears twice; the last one is used"));
        }
    }
}

/// A scalar without its surrounding quotes (`"…"` with `\"` and `\\` escapes, or `'…'` with `''`).
fn unquote(value: &str) -> String {
    let v = value.trim();
    if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        let inner = &v[1..v.len() - 1];
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(other) => out.push(other),
                    None => out.push('\\'),
                }
            } else {
                out.push(c);
            }
        }
        out
    } else if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        v[1..v.len() - 1].replace("''", "'")
    } else {
        v.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_quoted_and_block_values() {
        let doc = parse(
            "---\nname: commit\ndescription: \"Write a \\\"good\\\" commit\"\nwhen: 'it''s time'\nlong: >\n  folded\n  text\nlit: |\n  a\n  b\ntools:\n  - Bash\n  - Read\ninline: [Edit, \"Write\"]\n---\nBody $ARGUMENTS\n",
        );
        assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
        assert_eq!(doc.get("name"), Some("commit"));
        assert_eq!(doc.get("description"), Some("Write a \"good\" commit"));
        assert_eq!(doc.get("when"), Some("it's time"));
        assert_eq!(doc.get("long"), Some("folded text"));
        assert_eq!(doc.get("lit"), Some("a\nb"));
        assert_eq!(doc.get("tools"), Some("Bash, Read"));
        assert_eq!(doc.get("inline"), Some("Edit, Write"));
        assert_eq!(doc.body, "Body $ARGUMENTS\n");
    }

    #[test]
    fn no_front_matter_is_all_body() {
        let doc = parse("# Title\ntext\n");
        assert!(doc.fields.is_empty() && doc.diagnostics.is_empty());
        assert_eq!(doc.body, "# Title\ntext\n");
        assert_eq!(parse(""), FrontMatter::default());
    }

    #[test]
    fn broken_front_matter_is_a_diagnostic_not_a_failure() {
        let unclosed = parse("---\nname: x\nbody without fence\n");
        assert_eq!(unclosed.diagnostics.len(), 1);
        assert!(unclosed.fields.is_empty());
        assert!(unclosed.body.contains("body without fence"));

        let junk = parse("---\nname: ok\nthis line has no colon\n  stray\n: empty\nname: again\n---\nrest");
        assert_eq!(junk.get("name"), Some("again"));
        assert_eq!(junk.diagnostics.len(), 4, "{:?}", junk.diagnostics);
        assert_eq!(junk.body, "rest");
    }

    #[test]
    fn crlf_and_bom_are_tolerated() {
        let doc = parse("\u{feff}---\r\ndescription: hi\r\n---\r\nbody\r\n");
        assert_eq!(doc.get("description"), Some("hi"));
        assert_eq!(doc.body, "body\r\n");
    }
}
