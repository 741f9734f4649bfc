//! The text the model reads: locations as `path:line:character` with paths relative to the
//! workspace and 1-based positions, each with the source line it points at; symbols as
//! an indented outline; hover contents as Markdown.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use lsp_types::{
    CallHierarchyItem, DocumentSymbol, Hover, HoverContents, Location, MarkedString, Range, SymbolInformation,
    SymbolKind,
};
use toolgate_core::uri_path;

use super::position::{from_lsp, lines};

/// Files larger than this are not read for snippets and column conversion.
const MAX_SNIPPET_FILE: u64 = 10 * 1024 * 1024;

/// Source lines shown beside locations are cut to this many characters.
const MAX_SNIPPET_CHARS: usize = 160;

/// Turns protocol locations into what the model reads, reading the workspace files they
/// point into (once each) for columns and snippets.
pub(crate) struct Formatter {
    root: PathBuf,
    canonical_root: Option<PathBuf>,
    files: HashMap<PathBuf, Option<String>>,
}

/// A location as shown: display path, 1-based line and character, the source line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shown {
    pub path: String,
    pub line: u32,
    pub character: u32,
    pub snippet: Option<String>,
}

impl Shown {
    /// `path:line:character`.
    pub(crate) fn at(&self) -> String {
        format!("{}:{}:{}", self.path, self.line, self.character)
    }

    /// `line:character: snippet` (for lists grouped by file).
    fn in_file(&self) -> String {
        match &self.snippet {
            Some(s) => format!("{}:{}: {s}", self.line, self.character),
            None => format!("{}:{}", self.line, self.character),
        }
    }
}

impl Formatter {
    /// A formatter for a workspace; `known` is a file whose text is already at hand.
    pub(crate) fn new(root: &Path, known: (&Path, &str)) -> Self {
        let mut files = HashMap::new();
        files.insert(known.0.to_path_buf(), Some(known.1.to_owned()));
        Self { root: root.to_path_buf(), canonical_root: root.canonicalize().ok(), files }
    }

    /// `path` relative to the workspace when inside it, else absolute.
    pub(crate) fn display_path(&self, path: &Path) -> String {
        for root in std::iter::once(&self.root).chain(self.canonical_root.as_ref()) {
            if let Ok(rel) = path.strip_prefix(root)
                && !rel.as_os_str().is_empty()
            {
                return rel.display().to_string();
            }
        }
        path.display().to_string()
    }

    /// The text of a file inside the workspace (files elsewhere are not read: the tool
    /// was allowed to read the file it was asked about and its workspace, nothing more).
    fn text(&mut self, path: &Path) -> Option<&str> {
        let inside = std::iter::once(&self.root).chain(self.canonical_root.as_ref()).any(|r| path.starts_with(r));
        if !inside && !self.files.contains_key(path) {
            return None;
        }
        self.files
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let meta = std::fs::metadata(path).ok()?;
                if !meta.is_file() || meta.len() > MAX_SNIPPET_FILE {
                    return None;
                }
                std::fs::read(path).ok().map(|b| String::from_utf8_lossy(&b).into_owned())
            })
            .as_deref()
    }

    /// A location as shown.
    pub(crate) fn show(&mut self, uri: &str, range: &Range) -> Shown {
        let Some(path) = uri_path(uri) else {
            let (line, character) = from_lsp(None, range.start.line, range.start.character);
            return Shown { path: uri.to_owned(), line, character, snippet: None };
        };
        let display = self.display_path(&path);
        let text = self.text(&path);
        let (line, character) = from_lsp(text, range.start.line, range.start.character);
        let snippet = text.and_then(|t| lines(t).get(range.start.line as usize).map(|l| snippet(l)));
        Shown { path: display, line, character, snippet: snippet.filter(|s| !s.is_empty()) }
    }

    /// The 1-based line of a position in a file (for symbol outlines).
    fn line_of(&mut self, uri: &str, range: &Range) -> (u32, u32) {
        let text = uri_path(uri).and_then(|p| self.text(&p).map(str::to_owned));
        from_lsp(text.as_deref(), range.start.line, range.start.character)
    }
}

fn snippet(line: &str) -> String {
    let trimmed = line.trim();
    let mut out: String = trimmed.chars().take(MAX_SNIPPET_CHARS).collect();
    if out.len() < trimmed.len() {
        out.push('…');
    }
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Locations grouped by file, files in path order, each file's locations by position.
fn grouped(shown: &[Shown]) -> String {
    let mut by_file: BTreeMap<&str, Vec<&Shown>> = BTreeMap::new();
    for s in shown {
        by_file.entry(s.path.as_str()).or_default().push(s);
    }
    let mut out = String::new();
    for (path, mut items) in by_file {
        items.sort_by_key(|s| (s.line, s.character));
        items.dedup_by_key(|s| (s.line, s.character));
        out.push_str(&format!("\n{path}:\n"));
        for s in items {
            out.push_str(&format!("  {}\n", s.in_file()));
        }
    }
    out
}

/// goToDefinition / goToImplementation: `Defined in …` or a list.
pub(crate) fn definitions(shown: &[Shown], what: Found) -> String {
    match shown {
        [] => what.none().to_owned(),
        [one] => {
            let lead = match what {
                Found::Definition => "Defined in",
                Found::Implementation => "Implemented in",
            };
            match &one.snippet {
                Some(s) => format!("{lead} {}\n  {s}", one.at()),
                None => format!("{lead} {}", one.at()),
            }
        }
        many => {
            let mut out = format!("Found {}:\n", plural(many.len(), what.one(), what.many()));
            for s in many {
                match &s.snippet {
                    Some(snip) => out.push_str(&format!("  {}: {snip}\n", s.at())),
                    None => out.push_str(&format!("  {}\n", s.at())),
                }
            }
            out.trim_end().to_owned()
        }
    }
}

/// What a location list holds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Found {
    Definition,
    Implementation,
}

impl Found {
    fn one(self) -> &'static str {
        match self {
            Self::Definition => "definition",
            Self::Implementation => "implementation",
        }
    }

    fn many(self) -> &'static str {
        match self {
            Self::Definition => "definitions",
            Self::Implementation => "implementations",
        }
    }

    fn none(self) -> &'static str {
        match self {
            Self::Definition => {
                "No definition found. Put the position on a symbol's name (not on a keyword, literal or whitespace)."
            }
            Self::Implementation => "No implementation found.",
        }
    }
}

/// findReferences.
pub(crate) fn references(shown: &[Shown]) -> String {
    if shown.is_empty() {
        return "No references found. Put the position on a symbol's name.".to_owned();
    }
    let files = shown.iter().map(|s| s.path.as_str()).collect::<std::collections::BTreeSet<_>>().len();
    format!(
        "Found {} across {}:\n{}",
        plural(shown.len(), "reference", "references"),
        plural(files, "file", "files"),
        grouped(shown)
    )
    .trim_end()
    .to_owned()
}

/// hover.
pub(crate) fn hover(hover: Option<&Hover>, line: u32, character: u32) -> String {
    let text = hover.map(|h| hover_text(&h.contents)).unwrap_or_default();
    if text.trim().is_empty() {
        return format!("No hover information at {line}:{character}. Put the position on a symbol's name.");
    }
    format!("Hover information at {line}:{character}:\n\n{}", text.trim())
}

fn hover_text(contents: &HoverContents) -> String {
    let marked = |m: &MarkedString| match m {
        MarkedString::String(s) => s.clone(),
        MarkedString::LanguageString(ls) => format!("```{}\n{}\n```", ls.language, ls.value),
    };
    match contents {
        HoverContents::Scalar(m) => marked(m),
        HoverContents::Array(items) => items.iter().map(marked).collect::<Vec<_>>().join("\n\n"),
        HoverContents::Markup(markup) => markup.value.clone(),
    }
}

/// The name of a symbol kind (`Function`, `Class` …).
pub(crate) fn kind_name(kind: SymbolKind) -> String {
    const NAMES: [&str; 26] = [
        "File",
        "Module",
        "Namespace",
        "Package",
        "Class",
        "Method",
        "Property",
        "Field",
        "Constructor",
        "Enum",
        "Interface",
        "Function",
        "Variable",
        "Constant",
        "String",
        "Number",
        "Boolean",
        "Array",
        "Object",
        "Key",
        "Null",
        "EnumMember",
        "Struct",
        "Event",
        "Operator",
        "TypeParameter",
    ];
    let n = serde_json::to_value(kind).ok().and_then(|v| v.as_i64()).unwrap_or(0);
    usize::try_from(n - 1).ok().and_then(|i| NAMES.get(i)).map_or_else(|| format!("Kind {n}"), |s| (*s).to_owned())
}

/// documentSymbol, hierarchical form.
pub(crate) fn document_symbols(path: &str, symbols: &[DocumentSymbol], fmt: &mut Formatter, uri: &str) -> String {
    if symbols.is_empty() {
        return format!("No symbols found in {path}.");
    }
    let mut out = format!("Symbols in {path}:\n");
    fn walk(out: &mut String, symbols: &[DocumentSymbol], depth: usize, fmt: &mut Formatter, uri: &str) {
        let mut sorted: Vec<&DocumentSymbol> = symbols.iter().collect();
        sorted.sort_by_key(|s| (s.selection_range.start.line, s.selection_range.start.character));
        for s in sorted {
            let (line, _) = fmt.line_of(uri, &s.selection_range);
            let detail = s.detail.as_deref().filter(|d| !d.trim().is_empty()).map(|d| format!(" {}", d.trim()));
            out.push_str(&format!(
                "{}{} ({}){} - Line {line}\n",
                "  ".repeat(depth + 1),
                s.name,
                kind_name(s.kind),
                detail.unwrap_or_default()
            ));
            if let Some(children) = &s.children {
                walk(out, children, depth + 1, fmt, uri);
            }
        }
    }
    walk(&mut out, symbols, 0, fmt, uri);
    out.trim_end().to_owned()
}

/// documentSymbol, flat form (`SymbolInformation`, with container names).
pub(crate) fn flat_symbols(path: &str, symbols: &[SymbolInformation], fmt: &mut Formatter) -> String {
    if symbols.is_empty() {
        return format!("No symbols found in {path}.");
    }
    let mut out = format!("Symbols in {path}:\n");
    let mut sorted: Vec<&SymbolInformation> = symbols.iter().collect();
    sorted.sort_by_key(|s| (s.location.range.start.line, s.location.range.start.character));
    for s in sorted {
        let (line, _) = fmt.line_of(s.location.uri.as_str(), &s.location.range);
        let container = s.container_name.as_deref().filter(|c| !c.is_empty()).map(|c| format!(" in {c}"));
        out.push_str(&format!("  {} ({}){} - Line {line}\n", s.name, kind_name(s.kind), container.unwrap_or_default()));
    }
    out.trim_end().to_owned()
}

/// A workspace symbol as found: name, kind, container, where.
pub(crate) struct FoundSymbol {
    pub name: String,
    pub kind: SymbolKind,
    pub container: Option<String>,
    pub location: Shown,
}

/// workspaceSymbol.
pub(crate) fn workspace_symbols(query: &str, symbols: &[FoundSymbol]) -> String {
    if symbols.is_empty() {
        let hint = if query.trim().is_empty() {
            " Give a `query` (a symbol name or part of one): most servers return nothing for an empty query."
        } else {
            ""
        };
        return format!("No symbols matching {query:?} found in the workspace.{hint}");
    }
    let mut by_file: BTreeMap<&str, Vec<&FoundSymbol>> = BTreeMap::new();
    for s in symbols {
        by_file.entry(s.location.path.as_str()).or_default().push(s);
    }
    let mut out = format!(
        "Found {} matching {query:?} in {}:\n",
        plural(symbols.len(), "symbol", "symbols"),
        plural(by_file.len(), "file", "files")
    );
    for (path, mut items) in by_file {
        items.sort_by_key(|s| (s.location.line, s.location.character));
        out.push_str(&format!("\n{path}:\n"));
        for s in items {
            let container = s.container.as_deref().filter(|c| !c.is_empty()).map(|c| format!(" in {c}"));
            out.push_str(&format!(
                "  {} ({}){} - {}:{}\n",
                s.name,
                kind_name(s.kind),
                container.unwrap_or_default(),
                s.location.line,
                s.location.character
            ));
        }
    }
    out.trim_end().to_owned()
}

/// A call hierarchy item as `name (Kind) - path:line:character`.
pub(crate) fn item(fmt: &mut Formatter, item: &CallHierarchyItem) -> String {
    let at = fmt.show(item.uri.as_str(), &item.selection_range);
    let detail = item.detail.as_deref().filter(|d| !d.trim().is_empty()).map(|d| format!(" {}", d.trim()));
    format!("{} ({}){} - {}", item.name, kind_name(item.kind), detail.unwrap_or_default(), at.at())
}

/// prepareCallHierarchy.
pub(crate) fn prepared(fmt: &mut Formatter, items: &[CallHierarchyItem], line: u32, character: u32) -> String {
    match items {
        [] => format!(
            "No call hierarchy item at {line}:{character}. Put the position on the name of a function or method."
        ),
        [one] => format!("Call hierarchy item: {}", item(fmt, one)),
        many => {
            let mut out = format!("Found {} call hierarchy items:\n", many.len());
            for i in many {
                out.push_str(&format!("  {}\n", item(fmt, i)));
            }
            out.trim_end().to_owned()
        }
    }
}

/// One caller or callee with the places of the calls.
pub(crate) struct Call {
    pub item: CallHierarchyItem,
    pub ranges: Vec<Range>,
    /// The file the ranges are in (the caller's for incoming calls, the asked item's for
    /// outgoing ones).
    pub ranges_uri: String,
}

/// incomingCalls / outgoingCalls.
pub(crate) fn calls(fmt: &mut Formatter, target: &str, calls: &[Call], incoming: bool) -> String {
    if calls.is_empty() {
        return if incoming {
            format!("No calls to {target} found.")
        } else {
            format!("{target} calls no function the server knows of.")
        };
    }
    let mut out = if incoming {
        format!("Found {} of {target}:\n", plural(calls.len(), "caller", "callers"))
    } else {
        format!("{target} calls {}:\n", plural(calls.len(), "function", "functions"))
    };
    let mut lines: Vec<(String, String)> = Vec::new();
    for call in calls {
        let at = fmt.show(call.item.uri.as_str(), &call.item.selection_range);
        let mut sites: Vec<String> = call
            .ranges
            .iter()
            .map(|r| {
                let s = fmt.show(&call.ranges_uri, r);
                format!("{}:{}", s.line, s.character)
            })
            .collect();
        sites.dedup();
        let calls_at = if sites.is_empty() {
            String::new()
        } else if incoming {
            format!(" [calls at {}]", sites.join(", "))
        } else {
            format!(" [called at {}]", sites.join(", "))
        };
        lines.push((
            at.path.clone(),
            format!("  {} ({}) - {}:{}{calls_at}", call.item.name, kind_name(call.item.kind), at.line, at.character),
        ));
    }
    lines.sort();
    let mut current = String::new();
    for (path, line) in lines {
        if path != current {
            out.push_str(&format!("\n{path}:\n"));
            current = path;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.trim_end().to_owned()
}

/// The locations of a definition-style answer.
pub(crate) fn locations(fmt: &mut Formatter, locations: &[Location]) -> Vec<Shown> {
    locations.iter().map(|l| fmt.show(l.uri.as_str(), &l.range)).collect()
}

#[cfg(test)]
mod tests {
    use lsp_types::{Position, Range};

    use super::*;

    #[test]
    fn locations_show_relative_paths_one_based_positions_and_source_lines() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.ts"), "const é = 1;\nexport function go() {}\n").unwrap();
        let uri = toolgate_core::file_uri(&root.join("src/a.ts"));
        let mut fmt = Formatter::new(&root, (&root.join("x"), ""));
        let range = Range::new(Position::new(1, 16), Position::new(1, 18));
        let shown = fmt.show(&uri, &range);
        assert_eq!(shown.at(), "src/a.ts:2:17");
        assert_eq!(shown.snippet.as_deref(), Some("export function go() {}"));
        assert_eq!(
            definitions(std::slice::from_ref(&shown), Found::Definition),
            "Defined in src/a.ts:2:17\n  export function go() {}"
        );
        let second = fmt.show(&uri, &Range::new(Position::new(0, 6), Position::new(0, 7)));
        assert_eq!(second.at(), "src/a.ts:1:7", "é is one character");
        assert_eq!(
            references(&[shown, second]),
            "Found 2 references across 1 file:\n\nsrc/a.ts:\n  1:7: const é = 1;\n  2:17: export function go() {}"
        );
        assert_eq!(fmt.display_path(Path::new("/elsewhere/x.ts")), "/elsewhere/x.ts");
        assert!(references(&[]).starts_with("No references found"));
    }

    #[test]
    fn kinds_have_names() {
        assert_eq!(kind_name(SymbolKind::FUNCTION), "Function");
        assert_eq!(kind_name(SymbolKind::TYPE_PARAMETER), "TypeParameter");
        assert_eq!(kind_name(SymbolKind::FILE), "File");
    }
}
