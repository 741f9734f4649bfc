//! Tidy checks: rules about the repository's own source, run as ordinary tests.
//!
//! Each check walks every `.rs` file under `crates/`, `xtask/` and `tests/` (skipping any
//! `target/` directory, which covers `fuzz/target`) and fails with one line per offence,
//! `path:line: text`, so a violation says exactly where it is:
//!
//! - every file's first line is a `//!` module doc;
//! - no direct process spawning (`Command` `::new`) outside the one process helper
//!   (`crates/tool-core/src/process.rs`) and `xtask/`, a dev tool outside the runtime
//!   (`clippy.toml` refuses it too, but an `#[allow]` silences clippy, not this check);
//! - no `todo!` or `unimplemented!` invocation.
//!
//! The needles are spelled with `concat!`, and named apart in prose, so that this file
//! does not trip its own checks. The checks read every line, comments included.

use std::fmt;
use std::path::{Path, PathBuf};

/// The constructor of `std::process::Command` (and tokio's), as it appears in source.
const COMMAND_NEW: &str = concat!("Command", "::new");
/// An invocation of the `todo` macro.
const TODO: &str = concat!("todo", "!(");
/// An invocation of the `unimplemented` macro.
const UNIMPLEMENTED: &str = concat!("unimplemented", "!(");

/// Files that may spawn processes directly: the one process helper.
const COMMAND_NEW_ALLOWED_FILES: &[&str] = &["crates/tool-core/src/process.rs"];
/// Directories whose files may spawn processes directly: xtask is a dev tool.
const COMMAND_NEW_ALLOWED_DIRS: &[&str] = &["xtask/"];

/// The directories the checks walk, relative to the repository root.
const SCANNED_DIRS: &[&str] = &["crates", "xtask", "tests"];

/// One offence: where it is and the offending line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Violation {
    /// Path relative to the repository root, `/`-separated.
    path: String,
    /// 1-based line number.
    line: usize,
    /// The offending line, trimmed (empty for an empty file).
    text: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "  {}:{}: {}", self.path, self.line, self.text)
    }
}

/// A source file: its root-relative path and its text.
struct SourceFile {
    path: String,
    text: String,
}

/// The offence, if any, of a file whose first line is not a `//!` doc comment.
fn missing_module_doc(path: &str, text: &str) -> Option<Violation> {
    let first = text.lines().next().unwrap_or("");
    (!first.starts_with("//!")).then(|| Violation {
        path: path.to_owned(),
        line: 1,
        text: if text.is_empty() {
            "(the file is empty)".to_owned()
        } else if first.trim().is_empty() {
            "(the first line is blank)".to_owned()
        } else {
            first.trim().to_owned()
        },
    })
}

/// Every line of `text` that contains any of `needles`.
fn find_needles(path: &str, text: &str, needles: &[&str]) -> Vec<Violation> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| needles.iter().any(|needle| line.contains(needle)))
        .map(|(index, line)| Violation { path: path.to_owned(), line: index + 1, text: line.trim().to_owned() })
        .collect()
}

/// Whether `path` may construct a process command directly.
fn may_spawn_directly(path: &str) -> bool {
    COMMAND_NEW_ALLOWED_FILES.contains(&path) || COMMAND_NEW_ALLOWED_DIRS.iter().any(|dir| path.starts_with(dir))
}

/// The repository root: the parent of this package's directory (`tests/`).
fn repo_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or_else(|| panic!("{} has no parent directory", manifest_dir.display())).to_path_buf()
}

/// Every `.rs` file under the scanned directories, sorted by path.
fn source_files() -> Vec<SourceFile> {
    let root = repo_root();
    let mut paths = Vec::new();
    for dir in SCANNED_DIRS {
        let dir = root.join(dir);
        if dir.is_dir() {
            collect_rs_files(&dir, &mut paths);
        }
    }
    paths.sort();
    let files: Vec<SourceFile> = paths
        .into_iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
            SourceFile { path: relative(&root, &path), text }
        })
        .collect();
    assert!(
        files.iter().any(|file| file.path == "tests/integration/tidy.rs"),
        "the tidy walk did not find its own file under {}; is the root right?",
        root.display()
    );
    files
}

/// Adds every `.rs` file under `dir` to `out`, skipping `target/` directories.
fn collect_rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()));
        let path = entry.path();
        let file_type = entry.file_type().unwrap_or_else(|err| panic!("cannot stat {}: {err}", path.display()));
        if file_type.is_dir() {
            if entry.file_name() != "target" {
                collect_rs_files(&path, out);
            }
        } else if file_type.is_file() && path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// `path` relative to `root`, with `/` separators on every platform.
fn relative(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative.components().map(|part| part.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// Fails with `rule` and every violation, one per line, if there are any.
fn assert_none(rule: &str, violations: &[Violation]) {
    if violations.is_empty() {
        return;
    }
    let list = violations.iter().map(Violation::to_string).collect::<Vec<_>>().join("\n");
    panic!("{rule} ({} offences):\n{list}\n", violations.len());
}

#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let violations: Vec<Violation> =
        source_files().iter().filter_map(|file| missing_module_doc(&file.path, &file.text)).collect();
    assert_none(
        "every .rs file must start with a `//!` doc comment on its first line, saying what \
         the file is for",
        &violations,
    );
}

#[test]
fn processes_are_spawned_only_by_the_process_helper() {
    let violations: Vec<Violation> = source_files()
        .iter()
        .filter(|file| !may_spawn_directly(&file.path))
        .flat_map(|file| find_needles(&file.path, &file.text, &[COMMAND_NEW]))
        .collect();
    assert_none(
        &format!(
            "`{COMMAND_NEW}` is allowed only in {} and under {}; spawn through the process \
             helper (explicit cwd and env, process group, timeout, kill on drop)",
            COMMAND_NEW_ALLOWED_FILES.join(", "),
            COMMAND_NEW_ALLOWED_DIRS.join(", "),
        ),
        &violations,
    );
}

#[test]
fn no_unfinished_code() {
    let violations: Vec<Violation> =
        source_files().iter().flat_map(|file| find_needles(&file.path, &file.text, &[TODO, UNIMPLEMENTED])).collect();
    assert_none(
        &format!(
            "`{TODO}` and `{UNIMPLEMENTED}` must not be committed; finish the code or return \
             an error that says what is missing"
        ),
        &violations,
    );
}

/// The checks find what they look for: a sample with one offence of each kind.
#[test]
fn scanners_detect_violations_in_a_sample() {
    let sample = format!(
        "use std::process::Command;\n\
         \n\
         fn spawn() {{\n\
         \x20   let _ = std::process::{COMMAND_NEW}(\"ls\");\n\
         \x20   {TODO}\"later\")\n\
         }}\n\
         fn other() {{ {UNIMPLEMENTED}) }}\n"
    );
    let path = "crates/example/src/lib.rs";

    assert_eq!(
        missing_module_doc(path, &sample),
        Some(Violation { path: path.to_owned(), line: 1, text: "use std::process::Command;".to_owned() })
    );
    let lines = |found: Vec<Violation>| found.iter().map(|v| v.line).collect::<Vec<_>>();
    assert_eq!(lines(find_needles(path, &sample, &[COMMAND_NEW])), [4]);
    assert_eq!(lines(find_needles(path, &sample, &[TODO, UNIMPLEMENTED])), [5, 7]);
    assert_eq!(
        find_needles(path, &sample, &[COMMAND_NEW])[0].to_string(),
        format!("  {path}:4: let _ = std::process::{COMMAND_NEW}(\"ls\");")
    );

    let documented = format!("//! An example.\n{sample}");
    assert_eq!(missing_module_doc(path, &documented), None);
    assert!(missing_module_doc(path, "").is_some(), "an empty file has no module doc");
    assert!(missing_module_doc(path, "\n//! late doc\n").is_some(), "the doc must be on the first line");
}

/// The allow-list admits exactly the process helper and xtask.
#[test]
fn only_the_process_helper_and_xtask_may_spawn() {
    assert!(may_spawn_directly("crates/tool-core/src/process.rs"));
    assert!(may_spawn_directly("xtask/src/cmd.rs"));
    assert!(!may_spawn_directly("crates/tool-core/src/lib.rs"));
    assert!(!may_spawn_directly("crates/hooks/src/run.rs"));
    assert!(!may_spawn_directly("tests/integration/tidy.rs"));
}
