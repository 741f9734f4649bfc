//! `.mcp.json` content. Invariants: loading never panics; every server named in
//! `mcpServers` is either loaded or reported in a diagnostic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolgate_mcp::McpConfigLoader;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(value) = serde_json::from_str::<Value>(text) else { return };
    if !value.is_object() {
        return;
    }
    let configs = McpConfigLoader::new("/nonexistent-fuzz-dir").home(None).mcp_config(text).strict(true).load();
    let named = value.get("mcpServers").and_then(Value::as_object).map_or(0, |m| m.len());
    assert!(
        configs.servers.len() + configs.diagnostics.len() >= named.min(1),
        "{named} servers named, {} loaded, {} diagnostics",
        configs.servers.len(),
        configs.diagnostics.len()
    );
});
