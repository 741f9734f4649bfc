//! Read: a file's lines in the `cat -n` shape, an image as an image block, a notebook as
//! its cells and outputs, a PDF as the text of its pages ([`pdf`]).
//!
//! Text is streamed ([`lines`]): the lines before `offset` are counted, not kept; the
//! window keeps at most [`MAX_LINE_CHARS`] characters per line and
//! stops at [`MAX_OUTPUT_CHARS`]. So a window near the end of a multi-gigabyte file costs
//! one pass over the bytes before it and a few megabytes of memory at most.
//!
//! Every successful read is recorded in the session's file-state cache: whole (the raw
//! bytes' hash) when the model saw the entire file, partial otherwise (a window, a cut
//! line, output over the cap). A repeat read of the same window of an unchanged file
//! returns a short "unchanged" note instead of the same content again.

mod lines;
mod notebook;
mod pdf;
mod prompt;

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufReader, Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use base64::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_core::{
    Access, ContentBlock, DynTool, FileState, InterruptBehavior, ResultLimit, Target, ToolContext, ToolError,
    ToolOutput, TypedTool, typed,
};

use crate::file_io::text::{plural, push_numbered};
use crate::file_io::{blocking, human_bytes, paths};
use lines::{LineReader, MAX_LINE_CHARS};

/// Lines returned when the call gives no `limit`.
pub(crate) const DEFAULT_LIMIT: u64 = 2_000;

/// The output cap: about 25,000 tokens. A read that would return more stops at a line
/// boundary with a notice saying how to continue.
pub(crate) const MAX_OUTPUT_CHARS: usize = 100_000;

/// The largest image shown: its base64 form stays within the 5 MB an image block may
/// hold.
pub(crate) const MAX_IMAGE_BYTES: u64 = 3_750_000;

/// The largest notebook read.
const MAX_NOTEBOOK_BYTES: u64 = 100 * 1024 * 1024;

/// Bytes looked at for NUL bytes before deciding a file is text.
const SNIFF_BYTES: usize = 8 * 1024;

/// Raw bytes of a window kept for the file-state hash; a window larger than this cannot
/// have been shown whole anyway (see [`MAX_OUTPUT_CHARS`]).
const MAX_RAW_BYTES: usize = 4 * 1024 * 1024;

/// Read buffer size.
const BUFFER_BYTES: usize = 256 * 1024;

/// Which file to read, and which of its lines.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadInput {
    /// The absolute path of the file to read.
    pub file_path: String,
    /// The 1-based line to start at (0 also means the first).
    #[serde(default)]
    pub offset: Option<u64>,
    /// How many lines to read.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<u64>,
    /// PDF pages to read: a page ("3"), a range ("1-5") or a list ("2,4-6").
    #[serde(default)]
    pub pages: Option<String>,
}

/// What kind of content a path holds, judged by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Image,
    Notebook,
    Pdf,
    Text,
}

fn kind_of(path: &Path) -> Kind {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    match ext.as_str() {
        "png" | "jpg" | "jpeg" | "gif" | "webp" => Kind::Image,
        "ipynb" => Kind::Notebook,
        "pdf" => Kind::Pdf,
        _ => Kind::Text,
    }
}

/// The last text read of each file, for the "unchanged" note. Lives in the session's
/// app state, so it is per agent.
#[derive(Debug, Default)]
struct ReadLedger(HashMap<PathBuf, LastRead>);

/// What one read returned, and of which version of the file.
#[derive(Debug, Clone, PartialEq)]
struct LastRead {
    start: u64,
    limit: Option<u64>,
    mtime: Option<SystemTime>,
    len: u64,
    state: FileState,
}

/// How many files the ledger remembers before it starts over.
const MAX_LEDGER: usize = 1_000;

/// The Read tool (see the module docs).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("hello.txt");
/// std::fs::write(&path, "first\nsecond\n")?;
/// let read = toolgate_builtin::all_builtin_tools().into_iter().find(|t| t.name() == "Read").unwrap();
/// let ctx = toolgate_core::ToolContext::new(dir.path());
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let out = rt.block_on(read.call(serde_json::json!({"file_path": path, "offset": 2}), &ctx)).unwrap();
/// assert_eq!(out.to_text(), "     2\tsecond\n");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ReadTool;

/// The tool, ready for the registry.
pub(crate) fn tool() -> DynTool {
    typed(ReadTool)
}

impl TypedTool for ReadTool {
    type Input = ReadInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "Read"
    }

    fn description(&self) -> String {
        prompt::description()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("read a file's contents, lines, images or notebook cells")
    }

    fn is_read_only(&self, _input: &ReadInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &ReadInput) -> bool {
        true
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        // A read changes nothing, so an interrupt may abandon it; the streaming loop also
        // stops at the call's cancellation token.
        InterruptBehavior::Cancel
    }

    fn max_result_size_chars(&self) -> ResultLimit {
        // Persisting a read would only make the model read the file again.
        ResultLimit::Never
    }

    async fn validate(&self, input: &ReadInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let path = paths::resolve(&input.file_path, "file_path", ctx)?.path;
        if input.limit == Some(0) {
            return Err(ToolError::invalid_input("limit must be at least 1")
                .with_hint(format!("Leave limit out to read up to {DEFAULT_LIMIT} lines.")));
        }
        if input.pages.is_some() && kind_of(&path) != Kind::Pdf {
            return Err(ToolError::invalid_input(format!(
                "pages applies only to PDF files, and {} is not one",
                path.display()
            ))
            .with_hint("Leave pages out; use offset and limit to read part of a text file."));
        }
        if let Some(pages) = &input.pages {
            pdf::parse_pages(pages)?;
        }
        Ok(())
    }

    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        paths::normalize_field(input, "file_path", ctx)
    }

    fn permission_target(&self, input: &ReadInput) -> Option<String> {
        Some(input.file_path.clone())
    }

    /// The file, read.
    fn targets(&self, input: &ReadInput) -> Vec<Target> {
        vec![Target::new(&input.file_path, Access::Read { walked: false })]
    }

    async fn call(&self, input: ReadInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let ctx = ctx.clone();
        blocking(move || read(&input, &ctx)).await
    }

    fn render_use(&self, input: &ReadInput) -> String {
        if let Some(pages) = &input.pages {
            return format!("Read({}, pages {pages})", input.file_path);
        }
        match (input.offset, input.limit) {
            (None, None) => format!("Read({})", input.file_path),
            (offset, limit) => {
                let start = offset.unwrap_or(1).max(1);
                let end = start.saturating_add(limit.unwrap_or(DEFAULT_LIMIT)).saturating_sub(1);
                format!("Read({}, lines {start}-{end})", input.file_path)
            }
        }
    }
}

/// The whole call, off the async runtime.
fn read(input: &ReadInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let target = paths::resolve(&input.file_path, "file_path", ctx)?;
    let path = target.path.as_path();
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) if matches!(err.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
            if let Ok(link) = fs::read_link(path) {
                return Err(ToolError::not_found(format!(
                    "{} is a symbolic link to {}, which does not exist",
                    path.display(),
                    link.display()
                ))
                .with_hint("Read the file the link should point to, or fix the link with Bash."));
            }
            return Err(paths::missing_file_error(path, ctx));
        }
        Err(err) => return Err(open_error(&err, path)),
    };
    if meta.is_dir() {
        return Err(ToolError::invalid_input(format!("{} is a directory, not a file", path.display()))
            .with_hint(format!("List its entries with LS, or run `ls {}` with Bash.", path.display())));
    }
    if !meta.is_file() {
        return Err(ToolError::invalid_input(format!(
            "{} is not a regular file (it is a device, pipe or socket), and Read reads only regular files",
            path.display()
        ))
        .with_hint("Use Bash for devices, pipes and sockets."));
    }
    let out = match kind_of(path) {
        Kind::Pdf => {
            pdf::read_pdf(path, &meta, input.pages.as_deref(), input.offset.is_some() || input.limit.is_some(), ctx)?
        }
        Kind::Image => read_image(path, &meta, ctx)?,
        Kind::Notebook => read_notebook(path, &meta, ctx)?,
        Kind::Text => read_text(input, path, ctx)?,
    };
    Ok(append_note(out, target.note.as_deref()))
}

fn append_note(mut out: ToolOutput, note: Option<&str>) -> ToolOutput {
    if let Some(note) = note {
        out.content.push(ContentBlock::text(note));
    }
    out
}

/// The model-facing error for a file that could not be opened.
fn open_error(err: &io::Error, path: &Path) -> ToolError {
    match err.kind() {
        io::ErrorKind::PermissionDenied => ToolError::permission(format!(
            "Permission denied: the operating system refused to open {} for reading",
            path.display()
        ))
        .with_hint("Check its permissions (`ls -l` with Bash), or ask the user for access."),
        _ => {
            let base = ToolError::from_io(err, path);
            let kind = base.kind();
            ToolError::new(kind, format!("Could not read {}: {err}", path.display()))
                .with_hint("Check that the path names a readable file.")
        }
    }
}

fn io_error(err: &io::Error, path: &Path) -> ToolError {
    if err.kind() == io::ErrorKind::Interrupted {
        return ToolError::cancelled(format!("Reading {} was cancelled", path.display()));
    }
    open_error(err, path)
}

fn read_text(input: &ReadInput, path: &Path, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let mut file = File::open(path).map_err(|e| open_error(&e, path))?;
    let meta = file.metadata().map_err(|e| io_error(&e, path))?;
    // Taken before reading: a change during the read then shows up as stale later.
    let mtime = meta.modified().ok();
    let len = meta.len();
    let start = input.offset.unwrap_or(1).max(1);
    let shown = path.display();

    if len == 0 {
        ctx.file_state.record_read(path, b"", mtime, false);
        let text = format!("(The file {shown} exists but is empty.)");
        return Ok(ToolOutput::text(text).with_structured(text_structured(path, "", 0, 1, Some(0))));
    }

    let mut head = vec![0u8; SNIFF_BYTES.min(usize::try_from(len).unwrap_or(SNIFF_BYTES))];
    let got = read_up_to(&mut file, &mut head).map_err(|e| io_error(&e, path))?;
    head.truncate(got);
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return Err(ToolError::invalid_input(format!("{shown} is encoded as UTF-16, which Read does not decode"))
            .with_hint(format!(
                "Convert a copy with Bash, e.g. `iconv -f UTF-16 -t UTF-8 {shown} > /tmp/converted.txt`, and read that."
            )));
    }
    if head.contains(&0) {
        let ext =
            path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_else(|| "extensionless".into());
        return Err(ToolError::invalid_input(format!(
            "Cannot read {shown}: it appears to be a binary {ext} file (it contains NUL bytes)"
        ))
        .with_hint(format!("Inspect it with Bash instead, e.g. `file {shown}` or `xxd {shown} | head`.")));
    }

    // The unchanged-since-last-read note.
    let ledger_key = path.to_path_buf();
    if let Some(last) = ctx.app_state.update(|l: &mut ReadLedger| l.0.get(&ledger_key).cloned())
        && last.start == start
        && last.limit == input.limit
        && last.len == len
        && last.mtime.is_some()
        && last.mtime == mtime
        && ctx.file_state.get(path).as_ref() == Some(&last.state)
    {
        let text = format!(
            "File unchanged since your last Read of {shown} with the same offset and limit: that result is still current, so it is not repeated."
        );
        return Ok(ToolOutput::text(text)
            .with_structured(json!({"type": "file_unchanged", "file": {"filePath": path.to_string_lossy()}})));
    }

    file.seek(SeekFrom::Start(0)).map_err(|e| io_error(&e, path))?;
    let mut reader = LineReader::new(BufReader::with_capacity(BUFFER_BYTES, file));
    let skipped = reader.skip(start - 1, &ctx.cancel).map_err(|e| io_error(&e, path))?;
    if skipped < start - 1 {
        return Err(offset_past_end(path, start, skipped));
    }
    reader.start_collecting(MAX_RAW_BYTES);
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT).max(1);
    let mut out = String::new();
    let mut content = String::new();
    let mut out_chars = 0usize;
    let mut count = 0u64;
    let mut cut_lines = 0u64;
    let mut lossy = false;
    let mut capped = false;
    while count < limit {
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::cancelled(format!("Reading {shown} was cancelled")));
        }
        let Some(line) = reader.next_line().map_err(|e| io_error(&e, path))? else { break };
        let number = start + count;
        let mut text = line.text;
        if line.cut_chars > 0 {
            cut_lines += 1;
            text.push_str(&format!("… [line cut: {} more characters]", line.cut_chars));
        }
        let line_chars = text.chars().count() + number.to_string().len().max(6) + 2;
        if out_chars + line_chars > MAX_OUTPUT_CHARS && count > 0 {
            capped = true;
            break;
        }
        lossy |= line.lossy;
        out_chars += line_chars;
        push_numbered(&mut out, number, &text);
        content.push_str(&text);
        content.push('\n');
        count += 1;
    }
    if count == 0 {
        return Err(offset_past_end(path, start, skipped));
    }
    let last = start + count - 1;
    let more = capped || !reader.at_eof().map_err(|e| io_error(&e, path))?;
    let partial = start > 1 || more || cut_lines > 0 || reader.raw_overflow;
    let raw = reader.take_raw();
    let state = ctx.file_state.record_read(path, &raw, mtime, partial);
    ctx.app_state.update(|l: &mut ReadLedger| {
        if l.0.len() >= MAX_LEDGER {
            l.0.clear();
        }
        l.0.insert(ledger_key, LastRead { start, limit: input.limit, mtime, len, state });
    });

    let mut notes = Vec::new();
    if capped {
        notes.push(format!(
            "[Output stopped at lines {start}-{last}: the rest would pass the {MAX_OUTPUT_CHARS}-character limit of one read. Continue with offset={} and limit={count}.]",
            last + 1
        ));
    } else if more {
        notes.push(format!(
            "[Showing lines {start}-{last}; the file continues. Read on with offset={} (limit up to {DEFAULT_LIMIT} lines).]",
            last + 1
        ));
    }
    if cut_lines > 0 {
        notes.push(format!(
            "[{} longer than {MAX_LINE_CHARS} characters {} cut. To see a long line whole, use Grep or Bash (e.g. `cut -c1-5000`).]",
            plural(cut_lines, "line"),
            if cut_lines == 1 { "was" } else { "were" }
        ));
    }
    if lossy {
        notes.push("[The file is not valid UTF-8: bytes that are not were replaced by U+FFFD (�) in this view. Edit still matches and keeps the original bytes.]".to_owned());
    }
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes.join("\n"));
    }
    let total = (!more && start == 1).then_some(count);
    Ok(ToolOutput::text(out).with_structured(text_structured(path, &content, count, start, total)))
}

/// Claude Code's Read output object, for hooks.
fn text_structured(path: &Path, content: &str, num_lines: u64, start: u64, total: Option<u64>) -> Value {
    json!({
        "type": "text",
        "file": {
            "filePath": path.to_string_lossy(),
            "content": content,
            "numLines": num_lines,
            "startLine": start,
            "totalLines": total,
        }
    })
}

fn offset_past_end(path: &Path, offset: u64, lines: u64) -> ToolError {
    ToolError::invalid_input(format!("{} has {lines} lines, so offset {offset} is past its end", path.display()))
        .with_hint(format!("Use an offset from 1 to {lines}."))
}

/// Reads until `buf` is full or the file ends; returns the bytes read.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The image's MIME type from its first bytes.
fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

fn read_image(path: &Path, meta: &fs::Metadata, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let shown = path.display();
    if meta.len() > MAX_IMAGE_BYTES {
        return Err(ToolError::invalid_input(format!(
            "{shown} is too large to show as an image ({}; the limit is {})",
            human_bytes(meta.len()),
            human_bytes(MAX_IMAGE_BYTES)
        ))
        .with_hint(format!(
            "Make a smaller copy with Bash, e.g. `convert {shown} -resize 50% /tmp/smaller.png` if ImageMagick is installed, and read that."
        )));
    }
    let mtime = meta.modified().ok();
    let bytes = fs::read(path).map_err(|e| open_error(&e, path))?;
    if bytes.is_empty() {
        return Err(ToolError::invalid_input(format!("{shown} is an empty file, not an image")));
    }
    let Some(media) = sniff_image(&bytes) else {
        return Err(ToolError::invalid_input(format!(
            "{shown} does not look like a PNG, JPEG, GIF or WebP image, whatever its extension says"
        ))
        .with_hint(format!("Check what it is with Bash: `file {shown}`.")));
    };
    ctx.file_state.record_read(path, &bytes, mtime, false);
    let text = format!("Image {shown} ({media}, {}):", human_bytes(bytes.len() as u64));
    let image = ContentBlock::image(media, BASE64_STANDARD.encode(&bytes));
    Ok(ToolOutput::blocks(vec![ContentBlock::text(text), image]).with_structured(json!({
        "type": "image",
        "file": {"filePath": path.to_string_lossy(), "type": media, "originalSize": bytes.len()}
    })))
}

fn read_notebook(path: &Path, meta: &fs::Metadata, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let shown = path.display();
    if meta.len() > MAX_NOTEBOOK_BYTES {
        return Err(ToolError::invalid_input(format!(
            "{shown} is too large to read as a notebook ({}; the limit is {})",
            human_bytes(meta.len()),
            human_bytes(MAX_NOTEBOOK_BYTES)
        ))
        .with_hint(format!("Look at single cells with Bash, e.g. `jq '.cells[0]' {shown}`.")));
    }
    let mtime = meta.modified().ok();
    let bytes = fs::read(path).map_err(|e| open_error(&e, path))?;
    let parsed: Option<Value> = serde_json::from_slice(&bytes).ok();
    let max_images = usize::try_from(MAX_IMAGE_BYTES).unwrap_or(usize::MAX);
    let Some(rendered) = parsed.as_ref().and_then(|nb| notebook::render(nb, MAX_OUTPUT_CHARS, max_images)) else {
        // Not notebook JSON: show it as text, so the model can see what is wrong.
        let input =
            ReadInput { file_path: path.to_string_lossy().into_owned(), offset: None, limit: None, pages: None };
        let mut out = read_text(&input, path, ctx)?;
        out.content
            .push(ContentBlock::text(format!("[{shown} is not valid notebook JSON, so it is shown as plain text.]")));
        return Ok(out);
    };
    let partial = rendered.cells_shown < rendered.cells_total;
    ctx.file_state.record_read(path, &bytes, mtime, partial);
    let mut text = rendered.text;
    if partial {
        text.push_str(&format!(
            "\n[Showing {} of {} cells: the rest would pass the {MAX_OUTPUT_CHARS}-character limit of one read. See the others with Bash, e.g. `jq '.cells[{}:]' {shown}`.]",
            rendered.cells_shown, rendered.cells_total, rendered.cells_shown
        ));
    }
    let mut blocks = vec![ContentBlock::text(text)];
    blocks.extend(rendered.images);
    Ok(ToolOutput::blocks(blocks).with_structured(json!({
        "type": "notebook",
        "file": {"filePath": path.to_string_lossy(), "cells": rendered.cells_total, "cellsShown": rendered.cells_shown}
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_extension() {
        assert_eq!(kind_of(Path::new("/a/b.PNG")), Kind::Image);
        assert_eq!(kind_of(Path::new("/a/b.ipynb")), Kind::Notebook);
        assert_eq!(kind_of(Path::new("/a/b.pdf")), Kind::Pdf);
        assert_eq!(kind_of(Path::new("/a/Makefile")), Kind::Text);
    }

    #[test]
    fn images_are_sniffed() {
        assert_eq!(sniff_image(b"\x89PNG\r\n\x1a\nrest"), Some("image/png"));
        assert_eq!(sniff_image(b"\xFF\xD8\xFF\xE0"), Some("image/jpeg"));
        assert_eq!(sniff_image(b"GIF89a.."), Some("image/gif"));
        assert_eq!(sniff_image(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff_image(b"hello"), None);
    }
}
