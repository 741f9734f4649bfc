//! Test support: deterministic trees in temp dirs, calling a tool the way the pipeline
//! does (schema, validation, normalization, call), and running `rg`/`fdfind` through the
//! process helper for comparisons.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tempfile::TempDir;
use toolgate_core::process::{ProcessSpec, ProcessStatus};
use toolgate_core::{CancellationToken, DynTool, InputSchema, ToolContext, ToolError, ToolOutput};

/// A directory tree in a temp dir, built file by file.
pub struct Tree {
    dir: TempDir,
}

/// A fixed point in time files are dated from, so mtimes are explicit and ordered.
pub const EPOCH_2024: u64 = 1_704_067_200;

impl Tree {
    pub fn new() -> Self {
        Self { dir: tempfile::tempdir().unwrap() }
    }

    /// The absolute root (as the tools print it).
    pub fn root(&self) -> PathBuf {
        toolgate_core::normalize_path(self.dir.path())
    }

    /// `root/rel`.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// Writes a file, creating its parents.
    pub fn file(&self, rel: &str, contents: impl AsRef<[u8]>) -> &Self {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
        self
    }

    /// Creates a directory and its parents.
    pub fn dir(&self, rel: &str) -> &Self {
        std::fs::create_dir_all(self.path(rel)).unwrap();
        self
    }

    /// A symlink at `rel` pointing to `target` (as written).
    pub fn symlink(&self, target: &str, rel: &str) -> &Self {
        std::os::unix::fs::symlink(target, self.path(rel)).unwrap();
        self
    }

    /// Sets a file's mtime to `EPOCH_2024 + minutes * 60`.
    pub fn mtime(&self, rel: &str, minutes: u64) -> &Self {
        let file = std::fs::File::options().write(true).open(self.path(rel)).unwrap();
        file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(EPOCH_2024 + minutes * 60)).unwrap();
        self
    }

    /// A context rooted at the tree.
    pub fn ctx(&self) -> ToolContext {
        ToolContext::new(self.root())
    }

    /// `text` with the root taken off the start of each line: an absolute listing (rg's,
    /// fd's) as Glob, Grep and LS print paths under the working directory, the root.
    pub fn relative(&self, text: &str) -> String {
        let prefix = format!("{}/", self.root().display());
        text.lines().map(|l| l.strip_prefix(&prefix).unwrap_or(l)).collect::<Vec<_>>().join("\n")
    }

    /// Replaces the root in `text` with `[ROOT]`, for snapshots.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.root().display().to_string(), "[ROOT]")
    }
}

/// The project most tests search: source in several languages, hidden files, a `.git`
/// directory, ignored build output and logs, a binary file, non-UTF-8 text, a very long
/// line, CRLF line endings and symlinks. Every file has its own mtime; the order (oldest
/// first) is the order of `PROJECT_FILES`.
pub fn project() -> Tree {
    let tree = Tree::new();
    for (i, (rel, contents)) in PROJECT_FILES.iter().enumerate() {
        tree.file(rel, contents).mtime(rel, i as u64);
    }
    tree.dir(".git/refs")
        .file(".git/HEAD", "ref: refs/heads/main\n")
        .file(".git/config", "[core]\n\tfoo = true\n")
        .file("bin/data.bin", b"\x7fELF\x00\x01foo\x00bar\n")
        .file("latin1.txt", b"caf\xe9 foo au lait\nplain\n")
        .file("long.txt", format!("short foo line\n{}\nafter\n{}\n", "foo ".repeat(150), "x".repeat(700)))
        .file("crlf.txt", "first foo\r\nsecond\r\n")
        .symlink("src", "linked")
        .symlink("src/main.rs", "link.rs");
    for (i, rel) in ["bin/data.bin", "latin1.txt", "long.txt", "crlf.txt"].iter().enumerate() {
        tree.mtime(rel, 100 + i as u64);
    }
    tree
}

/// The text files of [`project`], oldest first.
pub const PROJECT_FILES: &[(&str, &str)] = &[
    (".gitignore", "target/\n*.log\n"),
    ("README.md", "# Demo\n\nUse foo to frobnicate.\n"),
    ("docs/guide.md", "Guide\n=====\n\nThe Foo type\nand foo() too\n"),
    ("src/main.rs", "fn main() {\n    let x = foo();\n    println!(\"{x}\");\n}\n\nfn foo() -> u32 {\n    42\n}\n"),
    ("src/lib.rs", "pub mod util;\n\npub fn bar() {}\n"),
    ("src/util/mod.rs", "pub mod strings;\n// FOO: upper\nfn helper() {}\n"),
    (
        "src/util/strings.rs",
        "one\ntwo\nthree foo\nfour\nfive\nsix\nseven\neight foo\nnine\nten\neleven\ntwelve\nthirteen foo\n",
    ),
    ("web/app.ts", "export const foo = 1;\n"),
    ("web/view.tsx", "export function View() { return <b>foo</b>; }\n"),
    ("web/index.js", "module.exports = { foo: 2 };\n"),
    ("scripts/run.py", "def foo():\n    return 'foo'\n"),
    (".hidden/secret.rs", "fn hidden_foo() {}\n"),
    (".env", "FOO=1\nfoo=2\n"),
    ("target/debug/build.rs", "fn foo_in_target() {}\n"),
    ("app.log", "foo happened\n"),
];

/// The built-in tool called `name`.
pub fn tool(name: &str) -> DynTool {
    toolgate_builtin::all_builtin_tools().into_iter().find(|t| t.name() == name).unwrap()
}

/// Calls a tool as the pipeline does: schema (with coercion), the tool's own
/// validation, normalization, then the call.
pub async fn call(name: &str, input: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let tool = tool(name);
    let schema = InputSchema::compile(tool.input_schema()).unwrap();
    let checked = schema.validate(&input)?.into_owned();
    tool.validate_input(&checked, ctx).await?;
    let normalized = tool.normalize_input(&checked, ctx);
    tool.call(normalized, ctx).await
}

/// The text of a successful call.
pub async fn text(name: &str, input: Value, ctx: &ToolContext) -> String {
    match call(name, input.clone(), ctx).await {
        Ok(out) => out.to_text(),
        Err(err) => panic!("{name} {input} failed: {}", err.to_model_text()),
    }
}

/// The error of a call that must fail.
pub async fn error(name: &str, input: Value, ctx: &ToolContext) -> ToolError {
    match call(name, input.clone(), ctx).await {
        Ok(out) => panic!("{name} {input} succeeded: {}", out.to_text()),
        Err(err) => err,
    }
}

/// Whether `program` is on PATH (checked without running anything).
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Runs `program args` in `cwd` through the process helper and returns its stdout, or
/// `None` (after saying so on stderr) when the program is not installed.
pub async fn external(program: &str, args: &[&str], cwd: &Path) -> Option<String> {
    if !on_path(program) {
        eprintln!("{program} is not on PATH: skipping the comparison");
        return None;
    }
    let outcome = ProcessSpec::exec(program, args.iter().copied())
        .cwd(cwd)
        .timeout(Duration::from_secs(60))
        .run(&CancellationToken::new())
        .await
        .unwrap();
    assert!(
        matches!(outcome.status, ProcessStatus::Exited(0 | 1)),
        "{program} {args:?} ended with {:?}: {}",
        outcome.status,
        outcome.stderr.text()
    );
    Some(outcome.stdout.text().into_owned())
}

/// ripgrep with the flags Claude Code passes (no config, hidden files, VCS dirs excluded,
/// 500 columns) plus `args`.
pub async fn rg(args: &[&str], cwd: &Path) -> Option<String> {
    let mut all: Vec<String> = ["--no-config", "--hidden", "--max-columns", "500"].map(String::from).to_vec();
    for vcs in [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"] {
        all.extend(["--glob".to_owned(), format!("!{vcs}")]);
    }
    all.extend(args.iter().map(|a| (*a).to_owned()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    external("rg", &all, cwd).await
}

/// The non-empty lines of `text`, sorted.
pub fn sorted_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect();
    lines.sort();
    lines
}
