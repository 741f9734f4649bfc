//! NotebookEdit on real notebooks: replace, insert, delete; layout and metadata kept.

use serde_json::{Value, json};
use toolgate_core::ToolErrorKind;

use crate::common::{Fixture, text};

/// A notebook as Jupyter writes it: one-space indentation, sorted keys, final newline.
fn jupyter_text(nb: &Value) -> String {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(nb, &mut ser).unwrap();
    String::from_utf8(out).unwrap() + "\n"
}

fn notebook() -> Value {
    json!({
        "cells": [
            {"cell_type": "markdown", "id": "intro", "metadata": {"tags": ["keep"]}, "source": ["# Title\n", "text"]},
            {"cell_type": "code", "execution_count": 7, "id": "calc", "metadata": {"collapsed": false},
             "outputs": [{"name": "stdout", "output_type": "stream", "text": ["42\n"]}], "source": ["print(6 * 7)"]}
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5
    })
}

fn load(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn replacing_a_code_cell_clears_its_outputs_and_keeps_the_layout() {
    let fx = Fixture::new();
    let path = fx.file("nb.ipynb", jupyter_text(&notebook()));
    fx.read(&path).await;
    let out = fx
        .run("NotebookEdit", json!({"notebook_path": path, "cell_id": "calc", "new_source": "print(1)\nprint(2)"}))
        .await
        .unwrap();
    assert_eq!(
        fx.scrub(&text(&out)),
        "Replaced the source of cell calc (code) in [ROOT]/nb.ipynb. Its outputs and execution count were cleared."
    );
    let mut expected = notebook();
    expected["cells"][1]["source"] = json!(["print(1)\n", "print(2)"]);
    expected["cells"][1]["outputs"] = json!([]);
    expected["cells"][1]["execution_count"] = Value::Null;
    // Byte for byte what Jupyter would write: indentation, key order, final newline.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), jupyter_text(&expected));
}

#[tokio::test]
async fn insert_after_a_cell_or_at_the_start() {
    let fx = Fixture::new();
    let path = fx.file("nb.ipynb", jupyter_text(&notebook()));
    fx.read(&path).await;
    fx.run(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "intro", "new_source": "x = 1", "cell_type": "code", "edit_mode": "insert"}),
    )
    .await
    .unwrap();
    let nb = load(&path);
    let cells = nb["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 3);
    assert_eq!(cells[1]["source"], json!(["x = 1"]));
    assert_eq!(cells[1]["outputs"], json!([]));
    assert_eq!(cells[1]["id"].as_str().unwrap().len(), 8);
    fx.run(
        "NotebookEdit",
        json!({"notebook_path": path, "new_source": "# Top", "cell_type": "markdown", "edit_mode": "insert"}),
    )
    .await
    .unwrap();
    assert_eq!(load(&path)["cells"][0]["source"], json!(["# Top"]));
    let err = fx
        .run("NotebookEdit", json!({"notebook_path": path, "new_source": "x", "edit_mode": "insert"}))
        .await
        .unwrap_err();
    assert_eq!(err.message(), "cell_type is required to insert a cell");
}

#[tokio::test]
async fn delete_and_change_type() {
    let fx = Fixture::new();
    let path = fx.file("nb.ipynb", jupyter_text(&notebook()));
    fx.read(&path).await;
    fx.run("NotebookEdit", json!({"notebook_path": path, "cell_id": "intro", "new_source": "", "edit_mode": "delete"}))
        .await
        .unwrap();
    let nb = load(&path);
    assert_eq!(nb["cells"].as_array().unwrap().len(), 1);
    assert_eq!(nb["metadata"], notebook()["metadata"]);
    fx.run(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "calc", "new_source": "*text*", "cell_type": "markdown"}),
    )
    .await
    .unwrap();
    let cell = &load(&path)["cells"][0];
    assert_eq!(cell["cell_type"], "markdown");
    assert!(cell.get("outputs").is_none() && cell.get("execution_count").is_none());
    assert_eq!(cell["metadata"], json!({"collapsed": false}));
}

#[tokio::test]
async fn cells_without_ids_are_named_by_index() {
    let fx = Fixture::new();
    let nb = json!({"cells": [{"cell_type": "code", "metadata": {}, "source": "a", "outputs": [], "execution_count": null},
                               {"cell_type": "code", "metadata": {}, "source": "b", "outputs": [], "execution_count": null}],
                    "metadata": {}, "nbformat": 4, "nbformat_minor": 2});
    let path = fx.file("old.ipynb", serde_json::to_string_pretty(&nb).unwrap());
    fx.read(&path).await;
    fx.run("NotebookEdit", json!({"notebook_path": path, "cell_id": "cell-1", "new_source": "B"})).await.unwrap();
    let nb = load(&path);
    // A string source stays a string; no ids are added to an nbformat 4.2 notebook.
    assert_eq!(nb["cells"][1]["source"], "B");
    assert!(nb["cells"][1].get("id").is_none());
    assert!(std::fs::read_to_string(&path).unwrap().starts_with("{\n  \"cells\""));
}

#[tokio::test]
async fn unknown_cells_unread_notebooks_and_other_files_are_refused() {
    let fx = Fixture::new();
    let path = fx.file("nb.ipynb", jupyter_text(&notebook()));
    let err =
        fx.run("NotebookEdit", json!({"notebook_path": path, "cell_id": "calc", "new_source": "x"})).await.unwrap_err();
    assert!(err.message().starts_with("File has not been read yet"));
    fx.read(&path).await;
    let err =
        fx.run("NotebookEdit", json!({"notebook_path": path, "cell_id": "nope", "new_source": "x"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::NotFound);
    assert_eq!(err.hint().unwrap(), "Its cells are: intro, calc. Read the notebook to see them.");
    let err = fx.run("NotebookEdit", json!({"notebook_path": path, "new_source": "x"})).await.unwrap_err();
    assert_eq!(err.message(), "cell_id is required to replace a cell");
    let txt = fx.file("a.txt", "x");
    let err =
        fx.run("NotebookEdit", json!({"notebook_path": txt, "cell_id": "a", "new_source": "x"})).await.unwrap_err();
    assert!(err.message().contains("is not a Jupyter notebook"));
}
