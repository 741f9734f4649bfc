//! The [`MessageBus`] host service: messages between the agents of one session, and the
//! teams they belong to. [`InProcessBus`] keeps everything in memory (library hosts);
//! [`FolderBus`] keeps it as JSON files in a folder, so agents in other processes (the
//! CLI's subagents) share it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The name the host's own agent has on a bus unless it says otherwise.
pub const MAIN_AGENT: &str = "main";

/// One agent on the bus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Member {
    /// Its name: what `to` names.
    pub name: String,
    /// The team it belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Its subagent type, if it is a subagent.
    #[serde(default, rename = "agentType", skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
}

impl Member {
    /// A member called `name`, in no team.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), team: None, agent_type: None }
    }

    /// The same member in `team`.
    #[must_use]
    pub fn in_team(mut self, team: Option<String>) -> Self {
        self.team = team;
        self
    }

    /// The same member with a subagent type.
    #[must_use]
    pub fn with_agent_type(mut self, agent_type: Option<String>) -> Self {
        self.agent_type = agent_type;
        self
    }
}

/// A team: a lead and the members that joined it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Team {
    /// Its name.
    pub name: String,
    /// What it is for.
    #[serde(default)]
    pub description: String,
    /// The agent that created it.
    pub lead: String,
    /// The default subagent type of its members, if given.
    #[serde(default, rename = "agentType", skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
}

impl Team {
    /// A team called `name` led by `lead`.
    pub fn new(name: impl Into<String>, lead: impl Into<String>) -> Self {
        Self { name: name.into(), description: String::new(), lead: lead.into(), agent_type: None }
    }
}

/// One message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Message {
    /// The sender's name.
    pub from: String,
    /// The recipient's name (for a broadcast, each copy names its recipient).
    pub to: String,
    /// Plain text or a structured object.
    pub message: Value,
    /// A 5-10 word preview, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// When it was sent, in milliseconds since the Unix epoch.
    #[serde(rename = "sentAtMs")]
    pub sent_at_ms: u64,
}

impl Message {
    /// A message from `from` to `to` (`*` for everyone else), sent now.
    pub fn new(from: impl Into<String>, to: impl Into<String>, message: Value) -> Self {
        let sent_at_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Self { from: from.into(), to: to.into(), message, summary: None, sent_at_ms }
    }

    /// The same message with a summary.
    #[must_use]
    pub fn with_summary(mut self, summary: Option<String>) -> Self {
        self.summary = summary;
        self
    }
}

/// Why a bus operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BusError {
    /// No member has that name.
    #[error("no agent named `{name}` is on the message bus; known agents: {}", list_or_none(.known))]
    UnknownRecipient {
        /// The name asked for.
        name: String,
        /// The names that exist.
        known: Vec<String>,
    },
    /// A broadcast found no one but the sender.
    #[error("there is no other agent to broadcast to")]
    NoOneElse,
    /// A name that cannot be used (empty, too long, or with characters other than letters,
    /// digits, `-`, `_` and `.`).
    #[error(
        "`{0}` is not a valid agent or team name: use 1-64 letters, digits, `-`, `_` or `.`, starting with a letter or digit"
    )]
    InvalidName(String),
    /// A team of that name exists.
    #[error("a team named `{0}` already exists")]
    TeamExists(String),
    /// No team of that name exists.
    #[error("no team named `{name}`; existing teams: {}", list_or_none(.known))]
    UnknownTeam {
        /// The name asked for.
        name: String,
        /// The teams that exist.
        known: Vec<String>,
    },
    /// Reading or writing the bus's files failed.
    #[error("the message bus at {path} failed: {message}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
}

/// Whether `name` can name an agent or a team (it is also a file name in [`FolderBus`]).
///
/// ```
/// assert!(toolgate_builtin::valid_bus_name("researcher-2"));
/// assert!(!toolgate_builtin::valid_bus_name("../etc"));
/// assert!(!toolgate_builtin::valid_bus_name(""));
/// ```
pub fn valid_bus_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn check_name(name: &str) -> Result<(), BusError> {
    if valid_bus_name(name) { Ok(()) } else { Err(BusError::InvalidName(name.to_owned())) }
}

/// Messages between the agents of one session, and their teams: a host service.
///
/// Members register (the host's own agent, and each named subagent the Agent tool
/// starts); [`MessageBus::send`] delivers to one member's inbox, or to every other member
/// for `*`, and refuses an unknown recipient with [`BusError::UnknownRecipient`], which
/// lists the known names. The recipient's host takes its messages with
/// [`MessageBus::receive`].
///
/// ```
/// use serde_json::json;
/// use toolgate_builtin::{BusError, InProcessBus, Member, Message, MessageBus};
/// let bus = InProcessBus::new("main");
/// bus.register(Member::new("researcher")).unwrap();
/// bus.send(Message::new("main", "researcher", json!("look at src/"))).unwrap();
/// assert_eq!(bus.receive("researcher").unwrap()[0].message, json!("look at src/"));
/// assert!(bus.receive("researcher").unwrap().is_empty()); // taken
/// let err = bus.send(Message::new("main", "nobody", json!("hi"))).unwrap_err();
/// assert!(matches!(err, BusError::UnknownRecipient { .. }));
/// ```
pub trait MessageBus: Send + Sync {
    /// Adds a member, or updates the one of that name.
    ///
    /// # Errors
    /// An invalid name, or an I/O failure.
    fn register(&self, member: Member) -> Result<(), BusError>;

    /// Every member, by name.
    ///
    /// # Errors
    /// An I/O failure.
    fn members(&self) -> Result<Vec<Member>, BusError>;

    /// Delivers `message` to its recipient, or to every other member when `to` is `*`;
    /// returns the names it was delivered to.
    ///
    /// # Errors
    /// An unknown recipient, a broadcast with no one else, an I/O failure.
    fn send(&self, message: Message) -> Result<Vec<String>, BusError>;

    /// Takes the messages waiting for `recipient`, oldest first.
    ///
    /// # Errors
    /// An I/O failure.
    fn receive(&self, recipient: &str) -> Result<Vec<Message>, BusError>;

    /// Creates a team; its lead joins it.
    ///
    /// # Errors
    /// An invalid name, a team of that name, an I/O failure.
    fn create_team(&self, team: Team) -> Result<(), BusError>;

    /// Every team, by name.
    ///
    /// # Errors
    /// An I/O failure.
    fn teams(&self) -> Result<Vec<Team>, BusError>;

    /// Deletes a team: its members other than the lead leave the bus with their unread
    /// messages; the lead stays, in no team. Returns the team and the members removed.
    ///
    /// # Errors
    /// An unknown team, an I/O failure.
    fn delete_team(&self, name: &str) -> Result<(Team, Vec<String>), BusError>;
}

/// Who gets a message, given the members.
fn recipients(members: &[Member], message: &Message) -> Result<Vec<String>, BusError> {
    if message.to == "*" {
        let others: Vec<String> = members.iter().filter(|m| m.name != message.from).map(|m| m.name.clone()).collect();
        if others.is_empty() { Err(BusError::NoOneElse) } else { Ok(others) }
    } else if members.iter().any(|m| m.name == message.to) {
        Ok(vec![message.to.clone()])
    } else {
        Err(BusError::UnknownRecipient {
            name: message.to.clone(),
            known: members.iter().map(|m| m.name.clone()).collect(),
        })
    }
}

#[derive(Debug, Default)]
struct MemoryState {
    members: BTreeMap<String, Member>,
    teams: BTreeMap<String, Team>,
    inboxes: BTreeMap<String, Vec<Message>>,
}

/// A [`MessageBus`] in memory, for hosts that run every agent in one process.
#[derive(Debug, Default)]
pub struct InProcessBus {
    state: Mutex<MemoryState>,
}

impl InProcessBus {
    /// A bus whose first member is the host's own agent, `host_agent`.
    pub fn new(host_agent: impl Into<String>) -> Self {
        let bus = Self::default();
        let name = host_agent.into();
        bus.lock().members.insert(name.clone(), Member::new(name));
        bus
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoryState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl MessageBus for InProcessBus {
    fn register(&self, member: Member) -> Result<(), BusError> {
        check_name(&member.name)?;
        self.lock().members.insert(member.name.clone(), member);
        Ok(())
    }

    fn members(&self) -> Result<Vec<Member>, BusError> {
        Ok(self.lock().members.values().cloned().collect())
    }

    fn send(&self, message: Message) -> Result<Vec<String>, BusError> {
        let mut state = self.lock();
        let members: Vec<Member> = state.members.values().cloned().collect();
        let to = recipients(&members, &message)?;
        for name in &to {
            let mut copy = message.clone();
            copy.to.clone_from(name);
            state.inboxes.entry(name.clone()).or_default().push(copy);
        }
        Ok(to)
    }

    fn receive(&self, recipient: &str) -> Result<Vec<Message>, BusError> {
        Ok(self.lock().inboxes.remove(recipient).unwrap_or_default())
    }

    fn create_team(&self, team: Team) -> Result<(), BusError> {
        check_name(&team.name)?;
        let mut state = self.lock();
        if state.teams.contains_key(&team.name) {
            return Err(BusError::TeamExists(team.name));
        }
        let lead = state.members.entry(team.lead.clone()).or_insert_with(|| Member::new(team.lead.clone()));
        lead.team = Some(team.name.clone());
        state.teams.insert(team.name.clone(), team);
        Ok(())
    }

    fn teams(&self) -> Result<Vec<Team>, BusError> {
        Ok(self.lock().teams.values().cloned().collect())
    }

    fn delete_team(&self, name: &str) -> Result<(Team, Vec<String>), BusError> {
        let mut state = self.lock();
        let Some(team) = state.teams.remove(name) else {
            return Err(BusError::UnknownTeam { name: name.to_owned(), known: state.teams.keys().cloned().collect() });
        };
        let mut removed = Vec::new();
        let names: Vec<String> =
            state.members.values().filter(|m| m.team.as_deref() == Some(name)).map(|m| m.name.clone()).collect();
        for member in names {
            if member == team.lead {
                if let Some(lead) = state.members.get_mut(&member) {
                    lead.team = None;
                }
            } else {
                state.members.remove(&member);
                state.inboxes.remove(&member);
                removed.push(member);
            }
        }
        Ok((team, removed))
    }
}

/// A [`MessageBus`] kept as JSON files in a folder, shared by every process that opens
/// the same folder (the CLI uses `<session dir>/messages`):
///
/// - `members/<name>.json`: one [`Member`] each;
/// - `teams/<name>.json`: one [`Team`] each;
/// - `inbox/<name>/<ms>-<pid>-<n>.json`: one [`Message`] each, taken (deleted) when
///   received.
///
/// Every file is written to a temporary name and renamed into place, so a reader never
/// sees half a file.
#[derive(Debug)]
pub struct FolderBus {
    dir: PathBuf,
    seq: AtomicU64,
}

impl FolderBus {
    /// The bus in `dir` (created when missing), with `host_agent` registered.
    ///
    /// # Errors
    /// The folder cannot be created or written.
    pub fn open(dir: impl Into<PathBuf>, host_agent: &str) -> Result<Self, BusError> {
        let bus = Self { dir: dir.into(), seq: AtomicU64::new(0) };
        for sub in ["members", "teams", "inbox"] {
            let path = bus.dir.join(sub);
            std::fs::create_dir_all(&path).map_err(|e| io_error(&path, &e))?;
        }
        if !bus.member_path(host_agent).exists() {
            bus.register(Member::new(host_agent))?;
        }
        Ok(bus)
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn member_path(&self, name: &str) -> PathBuf {
        self.dir.join("members").join(format!("{name}.json"))
    }

    fn team_path(&self, name: &str) -> PathBuf {
        self.dir.join("teams").join(format!("{name}.json"))
    }

    fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), BusError> {
        let bytes = serde_json::to_vec_pretty(value).map_err(|e| io_error(path, &std::io::Error::other(e)))?;
        crate::file_io::atomic::write_atomic(path, &bytes).map_err(|e| io_error(path, &e))
    }

    fn read_all<T: for<'de> Deserialize<'de>>(dir: &Path) -> Result<Vec<(PathBuf, T)>, BusError> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(dir, &e)),
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        let mut out = Vec::new();
        for path in paths {
            match std::fs::read(&path) {
                // A file taken by another reader between the listing and the read.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(&path, &e)),
                Ok(bytes) => {
                    let value = serde_json::from_slice(&bytes).map_err(|e| BusError::Io {
                        path: path.clone(),
                        message: format!("not a valid bus file: {e}"),
                    })?;
                    out.push((path, value));
                }
            }
        }
        Ok(out)
    }
}

fn io_error(path: &Path, e: &std::io::Error) -> BusError {
    BusError::Io { path: path.to_path_buf(), message: e.to_string() }
}

impl MessageBus for FolderBus {
    fn register(&self, member: Member) -> Result<(), BusError> {
        check_name(&member.name)?;
        Self::write_json(&self.member_path(&member.name), &member)
    }

    fn members(&self) -> Result<Vec<Member>, BusError> {
        Ok(Self::read_all::<Member>(&self.dir.join("members"))?.into_iter().map(|(_, m)| m).collect())
    }

    fn send(&self, message: Message) -> Result<Vec<String>, BusError> {
        let to = recipients(&self.members()?, &message)?;
        for name in &to {
            let mut copy = message.clone();
            copy.to.clone_from(name);
            let n = self.seq.fetch_add(1, Ordering::Relaxed);
            let file = format!("{:013}-{}-{n:06}.json", message.sent_at_ms, std::process::id());
            Self::write_json(&self.dir.join("inbox").join(name).join(file), &copy)?;
        }
        Ok(to)
    }

    fn receive(&self, recipient: &str) -> Result<Vec<Message>, BusError> {
        if !valid_bus_name(recipient) {
            return Ok(Vec::new());
        }
        let mut taken = Vec::new();
        for (path, message) in Self::read_all::<Message>(&self.dir.join("inbox").join(recipient))? {
            // Whoever removes the file owns the message: two readers never both get it.
            match std::fs::remove_file(&path) {
                Ok(()) => taken.push(message),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(&path, &e)),
            }
        }
        Ok(taken)
    }

    fn create_team(&self, team: Team) -> Result<(), BusError> {
        check_name(&team.name)?;
        check_name(&team.lead)?;
        let path = self.team_path(&team.name);
        if path.exists() {
            return Err(BusError::TeamExists(team.name));
        }
        Self::write_json(&path, &team)?;
        let lead = self
            .members()?
            .into_iter()
            .find(|m| m.name == team.lead)
            .unwrap_or_else(|| Member::new(team.lead.clone()))
            .in_team(Some(team.name.clone()));
        self.register(lead)
    }

    fn teams(&self) -> Result<Vec<Team>, BusError> {
        Ok(Self::read_all::<Team>(&self.dir.join("teams"))?.into_iter().map(|(_, t)| t).collect())
    }

    fn delete_team(&self, name: &str) -> Result<(Team, Vec<String>), BusError> {
        let team = match valid_bus_name(name).then(|| std::fs::read(self.team_path(name))) {
            Some(Ok(bytes)) => serde_json::from_slice::<Team>(&bytes).map_err(|e| BusError::Io {
                path: self.team_path(name),
                message: format!("not a valid team file: {e}"),
            })?,
            _ => {
                let known = self.teams()?.into_iter().map(|t| t.name).collect();
                return Err(BusError::UnknownTeam { name: name.to_owned(), known });
            }
        };
        let mut removed = Vec::new();
        for member in self.members()?.into_iter().filter(|m| m.team.as_deref() == Some(name)) {
            if member.name == team.lead {
                self.register(member.in_team(None))?;
            } else {
                let path = self.member_path(&member.name);
                std::fs::remove_file(&path).map_err(|e| io_error(&path, &e))?;
                let inbox = self.dir.join("inbox").join(&member.name);
                if let Err(e) = std::fs::remove_dir_all(&inbox)
                    && e.kind() != std::io::ErrorKind::NotFound
                {
                    return Err(io_error(&inbox, &e));
                }
                removed.push(member.name);
            }
        }
        let path = self.team_path(name);
        std::fs::remove_file(&path).map_err(|e| io_error(&path, &e))?;
        Ok((team, removed))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn exercise(bus: &dyn MessageBus) {
        bus.register(Member::new("a")).unwrap();
        bus.register(Member::new("b")).unwrap();
        assert_eq!(bus.send(Message::new("main", "*", json!("all"))).unwrap(), ["a", "b"]);
        assert_eq!(bus.send(Message::new("a", "b", json!({"type": "ping"}))).unwrap(), ["b"]);
        let b = bus.receive("b").unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].message, json!("all"));
        assert_eq!(b[1].from, "a");
        assert!(bus.receive("b").unwrap().is_empty());
        match bus.send(Message::new("a", "c", json!("?"))).unwrap_err() {
            BusError::UnknownRecipient { name, known } => {
                assert_eq!(name, "c");
                assert_eq!(known, ["a", "b", "main"]);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(bus.register(Member::new("../x")), Err(BusError::InvalidName(_))));

        bus.create_team(Team::new("crew", "main")).unwrap();
        assert!(matches!(bus.create_team(Team::new("crew", "main")), Err(BusError::TeamExists(_))));
        bus.register(Member::new("c").in_team(Some("crew".into()))).unwrap();
        bus.send(Message::new("main", "c", json!("hi"))).unwrap();
        let (team, removed) = bus.delete_team("crew").unwrap();
        assert_eq!(team.lead, "main");
        assert_eq!(removed, ["c"]);
        assert!(bus.receive("c").unwrap().is_empty());
        let main = bus.members().unwrap().into_iter().find(|m| m.name == "main").unwrap();
        assert_eq!(main.team, None);
        assert!(matches!(bus.delete_team("crew"), Err(BusError::UnknownTeam { .. })));
    }

    #[test]
    fn in_process_bus() {
        exercise(&InProcessBus::new(MAIN_AGENT));
    }

    #[test]
    fn folder_bus_is_shared_by_two_handles() {
        let dir = tempfile::tempdir().unwrap();
        exercise(&FolderBus::open(dir.path(), MAIN_AGENT).unwrap());
        // Another process (here: another handle) sees the same members and inboxes.
        let one = FolderBus::open(dir.path(), MAIN_AGENT).unwrap();
        let two = FolderBus::open(dir.path(), "a").unwrap();
        one.send(Message::new("main", "a", json!("across"))).unwrap();
        let got: Vec<Value> = two.receive("a").unwrap().into_iter().map(|m| m.message).collect();
        // The broadcast of `exercise`, never taken by `a`, then the new one, in order.
        assert_eq!(got, [json!("all"), json!("across")]);
    }
}
