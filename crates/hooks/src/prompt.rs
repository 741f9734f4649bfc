//! `type: "prompt"` handlers: the hook's prompt, with `$ARGUMENTS` replaced by the event input
//! (or the input appended), goes to a model through the Messages API; the answer is read as
//! `{"ok": true}` (nothing to say) or `{"ok": false, "reason": …}` (a block with the reason, as
//! exit code 2 is). No model configured is a non-blocking error, reported once; an answer that
//! is not such an object is a non-blocking error naming what came back.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use toolgate_core::{BoxFuture, CancellationToken};

use crate::config::PromptHook;
use crate::outcome::HookResponse;

/// How long a prompt hook waits for its model unless it says otherwise: 30 seconds.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long an agent hook waits for its subagent unless it says otherwise: 60 seconds.
pub(crate) const AGENT_TIMEOUT: Duration = Duration::from_secs(60);

/// How a host runs a subagent for `type: "agent"` hooks (the CLI: the Agent tool's runner).
///
/// ```
/// use toolgate_core::BoxFuture;
/// use toolgate_hooks::HookAgent;
///
/// #[derive(Debug)]
/// struct Agreeable;
/// impl HookAgent for Agreeable {
///     fn ask<'a>(&'a self, _prompt: String, _model: Option<String>) -> BoxFuture<'a, Result<String, String>> {
///         Box::pin(async { Ok("{\"ok\": true}".to_owned()) })
///     }
/// }
/// ```
pub trait HookAgent: Send + Sync + std::fmt::Debug {
    /// Runs a subagent on `prompt` (with `model`, when the hook names one) to its final text.
    fn ask<'a>(&'a self, prompt: String, model: Option<String>) -> BoxFuture<'a, Result<String, String>>;
}

/// Runs an agent hook: the subagent gets the instruction, the step and how to answer; its final
/// text is read as the prompt hook's answer.
pub(crate) async fn ask_agent(
    agent: Option<&dyn HookAgent>,
    hook: &PromptHook,
    body: &[u8],
    timeout: Duration,
    cancel: &CancellationToken,
) -> HookResponse {
    let Some(agent) = agent else {
        return HookResponse::Error {
            message: "the agent hook did not run: this host runs no subagents for hooks (set TOOLGATE_AGENT_COMMAND)"
                .to_owned(),
        };
    };
    let prompt = format!("{ANSWER_FORM}\n\n{}", question(&hook.prompt, &String::from_utf8_lossy(body)));
    crate::outcome::bounded(timeout, cancel, agent.ask(prompt, hook.model.clone()), |a| verdict(&a)).await
}

/// How a subagent is told to answer.
const ANSWER_FORM: &str = "You check one step of a coding agent for its user, as a hook: the instruction and the \
step (JSON) follow. Look into what you need, then end with a JSON object only: {\"ok\": true} when the step may \
go on, or {\"ok\": false, \"reason\": \"...\"} when it must not, the reason addressed to the agent.";

/// What the model is told it is doing.
#[cfg(feature = "http")]
const SYSTEM: &str = "You check one step of a coding agent for its user, as a hook. The user's instruction \
and the step (JSON) follow. Answer with a JSON object only: {\"ok\": true} when the step may go on, or \
{\"ok\": false, \"reason\": \"...\"} when it must not, the reason addressed to the agent.";

/// How long the prompt hooks' HTTP client lets a request run: past any hook's timeout (each
/// hook's own bounds its request).
#[cfg(feature = "http")]
const CLIENT_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// Where prompt hooks ask: a client for the model's endpoint, made once (`None`: no model).
#[derive(Debug, Default)]
pub(crate) struct PromptAsker {
    #[cfg(feature = "http")]
    client: std::sync::OnceLock<Option<Result<toolgate_permissions::MessagesClient, String>>>,
    /// Whether "no model" was reported already.
    reported: AtomicBool,
}

impl PromptAsker {
    /// An asker for `model` (`None`: no model).
    #[cfg(feature = "http")]
    pub(crate) fn with(model: Option<toolgate_permissions::LlmClassifierConfig>) -> Self {
        Self { client: std::sync::OnceLock::from(model.map(client_for)), reported: AtomicBool::new(false) }
    }

    /// Asks the model about the event `body` (its input JSON).
    pub(crate) async fn ask(
        &self,
        hook: &PromptHook,
        body: &[u8],
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> HookResponse {
        #[cfg(feature = "http")]
        {
            let client =
                self.client.get_or_init(|| toolgate_permissions::LlmClassifierConfig::from_env().map(client_for));
            let client = match client {
                None => return self.once("prompt hooks need a model: set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for another endpoint); this hook did not run"),
                Some(Err(message)) => return HookResponse::Error { message: message.clone() },
                Some(Ok(client)) => client,
            };
            let model = hook.model.as_deref().unwrap_or(&client.config().model);
            let user = question(&hook.prompt, &String::from_utf8_lossy(body));
            let answer = client.complete_with(model, SYSTEM, &user, 512);
            crate::outcome::bounded(timeout, cancel, answer, |a| verdict(&a)).await
        }
        #[cfg(not(feature = "http"))]
        {
            let _ = (hook, body, timeout, cancel);
            self.once(
                "prompt hooks did not run: this build of toolgate-hooks has no `http` feature (a Messages API client)",
            )
        }
    }

    /// A non-blocking error the first time, nothing after.
    fn once(&self, message: &str) -> HookResponse {
        if self.reported.swap(true, Ordering::Relaxed) {
            HookResponse::Success { stdout: String::new(), truncated: false }
        } else {
            HookResponse::Error { message: message.to_owned() }
        }
    }
}

/// The client prompt hooks ask through, for `config`'s endpoint.
#[cfg(feature = "http")]
fn client_for(
    mut config: toolgate_permissions::LlmClassifierConfig,
) -> Result<toolgate_permissions::MessagesClient, String> {
    config.timeout = CLIENT_TIMEOUT;
    toolgate_permissions::MessagesClient::new(config)
}

/// The user message: the prompt with `$ARGUMENTS` replaced by the input, or the input after it.
fn question(prompt: &str, input: &str) -> String {
    if prompt.contains("$ARGUMENTS") { prompt.replace("$ARGUMENTS", input) } else { format!("{prompt}\n\n{input}") }
}

/// The model's (or subagent's) answer as a hook response.
fn verdict(answer: &str) -> HookResponse {
    let object = answer.find('{').zip(answer.rfind('}')).and_then(|(start, end)| answer.get(start..=end));
    let parsed: Option<serde_json::Value> = object.and_then(|o| serde_json::from_str(o).ok());
    match parsed.as_ref().and_then(|v| v.get("ok")).and_then(serde_json::Value::as_bool) {
        Some(true) => HookResponse::Success { stdout: String::new(), truncated: false },
        Some(false) => {
            let reason = parsed
                .as_ref()
                .and_then(|v| v.get("reason"))
                .and_then(serde_json::Value::as_str)
                .filter(|r| !r.trim().is_empty())
                .unwrap_or("a prompt hook said no, without a reason");
            HookResponse::Block { stderr: reason.to_owned(), stdout: String::new() }
        }
        None => {
            let shown: String = answer.chars().take(200).collect();
            HookResponse::Error { message: format!("the model's answer is not {{\"ok\": …}}: {shown}") }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_as_ok_or_a_block_with_its_reason() {
        assert!(matches!(verdict("{\"ok\": true}"), HookResponse::Success { .. }));
        let said = verdict("Sure. {\"ok\": false, \"reason\": \"tests first\"}");
        assert!(matches!(&said, HookResponse::Block { stderr, .. } if stderr == "tests first"), "{said:?}");
        assert!(matches!(verdict("no idea"), HookResponse::Error { message } if message.contains("no idea")));
        assert_eq!(question("check $ARGUMENTS now", "{}"), "check {} now");
        assert_eq!(question("check it", "{}"), "check it\n\n{}");
    }
}
