//! The page cache: converted pages by URL for a while (15 minutes by default), so asking
//! several questions about one page fetches it once. Time comes from a [`Clock`], so tests
//! move it instead of sleeping.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Where the cache reads the time.
///
/// ```
/// use toolgate_builtin::{Clock, SystemClock};
/// let before = std::time::Instant::now();
/// assert!(SystemClock.now() >= before);
/// ```
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The current instant.
    fn now(&self) -> Instant;
}

/// The monotonic system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A converted page, as the model is shown it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    /// The URL the content came from (after same-host redirects).
    pub url: String,
    /// HTTP status code and reason.
    pub status: u16,
    pub status_text: String,
    /// The response's content type, as sent.
    pub content_type: String,
    /// The size of the body in bytes.
    pub bytes: usize,
    /// Markdown (for HTML) or the text itself, cut at the character limit.
    pub text: String,
    /// The length in characters before the cut, when it was cut.
    pub cut_from: Option<usize>,
}

/// The cache. Bounded by total text size; the oldest entries go first.
#[derive(Debug)]
pub(crate) struct PageCache {
    ttl: Duration,
    max_chars: usize,
    entries: Mutex<HashMap<String, (Instant, Arc<Page>)>>,
}

impl PageCache {
    pub fn new(ttl: Duration, max_chars: usize) -> Self {
        Self { ttl, max_chars, entries: Mutex::new(HashMap::new()) }
    }

    /// The page cached for `url`, if it is younger than the time to live at `now`.
    pub fn get(&self, url: &str, now: Instant) -> Option<Arc<Page>> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        match entries.get(url) {
            Some((at, page)) if now.saturating_duration_since(*at) < self.ttl => Some(page.clone()),
            Some(_) => {
                entries.remove(url);
                None
            }
            None => None,
        }
    }

    /// Stores `page` for `url` at `now`, dropping expired and then the oldest entries
    /// while the total is over the bound.
    pub fn put(&self, url: String, page: Arc<Page>, now: Instant) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.retain(|_, (at, _)| now.saturating_duration_since(*at) < self.ttl);
        entries.insert(url, (now, page));
        let mut total: usize = entries.values().map(|(_, p)| p.text.len()).sum();
        while total > self.max_chars && entries.len() > 1 {
            let Some(oldest) = entries.iter().min_by_key(|(_, (at, _))| *at).map(|(k, _)| k.clone()) else { break };
            if let Some((_, page)) = entries.remove(&oldest) {
                total -= page.text.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str) -> Arc<Page> {
        Arc::new(Page {
            url: "https://example.com/".into(),
            status: 200,
            status_text: "OK".into(),
            content_type: "text/plain".into(),
            bytes: text.len(),
            text: text.into(),
            cut_from: None,
        })
    }

    #[test]
    fn entries_expire_after_the_time_to_live() {
        let cache = PageCache::new(Duration::from_secs(900), 1_000);
        let t0 = Instant::now();
        cache.put("a".into(), page("x"), t0);
        assert!(cache.get("a", t0 + Duration::from_secs(899)).is_some());
        assert!(cache.get("a", t0 + Duration::from_secs(900)).is_none());
        assert!(cache.get("a", t0).is_none(), "an expired entry is dropped");
    }

    #[test]
    fn the_oldest_entries_go_when_the_cache_is_full() {
        let cache = PageCache::new(Duration::from_secs(900), 10);
        let t0 = Instant::now();
        cache.put("a".into(), page("123456"), t0);
        cache.put("b".into(), page("123456"), t0 + Duration::from_secs(1));
        assert!(cache.get("a", t0 + Duration::from_secs(2)).is_none());
        assert!(cache.get("b", t0 + Duration::from_secs(2)).is_some());
    }
}
