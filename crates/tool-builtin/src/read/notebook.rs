//! A Jupyter notebook as Read shows it: every cell's source with its name and type, then
//! its outputs as text (stream text, `text/plain` results, errors without terminal
//! colours); PNG and JPEG outputs become image blocks.

use base64::prelude::*;
use serde_json::Value;
use toolgate_core::ContentBlock;

use crate::file_io::notebook::{cell_name, multiline};
use crate::file_io::text::clip;

/// At most this many characters of one cell's outputs are shown.
const MAX_OUTPUT_CHARS_PER_CELL: usize = 10_000;

/// At most this many output images are attached.
const MAX_IMAGES: usize = 10;

/// A rendered notebook.
#[derive(Debug)]
pub(crate) struct Rendered {
    /// The text: a header line, then each cell.
    pub text: String,
    /// Image outputs, in order.
    pub images: Vec<ContentBlock>,
    /// How many cells were shown (all unless the character cap cut the rest).
    pub cells_shown: usize,
    /// How many cells the notebook has.
    pub cells_total: usize,
}

/// Renders `notebook`'s cells within `max_chars` characters and `max_image_bytes` of
/// decoded images. `None` when it is not a notebook (no `cells` list).
pub(crate) fn render(notebook: &Value, max_chars: usize, max_image_bytes: usize) -> Option<Rendered> {
    let cells = notebook.get("cells")?.as_array()?;
    let language = notebook
        .pointer("/metadata/language_info/name")
        .or_else(|| notebook.pointer("/metadata/kernelspec/language"))
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    let mut text = format!("Jupyter notebook, {} cells, language: {language}\n", cells.len());
    let mut images = Vec::new();
    let mut image_bytes = 0usize;
    let mut shown = 0;
    let mut chars = text.chars().count();
    for (index, cell) in cells.iter().enumerate() {
        let images_before = images.len();
        let block = render_cell(cell, index, &mut images, &mut image_bytes, max_image_bytes);
        let block_chars = block.chars().count();
        if chars + block_chars > max_chars && shown > 0 {
            images.truncate(images_before);
            break;
        }
        chars += block_chars;
        text.push_str(&block);
        shown += 1;
    }
    Some(Rendered { text, images, cells_shown: shown, cells_total: cells.len() })
}

fn render_cell(
    cell: &Value,
    index: usize,
    images: &mut Vec<ContentBlock>,
    image_bytes: &mut usize,
    max_image_bytes: usize,
) -> String {
    let name = cell_name(cell, index);
    let kind = cell.get("cell_type").and_then(Value::as_str).unwrap_or("unknown");
    let mut out = format!("\n<cell id=\"{name}\" type=\"{kind}\"");
    if let Some(n) = cell.get("execution_count").and_then(Value::as_u64) {
        out.push_str(&format!(" execution_count=\"{n}\""));
    }
    out.push_str(">\n");
    let source = multiline(cell.get("source"));
    out.push_str(&source);
    if !source.is_empty() && !source.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("</cell>\n");
    let outputs = cell.get("outputs").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if outputs.is_empty() {
        return out;
    }
    let mut shown = String::new();
    for output in outputs {
        shown.push_str(&render_output(output, images, image_bytes, max_image_bytes));
    }
    out.push_str(&format!("<outputs of=\"{name}\">\n"));
    let clipped = clip(&shown, MAX_OUTPUT_CHARS_PER_CELL);
    out.push_str(&clipped);
    if clipped.len() != shown.len() {
        out.push_str("\n[output cut]\n");
    } else if !clipped.is_empty() && !clipped.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("</outputs>\n");
    out
}

fn render_output(output: &Value, images: &mut Vec<ContentBlock>, image_bytes: &mut usize, max: usize) -> String {
    match output.get("output_type").and_then(Value::as_str) {
        Some("stream") => multiline(output.get("text")),
        Some("error") => {
            let name = output.get("ename").and_then(Value::as_str).unwrap_or("Error");
            let value = output.get("evalue").and_then(Value::as_str).unwrap_or("");
            let mut text = format!("{name}: {value}\n");
            if let Some(trace) = output.get("traceback").and_then(Value::as_array) {
                for line in trace.iter().filter_map(Value::as_str) {
                    text.push_str(&strip_ansi(line));
                    text.push('\n');
                }
            }
            text
        }
        Some("execute_result" | "display_data") => {
            let data = output.get("data");
            let mut text = String::new();
            for media in ["image/png", "image/jpeg"] {
                let encoded = multiline(data.and_then(|d| d.get(media)));
                if encoded.is_empty() {
                    continue;
                }
                let cleaned: String = encoded.chars().filter(|c| !c.is_whitespace()).collect();
                let size = BASE64_STANDARD.decode(&cleaned).map(|b| b.len()).unwrap_or(usize::MAX);
                if images.len() < MAX_IMAGES && size != usize::MAX && *image_bytes + size <= max {
                    *image_bytes += size;
                    images.push(ContentBlock::image(media, cleaned));
                    text.push_str(&format!("[{media} image output: attached as image {}]\n", images.len()));
                } else {
                    text.push_str(&format!("[{media} image output: not attached, over the image limit]\n"));
                }
                break;
            }
            let plain = multiline(data.and_then(|d| d.get("text/plain")));
            if !plain.is_empty() && text.is_empty() {
                text.push_str(&plain);
                text.push('\n');
            }
            text
        }
        _ => String::new(),
    }
}

/// `text` without ANSI escape sequences (terminal colours in tracebacks).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_and_outputs_are_shown() {
        let nb = json!({
            "metadata": {"kernelspec": {"language": "python"}},
            "cells": [
                {"cell_type": "markdown", "id": "intro", "source": ["# Title\n", "text"]},
                {"cell_type": "code", "execution_count": 2, "source": "print(1)", "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["1\n"]},
                    {"output_type": "execute_result", "data": {"text/plain": ["42"]}},
                    {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["\u{1b}[31mboom\u{1b}[0m"]}
                ]}
            ]
        });
        let r = render(&nb, 100_000, 1_000_000).unwrap();
        assert_eq!(
            r.text,
            "Jupyter notebook, 2 cells, language: python\n\
             \n<cell id=\"intro\" type=\"markdown\">\n# Title\ntext\n</cell>\n\
             \n<cell id=\"cell-1\" type=\"code\" execution_count=\"2\">\nprint(1)\n</cell>\n\
             <outputs of=\"cell-1\">\n1\n42\nValueError: bad\nboom\n</outputs>\n"
        );
        assert_eq!((r.cells_shown, r.cells_total), (2, 2));
    }

    #[test]
    fn image_outputs_become_blocks_within_the_cap() {
        let png = BASE64_STANDARD.encode(b"\x89PNG fake");
        let nb = json!({"cells": [{"cell_type": "code", "source": "", "outputs": [
            {"output_type": "display_data", "data": {"image/png": png, "text/plain": "<Figure>"}}
        ]}]});
        let r = render(&nb, 100_000, 1_000).unwrap();
        assert_eq!(r.images.len(), 1);
        assert!(r.text.contains("attached as image 1"));
        let r = render(&nb, 100_000, 3).unwrap();
        assert!(r.images.is_empty());
        assert!(r.text.contains("not attached"));
    }

    #[test]
    fn the_character_cap_stops_at_a_cell_boundary() {
        let cells: Vec<Value> = (0..50).map(|i| json!({"cell_type": "code", "source": format!("x = {i}")})).collect();
        let r = render(&json!({ "cells": cells }), 300, 0).unwrap();
        assert!(r.cells_shown < 50 && r.cells_shown > 0);
        assert!(r.text.chars().count() <= 300);
    }

    #[test]
    fn not_a_notebook() {
        assert!(render(&json!({"a": 1}), 100, 0).is_none());
    }
}
