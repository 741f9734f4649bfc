//! The request: URL checks and the https upgrade, redirects followed by hand (same host
//! only, every hop checked), and the body read in chunks under the size cap.

use reqwest::header::{ACCEPT, LOCATION};
use reqwest::{StatusCode, Url};
use toolgate_core::ToolError;

use super::address::{AddressPolicy, BlockedAddress, GuardedResolver, find_blocked};

/// How many same-host redirects one fetch follows.
const MAX_REDIRECTS: usize = 10;

/// The longest URL accepted, in characters.
pub(crate) const MAX_URL_CHARS: usize = 2000;

/// What a fetch ends in.
#[derive(Debug)]
pub(crate) enum Fetched {
    /// A response with its body.
    Body(RawPage),
    /// A redirect to another host, reported instead of followed.
    Redirect {
        /// The URL that answered with the redirect.
        from: Url,
        /// Where it points.
        to: Url,
        /// The redirect status.
        status: StatusCode,
    },
}

/// A response before conversion.
#[derive(Debug)]
pub(crate) struct RawPage {
    pub url: Url,
    pub status: StatusCode,
    pub content_type: String,
    pub body: Vec<u8>,
}

/// Parses the model's URL and checks it: http or https, a host, no credentials, not too
/// long, and no IP-literal host the policy refuses. `http` becomes `https`, except for
/// non-public hosts the policy allows (a local test server has no certificate).
pub(crate) fn parse_url(raw: &str, policy: AddressPolicy) -> Result<Url, ToolError> {
    let raw = raw.trim();
    if raw.chars().count() > MAX_URL_CHARS {
        return Err(ToolError::invalid_input(format!("the url is longer than {MAX_URL_CHARS} characters"))
            .with_hint("fetch a shorter URL, e.g. without tracking parameters"));
    }
    let url = Url::parse(raw).map_err(|e| {
        ToolError::invalid_input(format!("'{raw}' is not a valid URL ({e})"))
            .with_hint("give a complete URL with its scheme, e.g. https://example.com/docs/page")
    })?;
    let mut url = check_url(url, policy)?;
    if url.scheme() == "http" && !keeps_http(&url, policy) {
        // Cannot fail: http and https are both special schemes.
        let _ = url.set_scheme("https");
    }
    Ok(url)
}

/// The checks every URL passes, the model's and every redirect target.
fn check_url(url: Url, policy: AddressPolicy) -> Result<Url, ToolError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ToolError::invalid_input(format!(
            "WebFetch fetches http and https URLs; '{}:' is not supported",
            url.scheme()
        ))
        .with_hint("use an https:// URL; read local files with Read"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(ToolError::invalid_input(format!("'{url}' has no host"))
            .with_hint("give a complete URL, e.g. https://example.com/page"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ToolError::invalid_input("URLs with a user name or password are not fetched")
            .with_hint("remove the credentials from the URL"));
    }
    if let Some(ip) = literal_ip(&url)
        && let Some(class) = policy.refusal(ip)
    {
        return Err(blocked_error(&BlockedAddress { host: ip.to_string(), ip, class }));
    }
    Ok(url)
}

fn literal_ip(url: &Url) -> Option<std::net::IpAddr> {
    url.host_str()?.trim_start_matches('[').trim_end_matches(']').parse().ok()
}

/// Plain http stays for IP-literal hosts (and `localhost`) that are non-public and allowed.
fn keeps_http(url: &Url, policy: AddressPolicy) -> bool {
    match literal_ip(url) {
        Some(ip) => policy.allows_non_public(ip),
        None => url.host_str() == Some("localhost") && policy.allow_loopback,
    }
}

/// The error the model gets for a refused address.
pub(crate) fn blocked_error(blocked: &BlockedAddress) -> ToolError {
    ToolError::permission(format!(
        "WebFetch does not connect to non-public addresses: {blocked}. Loopback, private and link-local \
         addresses are refused unless the user's settings allow them"
    ))
    .with_hint("fetch a public URL instead; to read local files, use Read")
}

/// A redirect may be followed when it stays on the same host (a leading `www.` aside) and
/// port, after the same https upgrade as the first URL.
fn same_site(from: &Url, to: &Url) -> bool {
    let strip = |u: &Url| u.host_str().unwrap_or_default().trim_start_matches("www.").to_ascii_lowercase();
    strip(from) == strip(to) && from.port_or_known_default() == to.port_or_known_default()
}

/// The HTTP client WebFetch uses: no automatic redirects, no proxy (a proxy would resolve
/// names where the address check cannot see them), the guarded resolver.
pub(crate) fn client(policy: AddressPolicy, user_agent: &str) -> Result<reqwest::Client, String> {
    toolgate_core::http::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(GuardedResolver { policy })
        .user_agent(user_agent)
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

/// Fetches `url`, following same-host redirects, reading at most `max_bytes` of body.
pub(crate) async fn fetch(
    client: &reqwest::Client,
    mut url: Url,
    policy: AddressPolicy,
    max_bytes: usize,
) -> Result<Fetched, ToolError> {
    for _ in 0..=MAX_REDIRECTS {
        url = check_url(url, policy)?;
        let response = client
            .get(url.clone())
            .header(ACCEPT, "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5")
            .send()
            .await
            .map_err(|e| request_error(&url, &e))?;
        let status = response.status();
        if status.is_redirection()
            && let Some(location) = response.headers().get(LOCATION)
        {
            let location = location.to_str().unwrap_or_default();
            let next = url.join(location).map_err(|e| {
                ToolError::network(format!("{url} redirects to '{location}', which is not a valid URL ({e})"))
            })?;
            let next = match parse_url(next.as_str(), policy) {
                Ok(next) => next,
                Err(_) => return Ok(Fetched::Redirect { from: url, to: next, status }),
            };
            if same_site(&url, &next) {
                url = next;
                continue;
            }
            return Ok(Fetched::Redirect { from: url, to: next, status });
        }
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let body = read_capped(response, &url, max_bytes).await?;
        return Ok(Fetched::Body(RawPage { url, status, content_type, body }));
    }
    Err(ToolError::network(format!("{url} redirected more than {MAX_REDIRECTS} times"))
        .with_hint("the site may be in a redirect loop; try the final address directly"))
}

/// The body, chunk by chunk, refused as soon as it passes `max_bytes` (or when the
/// declared length already does).
async fn read_capped(mut response: reqwest::Response, url: &Url, max_bytes: usize) -> Result<Vec<u8>, ToolError> {
    let too_large = || {
        ToolError::invalid_input(format!("{url} is larger than WebFetch's limit of {}", size(max_bytes)))
            .with_hint("fetch a smaller, more specific page (one documentation page rather than a whole dump)")
    };
    if response.content_length().is_some_and(|len| len > max_bytes as u64) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| request_error(url, &e))? {
        if body.len() + chunk.len() > max_bytes {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A byte count for people: `10 MB`, `512 KB`, `300 bytes`.
pub(crate) fn size(bytes: usize) -> String {
    const KB: usize = 1024;
    const MB: usize = 1024 * KB;
    if bytes >= MB && bytes.is_multiple_of(MB) {
        format!("{} MB", bytes / MB)
    } else if bytes >= MB {
        format!("{:.1} MB", bytes as f64 / MB as f64)
    } else if bytes >= KB {
        format!("{:.1} KB", bytes as f64 / KB as f64)
    } else {
        format!("{bytes} bytes")
    }
}

/// A failed request, phrased for the model.
fn request_error(url: &Url, err: &reqwest::Error) -> ToolError {
    if let Some(blocked) = find_blocked(err) {
        return blocked_error(blocked);
    }
    let host = url.host_str().unwrap_or_default();
    if err.is_timeout() {
        return ToolError::timeout(format!("{url} did not answer in time"));
    }
    let chain = error_chain(err);
    let cause = chain.last().cloned().unwrap_or_default();
    if err.is_connect() {
        let lookup_failed = chain.iter().any(|e| e.contains("dns error") || e.contains("failed to lookup"));
        return match lookup_failed {
            true => ToolError::network(format!("the host {host} could not be found (DNS lookup failed: {cause})"))
                .with_hint("check the spelling of the host name"),
            false => ToolError::network(format!("could not connect to {host}: {cause}"))
                .with_hint("the site may be down or unreachable from here; try again later or another source"),
        };
    }
    ToolError::network(format!("fetching {url} failed: {}", chain.join(": ")))
}

/// An error and its sources, each message once, outermost first.
fn error_chain(err: &(dyn std::error::Error + 'static)) -> Vec<String> {
    let mut parts = vec![err.to_string()];
    let mut current = err.source();
    while let Some(e) = current {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        current = e.source();
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: AddressPolicy = AddressPolicy { allow_loopback: false, allow_private: false };
    const LOOPBACK: AddressPolicy = AddressPolicy { allow_loopback: true, allow_private: false };

    #[test]
    fn http_is_upgraded_except_for_allowed_local_hosts() {
        assert_eq!(parse_url("http://example.com/a?b", NONE).unwrap().as_str(), "https://example.com/a?b");
        assert_eq!(parse_url("https://example.com", NONE).unwrap().as_str(), "https://example.com/");
        assert_eq!(parse_url("http://127.0.0.1:8080/x", LOOPBACK).unwrap().as_str(), "http://127.0.0.1:8080/x");
        assert_eq!(parse_url("http://localhost:1/", LOOPBACK).unwrap().as_str(), "http://localhost:1/");
        assert_eq!(parse_url("http://localhost:1/", NONE).unwrap().as_str(), "https://localhost:1/");
    }

    #[test]
    fn bad_urls_are_refused_with_a_hint() {
        for (url, fragment) in [
            ("not a url", "not a valid URL"),
            ("example.com/page", "not a valid URL"),
            ("ftp://example.com/file", "'ftp:' is not supported"),
            ("file:///etc/passwd", "'file:' is not supported"),
            ("https://user:pw@example.com/", "user name or password"),
            ("http://127.0.0.1/", "127.0.0.1 is a loopback address"),
            ("http://[::ffff:127.0.0.1]/", "loopback address"),
            ("http://169.254.169.254/latest/meta-data/", "link-local address"),
            ("http://10.0.0.1/", "private address"),
            ("http://0x7f000001/", "loopback address"),
        ] {
            let err = parse_url(url, NONE).unwrap_err();
            assert!(err.message().contains(fragment), "{url}: {}", err.message());
            assert!(err.hint().is_some(), "{url} has no hint");
        }
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        assert!(parse_url(&long, NONE).unwrap_err().message().contains("longer than"));
    }

    #[test]
    fn same_site_ignores_www_but_not_ports_or_hosts() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(same_site(&u("https://example.com/a"), &u("https://www.example.com/b")));
        assert!(same_site(&u("https://www.example.com/a"), &u("https://example.com/b")));
        assert!(!same_site(&u("https://example.com/a"), &u("https://evil.com/a")));
        assert!(!same_site(&u("https://example.com/a"), &u("https://example.com:8443/a")));
        assert!(!same_site(&u("https://example.com/a"), &u("https://sub.example.com/a")));
    }

    #[test]
    fn sizes() {
        assert_eq!(size(10 * 1024 * 1024), "10 MB");
        assert_eq!(size(1536), "1.5 KB");
        assert_eq!(size(12), "12 bytes");
    }
}
