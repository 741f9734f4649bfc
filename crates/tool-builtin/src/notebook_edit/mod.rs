//! NotebookEdit: replace, insert or delete one cell of a Jupyter notebook.
//!
//! The notebook is parsed as JSON, changed, and written back atomically in the layout it
//! had: the same indentation unit (nbformat writes one space), keys in the order serde
//! keeps them (sorted, as nbformat writes them), the final newline as it was. Notebook
//! and cell metadata are kept. A code cell whose source changes loses its outputs and
//! execution count, since they described the old source.

mod prompt;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use toolgate_core::{Access, DynTool, FileState, Target, ToolContext, ToolError, ToolOutput, TypedTool, typed};

use crate::file_io::fresh::{self, Need};
use crate::file_io::notebook::{cell_name, find_cell, to_source_lines};
use crate::file_io::{MAX_EDIT_BYTES, atomic, blocking, human_bytes, paths};

/// The type of a notebook cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CellType {
    /// Code, run by the kernel.
    Code,
    /// Markdown text.
    Markdown,
}

impl CellType {
    fn as_str(self) -> &'static str {
        match self {
            Self::Code => "code",
            Self::Markdown => "markdown",
        }
    }
}

/// What to do with the cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum EditMode {
    /// Replace the cell's source.
    #[default]
    Replace,
    /// Insert a new cell after the named one.
    Insert,
    /// Delete the cell.
    Delete,
}

/// The notebook cell to change, and how.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NotebookEditInput {
    /// The absolute path of the notebook (.ipynb) to change.
    pub notebook_path: String,
    /// The cell: its id as Read shows it, or cell-N for the N-th cell from 0. Insert goes after it (or first).
    #[serde(default)]
    pub cell_id: Option<String>,
    /// The new source of the cell (ignored for delete).
    pub new_source: String,
    /// code or markdown; required for insert, and for replace it defaults to the cell's current type.
    #[serde(default)]
    pub cell_type: Option<CellType>,
    /// replace (the default), insert or delete.
    #[serde(default)]
    pub edit_mode: Option<EditMode>,
}

/// The NotebookEdit tool (see the module docs).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("nb.ipynb");
/// std::fs::write(&path, r#"{"cells": [{"cell_type": "code", "id": "a1", "metadata": {}, "source": ["x = 1"],
///   "execution_count": 3, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1"]}]}],
///   "metadata": {}, "nbformat": 4, "nbformat_minor": 5}"#)?;
/// let tools = toolgate_builtin::all_builtin_tools();
/// let find = |name: &str| tools.iter().find(|t| t.name() == name).unwrap().clone();
/// let ctx = toolgate_core::ToolContext::new(dir.path());
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// rt.block_on(async {
///     find("Read").call(serde_json::json!({"file_path": path}), &ctx).await.unwrap();
///     let input = serde_json::json!({"notebook_path": path, "cell_id": "a1", "new_source": "x = 2"});
///     find("NotebookEdit").call(input, &ctx).await.unwrap();
/// });
/// let nb: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
/// assert_eq!(nb["cells"][0]["source"], serde_json::json!(["x = 2"]));
/// assert_eq!(nb["cells"][0]["outputs"], serde_json::json!([]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NotebookEditTool;

/// The tool, ready for the registry.
pub(crate) fn tool() -> DynTool {
    typed(NotebookEditTool)
}

/// A checked change, computed in memory.
struct Plan {
    path: PathBuf,
    note: Option<String>,
    bytes: Vec<u8>,
    summary: String,
    cell_id: String,
    cell_type: Option<CellType>,
    language: String,
}

impl TypedTool for NotebookEditTool {
    type Input = NotebookEditInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "NotebookEdit"
    }

    fn description(&self) -> String {
        prompt::description()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("edit, insert or delete a Jupyter notebook cell")
    }

    /// Deferred: reached through ToolSearch, to keep the core tool set small.
    fn should_defer(&self) -> bool {
        true
    }

    fn is_destructive(&self, input: &NotebookEditInput) -> bool {
        input.edit_mode == Some(EditMode::Delete)
    }

    async fn validate(&self, input: &NotebookEditInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let (input, ctx) = (input.clone(), ctx.clone());
        blocking(move || plan(&input, &ctx).map(drop)).await
    }

    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        paths::normalize_field(input, "notebook_path", ctx)
    }

    fn permission_target(&self, input: &NotebookEditInput) -> Option<String> {
        Some(input.notebook_path.clone())
    }

    /// The notebook, written (a cell inserted, replaced or deleted is a write of the file).
    fn targets(&self, input: &NotebookEditInput) -> Vec<Target> {
        vec![Target::new(&input.notebook_path, Access::Write)]
    }

    async fn call(&self, input: NotebookEditInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let ctx = ctx.clone();
        blocking(move || {
            let plan = plan(&input, &ctx)?;
            commit(plan, &input, &ctx)
        })
        .await
    }

    fn render_use(&self, input: &NotebookEditInput) -> String {
        let mode = match input.edit_mode.unwrap_or_default() {
            EditMode::Replace => "replace",
            EditMode::Insert => "insert",
            EditMode::Delete => "delete",
        };
        match &input.cell_id {
            Some(cell) => format!("NotebookEdit({}, {mode} {cell})", input.notebook_path),
            None => format!("NotebookEdit({}, {mode})", input.notebook_path),
        }
    }
}

fn plan(input: &NotebookEditInput, ctx: &ToolContext) -> Result<Plan, ToolError> {
    let target = paths::resolve(&input.notebook_path, "notebook_path", ctx)?;
    let path = target.path;
    let shown = path.display().to_string();
    if !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ipynb")) {
        return Err(ToolError::invalid_input(format!("{shown} is not a Jupyter notebook (.ipynb)"))
            .with_hint("Use Edit or Write to change other files."));
    }
    let meta = match fs::metadata(&path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            let err = paths::missing_file_error(&path, ctx);
            let hint = format!(
                "{} NotebookEdit changes existing notebooks; create a new one with Write.",
                err.hint().unwrap_or_default()
            );
            return Err(ToolError::not_found(err.message()).with_hint(hint));
        }
        Err(err) => return Err(ToolError::from_io(&err, &path)),
    };
    if !meta.is_file() {
        return Err(ToolError::invalid_input(format!("{shown} is not a regular file")));
    }
    if meta.len() > MAX_EDIT_BYTES {
        return Err(ToolError::invalid_input(format!("{shown} is too large to edit ({})", human_bytes(meta.len()))));
    }
    fresh::check(&ctx.file_state, &path, Need::Seen)?;
    let original = fs::read(&path).map_err(|e| ToolError::from_io(&e, &path))?;
    let mut notebook: Value = serde_json::from_slice(&original).map_err(|e| {
        ToolError::invalid_input(format!("{shown} is not valid notebook JSON: {e}"))
            .with_hint("Repair the JSON with Edit or Write first.")
    })?;
    let language = notebook
        .pointer("/metadata/language_info/name")
        .or_else(|| notebook.pointer("/metadata/kernelspec/language"))
        .and_then(Value::as_str)
        .unwrap_or("python")
        .to_owned();
    let with_ids = uses_cell_ids(&notebook);
    let Some(cells) = notebook.get_mut("cells").and_then(Value::as_array_mut) else {
        return Err(ToolError::invalid_input(format!("{shown} has no cells list, so it is not a notebook"))
            .with_hint("Check the file with Read."));
    };
    let mode = input.edit_mode.unwrap_or_default();
    let locate = |cells: &[Value], id: &str| {
        find_cell(cells, id).ok_or_else(|| {
            let names: Vec<String> = cells.iter().enumerate().take(30).map(|(i, c)| cell_name(c, i)).collect();
            let more = if cells.len() > 30 { ", …" } else { "" };
            ToolError::not_found(format!("{shown} has no cell {id}"))
                .with_hint(format!("Its cells are: {}{more}. Read the notebook to see them.", names.join(", ")))
        })
    };
    let needs_id = || {
        ToolError::invalid_input(format!(
            "cell_id is required to {} a cell",
            if mode == EditMode::Delete { "delete" } else { "replace" }
        ))
        .with_hint("Give the cell's id as Read shows it, or cell-N for the N-th cell counting from 0.")
    };
    let (summary, cell_id, cell_type) = match mode {
        EditMode::Replace => {
            let id = input.cell_id.as_deref().ok_or_else(needs_id)?;
            let index = locate(cells, id)?;
            let name = cell_name(&cells[index], index);
            let cell = &mut cells[index];
            let current = match cell.get("cell_type").and_then(Value::as_str) {
                Some("markdown") => CellType::Markdown,
                Some("code") => CellType::Code,
                _ => input.cell_type.unwrap_or(CellType::Code),
            };
            let new_type = input.cell_type.unwrap_or(current);
            let Some(obj) = cell.as_object_mut() else {
                return Err(ToolError::invalid_input(format!("cell {name} of {shown} is not a JSON object")));
            };
            let source = match obj.get("source") {
                Some(Value::String(_)) => Value::String(input.new_source.clone()),
                _ => to_source_lines(&input.new_source),
            };
            obj.insert("source".into(), source);
            obj.insert("cell_type".into(), Value::String(new_type.as_str().into()));
            match new_type {
                CellType::Code => {
                    obj.insert("outputs".into(), Value::Array(Vec::new()));
                    obj.insert("execution_count".into(), Value::Null);
                }
                CellType::Markdown => {
                    obj.remove("outputs");
                    obj.remove("execution_count");
                }
            }
            let mut summary = format!("Replaced the source of cell {name} ({}) in {shown}.", new_type.as_str());
            if new_type != current {
                summary.push_str(&format!(" It changed from {} to {}.", current.as_str(), new_type.as_str()));
            }
            if new_type == CellType::Code {
                summary.push_str(" Its outputs and execution count were cleared.");
            }
            (summary, name, Some(new_type))
        }
        EditMode::Insert => {
            let Some(new_type) = input.cell_type else {
                return Err(ToolError::invalid_input("cell_type is required to insert a cell")
                    .with_hint("Set cell_type to code or markdown."));
            };
            let at = match input.cell_id.as_deref() {
                Some(id) => locate(cells, id)? + 1,
                None => 0,
            };
            let mut cell = Map::new();
            cell.insert("cell_type".into(), Value::String(new_type.as_str().into()));
            if with_ids {
                cell.insert("id".into(), Value::String(new_cell_id(cells, &input.new_source)));
            }
            cell.insert("metadata".into(), json!({}));
            cell.insert("source".into(), to_source_lines(&input.new_source));
            if new_type == CellType::Code {
                cell.insert("execution_count".into(), Value::Null);
                cell.insert("outputs".into(), Value::Array(Vec::new()));
            }
            let cell = Value::Object(cell);
            let name = cell_name(&cell, at);
            cells.insert(at, cell);
            let place = match input.cell_id.as_deref() {
                Some(after) => format!("after cell {after}"),
                None => "at the start".to_owned(),
            };
            (
                format!("Inserted a new {} cell {name} {place} of {shown} (position {at}).", new_type.as_str()),
                name,
                Some(new_type),
            )
        }
        EditMode::Delete => {
            let id = input.cell_id.as_deref().ok_or_else(needs_id)?;
            let index = locate(cells, id)?;
            let name = cell_name(&cells[index], index);
            cells.remove(index);
            (format!("Deleted cell {name} from {shown}; {} cells remain.", cells.len()), name, None)
        }
    };
    let bytes = serialize_like(&notebook, &original)
        .map_err(|e| ToolError::internal(format!("could not serialize the notebook: {e}")))?;
    Ok(Plan { path, note: target.note, bytes, summary, cell_id, cell_type, language })
}

/// Whether new cells get an `id`: nbformat 4.5 and later, or any cell already has one.
fn uses_cell_ids(notebook: &Value) -> bool {
    let major = notebook.get("nbformat").and_then(Value::as_u64).unwrap_or(4);
    let minor = notebook.get("nbformat_minor").and_then(Value::as_u64).unwrap_or(0);
    let any = notebook
        .get("cells")
        .and_then(Value::as_array)
        .is_some_and(|cells| cells.iter().any(|c| c.get("id").is_some()));
    major > 4 || (major == 4 && minor >= 5) || any
}

/// A fresh 8-hex-digit cell id, unique in `cells`.
fn new_cell_id(cells: &[Value], source: &str) -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default();
    let mut salt = 0u32;
    loop {
        let seed = format!("{nanos}:{salt}:{}:{source}", cells.len());
        let id = format!("{:08x}", FileState::hash_bytes(seed.as_bytes()) & 0xFFFF_FFFF);
        if !cells.iter().any(|c| c.get("id").and_then(Value::as_str) == Some(&id)) {
            return id;
        }
        salt += 1;
    }
}

/// `value` serialized in `original`'s layout: its indentation unit (compact when it had
/// no newlines) and its final newline.
fn serialize_like(value: &Value, original: &[u8]) -> serde_json::Result<Vec<u8>> {
    let text = String::from_utf8_lossy(original);
    let indent: Option<String> =
        text.find('\n').map(|i| text[i + 1..].chars().take_while(|c| *c == ' ' || *c == '\t').collect::<String>());
    let mut out = Vec::with_capacity(original.len() + 256);
    match indent {
        Some(unit) if !unit.is_empty() => {
            let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
            let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
            value.serialize(&mut ser)?;
        }
        _ => serde_json::to_writer(&mut out, value)?,
    }
    if original.ends_with(b"\n") {
        out.push(b'\n');
    }
    Ok(out)
}

fn commit(plan: Plan, input: &NotebookEditInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let path: &Path = &plan.path;
    atomic::write_atomic(path, &plan.bytes).map_err(|e| crate::write::write_error(&e, path))?;
    let mtime = fs::metadata(path).ok().and_then(|m| m.modified().ok());
    ctx.file_state.record_write(path, &plan.bytes, mtime);
    let text = paths::with_note(plan.summary, plan.note.as_deref());
    Ok(ToolOutput::text(text).with_structured(json!({
        "notebook_path": path.to_string_lossy(),
        "cell_id": plan.cell_id,
        "cell_type": plan.cell_type.map(CellType::as_str),
        "edit_mode": input.edit_mode.unwrap_or_default(),
        "new_source": input.new_source,
        "language": plan.language,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_kept() {
        let original = b"{\n \"a\": [\n  1\n ],\n \"b\": {}\n}\n";
        let value: Value = serde_json::from_slice(original).unwrap();
        assert_eq!(serialize_like(&value, original).unwrap(), original);
        let two = b"{\n  \"a\": 1\n}";
        let value: Value = serde_json::from_slice(two).unwrap();
        assert_eq!(serialize_like(&value, two).unwrap(), two);
        let compact = b"{\"a\":1}";
        let value: Value = serde_json::from_slice(compact).unwrap();
        assert_eq!(serialize_like(&value, compact).unwrap(), compact);
    }

    #[test]
    fn new_ids_are_unique_hex() {
        let cells = vec![json!({"id": "x"})];
        let id = new_cell_id(&cells, "src");
        assert_eq!(id.len(), 8);
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn ids_follow_the_format_version() {
        assert!(uses_cell_ids(&json!({"nbformat": 4, "nbformat_minor": 5, "cells": []})));
        assert!(!uses_cell_ids(&json!({"nbformat": 4, "nbformat_minor": 2, "cells": [{}]})));
        assert!(uses_cell_ids(&json!({"nbformat": 4, "nbformat_minor": 2, "cells": [{"id": "a"}]})));
    }
}
