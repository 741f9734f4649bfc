//! The agent tools (Agent, SendMessage, TeamCreate, TeamDelete, CronCreate, CronDelete,
//! CronList) through the pipeline, with the real services toolgate ships.
//!
//! - `agent`: a real subprocess agent (a shell script the test writes), in the
//!   foreground and in the background with TaskOutput and TaskStop;
//! - `messages`: the in-process and the folder message bus, teams, unknown recipients;
//! - `cron`: the scheduler on a manual clock (no sleeping), expiry, the job cap,
//!   durable jobs, invalid expressions.

// A test binary: a failed unwrap is a failed assertion with a backtrace.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent;
mod cron;
mod messages;
mod support;
