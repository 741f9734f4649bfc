//! Jupyter notebook basics shared by Read (which shows cells) and NotebookEdit (which
//! changes them): cell ids as the model sees them, and cell sources as text.
//!
//! A cell is named by its `id` (nbformat 4.5 and later); a cell without one, in older
//! notebooks, is named `cell-N` by its 0-based index, and that name also works for cells
//! that have an id.

use serde_json::Value;

/// The name the model uses for the cell at `index`: its `id`, or `cell-N`.
pub(crate) fn cell_name(cell: &Value, index: usize) -> String {
    match cell.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => format!("cell-{index}"),
    }
}

/// The index of the cell named `name`: by `id` first, then `cell-N`, then a bare `N`.
pub(crate) fn find_cell(cells: &[Value], name: &str) -> Option<usize> {
    let name = name.trim();
    if let Some(i) = cells.iter().position(|c| c.get("id").and_then(Value::as_str) == Some(name)) {
        return Some(i);
    }
    let index = name.strip_prefix("cell-").unwrap_or(name).parse::<usize>().ok()?;
    (index < cells.len()).then_some(index)
}

/// A multiline string field (`source`, stream `text`, `text/plain` …) as one string: the
/// notebook format allows a string or a list of strings.
pub(crate) fn multiline(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// `text` as the notebook format stores sources: a list of lines, each but the last
/// ending in `\n`.
pub(crate) fn to_source_lines(text: &str) -> Value {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('\n') {
        lines.push(Value::String(rest[..=i].to_owned()));
        rest = &rest[i + 1..];
    }
    if !rest.is_empty() {
        lines.push(Value::String(rest.to_owned()));
    }
    Value::Array(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_are_found_by_id_or_index() {
        let cells = vec![json!({"id": "intro"}), json!({}), json!({"id": "cell-0"})];
        assert_eq!(cell_name(&cells[0], 0), "intro");
        assert_eq!(cell_name(&cells[1], 1), "cell-1");
        assert_eq!(find_cell(&cells, "intro"), Some(0));
        assert_eq!(find_cell(&cells, "cell-1"), Some(1));
        // A real id wins over the index form.
        assert_eq!(find_cell(&cells, "cell-0"), Some(2));
        assert_eq!(find_cell(&cells, "1"), Some(1));
        assert_eq!(find_cell(&cells, "cell-9"), None);
        assert_eq!(find_cell(&cells, "nope"), None);
    }

    #[test]
    fn sources_round_trip_between_forms() {
        assert_eq!(multiline(Some(&json!(["a\n", "b"]))), "a\nb");
        assert_eq!(multiline(Some(&json!("x"))), "x");
        assert_eq!(to_source_lines("a\nb"), json!(["a\n", "b"]));
        assert_eq!(to_source_lines("a\n"), json!(["a\n"]));
        assert_eq!(to_source_lines(""), json!([]));
    }
}
