//! Test support: the TypeScript project the tests ask about, the servers (the pinned
//! typescript-language-server from `.ci/node`, the fake server in `fake-server.js`), and
//! calling the tool the way the pipeline does.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;
use toolgate_builtin::lsp::{self, LspConfig, LspServers, ServerConfig};
use toolgate_core::{DynTool, InputSchema, ToolContext, ToolError, ToolOutput};

/// The repository's `.ci/node` folder.
fn ci_node() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/node")
}

/// Whether `program` is on PATH.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// The typescript-language-server that `.ci/run` installs, or `None` (after printing why
/// the test is skipped) when it or node is missing.
pub fn tsls() -> Option<PathBuf> {
    let bin = ci_node().join("node_modules/.bin/typescript-language-server");
    if !on_path("node") {
        eprintln!("skipped: node is not on PATH (CI has it; .ci/run installs the language server)");
        return None;
    }
    if !bin.is_file() {
        eprintln!("skipped: {} is missing; run `npm ci` in .ci/node (as .ci/run does)", bin.display());
        return None;
    }
    Some(bin)
}

/// The TypeScript server configuration for the pinned server.
pub fn ts_server(bin: &Path) -> ServerConfig {
    ServerConfig::new(
        "typescript",
        bin.display().to_string(),
        ["--stdio"],
        [(".ts", "typescript"), (".tsx", "typescriptreact")],
    )
    // Without a syntax server, tsserver answers only once the project is loaded (with
    // one, the first answers after opening a file come from a single-file view).
    .with_initialization_options(serde_json::json!({"tsserver": {"useSyntaxServer": "never"}}))
    .with_request_timeout(Duration::from_secs(60))
    .with_startup_timeout(Duration::from_secs(60))
}

/// The fake server in `fake-server.js` in `mode`, or `None` when node is missing.
pub fn fake_server(mode: &str) -> Option<ServerConfig> {
    if !on_path("node") {
        eprintln!("skipped: node is not on PATH (CI has it)");
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lsp/fake-server.js");
    Some(ServerConfig::new("fake", "node", [script.to_str().unwrap(), mode], [(".fake", "fake")]))
}

/// A small TypeScript project: a function used from two files, an interface with two
/// implementations, a class with methods calling each other.
pub struct Project {
    dir: TempDir,
}

pub const GREET_TS: &str = "\
/** Says hello. */
export function greet(name: string): string {
  return `Hello, ${name}!`;
}

export function shout(name: string): string {
  return greet(name).toUpperCase();
}
";

pub const SHAPES_TS: &str = "\
export interface Shape {
  area(): number;
}

export class Square implements Shape {
  constructor(private side: number) {}
  area(): number {
    return this.side * this.side;
  }
}

export class Circle implements Shape {
  constructor(private radius: number) {}
  area(): number {
    return Math.PI * this.radius * this.radius;
  }
}
";

pub const MAIN_TS: &str = "\
import { greet, shout } from './greet';
import { Shape, Square, Circle } from './shapes';

export function main(): void {
  const shapes: Shape[] = [new Square(2), new Circle(1)];
  for (const s of shapes) {
    journal.add(greet('area'), s.area());
  }
  journal.add(shout('done'));
}

const journal = { add(...items: unknown[]): void {} };
";

impl Project {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let project = Self { dir };
        project.write(
            "tsconfig.json",
            r#"{"compilerOptions": {"target": "es2020", "module": "commonjs", "strict": true, "lib": ["es2020"]}, "include": ["src"]}"#,
        );
        project.write("src/greet.ts", GREET_TS);
        project.write("src/shapes.ts", SHAPES_TS);
        project.write("src/main.ts", MAIN_TS);
        project
    }

    /// The absolute (canonical) root.
    pub fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn ctx(&self) -> ToolContext {
        ToolContext::new(self.root())
    }
}

/// The LSP tool bound to `servers` (kept by the caller for pids and shutdown).
pub fn servers(configs: impl IntoIterator<Item = ServerConfig>) -> (Arc<LspServers>, DynTool) {
    let servers = Arc::new(LspServers::new(LspConfig::with_servers(configs)));
    let tool = lsp::tool_with(servers.clone());
    (servers, tool)
}

/// Calls the tool as the pipeline does: schema (with coercion), validation,
/// normalization, then the call.
pub async fn call(tool: &DynTool, input: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let schema = InputSchema::compile(tool.input_schema()).unwrap();
    let checked = schema.validate(&input)?.into_owned();
    tool.validate_input(&checked, ctx).await?;
    let normalized = tool.normalize_input(&checked, ctx);
    tool.call(normalized, ctx).await
}

/// The text of a call that must succeed.
pub async fn text(tool: &DynTool, input: Value, ctx: &ToolContext) -> String {
    match call(tool, input.clone(), ctx).await {
        Ok(out) => out.to_text(),
        Err(err) => panic!("{input} failed: {}", err.to_model_text()),
    }
}

/// The error of a call that must fail.
pub async fn error(tool: &DynTool, input: Value, ctx: &ToolContext) -> ToolError {
    match call(tool, input.clone(), ctx).await {
        Ok(out) => panic!("{input} succeeded: {}", out.to_text()),
        Err(err) => err,
    }
}

/// Whether `pid` is gone (no `/proc` entry, or a zombie).
pub fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// The live processes whose process group is `pgid`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some((_, rest)) = stat.rsplit_once(") ") else { continue };
        let fields: Vec<&str> = rest.split(' ').collect();
        // rest: state ppid pgrp …
        if fields.first().is_some_and(|s| *s != "Z" && *s != "X") && fields.get(2) == Some(&pgid.to_string().as_str()) {
            out.push(pid);
        }
    }
    out
}

/// Polls (bounded, 10 s) until `done` holds; no fixed sleep is an assertion.
pub async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..1_000 {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}
