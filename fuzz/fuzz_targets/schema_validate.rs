//! Tool input validation. Invariants: validating any JSON against every built-in tool's
//! schema never panics; a rejection always says what was wrong (a non-empty message).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolgate_core::InputSchema;

fn schemas() -> &'static [(String, InputSchema)] {
    static SCHEMAS: OnceLock<Vec<(String, InputSchema)>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        toolgate_builtin::all_builtin_tools()
            .iter()
            .map(|t| (t.name().to_owned(), InputSchema::compile(t.input_schema()).expect("built-in schemas compile")))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    for (name, schema) in schemas() {
        if let Err(err) = schema.validate(&value) {
            assert!(!err.message().trim().is_empty(), "{name}: an empty rejection of {value}");
        }
    }
});
