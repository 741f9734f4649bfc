//! Read on a PDF: the text of its pages, extracted with `lopdf`, each page under its own
//! header.
//!
//! A PDF of up to [`MAX_PAGES_WITHOUT_RANGE`] pages may be read whole; a longer one needs
//! `pages`, and one call returns at most [`MAX_PAGES_PER_CALL`] pages. The output stays
//! under Read's character cap ([`MAX_OUTPUT_CHARS`]): it stops at a page boundary with a
//! notice naming the pages still to read. Pages without extractable text (scans, drawn
//! outlines) are reported as such, with a hint to render them as images.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use lopdf::Document;
use serde_json::json;
use toolgate_core::{ToolContext, ToolError, ToolOutput};

use super::{MAX_OUTPUT_CHARS, open_error};
use crate::file_io::human_bytes;
use crate::file_io::text::plural;

/// A PDF with more pages than this must be read with `pages`.
pub(crate) const MAX_PAGES_WITHOUT_RANGE: u32 = 10;

/// The most pages one call returns.
pub(crate) const MAX_PAGES_PER_CALL: u32 = 20;

/// The largest PDF loaded: the whole file is parsed in memory.
const MAX_PDF_BYTES: u64 = 100 * 1024 * 1024;

/// The decompressed content of one page that text extraction accepts.
const MAX_PAGE_CONTENT_BYTES: usize = 64 * 1024 * 1024;

/// The forms `pages` accepts, for error hints.
const ACCEPTED_FORMS: &str =
    "Use a page number (\"3\"), a range (\"1-5\"), or a comma-separated list of them (\"2,4-6\"); pages count from 1.";

/// Parses a `pages` value into inclusive ranges, in the order given.
///
/// Accepts `"3"`, `"1-5"` and comma-separated lists of both (`"2,4-6"`); spaces around
/// numbers are allowed. Page 0 and backwards ranges are refused.
pub(crate) fn parse_pages(spec: &str) -> Result<Vec<(u32, u32)>, ToolError> {
    let malformed = |why: String| {
        ToolError::invalid_input(format!("pages \"{spec}\" is not a valid page selection: {why}"))
            .with_hint(ACCEPTED_FORMS)
    };
    let number = |part: &str| -> Result<u32, ToolError> {
        let part = part.trim();
        if part.is_empty() {
            return Err(malformed("a page number is missing".into()));
        }
        if !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed(format!("\"{part}\" is not a page number")));
        }
        match part.parse::<u32>() {
            Ok(0) => Err(malformed("pages count from 1, so there is no page 0".into())),
            Ok(n) => Ok(n),
            Err(_) => Err(malformed(format!("{part} is too large to be a page number"))),
        }
    };
    if spec.trim().is_empty() {
        return Err(malformed("it is empty".into()));
    }
    let mut ranges = Vec::new();
    for part in spec.split(',') {
        let range = match part.split_once('-') {
            Some((first, last)) => {
                let (first, last) = (number(first)?, number(last)?);
                if first > last {
                    return Err(malformed(format!("the range {first}-{last} runs backwards")));
                }
                (first, last)
            }
            None => {
                let page = number(part)?;
                (page, page)
            }
        };
        ranges.push(range);
    }
    Ok(ranges)
}

/// `pages` written compactly: `[1, 2, 3, 5]` becomes `"1-3,5"`.
pub(crate) fn format_pages(pages: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < pages.len() {
        let first = pages[i];
        let mut last = first;
        while i + 1 < pages.len() && pages[i + 1] == last + 1 {
            i += 1;
            last = pages[i];
        }
        parts.push(if first == last { first.to_string() } else { format!("{first}-{last}") });
        i += 1;
    }
    parts.join(",")
}

/// A suggested range of at most [`MAX_PAGES_PER_CALL`] pages starting at `first`.
fn suggested_range(first: u32, total: u32) -> String {
    let last = first.saturating_add(MAX_PAGES_PER_CALL - 1).min(total);
    if first == last { first.to_string() } else { format!("{first}-{last}") }
}

/// What extraction found on one page.
enum PageText {
    Text(String),
    Empty,
    Failed(String),
}

fn extract_page(doc: &Document, page: u32) -> PageText {
    let chunks = doc.extract_text_chunks_with_limit(&[page], MAX_PAGE_CONTENT_BYTES);
    let mut text = String::new();
    let mut first_error = None;
    for chunk in chunks {
        match chunk {
            Ok(chunk) => text.push_str(&chunk),
            Err(err) => {
                first_error.get_or_insert_with(|| err.to_string());
            }
        }
    }
    let cleaned = clean(&text);
    if !cleaned.is_empty() {
        PageText::Text(cleaned)
    } else if let Some(err) = first_error {
        PageText::Failed(err)
    } else {
        PageText::Empty
    }
}

/// Trailing spaces off every line, runs of blank lines down to one, no blank lines at
/// either end, and no control characters other than tab and newline.
fn clean(text: &str) -> String {
    let mut out = String::new();
    let mut blank_run = 0;
    for line in text.lines() {
        let line: String = line.chars().filter(|c| *c == '\t' || !c.is_control()).collect();
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
            if blank_run > 0 {
                out.push('\n');
            }
        }
        blank_run = 0;
        out.push_str(line);
    }
    out
}

/// Reads the PDF at `path`: the pages `pages` selects, or all of a short document.
pub(crate) fn read_pdf(
    path: &Path,
    meta: &fs::Metadata,
    pages: Option<&str>,
    ignored_window: bool,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let shown = path.display();
    // Checked again here: validation may have been skipped by a direct caller.
    let ranges = pages.map(parse_pages).transpose()?;
    if meta.len() > MAX_PDF_BYTES {
        return Err(ToolError::invalid_input(format!(
            "{shown} is too large to read as a PDF ({}; the limit is {})",
            human_bytes(meta.len()),
            human_bytes(MAX_PDF_BYTES)
        ))
        .with_hint(format!(
            "Extract the text of some pages with Bash, e.g. `pdftotext -layout -f 1 -l 5 {shown} -` (poppler-utils)."
        )));
    }
    let mtime = meta.modified().ok();
    let bytes = fs::read(path).map_err(|e| open_error(&e, path))?;
    let unreadable_hint = format!(
        "Check what the file is with Bash (`file {shown}`); if it is a PDF that other readers open, try `pdftotext -layout {shown} -` (poppler-utils)."
    );
    let doc = match Document::load_mem(&bytes) {
        Ok(doc) => doc,
        Err(err @ (lopdf::Error::InvalidPassword | lopdf::Error::Decryption(_))) => {
            return Err(encrypted_error(path, &format!(" ({err})")));
        }
        Err(lopdf::Error::UnsupportedSecurityHandler(_)) => {
            return Err(encrypted_error(path, " with a security handler Read does not support"));
        }
        Err(err) => {
            return Err(ToolError::invalid_input(format!(
                "Cannot read {shown}: it is not a readable PDF, it may be damaged or not a PDF at all ({err})"
            ))
            .with_hint(unreadable_hint));
        }
    };
    if doc.is_encrypted() && !doc.was_encrypted() {
        return Err(encrypted_error(path, ""));
    }
    let page_ids = doc.get_pages();
    let total = u32::try_from(page_ids.len()).unwrap_or(u32::MAX);
    if total == 0 {
        return Err(
            ToolError::invalid_input(format!("Cannot read {shown}: the PDF has no pages")).with_hint(unreadable_hint)
        );
    }

    let selected: Vec<u32> = match &ranges {
        None => {
            if total > MAX_PAGES_WITHOUT_RANGE {
                return Err(ToolError::invalid_input(format!(
                    "{shown} has {total} pages; a PDF over {MAX_PAGES_WITHOUT_RANGE} pages must be read with pages, at most {MAX_PAGES_PER_CALL} per call"
                ))
                .with_hint(if total <= MAX_PAGES_PER_CALL {
                    format!("Pass pages=\"1-{total}\" to read all of it, or a smaller range such as pages=\"1-5\".")
                } else {
                    format!("Read it in parts: pages=\"{}\" first, then the next range.", suggested_range(1, total))
                }));
            }
            (1..=total).collect()
        }
        Some(ranges) => {
            let spec = pages.unwrap_or_default();
            let highest = ranges.iter().map(|&(_, last)| last).max().unwrap_or(1);
            if highest > total {
                return Err(ToolError::invalid_input(format!(
                    "pages \"{spec}\" asks for page {highest}, but {shown} has only {}",
                    plural(u64::from(total), "page")
                ))
                .with_hint(if total == 1 {
                    "Use pages=\"1\", or leave pages out.".to_owned()
                } else {
                    format!("Use pages from 1 to {total}.")
                }));
            }
            let set: BTreeSet<u32> = ranges.iter().flat_map(|&(first, last)| first..=last).collect();
            let count = u32::try_from(set.len()).unwrap_or(u32::MAX);
            if count > MAX_PAGES_PER_CALL {
                let first = set.first().copied().unwrap_or(1);
                return Err(ToolError::invalid_input(format!(
                    "pages \"{spec}\" selects {count} pages, and one Read returns at most {MAX_PAGES_PER_CALL}"
                ))
                .with_hint(format!(
                    "Read them in parts of up to {MAX_PAGES_PER_CALL} pages, e.g. pages=\"{}\" first.",
                    suggested_range(first, total)
                )));
            }
            set.into_iter().collect()
        }
    };

    let header = format!(
        "PDF {shown}: {}; showing {} {}.",
        plural(u64::from(total), "page"),
        if selected.len() == 1 { "page" } else { "pages" },
        format_pages(&selected)
    );
    let mut out = header.clone();
    out.push('\n');
    let mut out_chars = out.chars().count();
    let mut shown_pages: Vec<u32> = Vec::new();
    let mut textless: Vec<u32> = Vec::new();
    let mut failed: Vec<(u32, String)> = Vec::new();
    let mut cut_page: Option<(u32, usize)> = None;
    let mut capped_at: Option<usize> = None;
    for (i, &page) in selected.iter().enumerate() {
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::cancelled(format!("Reading {shown} was cancelled")));
        }
        let body = match extract_page(&doc, page) {
            PageText::Text(text) => text,
            PageText::Empty => {
                textless.push(page);
                "(No extractable text on this page.)".to_owned()
            }
            PageText::Failed(err) => {
                failed.push((page, err.clone()));
                format!("(The text of this page could not be extracted: {err})")
            }
        };
        let block = format!("\n--- Page {page} of {total} ---\n{body}\n");
        let block_chars = block.chars().count();
        if out_chars + block_chars > MAX_OUTPUT_CHARS {
            if shown_pages.is_empty() {
                // One page alone passes the cap: show its start.
                let room = MAX_OUTPUT_CHARS.saturating_sub(out_chars);
                let kept: String = block.chars().take(room).collect();
                out.push_str(&kept);
                out.push('\n');
                cut_page = Some((page, block_chars - room));
                shown_pages.push(page);
                if i + 1 < selected.len() {
                    capped_at = Some(i + 1);
                }
            } else {
                capped_at = Some(i);
            }
            break;
        }
        out.push_str(&block);
        out_chars += block_chars;
        shown_pages.push(page);
    }

    let partial = shown_pages.len() < usize::try_from(total).unwrap_or(usize::MAX) || cut_page.is_some();
    ctx.file_state.record_read(path, &bytes, mtime, partial);

    let mut notes = Vec::new();
    if let Some((page, missing)) = cut_page {
        notes.push(format!(
            "[Page {page} alone passes the {MAX_OUTPUT_CHARS}-character limit of one read, so it was cut ({missing} more characters). Extract it whole with Bash, e.g. `pdftotext -layout -f {page} -l {page} {shown} -`.]"
        ));
    }
    if let Some(next) = capped_at {
        let rest = format_pages(&selected[next..]);
        let last = shown_pages.last().copied().unwrap_or(1);
        notes.push(format!(
            "[Output stopped after page {last}: the rest would pass the {MAX_OUTPUT_CHARS}-character limit of one read. Continue with pages=\"{rest}\".]"
        ));
    }
    if !textless.is_empty() {
        let list = format_pages(&textless);
        let (first, last) = (textless[0], textless[textless.len() - 1]);
        notes.push(format!(
            "[{} {list} {} no extractable text: probably scanned images or drawn outlines. To see {}, render {} as images with Bash, e.g. `pdftoppm -png -r 100 -f {first} -l {last} {shown} /tmp/page` (poppler-utils), then Read the PNG files.]",
            if textless.len() == 1 { "Page" } else { "Pages" },
            if textless.len() == 1 { "has" } else { "have" },
            if textless.len() == 1 { "it" } else { "them" },
            if textless.len() == 1 { "the page" } else { "the pages" },
        ));
    }
    if !failed.is_empty() {
        let list: Vec<u32> = failed.iter().map(|(page, _)| *page).collect();
        notes.push(format!(
            "[Text extraction failed on {} {}. Try `pdftotext -layout -f N -l N {shown} -` with Bash, or render the page as an image with `pdftoppm -png`.]",
            if list.len() == 1 { "page" } else { "pages" },
            format_pages(&list)
        ));
    }
    if ignored_window {
        notes
            .push("[offset and limit apply to text files and were ignored; use pages to choose PDF pages.]".to_owned());
    }
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes.join("\n"));
    }
    Ok(ToolOutput::text(out).with_structured(json!({
        "type": "pdf",
        "file": {
            "filePath": path.to_string_lossy(),
            "numPages": total,
            "pages": shown_pages,
            "originalSize": bytes.len(),
        }
    })))
}

fn encrypted_error(path: &Path, detail: &str) -> ToolError {
    let shown = path.display();
    ToolError::invalid_input(format!("Cannot read {shown}: the PDF is encrypted and needs a password{detail}"))
        .with_hint(format!(
            "Ask the user for a decrypted copy, or, given the password, make one with Bash, e.g. `qpdf --password=PASSWORD --decrypt {shown} /tmp/decrypted.pdf`, and read that."
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_selections_parse() {
        assert_eq!(parse_pages("3").unwrap(), vec![(3, 3)]);
        assert_eq!(parse_pages("1-5").unwrap(), vec![(1, 5)]);
        assert_eq!(parse_pages(" 2, 4 - 6 ").unwrap(), vec![(2, 2), (4, 6)]);
        for bad in ["", " ", "0", "a", "1-", "-3", "5-2", "1,,2", "1-2-3", "3.5", "+1", "99999999999"] {
            let err = parse_pages(bad).unwrap_err();
            assert!(err.hint().unwrap().contains("\"2,4-6\""), "{bad}: {}", err.message());
        }
    }

    #[test]
    fn page_lists_format_compactly() {
        assert_eq!(format_pages(&[1, 2, 3, 5, 7, 8]), "1-3,5,7-8");
        assert_eq!(format_pages(&[4]), "4");
        assert_eq!(format_pages(&[]), "");
    }

    #[test]
    fn text_is_cleaned() {
        assert_eq!(clean("\n\n a  \n\n\n\nb\x07\n  \n"), " a\n\nb");
    }
}
