//! Snapshots of what the model reads about the LSP tool: its description and schema.

#[test]
fn description_and_schema() {
    let tool = toolgate_builtin::all_builtin_tools().into_iter().find(|t| t.name() == "LSP").unwrap();
    insta::assert_snapshot!("LSP_description", tool.description());
    insta::assert_snapshot!("LSP_schema", serde_json::to_string_pretty(tool.input_schema()).unwrap());
}
