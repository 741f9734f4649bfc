//! Project automation for toolgate, run as `cargo xtask <command>`.
//!
//! The alias lives in `.cargo/config.toml`. Commands:
//!
//! - `cargo xtask ci`: the single gate (see [`ci`] for its steps, in order).
//! - `cargo xtask ci --step NAME`: one step of the gate.
//! - `cargo xtask bench [--quick] [--corpus DIR] [--out FILE] [--only N]`: toolgate measured beside
//!   `rg`, `fd`, `sed` and direct library calls, written to `bench/RESULTS.md` (see
//!   [`mod@bench`]).
//! - `cargo xtask fuzz [--seconds N] [TARGET…]`: every cargo-fuzz target (see [`mod@fuzz`]).
//! - `cargo xtask fuzz shell [--minutes N]`: the Bash analysis's differential oracle against
//!   real bash (see [`mod@fuzz`]).
//!
//! xtask has no runtime dependency on the workspace's crates: it only drives `cargo`.

mod bench;
mod ci;
mod cmd;
mod counts;
mod fuzz;

use std::process::ExitCode;

/// Exit status for a command line that xtask does not understand.
const USAGE_EXIT: u8 = 2;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["ci"] => ci::run_all(),
        ["ci", "--step", name] => ci::run_one(name),
        ["ci", flag] if flag.starts_with("--step=") => ci::run_one(flag.trim_start_matches("--step=")),
        ["fuzz", rest @ ..] => fuzz::run(rest),
        ["bench", rest @ ..] => bench::run(rest),
        // Internal: `cargo xtask bench` measures a child's peak memory through this.
        ["__maxrss", program, rest @ ..] => match cmd::maxrss_wrapper(program, rest) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(error) => {
                eprintln!("xtask __maxrss: {error:#}");
                ExitCode::FAILURE
            }
        },
        ["help" | "-h" | "--help"] => {
            print!("{}", usage());
            ExitCode::SUCCESS
        }
        _ => {
            eprint!("{}", usage());
            ExitCode::from(USAGE_EXIT)
        }
    }
}

/// The usage text, listing the gate's steps.
fn usage() -> String {
    let steps = ci::STEPS.iter().map(|step| format!("    {:<28} {}\n", step.name, step.about)).collect::<String>();
    format!(
        "usage: cargo xtask <command>\n\
         \n\
         commands:\n\
         \x20   ci                  run every step of the gate, in order\n\
         \x20   ci --step NAME      run one step\n\
         \x20   bench [--quick] [--corpus DIR] [--out FILE] [--only N [--toolgate FILE]]\n\
         \x20                       measure beside rg, fd and sed; write bench/RESULTS.md\n\
         \x20   bench --write-model-facing-scenario FILE\n\
         \x20                       write row 12's Claude Code oracle scenario\n\
         \x20   fuzz [--seconds N] [TARGET...]\n\
         \x20                       run the cargo-fuzz targets (nightly)\n\
         \x20   fuzz shell [--minutes N]\n\
         \x20                       run the Bash oracle against real bash in bubblewrap\n\
         \x20   help                print this text\n\
         \n\
         steps:\n\
         {steps}"
    )
}
