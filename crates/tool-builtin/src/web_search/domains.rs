//! The `allowed_domains` / `blocked_domains` filters: how a domain is written, and which
//! result URLs it covers (the domain itself and every subdomain).

/// A domain as the filters compare it: lowercase, without scheme, path, port, a leading
/// `*.` or a trailing dot. `https://Docs.RS/foo` becomes `docs.rs`.
pub(crate) fn normalize(raw: &str) -> Result<String, String> {
    let mut s = raw.trim().to_ascii_lowercase();
    if let Some((_, rest)) = s.split_once("://") {
        s = rest.to_owned();
    }
    let host = s.split(['/', '?', '#']).next().unwrap_or_default();
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = match host.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
        _ => host,
    };
    let host = host.trim_start_matches("*.").trim_end_matches('.');
    let valid = !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
    if valid { Ok(host.to_owned()) } else { Err(format!("'{raw}' is not a domain")) }
}

/// Whether `host` is `domain` or one of its subdomains.
pub(crate) fn covers(domain: &str, host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == domain || host.strip_suffix(domain).is_some_and(|rest| rest.ends_with('.'))
}

/// Whether a result at `url` passes the filters (a URL without a host never does).
pub(crate) fn keep(url: &str, allowed: &[String], blocked: &[String]) -> bool {
    let Some(host) = reqwest::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_owned)) else {
        return false;
    };
    (allowed.is_empty() || allowed.iter().any(|d| covers(d, &host))) && !blocked.iter().any(|d| covers(d, &host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_are_normalized() {
        assert_eq!(normalize("Example.COM").unwrap(), "example.com");
        assert_eq!(normalize("https://docs.rs/tokio/latest").unwrap(), "docs.rs");
        assert_eq!(normalize("*.github.io").unwrap(), "github.io");
        assert_eq!(normalize("example.com:8080").unwrap(), "example.com");
        assert_eq!(normalize("example.com.").unwrap(), "example.com");
        for bad in ["", "  ", "exa mple.com", "a..b", "-a.com", "https://", "ex_ample.com"] {
            assert!(normalize(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_domain_covers_its_subdomains_only() {
        assert!(covers("example.com", "example.com"));
        assert!(covers("example.com", "docs.example.com"));
        assert!(covers("example.com", "WWW.Example.com."));
        assert!(!covers("example.com", "badexample.com"));
        assert!(!covers("example.com", "example.com.evil.org"));
    }

    #[test]
    fn filters() {
        let allowed = vec!["rust-lang.org".to_owned()];
        let blocked = vec!["pinterest.com".to_owned()];
        assert!(keep("https://doc.rust-lang.org/std/", &allowed, &[]));
        assert!(!keep("https://example.com/", &allowed, &[]));
        assert!(keep("https://example.com/", &[], &blocked));
        assert!(!keep("https://www.pinterest.com/pin/1", &[], &blocked));
        assert!(!keep("not a url", &[], &[]));
    }
}
