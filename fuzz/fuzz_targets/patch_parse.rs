//! ApplyPatch's parser, through the tool's own validation (which parses the patch and
//! checks every file before anything is written). Invariants: never panics, never writes:
//! the working directory is unchanged afterwards.
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
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\n").expect("fixture file");
        let ctx = ToolContext::new(dir.path());
        let tool = toolgate_builtin::all_builtin_tools()
            .into_iter()
            .find(|t| t.name() == "ApplyPatch")
            .expect("ApplyPatch is built in");
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        Fixture { _dir: dir, ctx, tool, rt }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(patch) = std::str::from_utf8(data) else { return };
    let fx = fixture();
    let _ = fx.rt.block_on(fx.tool.validate_input(&json!({"patch": patch}), &fx.ctx));
    let names: Vec<_> = std::fs::read_dir(&fx.ctx.cwd).expect("dir").filter_map(Result::ok).map(|e| e.file_name()).collect();
    assert_eq!(names.len(), 1, "validation wrote files: {names:?}");
});
