//! What a fetched body becomes: HTML → Markdown (htmd, without scripts and styles), other
//! text as it is, binary content refused; then the text is cut at the character limit.

/// How a body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// HTML or XHTML: converted to Markdown.
    Html,
    /// Any other text: passed through.
    Text,
    /// Images, archives, PDFs, executables …: refused.
    Binary,
}

/// The media type without parameters, lowercased (`text/html` for
/// `Text/HTML; charset=utf-8`).
pub(crate) fn essence(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

/// The body's kind, from its declared type, or from its first bytes when the type is
/// missing or says only "bytes".
pub(crate) fn kind_of(content_type: &str, body: &[u8]) -> BodyKind {
    let media = essence(content_type);
    match media.as_str() {
        "text/html" | "application/xhtml+xml" => BodyKind::Html,
        "" | "application/octet-stream" | "binary/octet-stream" => sniff(body),
        m if m.starts_with("text/") => BodyKind::Text,
        m if m.ends_with("+json") || m.ends_with("+xml") || m.ends_with("+yaml") => BodyKind::Text,
        "application/json"
        | "application/xml"
        | "application/javascript"
        | "application/ecmascript"
        | "application/x-javascript"
        | "application/yaml"
        | "application/x-yaml"
        | "application/toml"
        | "application/x-toml"
        | "application/x-sh"
        | "application/x-shellscript"
        | "application/graphql"
        | "application/sql"
        | "application/x-ndjson"
        | "application/jsonl"
        | "application/x-httpd-php"
        | "application/x-tex"
        | "application/x-python"
        | "application/x-ruby" => BodyKind::Text,
        _ => BodyKind::Binary,
    }
}

/// Text if the first 8 KiB hold no NUL and decode as UTF-8 (a cut character at the end
/// allowed); HTML if that text starts like an HTML document.
fn sniff(body: &[u8]) -> BodyKind {
    let head = &body[..body.len().min(8192)];
    if head.contains(&0) {
        return BodyKind::Binary;
    }
    match std::str::from_utf8(head) {
        Err(e) if e.error_len().is_some() => BodyKind::Binary,
        _ => {
            let start: String = String::from_utf8_lossy(&head[..head.len().min(256)])
                .trim_start_matches('\u{feff}')
                .trim_start()
                .chars()
                .take(15)
                .collect::<String>()
                .to_ascii_lowercase();
            if start.starts_with("<!doctype html") || start.starts_with("<html") {
                BodyKind::Html
            } else {
                BodyKind::Text
            }
        }
    }
}

/// The body as text: Latin-1 and Windows-1252 when the type says so, else UTF-8 with
/// invalid sequences replaced.
pub(crate) fn decode(content_type: &str, body: &[u8]) -> String {
    let charset = content_type
        .split(';')
        .skip(1)
        .filter_map(|p| p.trim().split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, v)| v.trim().trim_matches('"').to_ascii_lowercase());
    match charset.as_deref() {
        Some("iso-8859-1" | "latin1" | "latin-1" | "windows-1252" | "cp1252" | "us-ascii") => {
            body.iter().map(|&b| char::from(b)).collect()
        }
        _ => String::from_utf8_lossy(body).trim_start_matches('\u{feff}').to_owned(),
    }
}

/// HTML as Markdown, without the text of scripts, styles and other non-content elements.
pub(crate) fn html_to_markdown(html: &str) -> Result<String, String> {
    htmd::HtmlToMarkdown::builder()
        .skip_tags(vec!["script", "style", "noscript", "template", "svg", "iframe", "head", "canvas"])
        .build()
        .convert(html)
        .map_err(|e| format!("the HTML could not be converted: {e}"))
}

/// `text` cut at `max_chars` characters (on a character boundary); the original length in
/// characters when it was cut.
pub(crate) fn cut(mut text: String, max_chars: usize) -> (String, Option<usize>) {
    match text.char_indices().nth(max_chars) {
        Some((byte, _)) => {
            let total = max_chars + text[byte..].chars().count();
            text.truncate(byte);
            (text, Some(total))
        }
        None => (text, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(kind_of("text/html; charset=utf-8", b""), BodyKind::Html);
        assert_eq!(kind_of("application/xhtml+xml", b""), BodyKind::Html);
        assert_eq!(kind_of("text/plain", b""), BodyKind::Text);
        assert_eq!(kind_of("text/markdown", b""), BodyKind::Text);
        assert_eq!(kind_of("application/json", b"{}"), BodyKind::Text);
        assert_eq!(kind_of("application/problem+json", b"{}"), BodyKind::Text);
        assert_eq!(kind_of("image/png", b"\x89PNG"), BodyKind::Binary);
        assert_eq!(kind_of("application/pdf", b"%PDF-1.7"), BodyKind::Binary);
        assert_eq!(kind_of("application/zip", b"PK"), BodyKind::Binary);
        assert_eq!(kind_of("", b"just some words"), BodyKind::Text);
        assert_eq!(kind_of("", b"  <!DOCTYPE html><html></html>"), BodyKind::Html);
        assert_eq!(kind_of("application/octet-stream", b"\x00\x01\x02"), BodyKind::Binary);
        assert_eq!(kind_of("", b"\xff\xfe\xfa\x00"), BodyKind::Binary);
    }

    #[test]
    fn charsets() {
        assert_eq!(decode("text/plain; charset=ISO-8859-1", b"caf\xe9"), "café");
        assert_eq!(decode("text/plain; charset=\"utf-8\"", "café".as_bytes()), "café");
        assert_eq!(decode("text/plain", b"\xef\xbb\xbfhi"), "hi");
    }

    #[test]
    fn scripts_and_styles_do_not_leak_into_the_markdown() {
        let md = html_to_markdown(
            "<html><head><title>T</title><style>body{color:red}</style></head><body>\
             <h1>Hello</h1><script>alert('x')</script><p>A <a href=\"/b\">link</a>.</p></body></html>",
        )
        .unwrap();
        assert!(md.contains("# Hello"), "{md}");
        assert!(md.contains("[link](/b)"), "{md}");
        assert!(!md.contains("alert") && !md.contains("color:red"), "{md}");
    }

    #[test]
    fn cut_counts_characters() {
        assert_eq!(cut("héllo".into(), 10), ("héllo".to_owned(), None));
        assert_eq!(cut("héllo".into(), 2), ("hé".to_owned(), Some(5)));
        assert_eq!(cut("".into(), 0), (String::new(), None));
    }
}
