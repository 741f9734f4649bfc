//! [`CronClock`]: where the scheduler gets the time, so tests can drive it.

use chrono::{DateTime, Utc};
use tokio::sync::watch;
use toolgate_core::BoxFuture;

/// The time source of a [`super::CronScheduler`].
///
/// [`SystemCronClock`] is the real one; [`ManualClock`] moves only when told, so tests fire
/// jobs without sleeping.
pub trait CronClock: Send + Sync {
    /// The current time.
    fn now(&self) -> DateTime<Utc>;

    /// Resolves at `deadline` or later. It may also resolve earlier (the scheduler checks
    /// the time again), but it must not resolve much later.
    fn sleep_until(&self, deadline: DateTime<Utc>) -> BoxFuture<'_, ()>;
}

/// The system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemCronClock;

/// The longest single wait of [`SystemCronClock::sleep_until`], so a change of the wall clock
/// (suspend, NTP) is noticed within it.
const MAX_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

impl CronClock for SystemCronClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }

    fn sleep_until(&self, deadline: DateTime<Utc>) -> BoxFuture<'_, ()> {
        let wait = (deadline - Utc::now()).to_std().unwrap_or_default().min(MAX_WAIT);
        Box::pin(tokio::time::sleep(wait))
    }
}

/// A clock that moves only when [`ManualClock::advance`] or [`ManualClock::set`] is
/// called; sleepers wake when it passes their deadline.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use toolgate_builtin::{CronClock, ManualClock};
/// let clock = ManualClock::new(Utc.with_ymd_and_hms(2026, 1, 1, 12, 0, 0).unwrap());
/// clock.advance(chrono::Duration::minutes(5));
/// assert_eq!(clock.now(), Utc.with_ymd_and_hms(2026, 1, 1, 12, 5, 0).unwrap());
/// ```
#[derive(Debug)]
pub struct ManualClock {
    now: watch::Sender<DateTime<Utc>>,
}

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: DateTime<Utc>) -> Self {
        Self { now: watch::Sender::new(start) }
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: chrono::Duration) {
        self.now.send_modify(|now| *now += by);
    }

    /// Sets the clock to `to` (it may go back).
    pub fn set(&self, to: DateTime<Utc>) {
        self.now.send_replace(to);
    }
}

impl CronClock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.borrow()
    }

    fn sleep_until(&self, deadline: DateTime<Utc>) -> BoxFuture<'_, ()> {
        let mut rx = self.now.subscribe();
        Box::pin(async move {
            // The sender lives as long as `self`, which this future borrows.
            let _ = rx.wait_for(|now| *now >= deadline).await;
        })
    }
}
