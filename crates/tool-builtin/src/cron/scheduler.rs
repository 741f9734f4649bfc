//! [`CronScheduler`]: the session's scheduled prompts, fired on a [`CronClock`] and handed to
//! the host as [`CronEvent`]s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, FixedOffset, Local, Utc};
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{Notify, mpsc};

use super::clock::{CronClock, SystemCronClock};

/// The most jobs a session holds.
pub const MAX_JOBS: usize = 50;

/// How long a recurring job lives.
pub const RECURRING_LIFETIME: chrono::TimeDelta = chrono::TimeDelta::days(7);

/// One scheduled prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CronJob {
    /// Its id: 8 hex characters.
    pub id: String,
    /// The 5-field cron expression, in the scheduler's local time.
    pub cron: String,
    /// The prompt handed to the host when it fires.
    pub prompt: String,
    /// Whether it fires on every match (until it expires) or once.
    pub recurring: bool,
    /// Whether it is kept in `.claude/scheduled_tasks.json` across sessions.
    #[serde(default)]
    pub durable: bool,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When a recurring job expires (7 days after its creation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<DateTime<Utc>>,
    /// When it last fired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_fired_at: Option<DateTime<Utc>>,
}

/// What the scheduler tells the host.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CronEvent {
    /// A job is due: the host should run its prompt as if the user had sent it.
    Fired {
        /// The job's id.
        id: String,
        /// The prompt to run.
        prompt: String,
        /// The expression.
        cron: String,
        /// The time the job was due (missed occurrences are fired once, late).
        scheduled_for: DateTime<Utc>,
        /// Whether it fires again.
        recurring: bool,
    },
    /// A recurring job reached the end of its 7 days and was removed.
    Expired {
        /// The job's id.
        id: String,
        /// Its prompt.
        prompt: String,
    },
    /// Saving the durable file after firing failed (the jobs still run in this session).
    SaveFailed {
        /// What went wrong.
        message: String,
    },
}

/// Why a scheduler operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CronError {
    /// The expression does not parse.
    #[error("`{expression}` is not a valid cron expression: {reason}")]
    Invalid {
        /// The expression.
        expression: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The expression parses but names no time that exists (e.g. 30 February).
    #[error("`{0}` never fires: no date matches it")]
    NeverFires(String),
    /// A recurring job whose first match comes after its 7 days are over.
    #[error("`{0}` first matches after a recurring job's {days} days are over, so it would never fire", days = RECURRING_LIFETIME.num_days())]
    AfterExpiry(String),
    /// The session already holds [`MAX_JOBS`] jobs.
    #[error("this session already has {0} scheduled jobs, the most it may hold")]
    TooMany(usize),
    /// No job has this id.
    #[error("no scheduled job has the id `{id}`; {}", if .known.is_empty() { "there are none".to_owned() } else { format!("known ids: {}", .known.join(", ")) })]
    NotFound {
        /// The id asked for.
        id: String,
        /// The ids that exist.
        known: Vec<String>,
    },
    /// A durable job was asked for, but the scheduler has no file to keep it in.
    #[error("durable jobs are not available in this session (no project folder to keep them in)")]
    NoDurableFile,
    /// Writing the durable file failed.
    #[error("could not save {path}: {message}")]
    Persist {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// The time zone cron expressions are read in.
#[derive(Debug, Clone, Copy)]
enum Zone {
    Local,
    Fixed(FixedOffset),
}

/// A job and its parsed expression.
#[derive(Debug, Clone)]
struct Entry {
    job: CronJob,
    cron: Cron,
    next: Option<DateTime<Utc>>,
}

#[derive(Debug, Default)]
struct State {
    jobs: BTreeMap<String, Entry>,
    /// Entries of the durable file that could not be loaded, written back unchanged.
    foreign: Vec<Value>,
}

struct Inner {
    clock: Arc<dyn CronClock>,
    zone: Zone,
    durable_file: Option<PathBuf>,
    state: Mutex<State>,
    changed: Notify,
}

/// The session's scheduler: 5-field cron expressions (minute, hour, day of month, month,
/// day of week, in local time; `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`
/// too), at most [`MAX_JOBS`] jobs, 8-character ids, recurring jobs expiring 7 days after
/// their creation. Durable jobs are kept in a JSON file (the CLI uses
/// `<project>/.claude/scheduled_tasks.json`), rewritten atomically on every change.
///
/// Due prompts reach the host as [`CronEvent`]s: [`CronScheduler::fire_due`] returns what
/// is due now (for hosts that poll), and [`CronScheduler::spawn`] runs a task that waits
/// on the [`CronClock`] and sends each event on a channel. They are not pipeline events: a job
/// fires between messages, outside any call, and a prompt is the host's to run as a new
/// turn.
///
/// ```
/// use std::sync::Arc;
/// use chrono::{TimeZone, Utc};
/// use toolgate_builtin::{CronEvent, CronScheduler, ManualClock};
/// let clock = Arc::new(ManualClock::new(Utc.with_ymd_and_hms(2026, 3, 2, 9, 58, 0).unwrap()));
/// let scheduler = CronScheduler::builder().clock(clock.clone()).utc_offset(chrono::FixedOffset::east_opt(0).unwrap()).build().0;
/// let job = scheduler.create("0 10 * * *", "stand-up notes", true, false).unwrap();
/// assert!(scheduler.fire_due().is_empty());
/// clock.advance(chrono::Duration::minutes(2));
/// let fired = scheduler.fire_due();
/// assert!(matches!(&fired[..], [CronEvent::Fired { id, .. }] if *id == job.id));
/// ```
#[derive(Clone)]
pub struct CronScheduler {
    inner: Arc<Inner>,
}

/// Builds a [`CronScheduler`].
pub struct CronSchedulerBuilder {
    clock: Arc<dyn CronClock>,
    zone: Zone,
    durable_file: Option<PathBuf>,
}

impl CronSchedulerBuilder {
    /// The clock (default: [`SystemCronClock`]).
    #[must_use]
    pub fn clock(mut self, clock: Arc<dyn CronClock>) -> Self {
        self.clock = clock;
        self
    }

    /// Reads expressions at this fixed offset from UTC instead of local time.
    #[must_use]
    pub fn utc_offset(mut self, offset: FixedOffset) -> Self {
        self.zone = Zone::Fixed(offset);
        self
    }

    /// Keeps durable jobs in `file` (and loads the ones there).
    #[must_use]
    pub fn durable_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.durable_file = Some(file.into());
        self
    }

    /// The scheduler, with the durable jobs loaded, and what could not be loaded.
    pub fn build(self) -> (CronScheduler, Vec<String>) {
        let scheduler = CronScheduler {
            inner: Arc::new(Inner {
                clock: self.clock,
                zone: self.zone,
                durable_file: self.durable_file,
                state: Mutex::new(State::default()),
                changed: Notify::new(),
            }),
        };
        let diagnostics = scheduler.load();
        (scheduler, diagnostics)
    }
}

/// The parser: exactly five fields, no seconds, no years.
fn parser() -> CronParser {
    CronParser::builder().seconds(Seconds::Disallowed).year(Year::Disallowed).build()
}

/// Parses `expression`, explaining what is wrong.
///
/// ```
/// let err = toolgate_builtin::parse_cron("*/5 * * *").unwrap_err();
/// assert!(err.to_string().contains("has 4 fields"));
/// assert!(toolgate_builtin::parse_cron("30 9 * * MON-FRI").is_ok());
/// ```
///
/// # Errors
/// [`CronError::Invalid`] saying what is wrong and what is expected.
pub fn parse_cron(expression: &str) -> Result<Cron, CronError> {
    let trimmed = expression.trim();
    let invalid = |reason: String| CronError::Invalid { expression: expression.to_owned(), reason };
    if trimmed.is_empty() {
        return Err(invalid("it is empty".to_owned()));
    }
    if !trimmed.starts_with('@') {
        let fields = trimmed.split_whitespace().count();
        if fields != 5 {
            return Err(invalid(format!(
                "it has {fields} field{}; use exactly 5: minute (0-59), hour (0-23), day of month (1-31), \
                 month (1-12 or JAN-DEC), day of week (0-6 or SUN-SAT){}",
                if fields == 1 { "" } else { "s" },
                if fields == 6 { " (seconds are not supported)" } else { "" }
            )));
        }
    }
    parser().parse(trimmed).map_err(|e| {
        let detail = match e {
            croner::errors::CronError::InvalidPattern(m)
            | croner::errors::CronError::IllegalCharacters(m)
            | croner::errors::CronError::ComponentError(m) => m,
            other => other.to_string(),
        };
        invalid(format!(
            "{detail}; fields are minute (0-59), hour (0-23), day of month (1-31), month (1-12), day of week (0-6)"
        ))
    })
}

impl CronScheduler {
    /// A builder: system clock, local time, no durable file.
    pub fn builder() -> CronSchedulerBuilder {
        CronSchedulerBuilder { clock: Arc::new(SystemCronClock), zone: Zone::Local, durable_file: None }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The clock's time now.
    pub fn now(&self) -> DateTime<Utc> {
        self.inner.clock.now()
    }

    /// The first time after `after` that `cron` matches, in UTC.
    fn next_after(&self, cron: &Cron, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self.inner.zone {
            Zone::Local => cron.find_next_occurrence(&after.with_timezone(&Local), false).ok().map(|t| t.to_utc()),
            Zone::Fixed(offset) => {
                cron.find_next_occurrence(&after.with_timezone(&offset), false).ok().map(|t| t.to_utc())
            }
        }
    }

    /// A time as people read it in the scheduler's zone.
    pub fn display_time(&self, time: DateTime<Utc>) -> String {
        match self.inner.zone {
            Zone::Local => time.with_timezone(&Local).format("%Y-%m-%d %H:%M %:z").to_string(),
            Zone::Fixed(offset) => time.with_timezone(&offset).format("%Y-%m-%d %H:%M %:z").to_string(),
        }
    }

    /// Schedules `prompt` on `cron`.
    ///
    /// # Errors
    /// An invalid or never-matching expression, a full session, a durable job without a
    /// durable file, a failed save.
    pub fn create(&self, cron: &str, prompt: &str, recurring: bool, durable: bool) -> Result<CronJob, CronError> {
        let parsed = parse_cron(cron)?;
        if durable && self.inner.durable_file.is_none() {
            return Err(CronError::NoDurableFile);
        }
        let now = self.now();
        let next = self.next_after(&parsed, now).ok_or_else(|| CronError::NeverFires(cron.trim().to_owned()))?;
        if recurring && next > now + RECURRING_LIFETIME {
            return Err(CronError::AfterExpiry(cron.trim().to_owned()));
        }
        let job = {
            let mut state = self.lock();
            if state.jobs.len() >= MAX_JOBS {
                return Err(CronError::TooMany(MAX_JOBS));
            }
            let id = loop {
                let candidate: String = uuid::Uuid::new_v4().simple().to_string().chars().take(8).collect();
                if !state.jobs.contains_key(&candidate) {
                    break candidate;
                }
            };
            let job = CronJob {
                id: id.clone(),
                cron: cron.trim().to_owned(),
                prompt: prompt.to_owned(),
                recurring,
                durable,
                created_at: now,
                expires_at: recurring.then(|| now + RECURRING_LIFETIME),
                last_fired_at: None,
            };
            state.jobs.insert(id, Entry { job: job.clone(), cron: parsed, next: Some(next) });
            job
        };
        if durable && let Err(e) = self.save() {
            self.lock().jobs.remove(&job.id);
            return Err(e);
        }
        self.inner.changed.notify_waiters();
        Ok(job)
    }

    /// Removes a job.
    ///
    /// # Errors
    /// An unknown id, a failed save.
    pub fn delete(&self, id: &str) -> Result<CronJob, CronError> {
        let removed = {
            let mut state = self.lock();
            let Some(entry) = state.jobs.remove(id.trim()) else {
                return Err(CronError::NotFound { id: id.to_owned(), known: state.jobs.keys().cloned().collect() });
            };
            entry
        };
        if removed.job.durable {
            self.save()?;
        }
        self.inner.changed.notify_waiters();
        Ok(removed.job)
    }

    /// Every job with its next fire time, soonest first.
    pub fn list(&self) -> Vec<(CronJob, Option<DateTime<Utc>>)> {
        let mut jobs: Vec<(CronJob, Option<DateTime<Utc>>)> =
            self.lock().jobs.values().map(|e| (e.job.clone(), e.next)).collect();
        jobs.sort_by_key(|(job, next)| (*next, job.created_at));
        jobs
    }

    /// A human description of an expression (`Every 5 minutes`), when croner has one.
    pub fn describe(cron: &str) -> Option<String> {
        parse_cron(cron).ok().map(|c| c.describe())
    }

    /// The soonest time a job is due.
    pub fn next_due(&self) -> Option<DateTime<Utc>> {
        self.lock().jobs.values().filter_map(|e| e.next).min()
    }

    /// Fires what is due at the clock's time: each due job once (missed occurrences are
    /// not replayed), one-shot jobs then removed, recurring jobs moved to their next time
    /// or, past their 7 days, removed with an [`CronEvent::Expired`].
    pub fn fire_due(&self) -> Vec<CronEvent> {
        let now = self.now();
        let mut events = Vec::new();
        let mut durable_changed = false;
        {
            let mut state = self.lock();
            let due: Vec<String> =
                state.jobs.iter().filter(|(_, e)| e.next.is_some_and(|t| t <= now)).map(|(id, _)| id.clone()).collect();
            for id in due {
                let Some(entry) = state.jobs.get_mut(&id) else { continue };
                let scheduled = entry.next.unwrap_or(now);
                let expired = entry.job.expires_at.is_some_and(|end| scheduled > end);
                if !expired {
                    entry.job.last_fired_at = Some(now);
                    events.push(CronEvent::Fired {
                        id: id.clone(),
                        prompt: entry.job.prompt.clone(),
                        cron: entry.job.cron.clone(),
                        scheduled_for: scheduled,
                        recurring: entry.job.recurring,
                    });
                }
                let next = if entry.job.recurring { self.next_after(&entry.cron, now) } else { None };
                let next = next.filter(|t| entry.job.expires_at.is_none_or(|end| *t <= end));
                durable_changed |= entry.job.durable;
                if let Some(next) = next {
                    entry.next = Some(next);
                } else {
                    let prompt = entry.job.prompt.clone();
                    let recurring = entry.job.recurring;
                    state.jobs.remove(&id);
                    if recurring {
                        events.push(CronEvent::Expired { id, prompt });
                    }
                }
            }
        }
        if durable_changed && let Err(e) = self.save() {
            events.push(CronEvent::SaveFailed { message: e.to_string() });
        }
        events
    }

    /// Runs a task that fires due jobs as the clock reaches them and sends every event
    /// on the returned channel; the task ends when the receiver is dropped. Needs a tokio
    /// runtime.
    pub fn spawn(&self) -> mpsc::UnboundedReceiver<CronEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                let changed = this.inner.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                for event in this.fire_due() {
                    if tx.send(event).is_err() {
                        return;
                    }
                }
                let next = this.next_due();
                tokio::select! {
                    () = tx.closed() => return,
                    () = &mut changed => {}
                    () = async {
                        match next {
                            Some(t) => this.inner.clock.sleep_until(t).await,
                            None => std::future::pending().await,
                        }
                    } => {}
                }
            }
        });
        rx
    }

    /// Loads the durable file; returns what could not be loaded.
    fn load(&self) -> Vec<String> {
        let Some(path) = &self.inner.durable_file else { return Vec::new() };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => return vec![format!("scheduled tasks in {} not loaded: {e}", path.display())],
        };
        let mut diagnostics = Vec::new();
        let file: DurableFile = match serde_json::from_str(&text) {
            Ok(file) => file,
            Err(e) => {
                return vec![format!(
                    "scheduled tasks in {} not loaded: not a scheduled-tasks file: {e}",
                    path.display()
                )];
            }
        };
        let now = self.now();
        let mut state = self.lock();
        for raw in file.tasks {
            let job = match serde_json::from_value::<CronJob>(raw.clone()) {
                Ok(job) => job,
                Err(e) => {
                    diagnostics.push(format!("a scheduled task in {} is kept but not run: {e}", path.display()));
                    state.foreign.push(raw);
                    continue;
                }
            };
            let cron = match parse_cron(&job.cron) {
                Ok(cron) => cron,
                Err(e) => {
                    diagnostics.push(format!(
                        "scheduled task {} in {} is kept but not run: {e}",
                        job.id,
                        path.display()
                    ));
                    state.foreign.push(raw);
                    continue;
                }
            };
            if job.expires_at.is_some_and(|end| end < now) {
                // Expired while no session ran: dropped at the next save.
                continue;
            }
            // A one-shot job missed while no session ran fires at once.
            let from = if job.recurring { now } else { job.last_fired_at.unwrap_or(job.created_at) };
            let next = self.next_after(&cron, from);
            let mut job = job;
            job.durable = true;
            if state.jobs.len() < MAX_JOBS {
                state.jobs.insert(job.id.clone(), Entry { job, cron, next });
            } else {
                diagnostics.push(format!("scheduled task {} not loaded: more than {MAX_JOBS} tasks", job.id));
                state.foreign.push(raw);
            }
        }
        diagnostics
    }

    /// Writes the durable jobs (and the entries it could not read) to the durable file.
    fn save(&self) -> Result<(), CronError> {
        let Some(path) = &self.inner.durable_file else { return Ok(()) };
        let file = {
            let state = self.lock();
            let mut tasks: Vec<Value> = state
                .jobs
                .values()
                .filter(|e| e.job.durable)
                .filter_map(|e| serde_json::to_value(&e.job).ok())
                .collect();
            tasks.extend(state.foreign.iter().cloned());
            DurableFile { tasks }
        };
        let persist = |message: String| CronError::Persist { path: path.clone(), message };
        let bytes = serde_json::to_vec_pretty(&file).map_err(|e| persist(e.to_string()))?;
        crate::file_io::atomic::write_atomic(path, &bytes).map_err(|e| persist(e.to_string()))
    }

    /// The durable file, if any.
    pub fn durable_file(&self) -> Option<&Path> {
        self.inner.durable_file.as_deref()
    }
}

impl std::fmt::Debug for CronScheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CronScheduler").field("jobs", &self.lock().jobs.len()).finish()
    }
}

/// `.claude/scheduled_tasks.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct DurableFile {
    #[serde(default)]
    tasks: Vec<Value>,
}
