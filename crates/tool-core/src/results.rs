//! Tool results too large for the context, handled the way Claude Code handles them.
//!
//! Two rules keep results from flooding the conversation:
//!
//! 1. **Per-tool threshold** ([`ResultStore::apply_threshold`]): a result whose text is
//!    longer than the tool's [`ResultLimit::effective`] threshold (at most 50,000 chars)
//!    is saved to `<dir>/<tool_use_id>.txt` and replaced by a `<persisted-output>` block
//!    that names the file and shows a preview of the first [`PREVIEW_BYTES`] bytes.
//! 2. **Per-message budget** ([`ResultStore::enforce_budget`]): the results of one
//!    message together must stay within [`DEFAULT_MESSAGE_BUDGET`] chars; the largest are
//!    persisted first until the rest fit.
//!
//! Results with an image (or any other non-text block) are never persisted, nor are
//! results of tools whose limit is [`ResultLimit::Never`] (Read: persisting a read would
//! only make the model read the file again). Empty results are replaced by
//! [`empty_result_text`].

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use crate::{ContentBlock, ResultLimit};

/// How many bytes of a persisted result the replacement block previews.
pub const PREVIEW_BYTES: usize = 2_000;

/// How many chars the tool results of one message may hold together.
pub const DEFAULT_MESSAGE_BUDGET: usize = 200_000;

/// The tag that opens a replacement block; a result starting with it is already persisted.
const PERSISTED_OPEN: &str = "<persisted-output>\n";

/// The longest sanitized tool-use id used verbatim in a file name; longer ids are cut and
/// suffixed with a hash of the whole id so the name stays under file-system limits.
const MAX_ID_CHARS: usize = 100;

/// How many names (`id.txt`, `id-2.txt` …) are tried before giving up when other results
/// already hold the name (two hostile ids can sanitize to the same name).
const MAX_NAME_ATTEMPTS: usize = 100;

/// The text shown for a result with no content: `(<ToolName> completed with no output)`.
///
/// ```
/// assert_eq!(toolgate_core::empty_result_text("Bash"), "(Bash completed with no output)");
/// ```
pub fn empty_result_text(tool_name: &str) -> String {
    format!("({tool_name} completed with no output)")
}

/// Where a session's large tool results are saved, and the rules that decide which are.
///
/// The folder (Claude Code uses `<session>/tool-results`) is created on the first write,
/// never at construction. Each result is written once, atomically (a temporary file in
/// the same folder, synced, then renamed into place), as `<sanitized tool_use_id>.txt`.
///
/// ```
/// use toolgate_core::{ContentBlock, ResultLimit, ResultStore};
///
/// let session = tempfile::tempdir()?;
/// let store = ResultStore::new(session.path().join("tool-results"));
/// assert!(!store.dir().exists()); // created lazily
///
/// let big = "a line of output\n".repeat(3_000); // 51,000 chars
/// let content = store.apply_threshold("toolu_01", ResultLimit::Chars(30_000), vec![ContentBlock::text(big.clone())]);
/// let shown = content[0].as_text().unwrap();
/// assert!(shown.starts_with("<persisted-output>\nOutput too large (49.8KB)."));
/// assert_eq!(std::fs::read_to_string(store.dir().join("toolu_01.txt"))?, big);
///
/// // Small results pass through untouched.
/// let small = vec![ContentBlock::text("ok")];
/// assert_eq!(store.apply_threshold("toolu_02", ResultLimit::Chars(30_000), small.clone()), small);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct ResultStore {
    dir: PathBuf,
}

/// One tool result of a message, as [`ResultStore::enforce_budget`] weighs it.
///
/// ```
/// use toolgate_core::{BudgetEntry, ContentBlock};
/// let entry = BudgetEntry {
///     tool_use_id: "toolu_01".into(),
///     tool_name: "Grep".into(),
///     content: vec![ContentBlock::text("src/lib.rs")],
///     persistable: true,
/// };
/// assert!(entry.persistable);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetEntry {
    /// The call's id; names the file the result is saved to.
    pub tool_use_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The result's content; replaced by a `<persisted-output>` block when persisted.
    pub content: Vec<ContentBlock>,
    /// Whether the result may be persisted (false for tools whose limit is
    /// [`ResultLimit::Never`], such as Read).
    pub persistable: bool,
}

impl ResultStore {
    /// A store saving into `dir` (the session's `tool-results` folder). Nothing is
    /// created until the first result is persisted.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The folder results are saved to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Saves `text` as the full output of call `tool_use_id` and returns the file's path.
    ///
    /// The file is `<dir>/<id>.txt`, where `<id>` is `tool_use_id` with every character
    /// outside `[A-Za-z0-9_-]` replaced by `_` (`result` when empty), so no id can name a
    /// file outside the folder. A result is written once: when the file already holds
    /// `text` it is reused; when it holds something else (another id that sanitized to
    /// the same name) the next free name `<id>-2.txt`, `<id>-3.txt` … is used. The write
    /// is atomic: readers see either no file or the whole text.
    ///
    /// # Errors
    ///
    /// Any I/O error creating the folder or writing the file.
    pub fn persist(&self, tool_use_id: &str, text: &str) -> io::Result<PathBuf> {
        fs::create_dir_all(&self.dir)?;
        let stem = sanitize_id(tool_use_id);
        // Written at most once, then offered under successive names.
        let mut pending: Option<tempfile::NamedTempFile> = None;
        for attempt in 1..=MAX_NAME_ATTEMPTS {
            let name = if attempt == 1 { format!("{stem}.txt") } else { format!("{stem}-{attempt}.txt") };
            let path = self.dir.join(name);
            if !exists_no_follow(&path)? {
                let temp = match pending.take() {
                    Some(temp) => temp,
                    None => write_temp(&self.dir, text)?,
                };
                match temp.persist_noclobber(&path) {
                    Ok(_) => {
                        sync_dir(&self.dir);
                        return Ok(path);
                    }
                    // Another writer took the name meanwhile: maybe with the same text.
                    Err(err) if err.error.kind() == io::ErrorKind::AlreadyExists => pending = Some(err.file),
                    Err(err) => return Err(err.error),
                }
            }
            if holds_text(&path, text)? {
                return Ok(path);
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{MAX_NAME_ATTEMPTS} result files named after `{stem}` already exist"),
        ))
    }

    /// Persists `text` and returns the `<persisted-output>` block that replaces it.
    ///
    /// This is the replacement [`ResultStore::apply_threshold`] and
    /// [`ResultStore::enforce_budget`] use, for callers with other text to shrink (hook
    /// output over its cap, for one).
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let store = toolgate_core::ResultStore::new(dir.path());
    /// let block = store.persist_with_preview("hook-1", &"x".repeat(5_000))?;
    /// assert!(block.starts_with("<persisted-output>\nOutput too large (4.9KB). Full output saved to: "));
    /// assert!(block.ends_with("\n...\n</persisted-output>"));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`ResultStore::persist`].
    pub fn persist_with_preview(&self, tool_use_id: &str, text: &str) -> io::Result<String> {
        let path = self.persist(tool_use_id, text)?;
        Ok(persisted_message(&path, text))
    }

    /// Applies a tool's persistence threshold to its result content.
    ///
    /// When the content is all text and its chars together exceed `limit.effective()`,
    /// the joined text (blocks separated by newlines) is persisted and the content
    /// becomes a single `<persisted-output>` text block:
    ///
    /// ```text
    /// <persisted-output>
    /// Output too large (61.0KB). Full output saved to: /…/tool-results/toolu_01.txt
    ///
    /// Preview (first 2KB):
    /// …the first 2,000 bytes, cut back to the last newline when it lies past 1,000…
    /// ...
    /// </persisted-output>
    /// ```
    ///
    /// (the `...` line only when the preview is not the whole text). Content at or under
    /// the threshold, content with an image or other non-text block, and every result of
    /// a [`ResultLimit::Never`] tool are returned unchanged. When the file cannot be
    /// written the text is truncated in place to the threshold instead, ending with
    /// `[output truncated: N chars; could not save the full output: ERR]` (N being the
    /// length of the whole output), so the model knows what it is missing.
    pub fn apply_threshold(
        &self,
        tool_use_id: &str,
        limit: ResultLimit,
        content: Vec<ContentBlock>,
    ) -> Vec<ContentBlock> {
        let Some(threshold) = limit.effective() else {
            return content;
        };
        if !all_text(&content) || total_chars(&content) <= threshold {
            return content;
        }
        let text = joined_text(&content);
        vec![ContentBlock::text(self.replace(tool_use_id, &text, threshold))]
    }

    /// Keeps the results of one message within `budget` chars together.
    ///
    /// While the entries' text chars together exceed `budget`, the largest entry that is
    /// persistable, all text and not persisted yet (already a `<persisted-output>` block)
    /// is persisted and its content replaced by the block; ties go to the earlier entry.
    /// It stops as soon as the total fits, or when nothing is left to persist (the
    /// total may then stay over budget). An entry whose replacement would not be shorter
    /// is left as it is. When a file cannot be written, that entry is cut to its preview
    /// with the `[output truncated …]` note instead.
    ///
    /// ```
    /// use toolgate_core::{BudgetEntry, ContentBlock, ResultStore};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let store = ResultStore::new(dir.path());
    /// let entry = |id: &str, chars: usize| BudgetEntry {
    ///     tool_use_id: id.into(),
    ///     tool_name: "Bash".into(),
    ///     content: vec![ContentBlock::text("y".repeat(chars))],
    ///     persistable: true,
    /// };
    /// let mut entries = vec![entry("a", 40_000), entry("b", 60_000), entry("c", 30_000)];
    /// store.enforce_budget(&mut entries, 100_000);
    /// // Only the largest had to go.
    /// assert!(entries[1].content[0].as_text().unwrap().starts_with("<persisted-output>"));
    /// assert_eq!(entries[0].content[0].text_chars(), 40_000);
    /// assert_eq!(entries[2].content[0].text_chars(), 30_000);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn enforce_budget(&self, entries: &mut [BudgetEntry], budget: usize) {
        let mut sizes: Vec<usize> = entries.iter().map(|e| total_chars(&e.content)).collect();
        let mut done: Vec<bool> =
            entries.iter().map(|e| !e.persistable || !all_text(&e.content) || is_persisted(&e.content)).collect();
        let mut total: usize = sizes.iter().sum();
        while total > budget {
            // Largest first; `>` keeps the earlier index on ties.
            let mut pick: Option<usize> = None;
            for (i, &size) in sizes.iter().enumerate() {
                if !done[i] && pick.is_none_or(|p| size > sizes[p]) {
                    pick = Some(i);
                }
            }
            let Some(i) = pick else { break };
            done[i] = true;
            let entry = &mut entries[i];
            let text = joined_text(&entry.content);
            let (shown, more) = preview(&text);
            if !more {
                continue; // the block would quote all of it, and more
            }
            let replacement = self.replace(&entry.tool_use_id, &text, shown.chars().count());
            let new_size = replacement.chars().count();
            if new_size < sizes[i] {
                entry.content = vec![ContentBlock::text(replacement)];
                total = total - sizes[i] + new_size;
                sizes[i] = new_size;
            }
        }
    }

    /// The persisted-output block for `text`, or, when it cannot be saved, `text` cut to
    /// `fallback_chars` chars with a note saying so.
    fn replace(&self, tool_use_id: &str, text: &str, fallback_chars: usize) -> String {
        match self.persist(tool_use_id, text) {
            Ok(path) => persisted_message(&path, text),
            Err(err) => {
                let cut = text.char_indices().nth(fallback_chars).map_or(text.len(), |(i, _)| i);
                let total = text.chars().count();
                format!("{}\n\n[output truncated: {total} chars; could not save the full output: {err}]", &text[..cut])
            }
        }
    }
}

/// The `<persisted-output>` block for `text` saved at `path`.
fn persisted_message(path: &Path, text: &str) -> String {
    let (shown, more) = preview(text);
    let ellipsis = if more { "...\n" } else { "" };
    format!(
        "{PERSISTED_OPEN}Output too large ({size}). Full output saved to: {path}\n\nPreview (first 2KB):\n{shown}\n{ellipsis}</persisted-output>",
        size = human_size(text.len()),
        path = path.display(),
    )
}

/// The first [`PREVIEW_BYTES`] bytes of `text`, cut on a char boundary and then back to
/// the last newline when that newline lies past half of [`PREVIEW_BYTES`]; and whether
/// more text follows.
fn preview(text: &str) -> (&str, bool) {
    if text.len() <= PREVIEW_BYTES {
        return (text, false);
    }
    let mut end = PREVIEW_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    match head.rfind('\n') {
        Some(newline) if newline > PREVIEW_BYTES / 2 => (&head[..newline], true),
        _ => (head, true),
    }
}

/// A byte count for people: `812 bytes`, `61.0KB`, `1.2MB`, `3.0GB` (powers of 1024).
fn human_size(bytes: usize) -> String {
    const KB: f64 = 1024.0;
    // Precision lost above 2^53 bytes does not show at one decimal.
    let b = bytes as f64;
    if b < KB {
        format!("{bytes} bytes")
    } else if b < KB * KB {
        format!("{:.1}KB", b / KB)
    } else if b < KB * KB * KB {
        format!("{:.1}MB", b / (KB * KB))
    } else {
        format!("{:.1}GB", b / (KB * KB * KB))
    }
}

/// `id` reduced to `[A-Za-z0-9_-]`, never empty, at most [`MAX_ID_CHARS`] chars plus a
/// hash suffix.
fn sanitize_id(id: &str) -> String {
    let clean: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    if clean.is_empty() {
        "result".to_owned()
    } else if clean.len() > MAX_ID_CHARS {
        // All ASCII now, so any byte index is a char boundary.
        format!("{}-{:016x}", &clean[..MAX_ID_CHARS], crate::FileState::hash_bytes(id.as_bytes()))
    } else {
        clean
    }
}

/// Whether something (a file, a directory, a dangling symlink) is at `path`.
fn exists_no_follow(path: &Path) -> io::Result<bool> {
    match fs::symlink_metadata(path) {
        Ok(_) => Ok(true),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(err),
    }
}

/// Whether `path` is a regular file (not a symlink) holding exactly `text`.
fn holds_text(path: &Path, text: &str) -> io::Result<bool> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(err) => return Err(err),
    };
    if !meta.is_file() || meta.len() != text.len() as u64 {
        return Ok(false);
    }
    Ok(fs::read(path)? == text.as_bytes())
}

/// A synced temporary file in `dir` holding `text`.
fn write_temp(dir: &Path, text: &str) -> io::Result<tempfile::NamedTempFile> {
    let mut temp = tempfile::Builder::new().prefix(".tmp-result-").tempfile_in(dir)?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    Ok(temp)
}

/// Best effort: makes a rename in `dir` durable. A failure only weakens durability after a
/// crash, never correctness, so it is ignored.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = fs::File::open(dir) {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

fn all_text(content: &[ContentBlock]) -> bool {
    content.iter().all(|block| block.as_text().is_some())
}

fn total_chars(content: &[ContentBlock]) -> usize {
    content.iter().map(ContentBlock::text_chars).sum()
}

fn joined_text(content: &[ContentBlock]) -> String {
    let texts: Vec<&str> = content.iter().filter_map(ContentBlock::as_text).collect();
    texts.join("\n")
}

fn is_persisted(content: &[ContentBlock]) -> bool {
    matches!(content, [block] if block.as_text().is_some_and(|t| t.starts_with(PERSISTED_OPEN)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, ResultStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path().join("tool-results"));
        (dir, store)
    }

    fn only_text(content: &[ContentBlock]) -> &str {
        assert_eq!(content.len(), 1, "{content:?}");
        content[0].as_text().unwrap()
    }

    /// The path a persisted-output block names.
    fn saved_path(block: &str) -> PathBuf {
        let line = block.lines().nth(1).unwrap();
        PathBuf::from(line.split_once("Full output saved to: ").unwrap().1)
    }

    fn entry(id: &str, chars: usize) -> BudgetEntry {
        BudgetEntry {
            tool_use_id: id.into(),
            tool_name: "Bash".into(),
            content: vec![ContentBlock::text("z".repeat(chars))],
            persistable: true,
        }
    }

    #[test]
    fn exactly_at_the_threshold_is_kept_and_one_over_is_persisted() {
        let (_tmp, store) = store();
        let at = vec![ContentBlock::text("a".repeat(20_000))];
        assert_eq!(store.apply_threshold("t1", ResultLimit::Chars(20_000), at.clone()), at);
        assert!(!store.dir().exists(), "nothing written, so no folder");

        let over = vec![ContentBlock::text("a".repeat(20_001))];
        let out = store.apply_threshold("t2", ResultLimit::Chars(20_000), over);
        assert!(only_text(&out).starts_with("<persisted-output>\n"));
        assert!(store.dir().join("t2.txt").is_file());
    }

    #[test]
    fn threshold_counts_chars_not_bytes() {
        let (_tmp, store) = store();
        // 10 chars, 20 bytes.
        let content = vec![ContentBlock::text("é".repeat(10))];
        assert_eq!(store.apply_threshold("t", ResultLimit::Chars(10), content.clone()), content);
    }

    #[test]
    fn the_global_cap_lowers_large_limits() {
        let (_tmp, store) = store();
        let content = vec![ContentBlock::text("a".repeat(50_001))];
        let out = store.apply_threshold("t", ResultLimit::Chars(100_000), content);
        assert!(only_text(&out).starts_with("<persisted-output>"));
    }

    #[test]
    fn never_limit_is_never_persisted() {
        let (_tmp, store) = store();
        let content = vec![ContentBlock::text("a".repeat(500_000))];
        assert_eq!(store.apply_threshold("t", ResultLimit::Never, content.clone()), content);
        assert!(!store.dir().exists());
    }

    #[test]
    fn results_with_images_are_never_persisted() {
        let (_tmp, store) = store();
        let content = vec![ContentBlock::text("a".repeat(60_000)), ContentBlock::image("image/png", "AAAA")];
        assert_eq!(store.apply_threshold("t", ResultLimit::Chars(1_000), content.clone()), content);

        let mut entries = vec![BudgetEntry { content: content.clone(), ..entry("img", 0) }];
        store.enforce_budget(&mut entries, 10);
        assert_eq!(entries[0].content, content);
        assert!(!store.dir().exists());
    }

    #[test]
    fn file_holds_the_full_original_text() {
        let (_tmp, store) = store();
        let blocks =
            vec![ContentBlock::text("first é 🎉\n".repeat(3_000)), ContentBlock::text("second\n".repeat(3_000))];
        let out = store.apply_threshold("toolu_full", ResultLimit::Chars(30_000), blocks);
        let path = saved_path(only_text(&out));
        assert_eq!(path, store.dir().join("toolu_full.txt"));
        let expected = format!("{}\n{}", "first é 🎉\n".repeat(3_000), "second\n".repeat(3_000));
        assert_eq!(fs::read_to_string(&path).unwrap(), expected);
        // Nothing but the result is left in the folder (the temp file was renamed).
        assert_eq!(fs::read_dir(store.dir()).unwrap().count(), 1);
    }

    #[test]
    fn preview_is_cut_on_a_char_boundary() {
        // 'é' is 2 bytes and '🎉' 4: byte 2,000 falls inside a char.
        let text = format!("{}{}", "é".repeat(999), "🎉".repeat(100));
        let (shown, more) = preview(&text);
        assert!(more);
        assert_eq!(shown, "é".repeat(999)); // 1,998 bytes; the emoji would end at 2,002
        let emoji = "🎉".repeat(1_000);
        let (shown, _) = preview(&emoji);
        assert_eq!(shown.len(), 2_000);
        let odd = format!("a{emoji}");
        let (shown, _) = preview(&odd);
        assert_eq!(shown.len(), 1_997);
    }

    #[test]
    fn preview_cuts_at_a_newline_past_half() {
        let mut text = "a".repeat(1_500);
        text.push('\n');
        text.push_str(&"b".repeat(2_000));
        let (shown, more) = preview(&text);
        assert_eq!(shown, "a".repeat(1_500));
        assert!(more);
    }

    #[test]
    fn preview_ignores_a_newline_before_half() {
        let mut text = "a".repeat(900);
        text.push('\n');
        text.push_str(&"b".repeat(2_000));
        let (shown, _) = preview(&text);
        assert_eq!(shown.len(), PREVIEW_BYTES);
        assert!(shown.ends_with('b'));
        // Exactly at half does not count as past it.
        let mut text = "a".repeat(1_000);
        text.push('\n');
        text.push_str(&"b".repeat(2_000));
        assert_eq!(preview(&text).0.len(), PREVIEW_BYTES);
    }

    #[test]
    fn short_text_is_previewed_whole_without_ellipsis() {
        let (_tmp, store) = store();
        let out = store.apply_threshold("t", ResultLimit::Chars(10), vec![ContentBlock::text("0123456789AB")]);
        let block = only_text(&out);
        assert!(block.ends_with("Preview (first 2KB):\n0123456789AB\n</persisted-output>"), "{block}");
    }

    #[test]
    fn sizes_read_like_claude_codes() {
        assert_eq!(human_size(812), "812 bytes");
        assert_eq!(human_size(1_023), "1023 bytes");
        assert_eq!(human_size(1_024), "1.0KB");
        assert_eq!(human_size(62_464), "61.0KB");
        assert_eq!(human_size(1_258_291), "1.2MB");
        assert_eq!(human_size(3 * 1024 * 1024 * 1024), "3.0GB");
    }

    #[test]
    fn hostile_ids_stay_in_the_folder() {
        let (tmp, store) = store();
        for id in ["../../etc/passwd", "/etc/passwd", "..", "a\\..\\b", "x\0y", "", "é/../🎉"] {
            let path = store.persist(id, id).unwrap();
            assert_eq!(path.parent(), Some(store.dir()), "{id:?} -> {path:?}");
            let name = path.file_name().unwrap().to_str().unwrap();
            assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)), "{name}");
        }
        assert_eq!(sanitize_id("../../etc/passwd"), "______etc_passwd");
        assert_eq!(sanitize_id(""), "result");
        // Nothing escaped into the session folder next to tool-results.
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    #[test]
    fn long_ids_are_shortened_with_a_hash() {
        let long_a = "a".repeat(300);
        let long_b = format!("{}b", "a".repeat(299));
        let (a, b) = (sanitize_id(&long_a), sanitize_id(&long_b));
        assert_ne!(a, b);
        assert_eq!(a.len(), MAX_ID_CHARS + 17);
    }

    #[test]
    fn a_result_is_written_once_and_reused() {
        let (_tmp, store) = store();
        let first = store.persist("toolu_1", "same").unwrap();
        assert_eq!(store.persist("toolu_1", "same").unwrap(), first);
        assert_eq!(fs::read_dir(store.dir()).unwrap().count(), 1);
    }

    #[test]
    fn colliding_ids_do_not_overwrite_each_other() {
        let (_tmp, store) = store();
        let a = store.persist("a/b", "from a/b").unwrap();
        let b = store.persist("a.b", "from a.b").unwrap();
        assert_ne!(a, b);
        assert_eq!(b, store.dir().join("a_b-2.txt"));
        assert_eq!(fs::read_to_string(a).unwrap(), "from a/b");
        assert_eq!(fs::read_to_string(&b).unwrap(), "from a.b");
        assert_eq!(store.persist("a.b", "from a.b").unwrap(), b);
    }

    #[test]
    fn persist_failure_truncates_with_a_note() {
        let tmp = tempfile::tempdir().unwrap();
        // The results "folder" is a file, so nothing can be saved under it.
        let blocker = tmp.path().join("tool-results");
        fs::write(&blocker, "not a folder").unwrap();
        let store = ResultStore::new(&blocker);
        let out = store.apply_threshold("t", ResultLimit::Chars(100), vec![ContentBlock::text("é".repeat(150))]);
        let text = only_text(&out);
        let (kept, note) = text.split_once("\n\n").unwrap();
        assert_eq!(kept, "é".repeat(100));
        assert!(note.starts_with("[output truncated: 150 chars; could not save the full output: "), "{note}");
        assert!(note.ends_with(']'));
    }

    #[test]
    fn budget_persists_the_largest_first_and_stops_once_under() {
        let (_tmp, store) = store();
        let mut entries = vec![entry("a", 90_000), entry("b", 120_000), entry("c", 100_000), entry("d", 5_000)];
        store.enforce_budget(&mut entries, DEFAULT_MESSAGE_BUDGET);
        // 315,000 -> persist b (~197,300) -> under budget: a, c, d stay.
        assert!(is_persisted(&entries[1].content));
        for i in [0, 2, 3] {
            assert!(!is_persisted(&entries[i].content), "entry {i}");
        }
        assert_eq!(fs::read_to_string(store.dir().join("b.txt")).unwrap(), "z".repeat(120_000));
        let total: usize = entries.iter().map(|e| total_chars(&e.content)).sum();
        assert!(total <= DEFAULT_MESSAGE_BUDGET);
    }

    #[test]
    fn budget_ties_go_to_the_earlier_entry() {
        let (_tmp, store) = store();
        let mut entries = vec![entry("first", 60_000), entry("second", 60_000)];
        store.enforce_budget(&mut entries, 100_000);
        assert!(is_persisted(&entries[0].content));
        assert!(!is_persisted(&entries[1].content));
    }

    #[test]
    fn budget_skips_unpersistable_and_already_persisted_entries() {
        let (_tmp, store) = store();
        let already =
            store.apply_threshold("old", ResultLimit::Chars(10), vec![ContentBlock::text("q".repeat(100_000))]);
        let read = BudgetEntry { persistable: false, ..entry("read", 150_000) };
        let mut entries =
            vec![read.clone(), BudgetEntry { content: already.clone(), ..entry("old", 0) }, entry("small", 1_000)];
        store.enforce_budget(&mut entries, 100_000);
        assert_eq!(entries[0], read, "Read results are never persisted");
        assert_eq!(entries[1].content, already, "persisted once only");
        assert_eq!(entries[2].content, vec![ContentBlock::text("z".repeat(1_000))], "a block would not be shorter");
        assert!(!store.dir().join("old-2.txt").exists());
    }

    #[test]
    fn budget_under_limit_changes_nothing() {
        let (_tmp, store) = store();
        let mut entries = vec![entry("a", 100_000), entry("b", 100_000)];
        let before = entries.clone();
        store.enforce_budget(&mut entries, 200_000);
        assert_eq!(entries, before);
        assert!(!store.dir().exists());
    }

    #[test]
    fn empty_results_name_the_tool() {
        assert_eq!(empty_result_text("mcp__github__list"), "(mcp__github__list completed with no output)");
    }

    /// Replaces the temp folder in a block with a stable placeholder.
    fn stable(block: &str, store: &ResultStore) -> String {
        block.replace(&store.dir().display().to_string(), "[RESULTS_DIR]")
    }

    #[test]
    fn persisted_output_snapshot() {
        let (_tmp, store) = store();
        let text: String =
            (1..=2_000).map(|n| format!("line {n:04}: the quick brown fox jumps over the lazy dog\n")).collect();
        let out = store.apply_threshold("toolu_01ABC", ResultLimit::Chars(30_000), vec![ContentBlock::text(text)]);
        insta::assert_snapshot!(stable(only_text(&out), &store));
    }

    #[test]
    fn persisted_output_snapshot_without_more() {
        let (_tmp, store) = store();
        let out = store.apply_threshold(
            "toolu_02",
            ResultLimit::Chars(20),
            vec![ContentBlock::text("total 3\nsrc\ntests\nCargo.toml")],
        );
        insta::assert_snapshot!(stable(only_text(&out), &store));
    }
}
