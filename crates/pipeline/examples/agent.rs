//! A complete coding agent on toolgate, as a library user writes one.
//!
//! ```sh
//! ANTHROPIC_API_KEY=… cargo run -p toolgate-pipeline --example agent -- "what does this repo do?"
//! ```
//!
//! It sends the tool pool's definitions (deferred tools marked `defer_loading`, reached
//! through ToolSearch), streams the model's answer, starts each concurrency-safe call as soon
//! as its block is complete (while later blocks still stream), runs the rest once the message
//! has ended, ends the message (PostToolBatch hooks see all its calls, once), sends every
//! result back and repeats until the model stops. Settings, rules and hooks are read from the
//! working directory as Claude Code reads them; with no person to ask, a call that needs
//! approval comes back as an error the model can work around.
//! `ANTHROPIC_BASE_URL` (default `https://api.anthropic.com`) and `ANTHROPIC_MODEL` choose
//! the server and model.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::task::JoinHandle;
use toolgate_core::{CancellationToken, DefinitionFormat};
use toolgate_pipeline::{Session, ToolCall, ToolResultBlock, anthropic_user_message};

/// A model endpoint and the session its tool calls run in.
pub struct Agent {
    /// The HTTP client requests go through.
    pub http: reqwest::Client,
    /// The Messages API's origin (`/v1/messages` is appended).
    pub base_url: String,
    /// Sent as `x-api-key`.
    pub api_key: String,
    /// The model asked.
    pub model: String,
    /// Where the tool calls run: the pool, settings, rules and hooks.
    pub session: Session,
}

/// One streamed assistant turn: its content blocks, why it stopped, its calls in order, and
/// the runs of the first calls, started early.
struct Turn {
    content: Vec<Value>,
    stop_reason: String,
    calls: Vec<ToolCall>,
    started: Vec<JoinHandle<Vec<ToolResultBlock>>>,
}

impl Agent {
    /// Runs `prompt` to the model's last word; returns its final text.
    pub async fn run(&self, prompt: &str) -> Result<String, String> {
        let mut messages = vec![json!({"role": "user", "content": prompt})];
        loop {
            let turn = self.stream_turn(&messages).await?;
            messages.push(json!({"role": "assistant", "content": turn.content}));
            if turn.stop_reason != "tool_use" || turn.calls.is_empty() {
                let text = turn.content.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>();
                return Ok(text.join(""));
            }
            // One result per call, in the order of the calls: the early ones, then the rest.
            let (early, mut results) = (turn.started.len(), Vec::new());
            for handle in turn.started {
                results.extend(handle.await.map_err(|e| e.to_string())?);
            }
            let rest = turn.calls[early..].to_vec();
            results.extend(self.session.run_calls_with(rest, CancellationToken::new(), None).await);
            self.session.finish_message(&turn.calls, &mut results, None).await;
            messages.push(anthropic_user_message(&results));
        }
    }

    /// Sends the conversation and reads the streamed answer, starting safe calls early.
    async fn stream_turn(&self, messages: &[Value]) -> Result<Turn, String> {
        let tools: Value = serde_json::from_str(self.session.pool().definitions_json(DefinitionFormat::Anthropic))
            .map_err(|e| e.to_string())?;
        let body =
            json!({"model": self.model, "max_tokens": 8192, "stream": true, "messages": messages, "tools": tools});
        let mut response = self
            .http
            .post(format!("{}/v1/messages", self.base_url.trim_end_matches('/')))
            .header("x-api-key", &self.api_key)
            .header("anthropic-version", "2023-06-01")
            .json(&body)
            .send()
            .await
            .map_err(|e| format!("the request failed: {e}"))?;
        if !response.status().is_success() {
            let status = response.status();
            return Err(format!("the API answered {status}: {}", response.text().await.unwrap_or_default()));
        }
        let mut turn = Turn { content: Vec::new(), stop_reason: String::new(), calls: Vec::new(), started: Vec::new() };
        let (mut buffer, mut partial_json) = (Vec::<u8>::new(), String::new());
        while let Some(chunk) = response.chunk().await.map_err(|e| format!("the stream broke: {e}"))? {
            buffer.extend_from_slice(&chunk);
            // Server-sent events end with a blank line; each carries one `data:` JSON line.
            while let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = buffer.drain(..end + 2).collect();
                let text = String::from_utf8_lossy(&event);
                for data in text.lines().filter_map(|l| l.strip_prefix("data:")) {
                    let event: Value = serde_json::from_str(data.trim()).map_err(|e| e.to_string())?;
                    self.on_event(&event, &mut turn, &mut partial_json)?;
                }
            }
        }
        Ok(turn)
    }

    /// Applies one stream event to the turn.
    fn on_event(&self, event: &Value, turn: &mut Turn, partial_json: &mut String) -> Result<(), String> {
        match event["type"].as_str().unwrap_or_default() {
            "content_block_start" => {
                turn.content.push(event["content_block"].clone());
                partial_json.clear();
            }
            "content_block_delta" => {
                let (delta, last) = (&event["delta"], turn.content.len().saturating_sub(1));
                if let (Some(text), Some(block)) = (delta["text"].as_str(), turn.content.get_mut(last)) {
                    block["text"] = json!(format!("{}{text}", block["text"].as_str().unwrap_or_default()));
                }
                partial_json.push_str(delta["partial_json"].as_str().unwrap_or_default());
            }
            "content_block_stop" => {
                let at = turn.content.len().saturating_sub(1);
                let Some(block) = turn.content.get_mut(at).filter(|b| b["type"] == "tool_use") else { return Ok(()) };
                let input: Value =
                    if partial_json.is_empty() { Ok(json!({})) } else { serde_json::from_str(partial_json) }
                        .map_err(|e| format!("the model sent a malformed tool input: {e}"))?;
                block["input"] = input.clone();
                let id = block["id"].as_str().unwrap_or_default();
                let call = ToolCall::new(id, block["name"].as_str().unwrap_or_default(), input);
                // A concurrency-safe call with only started calls before it may start now.
                let pool = self.session.pool();
                let safe = pool.get(&call.name).is_some_and(|tool| tool.is_concurrency_safe(&call.input));
                if safe && turn.started.len() == turn.calls.len() {
                    let (session, early) = (self.session.clone(), vec![call.clone()]);
                    let run = async move { session.run_calls_with(early, CancellationToken::new(), None).await };
                    turn.started.push(tokio::spawn(run));
                }
                turn.calls.push(call);
            }
            "message_delta" => turn.stop_reason = event["delta"]["stop_reason"].as_str().unwrap_or_default().to_owned(),
            "error" => return Err(format!("the API reported an error: {}", event["error"])),
            _ => {}
        }
        Ok(())
    }
}

/// The agent for the current directory, configured from the environment.
pub fn agent_from_env() -> Result<Agent, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let api_key = std::env::var("ANTHROPIC_API_KEY").map_err(|_| "set ANTHROPIC_API_KEY".to_owned())?;
    let env_or = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.to_owned());
    let session = Session::builder().builtin_tools(toolgate_builtin::all_builtin_tools()).discover(&cwd).build();
    Ok(Agent {
        http: toolgate_core::http::client_builder()
            .timeout(Duration::from_secs(600))
            .build()
            .map_err(|e| e.to_string())?,
        base_url: env_or("ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
        api_key,
        model: env_or("ANTHROPIC_MODEL", "claude-sonnet-4-5"),
        session,
    })
}

#[allow(dead_code, reason = "the test drives the agent without this entry point")]
#[tokio::main]
async fn main() -> std::process::ExitCode {
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let answer = match agent_from_env() {
        Ok(agent) if !prompt.is_empty() => agent.run(&prompt).await,
        Ok(_) => Err("usage: agent PROMPT".to_owned()),
        Err(e) => Err(e),
    };
    match answer {
        Ok(text) => {
            println!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("agent: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
