//! What a connected server may ask of toolgate as its client: the session's working roots
//! (`roots/list`), and a question for the person (`elicitation/create`).
//!
//! Roots are the session's working directories as `file://` URIs. A question goes to the
//! host's [`Elicitor`] (a terminal, an MCP client of `mcp serve` …), under
//! [`ELICITATION_TIMEOUT`](crate::ELICITATION_TIMEOUT); without one, elicitation is not
//! declared, and a question asked anyway is declined, so a server never waits on a person
//! who is not there. URL elicitations (open a page) are declined: no
//! host opens pages for a server.

// Roots are deprecated by the newest MCP revision (SEP-2577), but the servers of the
// revisions that have `initialize` ask for them.
#![allow(deprecated, reason = "roots serve servers of the revisions toolgate speaks")]

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    FormElicitationCapability, ListRootsResult, Root, RootsCapabilities,
};
use serde_json::Value;
use toolgate_core::BoxFuture;

/// The person's answer to a server's question.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Elicited {
    /// The answers, an object with one value per field of the requested schema.
    Accept(Value),
    /// The person said no.
    Decline,
    /// The person dismissed the question.
    Cancel,
}

/// Who answers a server's question (`elicitation/create`) on the person's behalf: a host puts
/// one in [`ConnectOptions::elicitor`](crate::ConnectOptions).
///
/// ```
/// use serde_json::{Value, json};
/// use toolgate_core::BoxFuture;
/// use toolgate_mcp::{Elicited, Elicitor};
///
/// #[derive(Debug)]
/// struct AlwaysYes;
/// impl Elicitor for AlwaysYes {
///     fn elicit<'a>(&'a self, _server: &'a str, _message: &'a str, _schema: &'a Value) -> BoxFuture<'a, Elicited> {
///         Box::pin(async { Elicited::Accept(json!({"confirm": true})) })
///     }
/// }
/// ```
pub trait Elicitor: Send + Sync + fmt::Debug {
    /// Asks the person `message` for the fields of `schema` (a JSON Schema object whose
    /// properties are strings, numbers, booleans or enums), on behalf of `server`.
    fn elicit<'a>(&'a self, server: &'a str, message: &'a str, schema: &'a Value) -> BoxFuture<'a, Elicited>;
}

/// The capabilities toolgate declares as a client: roots, and form elicitation when someone
/// can answer (`elicits`); a server that knows nobody can be asked says what would allow its
/// call instead of asking.
pub(crate) fn capabilities(elicits: bool) -> ClientCapabilities {
    let mut capabilities = ClientCapabilities::default();
    capabilities.roots = Some(RootsCapabilities::default());
    if elicits {
        let mut elicitation = ElicitationCapability::default();
        elicitation.form = Some(FormElicitationCapability::default());
        capabilities.elicitation = Some(elicitation);
    }
    capabilities
}

/// The answer to `roots/list`: each working root as a `file://` URI named by its last part.
pub(crate) fn roots(roots: &[PathBuf]) -> ListRootsResult {
    ListRootsResult::new(roots.iter().map(|root| root_of(root)).collect())
}

fn root_of(path: &Path) -> Root {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut root = Root::new(toolgate_core::file_uri(path));
    root.name = name;
    root
}

/// The answer to `elicitation/create` from `server`: the elicitor's, declined without one.
pub(crate) async fn elicit(
    elicitor: Option<&Arc<dyn Elicitor>>,
    server: &str,
    request: ElicitRequestParams,
) -> ElicitResult {
    let (Some(elicitor), ElicitRequestParams::FormElicitationParams { message, requested_schema, .. }) =
        (elicitor, request)
    else {
        return answer(ElicitationAction::Decline, None);
    };
    let schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
    let asked = tokio::time::timeout(crate::ELICITATION_TIMEOUT, elicitor.elicit(server, &message, &schema)).await;
    match asked {
        Ok(Elicited::Accept(content)) => answer(ElicitationAction::Accept, Some(content)),
        Ok(Elicited::Decline) => answer(ElicitationAction::Decline, None),
        Ok(Elicited::Cancel) | Err(_) => answer(ElicitationAction::Cancel, None),
    }
}

fn answer(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
    let mut result = ElicitResult::new(action);
    result.content = content;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_are_file_uris_named_by_their_last_part() {
        let listed = roots(&[PathBuf::from("/work/my repo"), PathBuf::from("/tmp/ü")]);
        let uris: Vec<&str> = listed.roots.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(uris, ["file:///work/my%20repo", "file:///tmp/%C3%BC"]);
        assert_eq!(listed.roots[0].name.as_deref(), Some("my repo"));
    }

    #[tokio::test]
    async fn a_question_with_nobody_to_answer_or_a_page_to_open_is_declined() {
        let form: ElicitRequestParams = serde_json::from_value(serde_json::json!({
            "mode": "form", "message": "Name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
        }))
        .unwrap();
        assert_eq!(elicit(None, "srv", form).await.action, ElicitationAction::Decline);
        #[derive(Debug)]
        struct Yes;
        impl Elicitor for Yes {
            fn elicit<'a>(&'a self, _: &'a str, _: &'a str, _: &'a Value) -> BoxFuture<'a, Elicited> {
                Box::pin(async { Elicited::Accept(serde_json::json!({})) })
            }
        }
        let url: ElicitRequestParams = serde_json::from_value(serde_json::json!({
            "mode": "url", "message": "Log in", "url": "https://example.com", "elicitationId": "e1"
        }))
        .unwrap();
        let someone: Arc<dyn Elicitor> = Arc::new(Yes);
        assert_eq!(elicit(Some(&someone), "srv", url).await.action, ElicitationAction::Decline);
    }

    #[test]
    fn the_client_declares_roots_and_form_elicitation_when_someone_answers() {
        let declared = serde_json::to_value(capabilities(true)).unwrap();
        assert_eq!(declared["roots"], serde_json::json!({}));
        assert!(declared["elicitation"]["form"].is_object(), "{declared}");
        let nobody = serde_json::to_value(capabilities(false)).unwrap();
        assert!(nobody.get("elicitation").is_none(), "no elicitor, no elicitation: {nobody}");
    }
}
