//! Settings sources, as Claude Code reads them, and their merge.
//!
//! Precedence, high to low: managed (`/etc/claude-code/managed-settings.json`, then
//! `managed-settings.d/*.json` in name order), command line (`--settings FILE`, session
//! rules), local (`.claude/settings.local.json`), project (`.claude/settings.json`), user
//! (`~/.claude/settings.json`). Arrays merge across every source; scalars come from the
//! highest source that sets them. A file that is missing is skipped; a file that does not
//! parse, or a rule that does not parse, is a [`Diagnostic`] naming the file and the rule,
//! never a silent drop and never an implicit allow.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolgate_core::{PermissionBehavior, PermissionMode, RuleSource, SandboxPolicy};

use crate::PermissionRule;

/// A problem found while loading settings: which file, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file (or command-line flag) the problem is in.
    pub origin: String,
    /// What is wrong, in a sentence.
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.origin, self.message)
    }
}

/// One settings document and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsFile {
    /// Which layer.
    pub source: RuleSource,
    /// The file, or a label such as `--allowedTools` for values from flags.
    pub origin: String,
    /// The directory `/path` rules in this file are anchored at.
    pub anchor: PathBuf,
    /// The parsed JSON object.
    pub value: Value,
}

/// Where to look for settings.
///
/// ```
/// use toolgate_permissions::SettingsDiscovery;
/// let d = SettingsDiscovery::new("/repo").with_home(None).with_managed_dir(None);
/// let loaded = d.load();
/// assert!(loaded.files.is_empty());
/// assert!(loaded.diagnostics.is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct SettingsDiscovery {
    /// The start directory (project root and cwd).
    pub cwd: PathBuf,
    /// The home directory (`None`: no user settings).
    pub home: Option<PathBuf>,
    /// The managed settings directory (`None`: none).
    pub managed_dir: Option<PathBuf>,
    /// `--settings FILE` arguments, in order.
    pub settings_files: Vec<PathBuf>,
    /// Which of user, project and local to read (`--setting-sources`); all by default.
    pub sources: Vec<RuleSource>,
    /// Whether the project is trusted; `None`: as `~/.claude.json` records ([`crate::trusted_by`]).
    pub trust: Option<bool>,
}

impl SettingsDiscovery {
    /// Discovery rooted at `cwd`, with `$HOME` (or `$CLAUDE_CONFIG_DIR`'s parent role) and
    /// `/etc/claude-code` as Claude Code uses them on Linux.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            home: std::env::var_os("HOME").map(PathBuf::from),
            managed_dir: Some(PathBuf::from("/etc/claude-code")),
            settings_files: Vec::new(),
            sources: vec![RuleSource::UserSettings, RuleSource::ProjectSettings, RuleSource::LocalSettings],
            trust: None,
        }
    }

    /// Takes the project as trusted (or not) whatever `~/.claude.json` records.
    #[must_use]
    pub fn with_trust(mut self, trusted: bool) -> Self {
        self.trust = Some(trusted);
        self
    }

    /// Whether the project is trusted: as set by [`Self::with_trust`], else as recorded.
    pub fn is_trusted(&self) -> bool {
        self.trust.unwrap_or_else(|| {
            crate::claude_json_path(self.home.as_deref())
                .is_some_and(|record| crate::trusted_by(&record, &self.cwd).is_some())
        })
    }

    /// Sets the home directory.
    #[must_use]
    pub fn with_home(mut self, home: Option<PathBuf>) -> Self {
        self.home = home;
        self
    }

    /// Sets the managed settings directory.
    #[must_use]
    pub fn with_managed_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.managed_dir = dir;
        self
    }

    /// Adds a `--settings FILE`.
    #[must_use]
    pub fn with_settings_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.settings_files.push(path.into());
        self
    }

    /// The user settings directory: `$CLAUDE_CONFIG_DIR` when set, else `~/.claude`.
    fn user_dir(&self) -> Option<PathBuf> {
        std::env::var_os("CLAUDE_CONFIG_DIR")
            .map(PathBuf::from)
            .or_else(|| self.home.as_ref().map(|h| h.join(".claude")))
    }

    /// Reads every source, highest precedence first.
    pub fn load(&self) -> LoadedSettings {
        let mut loaded = LoadedSettings::default();
        if let Some(dir) = &self.managed_dir {
            loaded.read_file(RuleSource::PolicySettings, &dir.join("managed-settings.json"), Path::new("/"));
            let drop_in = dir.join("managed-settings.d");
            if let Ok(entries) = std::fs::read_dir(&drop_in) {
                let mut paths: Vec<PathBuf> = entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "json"))
                    .collect();
                paths.sort();
                for path in paths {
                    loaded.read_file(RuleSource::PolicySettings, &path, Path::new("/"));
                }
            }
        }
        for path in &self.settings_files {
            let anchor = path.parent().map_or_else(|| self.cwd.clone(), Path::to_path_buf);
            if !loaded.read_file(RuleSource::FlagSettings, path, &anchor) {
                loaded.diagnostics.push(Diagnostic {
                    origin: path.display().to_string(),
                    message: "settings file given with --settings does not exist".to_owned(),
                });
            }
        }
        let claude = self.cwd.join(".claude");
        let first_project = loaded.files.len();
        if self.sources.contains(&RuleSource::LocalSettings) {
            loaded.read_file(RuleSource::LocalSettings, &claude.join("settings.local.json"), &self.cwd);
        }
        if self.sources.contains(&RuleSource::ProjectSettings) {
            loaded.read_file(RuleSource::ProjectSettings, &claude.join("settings.json"), &self.cwd);
        }
        loaded.trusted = self.is_trusted();
        if !loaded.trusted {
            loaded.only_tighten(first_project, &self.cwd);
        }
        if self.sources.contains(&RuleSource::UserSettings)
            && let Some(user) = self.user_dir()
        {
            loaded.read_file(RuleSource::UserSettings, &user.join("settings.json"), &user);
        }
        // Programs taught to the analyser: the managed folder's, then the user's; a
        // project's would let a repository declare `curl` read-only.
        if let Some(dir) = &self.managed_dir {
            loaded.read_programs(&dir.join(PROGRAMS_FILE));
        }
        if self.sources.contains(&RuleSource::UserSettings)
            && let Some(user) = self.user_dir()
        {
            loaded.read_programs(&user.join(PROGRAMS_FILE));
        }
        let project_programs = claude.join(PROGRAMS_FILE);
        if project_programs.exists() {
            loaded.diagnostics.push(Diagnostic {
                origin: project_programs.display().to_string(),
                message: format!(
                    "ignored: a project cannot teach toolgate which programs are read-only; \
                     put entries you trust in ~/.claude/{PROGRAMS_FILE}"
                ),
            });
        }
        loaded
    }
}

/// Where, under the user's and the managed settings folders, the programs file is
/// ([`toolgate_shell::programs::UserTable`]).
pub const PROGRAMS_FILE: &str = "toolgate/programs.json";

/// Every settings document found, highest precedence first, and what went wrong.
#[derive(Debug, Clone, Default)]
pub struct LoadedSettings {
    /// The documents, highest precedence first.
    pub files: Vec<SettingsFile>,
    /// Problems found.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the project folder is trusted: until it is, its settings were cut down to what
    /// only tightens (see [`SettingsDiscovery::load`]).
    pub trusted: bool,
    /// The programs files found (managed first, then the user's), for
    /// [`toolgate_shell::programs::install`].
    pub programs: Vec<toolgate_shell::programs::UserTable>,
}

/// The keys of a project's `permissions` an untrusted folder keeps: they only tighten.
const TIGHTENING_PERMISSIONS: &[&str] = &["ask", "deny", "disableBypassPermissionsMode"];

/// The precedence of a source for scalar keys (higher wins).
fn precedence(source: RuleSource) -> u8 {
    match source {
        RuleSource::PolicySettings => 6,
        RuleSource::CliArg | RuleSource::Session => 5,
        RuleSource::FlagSettings => 4,
        RuleSource::LocalSettings => 3,
        RuleSource::ProjectSettings => 2,
        _ => 1,
    }
}

impl LoadedSettings {
    /// Cuts the project and local documents from `files[first..]` down to their deny and ask
    /// rules (and `disableBypassPermissionsMode`): a folder not yet trusted may only tighten.
    /// One diagnostic names what was left out and how to trust the folder.
    fn only_tighten(&mut self, first: usize, cwd: &Path) {
        let mut ignored: Vec<String> = Vec::new();
        for file in self.files.iter_mut().skip(first) {
            let Some(doc) = file.value.as_object() else { continue };
            let mut kept = serde_json::Map::new();
            for (key, value) in doc {
                match (key.as_str(), value.as_object()) {
                    ("permissions", Some(permissions)) => {
                        let mut tight = serde_json::Map::new();
                        for (name, rules) in permissions {
                            if TIGHTENING_PERMISSIONS.contains(&name.as_str()) {
                                tight.insert(name.clone(), rules.clone());
                            } else {
                                ignored.push(format!("permissions.{name}"));
                            }
                        }
                        kept.insert(key.clone(), Value::Object(tight));
                    }
                    ("$schema", _) => {}
                    _ => ignored.push(key.clone()),
                }
            }
            file.value = Value::Object(kept);
        }
        if cwd.join(".mcp.json").is_file() {
            ignored.push("the servers of .mcp.json".to_owned());
        }
        if ignored.is_empty() {
            return;
        }
        ignored.sort();
        ignored.dedup();
        self.diagnostics.push(Diagnostic {
            origin: cwd.display().to_string(),
            message: format!(
                "this folder is not trusted, so its project settings may only tighten: their deny and ask \
                 rules apply, and {} do not; once you trust the repository, run `toolgate trust [DIR]` \
                 or answer yes when toolgate asks in a terminal (either records trust in ~/.claude.json, \
                 as Claude Code's trust dialog does)",
                ignored.join(", ")
            ),
        });
    }

    /// Reads one file; `false` when it does not exist.
    fn read_file(&mut self, source: RuleSource, path: &Path, anchor: &Path) -> bool {
        let origin = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return false,
            Err(e) => {
                self.diagnostics.push(Diagnostic { origin, message: format!("cannot be read: {e}") });
                return true;
            }
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(value @ Value::Object(_)) => {
                self.files.push(SettingsFile { source, origin, anchor: anchor.to_path_buf(), value })
            }
            Ok(_) => self.diagnostics.push(Diagnostic { origin, message: "is not a JSON object".to_owned() }),
            Err(e) => self.diagnostics.push(Diagnostic { origin, message: format!("is not valid JSON: {e}") }),
        }
        true
    }

    /// Makes the programs files found the process's ([`toolgate_shell::programs::install`]):
    /// the analysis then reads each entry in place of the built-in one of its name.
    pub fn install_programs(&self) {
        toolgate_shell::programs::install(&self.programs);
    }

    /// Reads a programs file, if there is one: its table, or a diagnostic per problem.
    fn read_programs(&mut self, path: &Path) {
        let origin = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => match toolgate_shell::programs::UserTable::parse(&origin, &text) {
                Ok(table) => self.programs.push(table),
                Err(problems) => self.diagnostics.extend(problems.into_iter().map(|p| Diagnostic {
                    origin: p.origin,
                    message: format!("{}: {}; the file is ignored", p.path, p.message),
                })),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => self.diagnostics.push(Diagnostic { origin, message: format!("cannot be read: {e}") }),
        }
    }

    /// Adds a document that did not come from a file (e.g. `--settings '{"…"}'` JSON, or
    /// flags), keeping the order by precedence.
    pub fn add(&mut self, file: SettingsFile) {
        let at =
            self.files.iter().position(|f| precedence(f.source) < precedence(file.source)).unwrap_or(self.files.len());
        self.files.insert(at, file);
    }

    /// Adds command-line rules (`--allowedTools` as allow, `--disallowedTools` as deny).
    pub fn add_cli_rules(&mut self, behavior: PermissionBehavior, rules: &[String], cwd: &Path) {
        let key = behavior.as_str();
        let flag = match behavior {
            PermissionBehavior::Allow => "--allowedTools",
            PermissionBehavior::Deny => "--disallowedTools",
            PermissionBehavior::Ask => "--askTools",
        };
        self.add(SettingsFile {
            source: RuleSource::CliArg,
            origin: flag.to_owned(),
            anchor: cwd.to_path_buf(),
            value: serde_json::json!({"permissions": {key: rules}}),
        });
    }

    /// The highest-precedence value of a top-level or `permissions.` key.
    fn scalar<'a>(&'a self, path: &[&str]) -> Option<(&'a SettingsFile, &'a Value)> {
        self.files.iter().find_map(|f| {
            let mut v = &f.value;
            for key in path {
                v = v.get(key)?;
            }
            Some((f, v))
        })
    }

    /// The merged permission settings, with diagnostics for anything unusable.
    pub fn permissions(&self) -> (PermissionSettings, Vec<Diagnostic>) {
        let mut out = PermissionSettings::default();
        let mut diagnostics = Vec::new();
        let managed_only = self
            .files
            .iter()
            .any(|f| f.source == RuleSource::PolicySettings && f.value["allowManagedPermissionRulesOnly"] == true);
        for file in &self.files {
            let Some(perms) = file.value.get("permissions") else { continue };
            if !perms.is_object() {
                diagnostics.push(Diagnostic {
                    origin: file.origin.clone(),
                    message: "`permissions` must be an object".to_owned(),
                });
                continue;
            }
            let rules_count = ["allow", "ask", "deny"].iter().filter(|k| perms.get(**k).is_some()).count();
            if managed_only && file.source != RuleSource::PolicySettings && rules_count > 0 {
                diagnostics.push(Diagnostic {
                    origin: file.origin.clone(),
                    message: "permission rules ignored: managed settings set allowManagedPermissionRulesOnly"
                        .to_owned(),
                });
                continue;
            }
            for (key, behavior) in [
                ("deny", PermissionBehavior::Deny),
                ("ask", PermissionBehavior::Ask),
                ("allow", PermissionBehavior::Allow),
            ] {
                let Some(list) = perms.get(key) else { continue };
                let Some(items) = list.as_array() else {
                    diagnostics.push(Diagnostic {
                        origin: file.origin.clone(),
                        message: format!("`permissions.{key}` must be an array of rule strings"),
                    });
                    continue;
                };
                for item in items {
                    let Some(text) = item.as_str() else {
                        diagnostics.push(Diagnostic {
                            origin: file.origin.clone(),
                            message: format!("`permissions.{key}` entry {item} is not a string; ignored"),
                        });
                        continue;
                    };
                    match text.parse::<PermissionRule>() {
                        Ok(rule) => out.rules.push(RuleEntry {
                            rule,
                            text: text.to_owned(),
                            behavior,
                            source: file.source,
                            origin: file.origin.clone(),
                            anchor: file.anchor.clone(),
                        }),
                        Err(e) => diagnostics.push(Diagnostic {
                            origin: file.origin.clone(),
                            message: format!("{key} rule ignored: {e}"),
                        }),
                    }
                }
            }
            if let Some(dirs) = perms.get("additionalDirectories") {
                match dirs.as_array() {
                    Some(items) => {
                        for d in items {
                            match d.as_str() {
                                Some(s) => out.additional_directories.push(resolve_dir(s, &file.anchor)),
                                None => diagnostics.push(Diagnostic {
                                    origin: file.origin.clone(),
                                    message: format!("additionalDirectories entry {d} is not a string; ignored"),
                                }),
                            }
                        }
                    }
                    None => diagnostics.push(Diagnostic {
                        origin: file.origin.clone(),
                        message: "`permissions.additionalDirectories` must be an array".to_owned(),
                    }),
                }
            }
        }
        if let Some((file, mode)) = self.scalar(&["permissions", "defaultMode"]) {
            match mode.as_str().map(str::parse::<PermissionMode>) {
                Some(Ok(PermissionMode::Auto))
                    if matches!(file.source, RuleSource::ProjectSettings | RuleSource::LocalSettings) =>
                {
                    diagnostics.push(Diagnostic {
                        origin: file.origin.clone(),
                        message: "defaultMode \"auto\" is ignored in project and local settings".to_owned(),
                    })
                }
                Some(Ok(mode)) => out.default_mode = Some(mode),
                Some(Err(e)) => diagnostics.push(Diagnostic { origin: file.origin.clone(), message: e.to_string() }),
                None => diagnostics.push(Diagnostic {
                    origin: file.origin.clone(),
                    message: "`permissions.defaultMode` must be a string".to_owned(),
                }),
            }
        }
        out.disable_bypass = self.files.iter().any(|f| {
            f.value.get("permissions").and_then(|p| p.get("disableBypassPermissionsMode")) == Some(&"disable".into())
        });
        (out, diagnostics)
    }

    /// The merged `sandbox` settings as a [`SandboxPolicy`] (arrays merge across sources,
    /// booleans come from the highest source that sets them), with diagnostics naming the
    /// file for values of the wrong type. `bwrap` is looked up on `PATH` when enabled.
    pub fn sandbox(&self) -> (SandboxPolicy, Vec<Diagnostic>) {
        let mut policy = SandboxPolicy::default();
        let mut diagnostics = Vec::new();
        let bool_at = |path: &[&str], diagnostics: &mut Vec<Diagnostic>| -> Option<bool> {
            // The highest source whose value is a boolean; wrong types are reported and skipped.
            for file in &self.files {
                let mut v = &file.value;
                let mut found = true;
                for key in path {
                    match v.get(key) {
                        Some(next) => v = next,
                        None => {
                            found = false;
                            break;
                        }
                    }
                }
                if !found {
                    continue;
                }
                match v.as_bool() {
                    Some(b) => return Some(b),
                    None => diagnostics.push(Diagnostic {
                        origin: file.origin.clone(),
                        message: format!("`{}` must be true or false; ignored", path.join(".")),
                    }),
                }
            }
            None
        };
        policy.enabled = bool_at(&["sandbox", "enabled"], &mut diagnostics).unwrap_or(false);
        policy.fail_if_unavailable = bool_at(&["sandbox", "failIfUnavailable"], &mut diagnostics).unwrap_or(false);
        policy.allow_unsandboxed = bool_at(&["sandbox", "allowUnsandboxedCommands"], &mut diagnostics).unwrap_or(true);
        for file in &self.files {
            let Some(sandbox) = file.value.get("sandbox") else { continue };
            if !sandbox.is_object() {
                diagnostics.push(Diagnostic {
                    origin: file.origin.clone(),
                    message: "`sandbox` must be an object".to_owned(),
                });
                continue;
            }
            let mut strings = |path: &[&str]| -> Vec<String> {
                let mut v = sandbox;
                for key in path {
                    match v.get(key) {
                        Some(next) => v = next,
                        None => return Vec::new(),
                    }
                }
                let name = format!("sandbox.{}", path.join("."));
                let Some(items) = v.as_array() else {
                    diagnostics.push(Diagnostic {
                        origin: file.origin.clone(),
                        message: format!("`{name}` must be an array of strings"),
                    });
                    return Vec::new();
                };
                items
                    .iter()
                    .filter_map(|item| {
                        let text = item.as_str();
                        if text.is_none() {
                            diagnostics.push(Diagnostic {
                                origin: file.origin.clone(),
                                message: format!("`{name}` entry {item} is not a string; ignored"),
                            });
                        }
                        text.map(str::to_owned)
                    })
                    .collect()
            };
            policy.excluded_commands.extend(strings(&["excludedCommands"]));
            let writes = strings(&["filesystem", "allowWrite"]);
            policy.allow_write.extend(writes.iter().map(|w| resolve_dir(w, &file.anchor)));
            if !strings(&["network", "allowedDomains"]).is_empty() {
                policy.network = true;
            }
        }
        if policy.enabled {
            policy.bwrap = SandboxPolicy::find_bwrap();
        }
        (policy, diagnostics)
    }

    /// The `hooks` objects of every source, highest precedence first, with their origin
    /// (for `toolgate-hooks`), and whether hooks are disabled.
    pub fn hooks(&self) -> (Vec<(&SettingsFile, &Value)>, bool) {
        let disabled = self.scalar(&["disableAllHooks"]).is_some_and(|(_, v)| v == true);
        (self.files.iter().filter_map(|f| f.value.get("hooks").map(|h| (f, h))).collect(), disabled)
    }
}

fn resolve_dir(dir: &str, anchor: &Path) -> PathBuf {
    let path = if let Some(rest) = dir.strip_prefix("~/") {
        std::env::var_os("HOME").map_or_else(|| PathBuf::from(dir), |h| PathBuf::from(h).join(rest))
    } else {
        anchor.join(dir)
    };
    toolgate_core::normalize_path(&path)
}

/// One rule with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleEntry {
    /// The parsed rule.
    pub rule: PermissionRule,
    /// The rule as written.
    pub text: String,
    /// What it does.
    pub behavior: PermissionBehavior,
    /// Its layer.
    pub source: RuleSource,
    /// Its file or flag.
    pub origin: String,
    /// The directory `/path` specifiers are anchored at.
    pub anchor: PathBuf,
}

/// The merged permission settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionSettings {
    /// Every rule from every source (deny, ask, allow order within each file).
    pub rules: Vec<RuleEntry>,
    /// Extra working directories, made absolute.
    pub additional_directories: Vec<PathBuf>,
    /// The default mode from the highest source that sets one.
    pub default_mode: Option<PermissionMode>,
    /// Whether any source disables bypassPermissions mode.
    pub disable_bypass: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write(path: &Path, value: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, value).unwrap();
    }

    /// Programs files come from the managed folder, then the user's; a project's is ignored
    /// with a diagnostic, and a bad one is reported entry by entry.
    #[test]
    fn programs_files_come_from_the_user_and_managed_folders_only() {
        let tmp = tempfile::tempdir().unwrap();
        let (home, repo, managed) = (tmp.path().join("home"), tmp.path().join("repo"), tmp.path().join("etc"));
        let entry = |name: &str| format!(r#"{{"programs": [{{"name": "{name}", "read_only": true}}]}}"#);
        write(&managed.join(PROGRAMS_FILE), &entry("managed-tool"));
        write(&home.join(".claude").join(PROGRAMS_FILE), &entry("user-tool"));
        write(&repo.join(".claude").join(PROGRAMS_FILE), &entry("curl"));
        let discovery = SettingsDiscovery::new(&repo).with_home(Some(home.clone())).with_managed_dir(Some(managed));
        let loaded = discovery.with_trust(true).load();
        let names: Vec<&str> = loaded.programs.iter().flat_map(|t| t.entries.iter().map(|e| e.name.as_str())).collect();
        assert_eq!(names, ["managed-tool", "user-tool"]);
        let project = repo.join(".claude").join(PROGRAMS_FILE).display().to_string();
        let diagnostic =
            loaded.diagnostics.iter().find(|d| d.origin == project).expect("the project's file is reported");
        assert!(diagnostic.message.starts_with("ignored: a project cannot teach"), "{diagnostic}");
        write(&home.join(".claude").join(PROGRAMS_FILE), r#"{"programs": [{"name": "a b"}]}"#);
        let loaded = SettingsDiscovery::new(&repo).with_home(Some(home)).with_managed_dir(None).load();
        assert!(loaded.programs.is_empty());
        assert!(
            loaded.diagnostics.iter().any(|d| d.message.starts_with("programs[0].name: ")),
            "{:?}",
            loaded.diagnostics
        );
    }

    #[test]
    fn sources_merge_arrays_and_take_scalars_by_precedence() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let repo = tmp.path().join("repo");
        let managed = tmp.path().join("etc");
        write(
            &home.join(".claude/settings.json"),
            r#"{"permissions": {"allow": ["Bash(ls)"], "defaultMode": "plan", "additionalDirectories": ["~/x"]}}"#,
        );
        write(
            &repo.join(".claude/settings.json"),
            r#"{"permissions": {"deny": ["Read(./.env)"], "defaultMode": "acceptEdits"}}"#,
        );
        write(&repo.join(".claude/settings.local.json"), r#"{"permissions": {"ask": ["Bash(git push:*)"]}}"#);
        write(&managed.join("managed-settings.json"), r#"{"permissions": {"deny": ["WebFetch"]}}"#);
        write(
            &managed.join("managed-settings.d/10-extra.json"),
            r#"{"permissions": {"disableBypassPermissionsMode": "disable"}}"#,
        );
        let loaded = SettingsDiscovery::new(&repo)
            .with_home(Some(home.clone()))
            .with_managed_dir(Some(managed))
            .with_trust(true)
            .load();
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let sources: Vec<RuleSource> = loaded.files.iter().map(|f| f.source).collect();
        assert_eq!(
            sources,
            [
                RuleSource::PolicySettings,
                RuleSource::PolicySettings,
                RuleSource::LocalSettings,
                RuleSource::ProjectSettings,
                RuleSource::UserSettings
            ]
        );
        let (perms, diags) = loaded.permissions();
        assert!(diags.is_empty());
        let texts: Vec<&str> = perms.rules.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(texts, ["WebFetch", "Bash(git push:*)", "Read(./.env)", "Bash(ls)"]);
        assert_eq!(perms.default_mode, Some(PermissionMode::AcceptEdits));
        assert!(perms.disable_bypass);
        assert_eq!(perms.rules[3].anchor, home.join(".claude"));
        assert_eq!(perms.rules[2].anchor, repo);
    }

    #[test]
    fn bad_files_and_rules_are_diagnostics_naming_the_file_and_rule() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().to_path_buf();
        write(&repo.join(".claude/settings.json"), "{not json");
        write(
            &repo.join(".claude/settings.local.json"),
            r#"{"permissions": {"allow": ["Bash(ls", 7, "Read"], "deny": "Bash", "defaultMode": "yolo"}}"#,
        );
        let loaded = SettingsDiscovery::new(&repo).with_home(None).with_managed_dir(None).with_trust(true).load();
        assert_eq!(loaded.diagnostics.len(), 1);
        assert!(loaded.diagnostics[0].origin.ends_with("settings.json"));
        let (perms, diags) = loaded.permissions();
        assert_eq!(perms.rules.len(), 1, "only the good rule survives");
        assert_eq!(perms.rules[0].text, "Read");
        let messages: Vec<String> = diags.iter().map(ToString::to_string).collect();
        assert!(messages.iter().any(|m| m.contains("settings.local.json") && m.contains("'Bash(ls'")), "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("entry 7")));
        assert!(messages.iter().any(|m| m.contains("permissions.deny` must be an array")));
        assert!(messages.iter().any(|m| m.contains("unknown permission mode 'yolo'")));
    }

    #[test]
    fn cli_rules_rank_above_files_and_managed_only_ignores_the_rest() {
        let mut loaded = LoadedSettings::default();
        loaded.add(SettingsFile {
            source: RuleSource::ProjectSettings,
            origin: "p".into(),
            anchor: "/r".into(),
            value: json!({"permissions": {"allow": ["Read"]}}),
        });
        loaded.add_cli_rules(PermissionBehavior::Deny, &["Bash".to_owned()], Path::new("/r"));
        assert_eq!(loaded.files[0].origin, "--disallowedTools");
        loaded.add(SettingsFile {
            source: RuleSource::PolicySettings,
            origin: "m".into(),
            anchor: "/".into(),
            value: json!({"allowManagedPermissionRulesOnly": true, "permissions": {"deny": ["Write"]}}),
        });
        let (perms, diags) = loaded.permissions();
        assert_eq!(perms.rules.iter().map(|r| r.text.as_str()).collect::<Vec<_>>(), ["Write"]);
        assert_eq!(diags.len(), 2);
    }

    #[test]
    fn hooks_are_collected_from_every_source() {
        let mut loaded = LoadedSettings::default();
        for (source, origin) in [(RuleSource::UserSettings, "u"), (RuleSource::ProjectSettings, "p")] {
            loaded.add(SettingsFile {
                source,
                origin: origin.into(),
                anchor: "/".into(),
                value: json!({"hooks": {"PreToolUse": []}, "disableAllHooks": origin == "u"}),
            });
        }
        let (hooks, disabled) = loaded.hooks();
        assert_eq!(hooks.iter().map(|(f, _)| f.origin.as_str()).collect::<Vec<_>>(), ["p", "u"]);
        assert!(!disabled, "the project's false outranks the user's true");
    }

    #[test]
    fn sandbox_settings_merge_and_bad_values_name_the_file() {
        let mut loaded = LoadedSettings::default();
        loaded.add(SettingsFile {
            source: RuleSource::UserSettings,
            origin: "user".into(),
            anchor: "/home/u/.claude".into(),
            value: json!({"sandbox": {
                "enabled": false,
                "failIfUnavailable": true,
                "excludedCommands": ["docker"],
                "filesystem": {"allowWrite": ["/var/cache/x"]},
            }}),
        });
        loaded.add(SettingsFile {
            source: RuleSource::ProjectSettings,
            origin: "project".into(),
            anchor: "/repo".into(),
            value: json!({"sandbox": {
                "enabled": true,
                "allowUnsandboxedCommands": "no",
                "excludedCommands": ["git push", 3],
                "filesystem": {"allowWrite": ["build"]},
                "network": {"allowedDomains": ["github.com"]},
            }}),
        });
        let (policy, diags) = loaded.sandbox();
        assert!(policy.enabled, "the project's true outranks the user's false");
        assert!(policy.fail_if_unavailable);
        assert!(policy.allow_unsandboxed, "a bad value is ignored, the default stays");
        assert!(policy.network);
        assert_eq!(policy.excluded_commands, ["git push", "docker"]);
        assert_eq!(policy.allow_write, [PathBuf::from("/repo/build"), PathBuf::from("/var/cache/x")]);
        let messages: Vec<String> = diags.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages.iter().any(|m| m.starts_with("project: `sandbox.allowUnsandboxedCommands` must be true or false"))
        );
        assert!(messages.iter().any(|m| m.starts_with("project: `sandbox.excludedCommands` entry 3")));

        let mut bad = LoadedSettings::default();
        bad.add(SettingsFile {
            source: RuleSource::LocalSettings,
            origin: "local".into(),
            anchor: "/repo".into(),
            value: json!({"sandbox": {"enabled": "yes", "excludedCommands": "docker"}}),
        });
        let (policy, diags) = bad.sandbox();
        assert_eq!(policy, SandboxPolicy::default(), "nothing unusable is taken");
        assert_eq!(diags.len(), 2);
        assert!(diags.iter().all(|d| d.origin == "local"));
        bad.add(SettingsFile {
            source: RuleSource::UserSettings,
            origin: "user".into(),
            anchor: "/".into(),
            value: json!({"sandbox": ["not", "an", "object"]}),
        });
        let (_, diags) = bad.sandbox();
        assert!(diags.iter().any(|d| d.origin == "user" && d.message == "`sandbox` must be an object"));
    }

    #[test]
    fn no_sandbox_settings_is_disabled() {
        let (policy, diags) = LoadedSettings::default().sandbox();
        assert!(!policy.enabled && policy.allow_unsandboxed && policy.bwrap.is_none());
        assert!(diags.is_empty());
    }

    /// A folder nobody trusted keeps only its project settings' deny and ask rules, says so
    /// once, and gets the rest once `~/.claude.json` records trust (above it, too).
    #[test]
    fn an_untrusted_project_may_only_tighten() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let (home, repo) = (base.join("home"), base.join("home/code/repo"));
        std::fs::create_dir_all(repo.join(".claude")).unwrap();
        let project = serde_json::json!({
            "permissions": {"allow": ["Bash"], "deny": ["Read(./.env)"], "ask": ["Bash(git push:*)"],
                            "defaultMode": "bypassPermissions", "additionalDirectories": ["/"]},
            "hooks": {"PreToolUse": []}, "env": {"PATH": "/evil"}, "enableAllProjectMcpServers": true,
        });
        std::fs::write(repo.join(".claude/settings.json"), project.to_string()).unwrap();
        std::fs::write(repo.join(".claude/settings.local.json"), r#"{"permissions": {"allow": ["Edit"]}}"#).unwrap();
        let discovery = SettingsDiscovery::new(&repo).with_home(Some(home.clone())).with_managed_dir(None);
        let untrusted = discovery.load();
        assert!(!untrusted.trusted);
        let (settings, _) = untrusted.permissions();
        let texts = |settings: &PermissionSettings, behavior: PermissionBehavior| {
            settings.rules.iter().filter(|e| e.behavior == behavior).map(|e| e.text.clone()).collect::<Vec<_>>()
        };
        assert!(texts(&settings, PermissionBehavior::Allow).is_empty());
        assert_eq!(texts(&settings, PermissionBehavior::Deny), ["Read(./.env)"]);
        assert_eq!(texts(&settings, PermissionBehavior::Ask), ["Bash(git push:*)"]);
        assert_eq!(settings.default_mode, None);
        assert!(settings.additional_directories.is_empty());
        assert_eq!(untrusted.diagnostics.len(), 1, "{:?}", untrusted.diagnostics);
        let message = &untrusted.diagnostics[0].message;
        for part in [
            "permissions.allow",
            "permissions.defaultMode",
            "hooks",
            "env",
            "enableAllProjectMcpServers",
            "toolgate trust",
        ] {
            assert!(message.contains(part), "{part}: {message}");
        }
        crate::record_trust(&home.join(".claude.json"), &home.join("code"), Some(&home)).unwrap();
        let trusted = discovery.load();
        assert!(trusted.trusted && trusted.diagnostics.is_empty(), "{:?}", trusted.diagnostics);
        let (settings, _) = trusted.permissions();
        assert_eq!(texts(&settings, PermissionBehavior::Allow), ["Edit", "Bash"]);
    }
}
