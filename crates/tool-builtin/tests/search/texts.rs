//! Snapshots of what the model reads about the search tools: descriptions and schemas.

use crate::support::tool;

#[test]
fn descriptions_and_schemas() {
    for name in ["Glob", "Grep", "LS"] {
        let tool = tool(name);
        insta::assert_snapshot!(format!("{name}_description"), tool.description());
        let schema = serde_json::to_string_pretty(tool.input_schema()).unwrap();
        insta::assert_snapshot!(format!("{name}_schema"), schema);
    }
}
