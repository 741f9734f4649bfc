//! The deterministic corpus of rows 1–3: a source tree and a large text file.
//!
//! Everything comes from a seeded xorshift generator, so two runs (and two machines)
//! write byte-identical files. Both are cached under the target directory with a
//! `.complete` marker naming the parameters they were written with; a rerun with the
//! same parameters reuses them, anything else (or an interrupted write) rewrites them.

use std::fs;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// The identifier the Grep rows search for, in about 0.5% of the source files (and in
/// every file of the ignored `build/` directory, which a correct search skips).
pub(crate) const NEEDLE: &str = "handle_request";

/// A 64-bit xorshift generator (Marsaglia's 13/7/17 triple).
#[derive(Clone, Debug)]
pub(crate) struct XorShift(u64);

impl XorShift {
    /// A generator from a seed (a zero seed is replaced: xorshift would stay at zero).
    pub(crate) fn new(seed: u64) -> Self {
        XorShift(if seed == 0 { 0x9e37_79b9_7f4a_7c15 } else { seed })
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (`n` > 0; the modulo bias is irrelevant here).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// One element of a non-empty slice.
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// How big a tree to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TreeShape {
    /// Top-level packages.
    pub(crate) packages: u64,
    /// Modules per package.
    pub(crate) modules: u64,
    /// Files per module (some of them one directory deeper).
    pub(crate) files: u64,
}

impl TreeShape {
    /// 30,000 source files (`cargo xtask bench`).
    pub(crate) const FULL: TreeShape = TreeShape { packages: 30, modules: 25, files: 40 };
    /// 3,000 source files (`--quick`).
    pub(crate) const QUICK: TreeShape = TreeShape { packages: 10, modules: 10, files: 30 };

    /// The number of source files (not counting `build/`, `.git` and the binaries).
    pub(crate) fn source_files(self) -> u64 {
        self.packages * self.modules * self.files
    }

    fn key(self) -> String {
        format!("tree v1 seed {SEED:#x} {}x{}x{}", self.packages, self.modules, self.files)
    }
}

const SEED: u64 = 0x7001_6a7e;

const WORDS: &[&str] = &[
    "let", "mut", "value", "result", "config", "parse", "request", "response", "buffer", "index", "count", "error",
    "return", "self", "match", "some", "none", "ok", "err", "string", "vector", "map", "insert", "remove", "update",
    "client", "server", "session", "token", "cache", "state", "event", "handler", "queue", "stream", "reader",
    "writer", "fn", "pub", "struct", "impl", "async", "await", "use", "mod", "const", "where", "type",
];

/// Extensions by weight: mostly Rust, then the usual neighbours of a repository.
const EXTENSIONS: &[&str] = &["rs", "rs", "rs", "rs", "py", "ts", "js", "md", "txt", "json", "toml", "yaml"];

/// Writes the tree under `root` unless a complete tree of this shape is there already.
/// Returns whether it wrote anything.
pub(crate) fn ensure_tree(root: &Path, shape: TreeShape) -> anyhow::Result<bool> {
    let marker = root.join(".complete");
    if fs::read_to_string(&marker).is_ok_and(|text| text == shape.key()) {
        return Ok(false);
    }
    if root.exists() {
        fs::remove_dir_all(root).with_context(|| format!("removing the stale corpus {}", root.display()))?;
    }
    for (rel, bytes) in tree_files(shape) {
        let path = root.join(&rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    }
    fs::write(&marker, shape.key()).with_context(|| format!("writing {}", marker.display()))?;
    Ok(true)
}

/// Every file of the tree, as (relative path, contents), in a fixed order.
///
/// Source files are 8 to 120 lines of identifier soup with indentation (a few are ten
/// times longer); about one in 200 holds [`NEEDLE`]; one in 100 is a binary blob with
/// NUL bytes (`.png`, `.bin`); a fifth sit one directory deeper. A `.gitignore` ignores
/// `build/` and `*.tmp`, and `build/` holds generated files that all contain the needle,
/// so a search that forgot the ignore rules finds many more files.
pub(crate) fn tree_files(shape: TreeShape) -> impl Iterator<Item = (String, Vec<u8>)> {
    let mut rng = XorShift::new(SEED);
    let fixed = [
        (".gitignore".to_owned(), b"build/\n*.tmp\n".to_vec()),
        (".git/HEAD".to_owned(), b"ref: refs/heads/main\n".to_vec()),
        (".git/config".to_owned(), format!("[core]\n\t{NEEDLE} = 1\n").into_bytes()),
    ];
    let ignored =
        (0..shape.packages * 30).map(|i| (format!("build/out{i:04}.rs"), format!("fn {NEEDLE}() {{}}\n").into_bytes()));
    let temp = (0..shape.packages).map(|i| (format!("pkg{i:02}/scratch.tmp"), format!("{NEEDLE}\n").into_bytes()));
    let sources = (0..shape.source_files()).map(move |n| {
        let (p, m, f) = (n / (shape.modules * shape.files), (n / shape.files) % shape.modules, n % shape.files);
        source_file(&mut rng, p, m, f)
    });
    fixed.into_iter().chain(ignored).chain(temp).chain(sources)
}

fn source_file(rng: &mut XorShift, p: u64, m: u64, f: u64) -> (String, Vec<u8>) {
    let nested = if rng.below(5) == 0 { "/inner" } else { "" };
    if rng.below(100) == 0 {
        let ext = if rng.below(2) == 0 { "png" } else { "bin" };
        let len = 512 + rng.below(16 * 1024) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        bytes[0] = 0;
        return (format!("pkg{p:02}/mod{m:02}{nested}/blob{f:03}.{ext}"), bytes);
    }
    let ext = rng.pick(EXTENSIONS);
    let mut lines = 8 + rng.below(112);
    if rng.below(50) == 0 {
        lines *= 10;
    }
    let needle_at = (rng.below(200) == 0).then(|| rng.below(lines));
    let mut text = String::new();
    for line in 0..lines {
        for _ in 0..rng.below(3) {
            text.push_str("    ");
        }
        for _ in 0..(3 + rng.below(8)) {
            text.push_str(rng.pick(WORDS));
            text.push(' ');
        }
        if needle_at == Some(line) {
            text.push_str("fn handle_request(req: Request) -> Response {");
        }
        text.push('\n');
    }
    (format!("pkg{p:02}/mod{m:02}{nested}/file{f:03}.{ext}"), text.into_bytes())
}

/// A text file of numbered lines for row 3, and where its deep window is.
#[derive(Clone, Debug)]
pub(crate) struct BigFile {
    /// The file.
    pub(crate) path: PathBuf,
    /// Its number of lines.
    pub(crate) lines: u64,
}

impl BigFile {
    /// The 1-based first line of the window: 95% of the way into the file.
    pub(crate) fn window_start(&self) -> u64 {
        self.lines / 20 * 19
    }
}

/// Bytes of one line of [`ensure_big_file`] (line text plus newline): 100.
const LINE_BYTES: u64 = 100;

/// Writes (once) `path` as `bytes` bytes of 100-byte lines, each starting with its number.
pub(crate) fn ensure_big_file(path: &Path, bytes: u64) -> anyhow::Result<BigFile> {
    let lines = bytes / LINE_BYTES;
    let key = format!("big v1 seed {SEED:#x} {lines} lines");
    let marker = path.with_extension("complete");
    let big = BigFile { path: path.to_owned(), lines };
    if fs::read_to_string(&marker).is_ok_and(|text| text == key) {
        return Ok(big);
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    let file = fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut rng = XorShift::new(SEED ^ lines);
    let mut line = String::with_capacity(LINE_BYTES as usize);
    for n in 1..=lines {
        big_line(&mut rng, n, &mut line);
        out.write_all(line.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
    }
    out.flush().with_context(|| format!("writing {}", path.display()))?;
    fs::write(&marker, key).with_context(|| format!("writing {}", marker.display()))?;
    Ok(big)
}

/// Line `n`: `line N:` then words, padded to exactly 99 bytes, then `\n`.
fn big_line(rng: &mut XorShift, n: u64, line: &mut String) {
    line.clear();
    line.push_str(&format!("line {n}:"));
    while line.len() < (LINE_BYTES as usize - 1) {
        line.push(' ');
        line.push_str(rng.pick(WORDS));
    }
    line.truncate(LINE_BYTES as usize - 1);
    line.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: TreeShape = TreeShape { packages: 2, modules: 3, files: 20 };

    #[test]
    fn the_same_seed_writes_the_same_tree() {
        let a: Vec<_> = tree_files(TINY).collect();
        let b: Vec<_> = tree_files(TINY).collect();
        assert_eq!(a, b);
        // .gitignore, .git (2), build/ (60), *.tmp (2), sources (120).
        assert_eq!(a.len(), 3 + 60 + 2 + 120);
    }

    #[test]
    fn the_tree_has_binaries_nesting_needles_and_ignored_files() {
        let files: Vec<_> = tree_files(TreeShape::QUICK).collect();
        let binary = files.iter().filter(|(_, bytes)| bytes.contains(&0)).count();
        let nested = files.iter().filter(|(rel, _)| rel.contains("/inner/")).count();
        let needles = files
            .iter()
            .filter(|(rel, bytes)| rel.starts_with("pkg") && String::from_utf8_lossy(bytes).contains(NEEDLE))
            .count();
        assert!(binary > 0, "no binary files");
        assert!(nested > 0, "no nested files");
        assert!(needles > 0, "no needle outside build/");
        assert_eq!(files[0], (".gitignore".to_owned(), b"build/\n*.tmp\n".to_vec()));
    }

    #[test]
    fn a_written_tree_is_reused_and_a_different_shape_rewrites_it() {
        let dir = tempfile_dir("tree");
        let root = dir.join("corpus");
        assert!(ensure_tree(&root, TINY).unwrap());
        assert!(!ensure_tree(&root, TINY).unwrap());
        let other = TreeShape { files: 2, ..TINY };
        assert!(ensure_tree(&root, other).unwrap());
        assert_eq!(fs::read_to_string(root.join(".complete")).unwrap(), other.key());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn big_file_lines_are_numbered_and_fixed_width() {
        let dir = tempfile_dir("big");
        let big = ensure_big_file(&dir.join("big.txt"), 10_000).unwrap();
        let text = fs::read_to_string(&big.path).unwrap();
        assert_eq!(big.lines, 100);
        assert_eq!(text.len(), 10_000);
        assert!(text.lines().enumerate().all(|(i, l)| l.starts_with(&format!("line {}:", i + 1)) && l.len() == 99));
        assert_eq!(big.window_start(), 95);
        let again = ensure_big_file(&dir.join("big.txt"), 10_000).unwrap();
        assert_eq!(fs::read_to_string(&again.path).unwrap(), text);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A fresh directory under the system temp dir (xtask has no tempfile dependency).
    fn tempfile_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-corpus-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }
}
