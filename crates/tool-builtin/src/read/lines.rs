//! Streaming lines out of a file with bounded memory.
//!
//! Lines before the window are skipped by counting newlines chunk by chunk, never
//! stored; a line in the window keeps at most [`MAX_LINE_CHARS`] characters' worth of
//! bytes however long it is, the rest is counted and dropped. So reading lines
//! 1,000,000 to 1,000,100 of a 2 GB file reads up to the end of line 1,000,100 and holds
//! a buffer, a window, and nothing else.

use std::io::{self, BufRead};

use toolgate_core::CancellationToken;

/// Lines longer than this many characters are cut.
pub(crate) const MAX_LINE_CHARS: usize = 2_000;

/// Bytes kept of one line: enough for [`MAX_LINE_CHARS`] characters of up to four bytes.
const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4 + 4;

/// One line of the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    /// The text, without its line ending, cut to [`MAX_LINE_CHARS`] characters.
    pub text: String,
    /// How many characters were cut off the end (0 when the line is whole).
    pub cut_chars: u64,
    /// Whether invalid UTF-8 was replaced by U+FFFD.
    pub lossy: bool,
}

/// Reads lines from a buffered reader, see the module docs.
pub(crate) struct LineReader<R> {
    inner: R,
    /// Raw bytes consumed while collecting (the window), for the file-state hash.
    raw: Vec<u8>,
    collecting: bool,
    raw_limit: usize,
    /// Set when the window's raw bytes outgrew `raw_limit`: the read cannot count as whole.
    pub raw_overflow: bool,
}

impl<R: BufRead> LineReader<R> {
    /// A reader over `inner`.
    pub(crate) fn new(inner: R) -> Self {
        Self { inner, raw: Vec::new(), collecting: false, raw_limit: 0, raw_overflow: false }
    }

    /// From now on, keeps the raw bytes consumed (up to `limit` bytes).
    pub(crate) fn start_collecting(&mut self, limit: usize) {
        self.collecting = true;
        self.raw_limit = limit;
    }

    /// The raw bytes collected since [`LineReader::start_collecting`].
    pub(crate) fn take_raw(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.raw)
    }

    /// Skips `n` lines. Returns how many there were (fewer than `n` at the end of the
    /// file; an unterminated last line counts).
    ///
    /// # Errors
    ///
    /// I/O errors, and [`io::ErrorKind::Interrupted`] when `cancel` fires.
    pub(crate) fn skip(&mut self, n: u64, cancel: &CancellationToken) -> io::Result<u64> {
        let mut remaining = n;
        let mut in_line = false;
        while remaining > 0 {
            if cancel.is_cancelled() {
                return Err(io::Error::new(io::ErrorKind::Interrupted, "cancelled"));
            }
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                return Ok(n - remaining + u64::from(in_line));
            }
            // Counting with memchr's vectorised count is several times faster than a
            // byte loop, and skipping is most of a read deep into a big file.
            let newlines = memchr::memchr_iter(b'\n', buf).count() as u64;
            if newlines < remaining {
                remaining -= newlines;
                in_line = buf.last() != Some(&b'\n');
                let len = buf.len();
                self.inner.consume(len);
            } else {
                let nth = usize::try_from(remaining - 1).unwrap_or(usize::MAX);
                let end = memchr::memchr_iter(b'\n', buf).nth(nth).map_or(buf.len(), |i| i + 1);
                self.inner.consume(end);
                remaining = 0;
            }
        }
        Ok(n)
    }

    /// The next line, or `None` at the end of the file.
    ///
    /// # Errors
    ///
    /// I/O errors.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut kept: Vec<u8> = Vec::new();
        let mut dropped_chars = 0u64;
        let mut any = false;
        let mut ends_with_cr_dropped = false;
        loop {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            any = true;
            let (taken, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            let content = &buf[..if done { taken - 1 } else { taken }];
            let room = MAX_LINE_BYTES.saturating_sub(kept.len());
            let keep = room.min(content.len());
            kept.extend_from_slice(&content[..keep]);
            let rest = &content[keep..];
            if !rest.is_empty() {
                dropped_chars += rest.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
                ends_with_cr_dropped = rest.last() == Some(&b'\r');
            }
            if self.collecting && !self.raw_overflow {
                if self.raw.len() + taken > self.raw_limit {
                    self.raw_overflow = true;
                    self.raw = Vec::new();
                } else {
                    self.raw.extend_from_slice(&buf[..taken]);
                }
            }
            self.inner.consume(taken);
            if done {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        let whole = dropped_chars == 0;
        if whole && kept.last() == Some(&b'\r') {
            kept.pop();
        }
        if ends_with_cr_dropped {
            dropped_chars = dropped_chars.saturating_sub(1);
        }
        if !whole {
            // The cut may have split a character: drop its leading bytes.
            let valid_up_to = trim_partial_char(&kept);
            kept.truncate(valid_up_to);
        }
        let (decoded, lossy) = match String::from_utf8(kept) {
            Ok(s) => (s, false),
            Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
        };
        let (text, cut_chars) = match decoded.char_indices().nth(MAX_LINE_CHARS) {
            Some((i, _)) => {
                let extra = decoded[i..].chars().count() as u64;
                (decoded[..i].to_owned(), extra + dropped_chars)
            }
            None => (decoded, dropped_chars),
        };
        Ok(Some(Line { text, cut_chars, lossy }))
    }

    /// Whether the file has no more bytes.
    ///
    /// # Errors
    ///
    /// I/O errors.
    pub(crate) fn at_eof(&mut self) -> io::Result<bool> {
        Ok(self.inner.fill_buf()?.is_empty())
    }
}

/// The length of `bytes` without an incomplete UTF-8 sequence at its end.
fn trim_partial_char(bytes: &[u8]) -> usize {
    for back in 1..=3.min(bytes.len()) {
        let i = bytes.len() - back;
        let b = bytes[i];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let needed = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if needed > back { i } else { bytes.len() };
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor};

    fn reader(text: &[u8], capacity: usize) -> LineReader<BufReader<Cursor<Vec<u8>>>> {
        LineReader::new(BufReader::with_capacity(capacity, Cursor::new(text.to_vec())))
    }

    fn all(mut r: LineReader<impl BufRead>) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(line) = r.next_line().unwrap() {
            out.push(line.text);
        }
        out
    }

    #[test]
    fn lines_split_on_newlines_and_drop_cr() {
        for capacity in [1, 2, 3, 64] {
            assert_eq!(all(reader(b"a\r\nbc\n\nlast", capacity)), ["a", "bc", "", "last"], "capacity {capacity}");
            assert_eq!(all(reader(b"x\n", capacity)), ["x"]);
        }
        assert!(all(reader(b"", 8)).is_empty());
    }

    #[test]
    fn skip_counts_lines_across_chunks() {
        let cancel = CancellationToken::new();
        for capacity in [1, 3, 1024] {
            let mut r = reader(b"1\n2\n3\n4\n5", capacity);
            assert_eq!(r.skip(3, &cancel).unwrap(), 3);
            assert_eq!(r.next_line().unwrap().unwrap().text, "4");
            let mut r = reader(b"1\n2\n3\n4\n5", capacity);
            assert_eq!(r.skip(10, &cancel).unwrap(), 5, "capacity {capacity}");
            let mut r = reader(b"1\n2\n", capacity);
            assert_eq!(r.skip(10, &cancel).unwrap(), 2);
        }
    }

    #[test]
    fn cancelled_skip_stops() {
        let cancel = CancellationToken::new();
        cancel.cancel();
        let mut r = reader(b"1\n2\n", 1);
        assert_eq!(r.skip(1, &cancel).unwrap_err().kind(), io::ErrorKind::Interrupted);
    }

    #[test]
    fn long_lines_are_cut_with_bounded_memory() {
        let long = "é".repeat(10_000);
        let text = format!("{long}\r\nnext\n");
        let mut r = reader(text.as_bytes(), 100);
        let line = r.next_line().unwrap().unwrap();
        assert_eq!(line.text.chars().count(), MAX_LINE_CHARS);
        assert_eq!(line.cut_chars, 8_000);
        assert!(!line.lossy);
        assert_eq!(r.next_line().unwrap().unwrap().text, "next");
    }

    #[test]
    fn invalid_utf8_is_replaced_and_flagged() {
        let mut r = reader(b"caf\xe9\n", 16);
        let line = r.next_line().unwrap().unwrap();
        assert_eq!(line.text, "caf\u{fffd}");
        assert!(line.lossy);
    }

    #[test]
    fn raw_bytes_of_the_window_are_collected() {
        let mut r = reader(b"a\r\nb\nc", 2);
        r.start_collecting(100);
        while r.next_line().unwrap().is_some() {}
        assert_eq!(r.take_raw(), b"a\r\nb\nc");
        assert!(!r.raw_overflow);
        let mut r = reader(b"abcdef\n", 2);
        r.start_collecting(3);
        while r.next_line().unwrap().is_some() {}
        assert!(r.raw_overflow);
    }
}
