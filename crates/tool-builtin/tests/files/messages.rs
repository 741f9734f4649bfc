//! Snapshots of what the model reads from the file tools: their descriptions and input
//! schemas, and the text of their main results and errors (paths shown as `[ROOT]`).

use serde_json::{Value, json};

use crate::common::{Fixture, tool};

/// Runs each case and renders its outcome as the model would read it.
struct Transcript<'a> {
    fx: &'a Fixture,
    out: String,
}

impl<'a> Transcript<'a> {
    fn new(fx: &'a Fixture) -> Self {
        Self { fx, out: String::new() }
    }

    async fn case(&mut self, title: &str, tool_name: &str, input: Value) {
        let shown = match self.fx.run(tool_name, input).await {
            Ok(out) => format!("ok:\n{}", self.fx.scrub(&out.to_text())),
            Err(err) => format!("error ({}):\n{}", err.kind(), self.fx.error_text(&err)),
        };
        self.out.push_str(&format!("=== {title}\n{shown}\n\n"));
    }
}

#[test]
fn tool_definitions() {
    let mut out = String::new();
    for name in ["Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "ApplyPatch"] {
        let t = tool(name);
        out.push_str(&format!(
            "##### {name}\n{}\n\n{}\n\n",
            t.description(),
            serde_json::to_string_pretty(t.input_schema()).unwrap()
        ));
    }
    insta::assert_snapshot!("tool_definitions", out);
}

#[tokio::test]
async fn read_messages() {
    let fx = Fixture::new();
    let mut t = Transcript::new(&fx);
    let lines: String = (1..=2_003).map(|i| format!("line {i}\n")).collect();
    let long = fx.file("long.txt", &lines);
    t.case("window with more to come", "Read", json!({"file_path": long, "offset": 1_999, "limit": 3})).await;
    t.case("the default window", "Read", json!({"file_path": long, "offset": 1_998})).await;
    t.case("the same window again", "Read", json!({"file_path": long, "offset": 1_998})).await;
    t.case("offset past the end", "Read", json!({"file_path": long, "offset": 5_000})).await;
    let wide = fx.file("wide.txt", format!("short\n{}\n", "w".repeat(2_010)));
    t.case("a long line", "Read", json!({"file_path": wide, "offset": 2})).await;
    let empty = fx.file("empty.txt", "");
    t.case("an empty file", "Read", json!({"file_path": empty})).await;
    std::fs::create_dir(fx.path("dir")).unwrap();
    t.case("a directory", "Read", json!({"file_path": fx.path("dir")})).await;
    let bin = fx.file("data.bin", b"\x7fELF\x00\x00");
    t.case("a binary file", "Read", json!({"file_path": bin})).await;
    fx.file("src/main.rs", "fn main() {}\n");
    t.case("a missing file", "Read", json!({"file_path": fx.path("src/mian.rs")})).await;
    t.case("a missing directory", "Read", json!({"file_path": fx.path("nowhere/at/all.txt")})).await;
    let pdf = fx.file("paper.pdf", "%PDF-1.7\n");
    t.case("a PDF", "Read", json!({"file_path": pdf})).await;
    t.case("a relative path", "Read", json!({"file_path": "src/main.rs"})).await;
    insta::assert_snapshot!("read_messages", t.out.replace(&"w".repeat(2_000), "[2000 × w]"));
}

#[tokio::test]
async fn write_messages() {
    let fx = Fixture::new();
    let mut t = Transcript::new(&fx);
    t.case("a new file", "Write", json!({"file_path": fx.path("new.txt"), "content": "a\nb\n"})).await;
    let old = fx.file("old.txt", "1\n2\n3\n");
    t.case("an unread file", "Write", json!({"file_path": old, "content": "x\n"})).await;
    fx.run("Read", json!({"file_path": old, "limit": 1})).await.unwrap();
    t.case("a partly read file", "Write", json!({"file_path": old, "content": "x\n"})).await;
    fx.read(&old).await;
    std::fs::write(&old, "1\n2\n3\n4\n").unwrap();
    t.case("a file changed since it was read", "Write", json!({"file_path": old, "content": "x\n"})).await;
    fx.read(&old).await;
    t.case("an update", "Write", json!({"file_path": old, "content": "1\ntwo\n3\n4\n5\n"})).await;
    insta::assert_snapshot!("write_messages", t.out);
}

#[tokio::test]
async fn edit_messages() {
    let fx = Fixture::new();
    let mut t = Transcript::new(&fx);
    let path = fx
        .file("app.py", "import os\n\ndef main():\n    name = os.getenv(\"NAME\")\n    print(name)\n    print(name)\n");
    t.case("an unread file", "Edit", json!({"file_path": path, "old_string": "os", "new_string": "sys"})).await;
    fx.read(&path).await;
    t.case("an edit", "Edit", json!({"file_path": path, "old_string": "\"NAME\"", "new_string": "\"USER\""})).await;
    t.case(
        "several matches",
        "Edit",
        json!({"file_path": path, "old_string": "print(name)", "new_string": "log(name)"}),
    )
    .await;
    t.case(
        "not found",
        "Edit",
        json!({"file_path": path, "old_string": "name = os.getenv('USER')", "new_string": "x"}),
    )
    .await;
    t.case("no change", "Edit", json!({"file_path": path, "old_string": "main", "new_string": "main"})).await;
    t.case("creating over a file", "Edit", json!({"file_path": path, "old_string": "", "new_string": "x"})).await;
    t.case("a notebook", "Edit", json!({"file_path": fx.path("nb.ipynb"), "old_string": "a", "new_string": "b"})).await;
    t.case(
        "a new file",
        "Edit",
        json!({"file_path": fx.path("pkg/__init__.py"), "old_string": "", "new_string": "VERSION = 1\n"}),
    )
    .await;
    t.case(
        "a pasted line number",
        "Edit",
        json!({"file_path": path, "old_string": "     3\tdef main():", "new_string": "def run():"}),
    )
    .await;
    t.case(
        "a failing multi-edit",
        "MultiEdit",
        json!({"file_path": path, "edits": [{"old_string": "import os", "new_string": "import sys"}, {"old_string": "missing", "new_string": "x"}]}),
    )
    .await;
    insta::assert_snapshot!("edit_messages", t.out);
}

#[tokio::test]
async fn notebook_and_patch_messages() {
    let fx = Fixture::new();
    let mut t = Transcript::new(&fx);
    let nb = json!({"cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "source": ["1 + 1"], "outputs": [], "execution_count": 1}],
                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    let nb_path = fx.file("nb.ipynb", serde_json::to_string_pretty(&nb).unwrap());
    fx.read(&nb_path).await;
    t.case(
        "a cell replaced",
        "NotebookEdit",
        json!({"notebook_path": nb_path, "cell_id": "c1", "new_source": "2 + 2"}),
    )
    .await;
    t.case("an unknown cell", "NotebookEdit", json!({"notebook_path": nb_path, "cell_id": "c9", "new_source": "x"}))
        .await;
    let a = fx.file("a.txt", "one\ntwo\nthree\n");
    fx.read(&a).await;
    let good = format!(
        "*** Begin Patch\n*** Update File: {}\n@@\n one\n-two\n+2\n*** Add File: {}\n+b\n*** End Patch",
        a.display(),
        fx.path("b.txt").display()
    );
    t.case("a patch", "ApplyPatch", json!({ "patch": good })).await;
    let bad = format!("*** Begin Patch\n*** Update File: {}\n@@\n-zwei\n+2\n*** End Patch", a.display());
    t.case("a hunk that does not apply", "ApplyPatch", json!({ "patch": bad })).await;
    t.case("not a patch", "ApplyPatch", json!({"patch": "please change a.txt"})).await;
    insta::assert_snapshot!("notebook_and_patch_messages", t.out);
}
