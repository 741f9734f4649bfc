//! Classifiers: a layer that may settle what rules and the static analysis leave open.

use std::path::PathBuf;

use serde_json::Value;
use toolgate_core::BoxFuture;

/// What a classifier is shown of a call.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassifierRequest {
    /// The tool.
    pub tool_name: String,
    /// The normalized input.
    pub input: Value,
    /// The tool's classifier rendering of the call.
    pub summary: String,
    /// The working directory.
    pub cwd: PathBuf,
}

/// A classifier's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClassifierVerdict {
    /// Safe to run.
    Allow {
        /// Why.
        reason: String,
    },
    /// Must not run.
    Deny {
        /// Why.
        reason: String,
    },
    /// No opinion (also on timeouts and errors): the call goes on to the person.
    Unsure {
        /// Why.
        reason: String,
    },
}

/// A classifier layer.
pub trait Classifier: Send + Sync {
    /// Its name, recorded in decisions.
    fn name(&self) -> &str;
    /// Its verdict.
    fn classify<'a>(&'a self, request: &'a ClassifierRequest) -> BoxFuture<'a, ClassifierVerdict>;
}

/// The static Bash classifier as a [`Classifier`]: allows provably read-only commands,
/// has no opinion on anything else.
///
/// ```
/// use toolgate_permissions::{Classifier, ClassifierRequest, ClassifierVerdict, StaticBashClassifier};
/// let req = |c: &str| ClassifierRequest {
///     tool_name: "Bash".into(),
///     input: serde_json::json!({"command": c}),
///     summary: c.into(),
///     cwd: "/".into(),
/// };
/// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// assert!(matches!(rt.block_on(StaticBashClassifier.classify(&req("ls -la"))), ClassifierVerdict::Allow { .. }));
/// assert!(matches!(rt.block_on(StaticBashClassifier.classify(&req("rm x"))), ClassifierVerdict::Unsure { .. }));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct StaticBashClassifier;

impl Classifier for StaticBashClassifier {
    fn name(&self) -> &str {
        "static-bash"
    }

    fn classify<'a>(&'a self, request: &'a ClassifierRequest) -> BoxFuture<'a, ClassifierVerdict> {
        let verdict = match request.input.get("command").and_then(Value::as_str) {
            Some(command) if request.tool_name == "Bash" => {
                if toolgate_shell::is_read_only(&toolgate_shell::analyze_shared(command)) {
                    ClassifierVerdict::Allow { reason: "read-only command".to_owned() }
                } else {
                    ClassifierVerdict::Unsure { reason: "not provably read-only".to_owned() }
                }
            }
            _ => ClassifierVerdict::Unsure { reason: "only Bash commands are classified".to_owned() },
        };
        Box::pin(std::future::ready(verdict))
    }
}
