//! Finding skills: `.claude/skills/<name>/SKILL.md` and `.claude/commands/*.md`, in the
//! project and in the user's `~/.claude`.

use std::path::{Path, PathBuf};

use super::front_matter;

/// Where a skill was found. Earlier variants win a name clash: a personal skill over a
/// project skill (Claude Code's order: enterprise, personal, project), and any skill over
/// a command of the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum SkillSource {
    /// `~/.claude/skills/<name>/SKILL.md`.
    User,
    /// `.claude/skills/<name>/SKILL.md` in the project.
    Project,
    /// `~/.claude/commands/<name>.md`.
    UserCommand,
    /// `.claude/commands/<name>.md` in the project.
    ProjectCommand,
}

impl SkillSource {
    /// A short label: `user`, `project`, `user command`, `project command`.
    pub fn label(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
            Self::UserCommand => "user command",
            Self::ProjectCommand => "project command",
        }
    }
}

/// One skill: its name, its description and where it lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillEntry {
    /// The name the model calls it by.
    pub name: String,
    /// What it is for (front matter `description`, else the body's first line).
    pub description: String,
    /// Where it was found.
    pub source: SkillSource,
    /// The file holding it (`SKILL.md` or the command file).
    pub file: PathBuf,
    /// The skill's folder (a command's folder is the one holding the file).
    pub dir: PathBuf,
}

impl SkillEntry {
    /// The skill's text as the Skill tool returns it, read afresh: its folder, then its body
    /// with `$ARGUMENTS` replaced by `args` (`mcp serve` offers it as an MCP prompt).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let commands = dir.path().join(".claude/commands");
    /// std::fs::create_dir_all(&commands).unwrap();
    /// std::fs::write(commands.join("fix.md"), "Fix issue $ARGUMENTS").unwrap();
    /// let catalog = toolgate_builtin::SkillCatalog::discover(dir.path(), None);
    /// let text = catalog.skills()[0].render(Some("#12")).unwrap();
    /// assert!(text.ends_with("Fix issue #12"), "{text}");
    /// ```
    ///
    /// # Errors
    /// The skill's file cannot be read any more.
    pub fn render(&self, args: Option<&str>) -> std::io::Result<String> {
        Ok(self.render_text(&std::fs::read_to_string(&self.file)?, args))
    }

    /// [`Self::render`] of the file's `text`.
    pub(crate) fn render_text(&self, text: &str, args: Option<&str>) -> String {
        let doc = super::front_matter::parse(text);
        let body = super::substitute(doc.body.trim_start_matches(['\n', '\r']), args);
        format!("Base directory for this skill: {}\n\n{body}", self.dir.display())
    }
}

/// The skills of a project and a user, found once when the tool set is built.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let skill = dir.path().join(".claude/skills/commit");
/// std::fs::create_dir_all(&skill).unwrap();
/// std::fs::write(skill.join("SKILL.md"), "---\nname: commit\ndescription: Commit staged work\n---\nCommit $ARGUMENTS").unwrap();
/// let catalog = toolgate_builtin::SkillCatalog::discover(dir.path(), None);
/// assert_eq!(catalog.skills()[0].name, "commit");
/// assert_eq!(catalog.skills()[0].description, "Commit staged work");
/// assert!(catalog.diagnostics().is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillCatalog {
    skills: Vec<SkillEntry>,
    diagnostics: Vec<String>,
}

/// The longest name a skill may have.
const MAX_NAME: usize = 64;

/// Whether `name` is a usable skill name: letters, digits, `-`, `_`, `.` and `:`, at
/// most 64 characters, not starting with `.` or `-`.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && !name.starts_with(['.', '-'])
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

impl SkillCatalog {
    /// Reads the skills of `project_dir/.claude` and of `user_dir` (the user's `~/.claude`,
    /// or `$CLAUDE_CONFIG_DIR`; `None` for no personal skills). Nothing here fails: a
    /// folder that cannot be read, a file without front matter or with broken front matter
    /// loads as well as it can and leaves a diagnostic.
    pub fn discover(project_dir: &Path, user_dir: Option<&Path>) -> Self {
        let mut catalog = Self::default();
        let project = project_dir.join(".claude");
        // Working in the home directory, the project's folder is the user's: read it once.
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        };
        let project_too = user_dir.is_none_or(|user| !same(user, &project));
        if let Some(user) = user_dir {
            catalog.read_skills(&user.join("skills"), SkillSource::User);
        }
        if project_too {
            catalog.read_skills(&project.join("skills"), SkillSource::Project);
        }
        if let Some(user) = user_dir {
            catalog.read_commands(&user.join("commands"), SkillSource::UserCommand);
        }
        if project_too {
            catalog.read_commands(&project.join("commands"), SkillSource::ProjectCommand);
        }
        catalog.skills.sort_by(|a, b| (a.source, &a.name).cmp(&(b.source, &b.name)));
        catalog
    }

    /// The skills, personal skills first, then project skills, then commands; by name
    /// within each.
    pub fn skills(&self) -> &[SkillEntry] {
        &self.skills
    }

    /// What could not be read, and which skills were shadowed by others of the same name.
    pub fn diagnostics(&self) -> &[String] {
        &self.diagnostics
    }

    /// Whether no skill was found.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The skill called `name`.
    pub fn get(&self, name: &str) -> Option<&SkillEntry> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// Sorted entries of a folder; a missing folder is no skills, an unreadable one a
    /// diagnostic.
    fn entries(&mut self, dir: &Path) -> Vec<PathBuf> {
        match std::fs::read_dir(dir) {
            Ok(entries) => {
                let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
                paths.sort();
                paths
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                self.diagnostics.push(format!("{}: cannot be read: {e}", dir.display()));
                Vec::new()
            }
        }
    }

    fn read_skills(&mut self, dir: &Path, source: SkillSource) {
        for path in self.entries(dir) {
            if !path.is_dir() {
                continue;
            }
            let file = path.join("SKILL.md");
            if !file.is_file() {
                self.diagnostics.push(format!("{}: a skill folder needs a SKILL.md file; skipped", path.display()));
                continue;
            }
            let folder_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            self.read_one(&file, &path, folder_name, source);
        }
    }

    fn read_commands(&mut self, dir: &Path, source: SkillSource) {
        for path in self.entries(dir) {
            if !path.is_file() || path.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let stem = path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            self.read_one(&path, dir, stem, source);
        }
    }

    fn read_one(&mut self, file: &Path, dir: &Path, default_name: String, source: SkillSource) {
        let shown = file.display();
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                self.diagnostics.push(format!("{shown}: cannot be read: {e}"));
                return;
            }
        };
        let doc = front_matter::parse(&text);
        self.diagnostics.extend(doc.diagnostics.iter().map(|d| format!("{shown}: {d}")));
        let is_skill = matches!(source, SkillSource::User | SkillSource::Project);
        let name = match doc.get("name") {
            Some(name) if is_skill && valid_name(name) => name.to_owned(),
            Some(name) if is_skill => {
                self.diagnostics.push(format!(
                    "{shown}: front matter name `{name}` is not a valid skill name (letters, digits, - _ . :, at most 64); the folder name `{default_name}` is used"
                ));
                default_name
            }
            _ => default_name,
        };
        if !valid_name(&name) {
            self.diagnostics.push(format!("{shown}: `{name}` is not a valid skill name; skipped"));
            return;
        }
        let description = match doc.get("description") {
            Some(d) => d.split_whitespace().collect::<Vec<_>>().join(" "),
            None => {
                let first = doc
                    .body
                    .lines()
                    .map(|l| l.trim().trim_start_matches('#').trim())
                    .find(|l| !l.is_empty())
                    .unwrap_or("")
                    .to_owned();
                if is_skill {
                    self.diagnostics
                        .push(format!("{shown}: no `description` in the front matter; the body's first line is used"));
                }
                first
            }
        };
        if let Some(existing) = self.skills.iter().find(|s| s.name == name) {
            self.diagnostics.push(format!(
                "{shown}: the {} skill `{name}` is shadowed by the {} one in {}",
                source.label(),
                existing.source.label(),
                existing.file.display()
            ));
            return;
        }
        self.skills.push(SkillEntry { name, description, source, file: file.to_path_buf(), dir: dir.to_path_buf() });
    }
}
