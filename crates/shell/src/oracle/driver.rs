//! The driver that runs a batch of lines inside one sandbox, one after another, each in its own
//! working directory, home and log (see [`super::sandbox`] for the layout).
//!
//! It is this test binary, started by bubblewrap as the sandbox's second process (pid 2 of a
//! fresh pid namespace, parent bwrap's init): [`drive`] refuses to run anywhere else, since
//! after each line it kills every other process it can signal (`kill(-1, SIGKILL)`), so that a
//! background job of one line cannot touch the next line's files.
//!
//! For case `i` it moves `cases/i/{work,home,log}` to `/opt/oracle/{work,home,log}`, runs the
//! line with `bash -c` for at most [`super::sandbox::TIME_LIMIT`] (leaving `log/timeout` when it
//! ran out), kills everything left, writes `log/done` and moves the three folders back.

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use toolgate_core::CancellationToken;
use toolgate_core::process::{ProcessSpec, ProcessStatus};

use super::sandbox::{BASH, ENV_FILE, ORACLE, TIME_LIMIT};

/// The environment variable that holds the number of cases for the driver.
pub(super) const CASES_VAR: &str = "TOOLGATE_ORACLE_DRIVER_CASES";

/// The three folders a case moves in and out.
const PARTS: [&str; 3] = ["work", "home", "log"];

/// How long the driver waits for killed processes to be gone.
const QUIET_LIMIT: Duration = Duration::from_secs(2);

/// Runs every case of the batch; an error ends the batch (the host reruns what is left).
pub(super) fn drive() -> io::Result<()> {
    // kill(-1) below must only ever reach the sandbox's own processes.
    if std::process::id() != 2 || std::os::unix::process::parent_id() != 1 {
        return Err(io::Error::other("the oracle driver runs only as pid 2 of its own pid namespace"));
    }
    let cases: usize = std::env::var(CASES_VAR)
        .ok()
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| io::Error::other(format!("{CASES_VAR} is not set to a number")))?;
    let oracle = Path::new(ORACLE);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    for i in 0..cases {
        let case = oracle.join("cases").join(i.to_string());
        let command = std::fs::read_to_string(oracle.join("commands").join(i.to_string()))?;
        for part in PARTS {
            std::fs::rename(case.join(part), oracle.join(part))?;
        }
        run_one(&runtime, &command, &oracle.join("log"))?;
        std::fs::write(oracle.join("log/done"), b"")?;
        for part in PARTS {
            std::fs::rename(oracle.join(part), case.join(part))?;
        }
    }
    Ok(())
}

/// Runs one line, then kills whatever it left running.
fn run_one(runtime: &tokio::runtime::Runtime, command: &str, log: &Path) -> io::Result<()> {
    let spec = ProcessSpec::exec(BASH, ["-c", "--", command])
        .env_clear()
        .env("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
        .env("HOME", super::sandbox::HOME)
        .env("BASH_ENV", ENV_FILE)
        .env("LC_ALL", "C")
        .cwd(super::sandbox::WORK)
        .timeout(TIME_LIMIT)
        .kill_grace(Duration::from_millis(20))
        .drain(Duration::from_millis(20))
        .stdout_cap(0)
        .stderr_cap(0);
    let outcome = runtime.block_on(spec.run(&CancellationToken::new())).map_err(io::Error::other)?;
    if outcome.status == ProcessStatus::TimedOut {
        std::fs::write(log.join("timeout"), b"")?;
    }
    kill_the_rest()
}

/// Kills every process of the namespace but bwrap's init and this one, and waits until none
/// is left but zombies (which write nothing).
fn kill_the_rest() -> io::Result<()> {
    let deadline = Instant::now() + QUIET_LIMIT;
    loop {
        match nix::sys::signal::kill(nix::unistd::Pid::from_raw(-1), nix::sys::signal::Signal::SIGKILL) {
            Ok(()) | Err(nix::errno::Errno::ESRCH) => {}
            Err(e) => return Err(io::Error::other(format!("kill(-1): {e}"))),
        }
        if others_alive()? == 0 {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(io::Error::other("processes of a line outlived SIGKILL"));
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// How many processes other than pid 1, this one and zombies are in `/proc`.
fn others_alive() -> io::Result<usize> {
    let me = std::process::id();
    let mut alive = 0;
    for entry in std::fs::read_dir("/proc")? {
        let Ok(pid) = entry?.file_name().to_string_lossy().parse::<u32>() else { continue };
        if pid == 1 || pid == me {
            continue;
        }
        // /proc/PID/stat: "PID (COMM) STATE …"; COMM may hold ')' so read after the last one.
        let stat = std::fs::read(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.iter().rposition(|&b| b == b')').and_then(|close| stat.get(close + 2));
        if !matches!(state, None | Some(b'Z' | b'X')) {
            alive += 1;
        }
    }
    Ok(alive)
}
