//! Read's line windowing on any file content. Invariants: never panics; never shows more
//! numbered lines than the limit; line numbers start at the offset and count up by one.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use toolgate_core::{DynTool, ToolContext};

struct Fixture {
    _dir: tempfile::TempDir,
    ctx: ToolContext,
    tool: DynTool,
    rt: tokio::runtime::Runtime,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir_in("/dev/shm").or_else(|_| tempfile::tempdir()).expect("temp dir");
        let ctx = ToolContext::new(dir.path());
        let tool =
            toolgate_builtin::all_builtin_tools().into_iter().find(|t| t.name() == "Read").expect("Read is built in");
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        Fixture { _dir: dir, ctx, tool, rt }
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let (offset, limit) = (u64::from(data[0] % 16) + 1, u64::from(data[1] % 16) + 1);
    let fx = fixture();
    let file = fx.ctx.cwd.join("f.txt");
    std::fs::write(&file, &data[2..]).expect("write the input");
    let input = json!({"file_path": file, "offset": offset, "limit": limit});
    if let Ok(out) = fx.rt.block_on(fx.tool.call(input, &fx.ctx)) {
        let text = out.to_text();
        let numbers: Vec<u64> = text
            .lines()
            .filter_map(|l| l.split_once('\t').and_then(|(n, _)| n.trim().parse().ok()))
            .collect();
        // Numbered lines come first; a line of the file may itself look numbered, so only
        // the leading run counts.
        let run: Vec<u64> = numbers.iter().copied().enumerate().take_while(|&(i, n)| n == offset + i as u64).map(|(_, n)| n).collect();
        assert!(run.len() as u64 <= limit, "{} lines shown for limit {limit}: {text:?}", run.len());
    }
});
