//! `type: "http"` handlers: the event JSON is POSTed to a URL, and the response body is
//! read as a command hook's stdout. Non-2xx statuses, connection failures and timeouts
//! are non-blocking errors; an HTTP hook blocks only through a JSON body.

use std::sync::OnceLock;
use std::time::Duration;

use regex::{Captures, Regex};
use toolgate_core::CancellationToken;

use crate::config::HttpHook;
use crate::outcome::HookResponse;

/// Replaces `$VAR` and `${VAR}` in a header value: by the variable's value when `VAR` is
/// listed in `allowed` (and set), by nothing otherwise.
#[cfg_attr(not(feature = "http"), allow(dead_code, reason = "only http requests carry headers"))]
pub(crate) fn interpolate(value: &str, allowed: &[String], lookup: impl Fn(&str) -> Option<String>) -> String {
    static VAR: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(re) = VAR.get_or_init(|| Regex::new(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)").ok())
    else {
        return value.to_owned();
    };
    re.replace_all(value, |caps: &Captures<'_>| {
        let name = caps.get(1).or_else(|| caps.get(2)).map_or("", |m| m.as_str());
        if allowed.iter().any(|a| a == name) { lookup(name).unwrap_or_default() } else { String::new() }
    })
    .into_owned()
}

/// The client http handlers are POSTed through, built on first use. Without the `http`
/// feature every http handler is a non-blocking error that says so.
#[derive(Debug, Default)]
pub(crate) struct HttpClient {
    #[cfg(feature = "http")]
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl HttpClient {
    /// POSTs `body` to the hook's URL and reads at most `cap` bytes of the response.
    pub(crate) async fn post(
        &self,
        hook: &HttpHook,
        body: Vec<u8>,
        timeout: Duration,
        cap: usize,
        cancel: &CancellationToken,
    ) -> HookResponse {
        #[cfg(feature = "http")]
        {
            let client = self.client.get_or_init(|| {
                toolgate_core::http::client_builder()
                    .build()
                    .map_err(|e| format!("could not set up the http client: {e}"))
            });
            match client {
                Ok(client) => post(client, hook, body, timeout, cap, cancel).await,
                Err(message) => HookResponse::Error { message: message.clone() },
            }
        }
        #[cfg(not(feature = "http"))]
        {
            let _ = (body, timeout, cap, cancel);
            HookResponse::Error {
                message: format!(
                    "the http hook for {} did not run: this build of toolgate-hooks has no `http` feature \
                     (an HTTP client); build with it, or use a command hook that runs curl",
                    hook.url
                ),
            }
        }
    }
}

/// POSTs `body` to the hook's URL and reads at most `cap` bytes of the response.
#[cfg(feature = "http")]
async fn post(
    client: &reqwest::Client,
    hook: &HttpHook,
    body: Vec<u8>,
    timeout: Duration,
    cap: usize,
    cancel: &CancellationToken,
) -> HookResponse {
    let mut request = client.post(&hook.url).header("content-type", "application/json").body(body);
    for (name, value) in &hook.headers {
        let value = interpolate(value, &hook.allowed_env_vars, |n| std::env::var(n).ok());
        request = request.header(name.as_str(), value);
    }
    let exchange = async {
        let response = request.send().await.map_err(|e| format!("request failed: {}", error_chain(&e)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("status {status}"));
        }
        read_capped(response, cap).await
    };
    match cancel.run_until_cancelled(tokio::time::timeout(timeout, exchange)).await {
        None => HookResponse::Cancelled,
        Some(Err(_)) => HookResponse::TimedOut { after: timeout },
        Some(Ok(Err(message))) => HookResponse::Error { message },
        Some(Ok(Ok((stdout, truncated)))) => HookResponse::Success { stdout, truncated },
    }
}

#[cfg(feature = "http")]
async fn read_capped(mut response: reqwest::Response, cap: usize) -> Result<(String, bool), String> {
    let mut body = Vec::new();
    let mut truncated = false;
    while let Some(chunk) = response.chunk().await.map_err(|e| format!("reading the response failed: {e}"))? {
        let room = cap.saturating_sub(body.len());
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            truncated = true;
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok((String::from_utf8_lossy(&body).into_owned(), truncated))
}

/// The error and its causes, `: `-separated (reqwest's own message is terse).
#[cfg(feature = "http")]
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_variables_are_interpolated() {
        let allowed = vec!["TOKEN".to_owned()];
        let lookup = |n: &str| match n {
            "TOKEN" => Some("s3cret".to_owned()),
            "SECRET" => Some("leak".to_owned()),
            _ => None,
        };
        assert_eq!(interpolate("Bearer $TOKEN", &allowed, lookup), "Bearer s3cret");
        assert_eq!(interpolate("Bearer ${TOKEN}!", &allowed, lookup), "Bearer s3cret!");
        assert_eq!(interpolate("x $SECRET y", &allowed, lookup), "x  y");
        assert_eq!(interpolate("$MISSING", &["MISSING".to_owned()], lookup), "");
        assert_eq!(interpolate("plain $ 5", &allowed, lookup), "plain $ 5");
    }
}
