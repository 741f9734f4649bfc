//! LS: a directory as an indented tree, read breadth first up to a cap.
//!
//! Breadth first means a large tree still shows its upper levels whole; directories the
//! cap left unread are marked. Hidden entries are listed; VCS directories, what ignore
//! files exclude and the caller's `ignore` globs are not. Symlinks are shown, not
//! followed.

mod prompt;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_core::{Access, HiddenPaths, Target, ToolContext, ToolError, ToolOutput, TypedTool};

use crate::walk::{self, SearchRoot};

/// The most entries a listing shows.
pub(crate) const MAX_ENTRIES: usize = 1_000;

/// A directory to list as a tree.
// (This doc is the schema's description.)
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LsInput {
    /// The directory to list: absolute, or relative to the working directory.
    pub path: String,
    /// Globs of entries to leave out, gitignore-style: `node_modules`, `*.log`, `build/`.
    #[serde(default)]
    pub ignore: Option<Vec<String>>,
}

/// The LS tool.
pub(crate) struct LsTool;

impl TypedTool for LsTool {
    type Input = LsInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "LS"
    }

    fn description(&self) -> String {
        prompt::DESCRIPTION.to_owned()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some(prompt::SEARCH_HINT)
    }

    /// Deferred: reached through ToolSearch, to keep the core tool set small.
    fn should_defer(&self) -> bool {
        true
    }

    fn is_read_only(&self, _input: &LsInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &LsInput) -> bool {
        true
    }

    /// A missing or non-directory path and a bad ignore glob are reported before
    /// permission is asked.
    async fn validate(&self, input: &LsInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let root = SearchRoot::resolve(ctx, Some(&input.path))?.require_dir("LS")?;
        user_ignores(&root.path, input.ignore.as_deref().unwrap_or_default()).map(drop)
    }

    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        walk::with_absolute_path(input, ctx)
    }

    fn permission_target(&self, input: &LsInput) -> Option<String> {
        Some(input.path.clone()).filter(|p| !p.trim().is_empty())
    }

    /// The folder, listed with what lies below it (the tree is read breadth first up to a
    /// cap, so it is walked, not only its own entries).
    fn targets(&self, input: &LsInput) -> Vec<Target> {
        self.permission_target(input).map(|p| Target::new(p, Access::List { walked: true })).into_iter().collect()
    }

    async fn call(&self, input: LsInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = SearchRoot::resolve(ctx, Some(&input.path))?.require_dir("LS")?;
        let ignore = user_ignores(&root.path, input.ignore.as_deref().unwrap_or_default())?;
        let path = root.path.clone();
        let hidden = walk::hidden_paths(ctx);
        let Some(tree) = walk::run_blocking(&ctx.cancel, move |stop| Tree::read(&path, &ignore, hidden, stop)).await?
        else {
            return Err(walk::cancelled());
        };
        let structured = json!({
            "path": root.path.display().to_string(),
            "entries": tree.nodes.len() - 1,
            "truncated": tree.truncated,
        });
        let shown = walk::ShownPaths::new(ctx, &root.path).show(&root.path);
        Ok(ToolOutput::text(tree.render(&shown)).with_structured(structured))
    }

    fn render_use(&self, input: &LsInput) -> String {
        format!("LS({})", input.path)
    }
}

/// The caller's `ignore` globs as one gitignore matcher rooted at the listed directory.
fn user_ignores(root: &Path, globs: &[String]) -> Result<Gitignore, ToolError> {
    let mut builder = GitignoreBuilder::new(root);
    for glob in globs.iter().filter(|g| !g.trim().is_empty()) {
        builder.add_line(None, glob).map_err(|err| {
            ToolError::invalid_input(format!("ignore glob {glob:?} is not valid: {err}"))
                .with_hint("use gitignore-style globs such as node_modules, *.log or build/")
        })?;
    }
    builder.build().map_err(|err| ToolError::invalid_input(format!("ignore globs are not valid: {err}")))
}

/// What an entry is.
#[derive(Debug)]
enum Kind {
    /// A directory; `read` says whether its entries were read.
    Dir {
        read: Read,
    },
    File,
    /// A symlink and where it points.
    Symlink(String),
}

/// Whether a directory's entries made it into the listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    Yes,
    /// The cap was reached first.
    NotReached,
    /// The cap was reached while listing it.
    Partly,
    /// Listing it failed (permissions).
    Failed,
}

/// One entry of the tree.
#[derive(Debug)]
struct Node {
    name: String,
    path: PathBuf,
    kind: Kind,
    children: Vec<usize>,
}

/// The entries read, breadth first; node 0 is the root.
#[derive(Debug)]
struct Tree {
    nodes: Vec<Node>,
    truncated: bool,
}

impl Tree {
    /// Reads `root` breadth first, each directory's entries sorted by name, until
    /// [`MAX_ENTRIES`]; `None` when stopped.
    fn read(root: &Path, ignore: &Gitignore, hidden: Option<Arc<HiddenPaths>>, stop: &AtomicBool) -> Option<Self> {
        let root_node = Node {
            name: String::new(),
            path: root.to_path_buf(),
            kind: Kind::Dir { read: Read::NotReached },
            children: vec![],
        };
        let mut tree = Self { nodes: vec![root_node], truncated: false };
        let mut queue = VecDeque::from([0usize]);
        while let Some(dir) = queue.pop_front() {
            if tree.truncated {
                break;
            }
            let mut builder = walk::walk_builder(&tree.nodes[dir].path, true, hidden.clone());
            builder.max_depth(Some(1)).sort_by_file_name(|a, b| a.cmp(b));
            let mut read = Read::Yes;
            for entry in builder.build() {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let entry = match entry {
                    Ok(entry) if entry.depth() == 0 => continue,
                    Ok(entry) => entry,
                    Err(_) => {
                        read = Read::Failed;
                        continue;
                    }
                };
                let Some(file_type) = entry.file_type() else { continue };
                if ignore.matched(entry.path(), file_type.is_dir()).is_ignore() {
                    continue;
                }
                if tree.nodes.len() > MAX_ENTRIES {
                    tree.truncated = true;
                    read = Read::Partly;
                    break;
                }
                let kind = if file_type.is_symlink() {
                    let target = std::fs::read_link(entry.path()).map(|t| t.display().to_string());
                    Kind::Symlink(target.unwrap_or_else(|_| "?".to_owned()))
                } else if file_type.is_dir() {
                    Kind::Dir { read: Read::NotReached }
                } else {
                    Kind::File
                };
                let index = tree.nodes.len();
                let is_dir = matches!(kind, Kind::Dir { .. });
                tree.nodes.push(Node {
                    name: entry.file_name().to_string_lossy().into_owned(),
                    path: entry.path().to_path_buf(),
                    kind,
                    children: vec![],
                });
                tree.nodes[dir].children.push(index);
                if is_dir {
                    queue.push_back(index);
                }
            }
            if let Kind::Dir { read: state } = &mut tree.nodes[dir].kind {
                *state = read;
            }
        }
        Some(tree)
    }

    /// The model-facing text: the root as the result shows it (relative to the working
    /// directory when under it), then the tree, then a note when capped.
    fn render(&self, root: &str) -> String {
        let mut text = format!("{}/", root.trim_end_matches('/'));
        if self.nodes[0].children.is_empty() {
            text.push_str("\n(no entries)");
            return text;
        }
        let mut stack: Vec<(usize, usize)> = self.nodes[0].children.iter().rev().map(|&c| (c, 1)).collect();
        while let Some((index, depth)) = stack.pop() {
            let node = &self.nodes[index];
            text.push('\n');
            text.push_str(&"  ".repeat(depth));
            text.push_str(&node.name);
            match &node.kind {
                Kind::Dir { read } => {
                    text.push('/');
                    match read {
                        Read::Yes => {}
                        Read::NotReached => text.push_str(" (not listed)"),
                        Read::Partly => text.push_str(" (partly listed)"),
                        Read::Failed => text.push_str(" (cannot be read)"),
                    }
                }
                Kind::File => {}
                Kind::Symlink(target) => {
                    text.push_str(" -> ");
                    text.push_str(target);
                }
            }
            stack.extend(node.children.iter().rev().map(|&c| (c, depth + 1)));
        }
        if self.truncated {
            text.push_str(&format!(
                "\n(The listing stops at {MAX_ENTRIES} entries; directories marked (not listed) were not read. \
                 Call LS on a subdirectory, or use Glob, to see more.)"
            ));
        }
        text
    }
}
