//! What `mcp serve` offers besides tools: prompts (the host's skills and `.claude/commands`,
//! given as [`ServedPrompt`]s) and resources (the session's large results persisted under
//! `tool-results/`, so a client reads them without the Read tool).
//!
//! Answers are built as the protocol's JSON and read into rmcp's types, so the shapes on the
//! wire are the specification's.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{GetPromptResult, ListPromptsResult, ListResourcesResult, ReadResourceResult};
use serde_json::{Value, json};

/// Renders a prompt's text from its `arguments` argument (absent when the client gave none).
pub type RenderPrompt = Arc<dyn Fn(Option<&str>) -> Result<String, String> + Send + Sync>;

/// A prompt `mcp serve` offers, rendered when a client asks for it.
///
/// ```
/// use std::sync::Arc;
/// use toolgate_mcp::ServedPrompt;
/// let review = ServedPrompt::new("review", "Review a change", Arc::new(|args: Option<&str>| {
///     Ok(format!("Review {}", args.unwrap_or("the staged change")))
/// }));
/// assert_eq!(review.name, "review");
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct ServedPrompt {
    /// The name clients ask for it by.
    pub name: String,
    /// What it is for.
    pub description: String,
    render: RenderPrompt,
}

impl ServedPrompt {
    /// A prompt named `name`, its text made by `render`.
    pub fn new(name: impl Into<String>, description: impl Into<String>, render: RenderPrompt) -> Self {
        Self { name: name.into(), description: description.into(), render }
    }
}

impl fmt::Debug for ServedPrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServedPrompt").field("name", &self.name).finish_non_exhaustive()
    }
}

/// `prompts/list`: every prompt, each taking one optional `arguments` string.
pub(crate) fn list_prompts(prompts: &[ServedPrompt]) -> Result<ListPromptsResult, ErrorData> {
    let listed: Vec<Value> = prompts
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "description": p.description,
                "arguments": [{"name": "arguments", "description": "What the prompt is about ($ARGUMENTS)", "required": false}],
            })
        })
        .collect();
    from_json(json!({ "prompts": listed }))
}

/// `prompts/get`: the prompt's text as one user message.
pub(crate) fn get_prompt(
    prompts: &[ServedPrompt],
    name: &str,
    arguments: Option<&serde_json::Map<String, Value>>,
) -> Result<GetPromptResult, ErrorData> {
    let Some(prompt) = prompts.iter().find(|p| p.name == name) else {
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        let known =
            if names.is_empty() { "there are none".to_owned() } else { format!("they are {}", names.join(", ")) };
        return Err(ErrorData::invalid_params(format!("no prompt named {name:?}: {known}"), None));
    };
    let args = arguments.and_then(|a| a.get("arguments")).and_then(Value::as_str);
    let text = (prompt.render)(args)
        .map_err(|e| ErrorData::internal_error(format!("the prompt {name:?} could not be read: {e}"), None))?;
    from_json(json!({
        "description": prompt.description,
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
    }))
}

/// `resources/list`: the files of the session's `tool-results` folder, newest first.
pub(crate) fn list_results(dir: &Path) -> Result<ListResourcesResult, ErrorData> {
    let mut files: Vec<(std::time::SystemTime, Value)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let meta = entry.metadata().ok().filter(std::fs::Metadata::is_file)?;
            let path = entry.path();
            let name = path.file_name()?.to_string_lossy().into_owned();
            let resource = json!({
                "uri": toolgate_core::file_uri(&path),
                "name": name,
                "description": "The full output of a tool call, saved because it was too large to return whole",
                "mimeType": "text/plain",
                "size": meta.len(),
            });
            Some((meta.modified().unwrap_or(std::time::UNIX_EPOCH), resource))
        })
        .collect();
    files.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    from_json(json!({ "resources": files.into_iter().map(|(_, r)| r).collect::<Vec<_>>() }))
}

/// `resources/read`: a file of the session's `tool-results` folder; any other URI is not one of
/// this server's resources.
pub(crate) fn read_result(dir: &Path, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let not_found = || {
        ErrorData::resource_not_found(
            format!("{uri} is not a resource of this server: resources/list names the saved tool results"),
            None,
        )
    };
    let path = toolgate_core::uri_path(uri).ok_or_else(not_found)?;
    // Only a file directly in the folder, by its real path: no `..`, no link out of it.
    let inside = path.parent().and_then(|p| p.canonicalize().ok()) == dir.canonicalize().ok()
        && path.symlink_metadata().is_ok_and(|m| m.is_file());
    if !inside {
        return Err(not_found());
    }
    let text = std::fs::read_to_string(&path).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    from_json(json!({"contents": [{"uri": uri, "mimeType": "text/plain", "text": text}]}))
}

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_results_are_listed_and_read_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("tool-results");
        std::fs::create_dir(&results).unwrap();
        std::fs::write(results.join("toolu 1.txt"), "big output").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
        let listed = serde_json::to_value(list_results(&results).unwrap()).unwrap();
        let uri = listed["resources"][0]["uri"].as_str().unwrap().to_owned();
        assert!(uri.ends_with("/tool-results/toolu%201.txt"), "{uri}");
        let read = serde_json::to_value(read_result(&results, &uri).unwrap()).unwrap();
        assert_eq!(read["contents"][0]["text"], "big output");
        let outside = format!("file://{}/tool-results/../secret.txt", dir.path().display());
        assert!(read_result(&results, &outside).is_err());
        assert!(read_result(&results, "https://example.com/x").is_err());
        assert!(list_results(&dir.path().join("none")).is_ok(), "no folder yet: no resources");
    }

    #[test]
    fn prompts_render_their_arguments() {
        let prompts = [ServedPrompt::new(
            "fix",
            "Fix an issue",
            Arc::new(|a: Option<&str>| Ok(format!("fix {}", a.unwrap_or("?")))),
        )];
        let listed = serde_json::to_value(list_prompts(&prompts).unwrap()).unwrap();
        assert_eq!(listed["prompts"][0]["arguments"][0]["name"], "arguments");
        let args = json!({"arguments": "#12"});
        let got = serde_json::to_value(get_prompt(&prompts, "fix", args.as_object()).unwrap()).unwrap();
        assert_eq!(got["messages"][0]["content"]["text"], "fix #12");
        let err = get_prompt(&prompts, "nope", None).unwrap_err();
        assert!(err.message.contains("they are fix"), "{}", err.message);
    }
}
