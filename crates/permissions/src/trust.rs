//! Workspace trust, recorded where Claude Code records it: `~/.claude.json` (or
//! `$CLAUDE_CONFIG_DIR/.claude.json`), `projects["<absolute folder>"].hasTrustDialogAccepted`.
//!
//! A folder is trusted when it or a folder above it has the flag. Until then its project
//! settings may only tighten ([`crate::SettingsDiscovery::load`] keeps their deny and ask
//! rules and drops the rest) and its `.mcp.json` servers are not started.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Where Claude Code keeps its per-user state, trust records included: `$CLAUDE_CONFIG_DIR/
/// .claude.json` when that variable is set, else `.claude.json` in `home`.
///
/// ```
/// use std::path::Path;
/// # if std::env::var_os("CLAUDE_CONFIG_DIR").is_none() {
/// let path = toolgate_permissions::claude_json_path(Some(Path::new("/home/u")));
/// assert_eq!(path.as_deref(), Some(Path::new("/home/u/.claude.json")));
/// # }
/// ```
pub fn claude_json_path(home: Option<&Path>) -> Option<PathBuf> {
    match std::env::var_os("CLAUDE_CONFIG_DIR") {
        Some(dir) => Some(PathBuf::from(dir).join(".claude.json")),
        None => home.map(|home| home.join(".claude.json")),
    }
}

/// The folder whose trust record covers `dir` (`dir` itself or a folder above it), read from
/// `claude_json`; `None` when no record does, or the file is missing or not JSON.
///
/// ```
/// let tmp = tempfile::tempdir().unwrap();
/// let project = tmp.path().canonicalize().unwrap();
/// let record = project.join(".claude.json");
/// let projects = serde_json::json!({project.display().to_string(): {"hasTrustDialogAccepted": true}});
/// std::fs::write(&record, serde_json::json!({"projects": projects}).to_string()).unwrap();
/// std::fs::create_dir(project.join("sub")).unwrap();
/// assert_eq!(toolgate_permissions::trusted_by(&record, &project.join("sub")), Some(project.clone()));
/// assert_eq!(toolgate_permissions::trusted_by(&record, tmp.path().parent().unwrap()), None);
/// ```
pub fn trusted_by(claude_json: &Path, dir: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(claude_json).ok()?;
    let doc: Value = serde_json::from_str(&text).ok()?;
    let projects = doc.get("projects")?.as_object()?;
    let real = dir.canonicalize().unwrap_or_else(|_| toolgate_core::normalize_path(dir));
    let mut forms = vec![real];
    if forms[0] != dir {
        forms.push(dir.to_path_buf());
    }
    forms.into_iter().find_map(|form| {
        form.ancestors().find_map(|folder| {
            let record = projects.get(folder.to_str()?)?;
            (record.get("hasTrustDialogAccepted") == Some(&Value::Bool(true))).then(|| folder.to_path_buf())
        })
    })
}

/// Records trust for `dir` (its real path) in `claude_json`, keeping everything else the
/// file holds. The file system's root and `home` itself are refused: trusting them would
/// trust every project below.
///
/// # Errors
/// `dir` is the root or `home`, it does not exist, or the file is not a JSON object or cannot
/// be written.
pub fn record_trust(claude_json: &Path, dir: &Path, home: Option<&Path>) -> std::io::Result<PathBuf> {
    let real = dir.canonicalize()?;
    let is_home = home.and_then(|h| h.canonicalize().ok()).is_some_and(|h| h == real);
    if real.parent().is_none() || is_home {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} holds every project below it: trust a project folder instead", real.display()),
        ));
    }
    let key = real.display().to_string();
    crate::update_settings_file(claude_json, |root| {
        let projects = root.entry("projects").or_insert_with(|| Value::Object(Default::default()));
        let Some(projects) = projects.as_object_mut() else {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "`projects` is not an object"));
        };
        let record = projects.entry(key).or_insert_with(|| Value::Object(Default::default()));
        let Some(record) = record.as_object_mut() else {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "the project's record is not an object"));
        };
        record.insert("hasTrustDialogAccepted".into(), Value::Bool(true));
        Ok(())
    })?;
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recording_trust_keeps_the_rest_and_is_found_from_below() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let home = base.join("home");
        let project = home.join("code/p");
        std::fs::create_dir_all(project.join("src")).unwrap();
        let record = home.join(".claude.json");
        std::fs::write(&record, r#"{"numStartups": 3, "projects": {"/elsewhere": {"x": 1}}}"#).unwrap();
        assert_eq!(trusted_by(&record, &project), None);
        assert_eq!(record_trust(&record, &project, Some(&home)).unwrap(), project);
        assert_eq!(trusted_by(&record, &project.join("src")), Some(project.clone()));
        assert_eq!(trusted_by(&record, &home.join("code")), None, "trust covers the folder and below only");
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
        assert_eq!(doc["numStartups"], 3);
        assert_eq!(doc["projects"]["/elsewhere"]["x"], 1);
        assert!(record_trust(&record, &home, Some(&home)).is_err(), "the home folder is refused");
        assert!(record_trust(&record, Path::new("/"), Some(&home)).is_err(), "the root is refused");
    }

    #[test]
    fn a_record_that_is_not_true_trusts_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().canonicalize().unwrap();
        let record = dir.join(".claude.json");
        let key = dir.display().to_string();
        for value in [serde_json::json!(false), serde_json::json!("true"), serde_json::json!(null)] {
            let doc = serde_json::json!({"projects": {key.clone(): {"hasTrustDialogAccepted": value}}});
            std::fs::write(&record, doc.to_string()).unwrap();
            assert_eq!(trusted_by(&record, &dir), None, "{value}");
        }
        std::fs::write(&record, "not json").unwrap();
        assert_eq!(trusted_by(&record, &dir), None);
    }
}
