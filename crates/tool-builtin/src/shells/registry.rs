//! Background shells: the session's registry, kept in the context's `AppState`.
//!
//! Bash with `run_in_background` starts a shell here: [`Shells::start`] spawns it through
//! the process helper, gives it an id (`bash_1`, `bash_2` …) and an output file
//! `<session>/tasks/<id>.output`, and hands it to a supervisor task that copies its merged
//! output to the file (up to [`OUTPUT_FILE_CAP`]) until it ends. TaskOutput reads what is
//! new since its last read ([`TaskEntry::read_new`]) and waits for the end on a watch
//! channel, never by polling; TaskStop fires the task's stop token, on which the
//! supervisor stops the whole process group.
//!
//! A background *agent* (Agent with `run_in_background`) is an entry of the same registry
//! ([`TaskKind::Agent`], ids `agent_1` …): [`Shells::start_job`] runs its future under the
//! same stop token and writes the subagent's final answer to the same kind of output file,
//! so TaskOutput and TaskStop treat both alike.
//!
//! Nothing outlives the session: when the registry is dropped (the last clone of the
//! session's `AppState` goes), every task still running is stopped; when the runtime shuts
//! down, the supervisors are dropped and the helper kills their groups.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tempfile::TempPath;
use tokio::sync::watch;
use toolgate_core::process::ProcessHandle;
use toolgate_core::{CancellationToken, ToolContext};

use super::drive::{End, OutputSink, drive};
use super::excerpt::{Captured, trim_partial_char};
use super::group_digits;

/// The most output a background shell writes to its file; the rest is counted and dropped.
pub(crate) const OUTPUT_FILE_CAP: u64 = 256 * 1024 * 1024;

/// How long a stopped job may take to end on its own before it is dropped.
pub(crate) const JOB_STOP_GRACE: Duration = Duration::from_secs(5);

/// New output up to this many bytes is read whole; more is read as its first and last
/// [`READ_EDGE`] bytes.
const READ_WHOLE: u64 = 8 * 1024 * 1024;

/// Bytes read from each end of new output too large to read whole.
const READ_EDGE: u64 = 1024 * 1024;

/// How a background shell stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TaskStatus {
    /// Still running.
    Running,
    /// Exited on its own with this code.
    Exited(i32),
    /// Ended by a signal nobody here sent.
    Signaled(i32),
    /// Stopped by TaskStop or by the end of the session.
    Killed,
    /// Waiting for it failed; its group was killed.
    Failed(String),
}

impl TaskStatus {
    /// Whether it still runs.
    pub(crate) fn is_running(&self) -> bool {
        matches!(self, Self::Running)
    }

    /// One word: `running`, `completed` (exit 0), `failed`, `killed`.
    pub(crate) fn word(&self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Exited(0) => "completed",
            Self::Exited(_) | Self::Signaled(_) | Self::Failed(_) => "failed",
            Self::Killed => "killed",
        }
    }

    /// The exit code, when it exited.
    pub(crate) fn exit_code(&self) -> Option<i32> {
        match self {
            Self::Exited(code) => Some(*code),
            _ => None,
        }
    }

    /// A short phrase: `running`, `exited with code 0`, `killed` …
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Running => "running".to_owned(),
            Self::Exited(code) => format!("exited with code {code}"),
            Self::Signaled(signal) => format!("killed by signal {signal}"),
            Self::Killed => "killed".to_owned(),
            Self::Failed(why) => format!("failed: {why}"),
        }
    }
}

/// What a background task runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskKind {
    /// A shell command (Bash, PowerShell).
    Shell,
    /// A subagent started by the Agent tool.
    Agent,
}

impl TaskKind {
    /// The `task_type` Claude Code reports: `local_bash` or `local_agent`.
    pub(crate) fn task_type(self) -> &'static str {
        match self {
            Self::Shell => "local_bash",
            Self::Agent => "local_agent",
        }
    }
}

/// How a job started with [`Shells::start_job`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JobEnd {
    /// It finished; this text is its output.
    Completed(String),
    /// It failed for this reason.
    Failed(String),
    /// The stop token fired and it stopped.
    Stopped,
}

/// Where TaskOutput is in a task's output file.
#[derive(Debug, Default)]
struct Cursor {
    /// Bytes already shown.
    offset: u64,
    /// Lines already shown, while known (unknown once a read skipped a middle part).
    lines: Option<u64>,
}

/// One background shell.
#[derive(Debug)]
pub(crate) struct TaskEntry {
    /// Its id.
    pub(crate) id: String,
    /// What it runs.
    pub(crate) kind: TaskKind,
    /// The command it runs (for an agent, its description).
    pub(crate) command: String,
    /// The call's description, if any.
    pub(crate) description: Option<String>,
    /// The file its output goes to.
    pub(crate) output_path: PathBuf,
    /// The shell's pid (its process group id).
    pub(crate) pid: Option<u32>,
    stop: CancellationToken,
    status: watch::Receiver<TaskStatus>,
    cursor: Mutex<Cursor>,
}

/// New output of a task, as [`TaskEntry::read_new`] returns it.
#[derive(Debug)]
pub(crate) struct NewOutput {
    /// The bytes (head and tail when the middle was skipped).
    pub(crate) captured: Captured,
    /// Lines shown before this output, when known.
    pub(crate) line_base: Option<u64>,
}

impl TaskEntry {
    /// The status now.
    pub(crate) fn status(&self) -> TaskStatus {
        self.status.borrow().clone()
    }

    /// Waits until the task is no longer running, or `limit` passes (`None` when it is
    /// still running then). Wakes on the status channel, never by polling.
    pub(crate) async fn wait_end(&self, limit: Duration) -> Option<TaskStatus> {
        let mut rx = self.status.clone();
        match tokio::time::timeout(limit, rx.wait_for(|s| !s.is_running())).await {
            Ok(Ok(status)) => Some(status.clone()),
            // The supervisor is gone (its runtime shut down): the helper killed the group.
            Ok(Err(_)) => Some(TaskStatus::Killed),
            Err(_) => None,
        }
    }

    /// Asks the supervisor to stop the task's process group.
    pub(crate) fn request_stop(&self) {
        self.stop.cancel();
    }

    /// The output written since the last read, and moves the cursor past it.
    ///
    /// While the task runs, a char cut in half at the end of the file is left for the next
    /// read.
    ///
    /// # Errors
    ///
    /// An I/O error reading the output file.
    pub(crate) fn read_new(&self) -> io::Result<NewOutput> {
        let running = self.status().is_running();
        let mut cursor = self.cursor.lock().unwrap_or_else(PoisonError::into_inner);
        let mut file = File::open(&self.output_path)?;
        let len = file.metadata()?.len();
        let start = cursor.offset.min(len);
        let range = len - start;
        let line_base = cursor.lines;
        if range <= READ_WHOLE {
            let mut bytes = Vec::with_capacity(usize::try_from(range).unwrap_or(0));
            file.seek(SeekFrom::Start(start))?;
            (&mut file).take(range).read_to_end(&mut bytes)?;
            if running {
                let keep = trim_partial_char(&bytes).len();
                bytes.truncate(keep);
            }
            cursor.offset = start + bytes.len() as u64;
            cursor.lines = cursor.lines.map(|n| n + bytes.iter().filter(|b| **b == b'\n').count() as u64);
            let total = bytes.len() as u64;
            return Ok(NewOutput { captured: Captured { head: bytes, tail: Vec::new(), total }, line_base });
        }
        let mut head = Vec::new();
        file.seek(SeekFrom::Start(start))?;
        (&mut file).take(READ_EDGE).read_to_end(&mut head)?;
        let mut tail = Vec::new();
        file.seek(SeekFrom::Start(len - READ_EDGE))?;
        (&mut file).take(READ_EDGE).read_to_end(&mut tail)?;
        cursor.offset = len;
        cursor.lines = None;
        Ok(NewOutput { captured: Captured { head, tail, total: range }, line_base: None })
    }
}

/// The session's background shells; cheap to clone (shared).
#[derive(Debug, Clone, Default)]
pub(crate) struct Shells(Arc<Registry>);

#[derive(Debug, Default)]
struct Registry {
    next: AtomicU64,
    tasks: Mutex<BTreeMap<String, Arc<TaskEntry>>>,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let tasks = self.tasks.get_mut().unwrap_or_else(PoisonError::into_inner);
        for task in tasks.values() {
            task.stop.cancel();
        }
    }
}

/// What [`Shells::start`] needs besides the spawned child.
pub(crate) struct NewTask<'a> {
    /// The command.
    pub(crate) command: &'a str,
    /// The call's description.
    pub(crate) description: Option<&'a str>,
    /// Temporary files the shell needs while it runs (deleted after it ends).
    pub(crate) keep: Vec<TempPath>,
}

impl Shells {
    /// The registry of `ctx`'s session (created on first use).
    pub(crate) fn of(ctx: &ToolContext) -> Self {
        ctx.app_state.update(|shells: &mut Shells| shells.clone())
    }

    /// The task called `id`.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<TaskEntry>> {
        self.lock().get(id).cloned()
    }

    /// Every task, by id.
    pub(crate) fn list(&self) -> Vec<Arc<TaskEntry>> {
        self.lock().values().cloned().collect()
    }

    /// A job that is not a process (a background subagent): `job` gets the stop token and
    /// its output is written to the file when it ends. Needs a tokio runtime.
    ///
    /// After the stop token fires, the job has [`JOB_STOP_GRACE`] to end on its own; then it
    /// is dropped (which stops any process it runs through the helper).
    pub(crate) fn start_job<F>(
        &self,
        id: String,
        path: PathBuf,
        file: File,
        kind: TaskKind,
        label: &str,
        job: impl FnOnce(CancellationToken) -> F,
    ) where
        F: std::future::Future<Output = JobEnd> + Send + 'static,
    {
        let stop = CancellationToken::new();
        let (tx, rx) = watch::channel(TaskStatus::Running);
        let entry = Arc::new(TaskEntry {
            id: id.clone(),
            kind,
            command: label.to_owned(),
            description: Some(label.to_owned()),
            output_path: path,
            pid: None,
            stop: stop.clone(),
            status: rx,
            cursor: Mutex::new(Cursor { offset: 0, lines: Some(0) }),
        });
        self.lock().insert(id, entry);
        let job = job(stop.clone());
        tokio::spawn(async move {
            tokio::pin!(job);
            let end = tokio::select! {
                end = &mut job => end,
                () = stop.cancelled() => match tokio::time::timeout(JOB_STOP_GRACE, &mut job).await {
                    Ok(JobEnd::Completed(text)) => JobEnd::Completed(text),
                    // Failed because it was stopped, or ignored the token: dropped here.
                    _ => JobEnd::Stopped,
                },
            };
            let mut sink = FileSink::new(file);
            let status = match end {
                JobEnd::Completed(text) => {
                    sink.write(text.as_bytes());
                    TaskStatus::Exited(0)
                }
                JobEnd::Failed(why) => {
                    sink.write(why.as_bytes());
                    TaskStatus::Failed(why)
                }
                JobEnd::Stopped => TaskStatus::Killed,
            };
            sink.finish();
            tx.send_replace(status);
        });
    }

    /// `known ids: bash_1 (running), bash_2 (completed)`, or that there are none.
    pub(crate) fn known_ids(&self) -> String {
        let tasks = self.list();
        if tasks.is_empty() {
            return "there are no background tasks in this session".to_owned();
        }
        let ids: Vec<String> = tasks.iter().map(|t| format!("{} ({})", t.id, t.status().word())).collect();
        format!("known task ids: {}", ids.join(", "))
    }

    /// Creates the output file `<dir>/<prefix>_<n>.output` under a fresh id.
    ///
    /// # Errors
    ///
    /// An I/O error creating the folder or the file.
    pub(crate) fn reserve(&self, prefix: &str, dir: &Path) -> io::Result<(String, PathBuf, File)> {
        std::fs::create_dir_all(dir)?;
        loop {
            let n = self.0.next.fetch_add(1, Ordering::Relaxed) + 1;
            let id = format!("{prefix}_{n}");
            let path = dir.join(format!("{id}.output"));
            // Another registry (a subagent's) may have used the same name in this folder.
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => return Ok((id, path, file)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1_000_000 => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Registers a spawned child under `id` and starts its supervisor. Needs a tokio
    /// runtime (the supervisor is a task on it).
    pub(crate) fn start(&self, id: String, path: PathBuf, file: File, child: ProcessHandle, task: NewTask<'_>) {
        let stop = CancellationToken::new();
        let (tx, rx) = watch::channel(TaskStatus::Running);
        let entry = Arc::new(TaskEntry {
            id: id.clone(),
            kind: TaskKind::Shell,
            command: task.command.to_owned(),
            description: task.description.map(str::to_owned),
            output_path: path,
            pid: child.id(),
            stop: stop.clone(),
            status: rx,
            cursor: Mutex::new(Cursor { offset: 0, lines: Some(0) }),
        });
        self.lock().insert(id, entry);
        tokio::spawn(supervise(child, FileSink::new(file), stop, tx, task.keep));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<TaskEntry>>> {
        self.0.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Runs one background shell to its end, then publishes its status (after its last
/// output is in the file).
async fn supervise(
    mut child: ProcessHandle,
    mut sink: FileSink,
    stop: CancellationToken,
    tx: watch::Sender<TaskStatus>,
    keep: Vec<TempPath>,
) {
    let end = drive(&mut child, None, &stop, &mut sink).await;
    drop(child);
    drop(keep);
    sink.finish();
    let status = match end {
        Ok(End::Exited(code)) => TaskStatus::Exited(code),
        Ok(End::Signaled(signal)) => TaskStatus::Signaled(signal),
        Ok(End::TimedOut | End::Stopped) => TaskStatus::Killed,
        Err(e) => TaskStatus::Failed(e.to_string()),
    };
    tx.send_replace(status);
}

/// Appends output to the task's file, up to [`OUTPUT_FILE_CAP`].
struct FileSink {
    file: Option<File>,
    written: u64,
    dropped: u64,
}

impl FileSink {
    fn new(file: File) -> Self {
        Self { file: Some(file), written: 0, dropped: 0 }
    }

    /// Notes dropped output at the end of the file, and closes it.
    fn finish(&mut self) {
        if let Some(mut file) = self.file.take()
            && self.dropped > 0
        {
            let _ = writeln!(
                file,
                "\n[toolgate: output over {} bytes was not written; {} bytes dropped]",
                group_digits(OUTPUT_FILE_CAP),
                group_digits(self.dropped)
            );
        }
    }
}

impl OutputSink for FileSink {
    fn write(&mut self, bytes: &[u8]) {
        let room = usize::try_from(OUTPUT_FILE_CAP.saturating_sub(self.written)).unwrap_or(usize::MAX);
        let keep = bytes.len().min(room);
        if let Some(file) = self.file.as_mut()
            && keep > 0
        {
            // A failed write (disk full) drops the output rather than the task.
            if file.write_all(&bytes[..keep]).is_err() {
                self.dropped += keep as u64;
            }
            self.written += keep as u64;
        }
        self.dropped += (bytes.len() - keep) as u64;
    }
}
