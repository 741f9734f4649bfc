//! `cargo xtask ci`: the single gate.
//!
//! The steps run in this order, each under a header, and the first failure stops the
//! gate with the line ``xtask ci: step `NAME` failed`` and a non-zero exit status:
//!
//! 1. `fmt`: `cargo fmt --all --check`.
//! 2. `clippy`: `cargo clippy --workspace --all-targets -- -D warnings`.
//! 3. `clippy-no-default-features`: the same with `--no-default-features`, so code behind
//!    a feature gate (`mcp`, `web`, `lsp`, `powershell` on the `toolgate` package) cannot
//!    rot unseen.
//! 4. `light-crates`: `cargo check -p toolgate-permissions -p toolgate-hooks
//!    --no-default-features`, then `cargo tree` of the same: both crates build without
//!    their `llm` and `http` features, and then pull no HTTP client or TLS
//!    ([`HEAVY_PACKAGES`]). A check of two crates, not a second build of the workspace.
//! 5. `test`: `cargo nextest run --workspace` when `cargo nextest --version` succeeds,
//!    else `cargo test --workspace --all-targets`. The tidy checks run here, as tests.
//! 6. `bench-smoke`: `cargo test --workspace --bench '*'`, after building the MCP test
//!    server the `adapter` bench talks to: every divan bench is compiled in the test
//!    profile (no optimised build of the dependencies) and runs each benchmark once, so
//!    the benches cannot rot. `cargo xtask bench` is the real measurement.
//! 7. `doctest`: `cargo test --workspace --doc` (nextest does not run doc-tests).
//! 8. `doc`: `cargo doc --workspace --no-deps` with `RUSTDOCFLAGS="-D warnings"`, so a
//!    broken intra-doc link fails the gate.
//!
//! The last line printed is the test count summed over steps 5 and 7, read from the
//! runners' summaries (see [`crate::counts`]): `N passed, N failed` (`, N skipped` when
//! any were).

use std::io::IsTerminal as _;
use std::process::ExitCode;
use std::time::Instant;

use crate::cmd::{self, Cmd, Output};
use crate::counts::{self, Counts};

/// A step of the gate.
pub(crate) struct Step {
    /// The name `--step` takes and failure messages use.
    pub(crate) name: &'static str,
    /// One line for the usage text.
    pub(crate) about: &'static str,
}

/// The steps, in the order `cargo xtask ci` runs them.
pub(crate) const STEPS: [Step; 8] = [
    Step { name: "fmt", about: "cargo fmt --all --check" },
    Step { name: "clippy", about: "clippy on every target, warnings denied" },
    Step { name: "clippy-no-default-features", about: "the same with --no-default-features" },
    Step { name: "light-crates", about: "permissions and hooks without default features: no HTTP client or TLS" },
    Step { name: "test", about: "cargo nextest run (or cargo test) on the workspace" },
    Step { name: "bench-smoke", about: "every benchmark built in the test profile and run once" },
    Step { name: "doctest", about: "cargo test --workspace --doc" },
    Step { name: "doc", about: "cargo doc --no-deps, rustdoc warnings denied" },
];

/// The packages that `toolgate-permissions` and `toolgate-hooks` must not pull without
/// their default features: the HTTP client, TLS and their crypto providers.
pub(crate) const HEAVY_PACKAGES: &[&str] =
    &["reqwest", "hyper", "hyper-rustls", "h2", "rustls", "tokio-rustls", "ring", "aws-lc-rs", "aws-lc-sys"];

/// The packages of the light crates that `light-crates` checks, as `cargo -p` arguments.
const LIGHT_CRATES: [&str; 4] = ["-p", "toolgate-permissions", "-p", "toolgate-hooks"];

/// Runs every step in order; stops at the first failure.
pub(crate) fn run_all() -> ExitCode {
    let started = Instant::now();
    let mut gate = Gate::default();
    for (index, step) in STEPS.iter().enumerate() {
        if let Err(failure) = gate.run_step(step, index + 1) {
            return gate.fail(step, &failure);
        }
    }
    eprintln!("\nxtask ci: all {} steps passed in {:.1}s", STEPS.len(), started.elapsed().as_secs_f64());
    gate.print_counts();
    ExitCode::SUCCESS
}

/// Runs the step called `name` alone.
pub(crate) fn run_one(name: &str) -> ExitCode {
    let Some((index, step)) = STEPS.iter().enumerate().find(|(_, step)| step.name == name) else {
        let names: Vec<&str> = STEPS.iter().map(|step| step.name).collect();
        eprintln!("xtask ci: no step `{name}`; the steps are: {}", names.join(", "));
        return ExitCode::from(crate::USAGE_EXIT);
    };
    let mut gate = Gate::default();
    match gate.run_step(step, index + 1) {
        Ok(()) => {
            gate.print_counts();
            ExitCode::SUCCESS
        }
        Err(failure) => gate.fail(step, &failure),
    }
}

/// Why a step failed, when there is more to say than its own output.
enum Failure {
    /// The command ran and exited non-zero; its output says why.
    Exited,
    /// Something went wrong around the command (it could not start, or its summary
    /// could not be read).
    Other(anyhow::Error),
}

/// The state of one run of the gate: the tests counted so far.
#[derive(Default)]
struct Gate {
    counts: Option<Counts>,
}

impl Gate {
    /// Runs one step under its header and reports how long it took.
    fn run_step(&mut self, step: &Step, number: usize) -> Result<(), Failure> {
        let started = Instant::now();
        let (command, runner) = step_command(step.name).map_err(Failure::Other)?;
        if let Some(prelude) = step_prelude(step.name) {
            eprintln!("\n==> xtask ci [{number}/{}] {} (before): {}", STEPS.len(), step.name, prelude.display());
            if !cmd::run(&prelude, Output::Inherit).map_err(Failure::Other)?.success {
                return Err(Failure::Exited);
            }
        }
        eprintln!("\n==> xtask ci [{number}/{}] {}: {}", STEPS.len(), step.name, command.display());
        let output = if runner.is_some() { Output::Tee } else { Output::Inherit };
        let finished = cmd::run(&command, output).map_err(Failure::Other)?;
        if let Some(runner) = runner {
            self.count(step, runner, &finished)?;
        }
        if !finished.success {
            eprintln!("==> {} failed after {:.1}s", step.name, started.elapsed().as_secs_f64());
            return Err(Failure::Exited);
        }
        if step.name == "light-crates" {
            light_crates_pull_nothing_heavy().map_err(Failure::Other)?;
        }
        eprintln!("==> {} ok in {:.1}s", step.name, started.elapsed().as_secs_f64());
        Ok(())
    }

    /// Adds the tests a runner reports to the total.
    fn count(&mut self, step: &Step, runner: Runner, finished: &cmd::Finished) -> Result<(), Failure> {
        let parsed = match runner {
            Runner::Nextest => counts::parse_nextest(&finished.captured),
            Runner::Libtest => counts::parse_libtest(&finished.captured),
        };
        match parsed {
            Some(counts) => *self.counts.get_or_insert_with(Counts::default) += counts,
            // A test run that passed must have said how many tests it ran; a workspace
            // without doc-tests legitimately prints no doc-test result.
            None if finished.success && step.name == "test" => {
                return Err(Failure::Other(anyhow::anyhow!(
                    "the test runner exited successfully but printed no summary to count"
                )));
            }
            None => {}
        }
        Ok(())
    }

    /// Prints the counted tests, alone on the last line, if any test step ran.
    fn print_counts(&self) {
        if let Some(counts) = self.counts {
            println!("{counts}");
        }
    }

    /// Reports a failed step and returns the gate's failing exit status.
    fn fail(&self, step: &Step, failure: &Failure) -> ExitCode {
        if let Failure::Other(error) = failure {
            eprintln!("xtask ci: {error:#}");
        }
        self.print_counts();
        eprintln!("xtask ci: step `{}` failed", step.name);
        ExitCode::FAILURE
    }
}

/// Which test runner's summary a step prints.
#[derive(Clone, Copy)]
enum Runner {
    Nextest,
    Libtest,
}

/// What a step must build before its command runs.
fn step_prelude(name: &str) -> Option<Cmd> {
    match name {
        // `cargo test --benches` builds no other package's binaries, and the adapter bench
        // talks to this one (found beside the bench, in the same profile's directory).
        "bench-smoke" => Some(Cmd::cargo().args(["build", "-p", "toolgate-mcp-test-server"])),
        _ => None,
    }
}

/// The command a step runs, and the runner whose summary it prints if it runs tests.
fn step_command(name: &str) -> anyhow::Result<(Cmd, Option<Runner>)> {
    let cargo = Cmd::cargo();
    Ok(match name {
        "fmt" => (cargo.args(["fmt", "--all", "--check"]), None),
        "clippy" => (cargo.args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]), None),
        "clippy-no-default-features" => (
            cargo.args(["clippy", "--workspace", "--all-targets", "--no-default-features", "--", "-D", "warnings"]),
            None,
        ),
        "light-crates" => (cargo.args(["check"]).args(LIGHT_CRATES).arg("--no-default-features"), None),
        "test" if nextest_available() => {
            (test_output_cargo().args(["nextest", "run", "--workspace"]), Some(Runner::Nextest))
        }
        "test" => (test_output_cargo().args(["test", "--workspace", "--all-targets"]), Some(Runner::Libtest)),
        "bench-smoke" => (cargo.args(["test", "--workspace", "--bench", "*"]), None),
        "doctest" => (test_output_cargo().args(["test", "--workspace", "--doc"]), Some(Runner::Libtest)),
        "doc" => (cargo.args(["doc", "--workspace", "--no-deps"]).env("RUSTDOCFLAGS", "-D warnings"), None),
        other => anyhow::bail!("xtask has no command for step `{other}`"),
    })
}

/// After `light-crates`' check: `cargo tree` of the light crates without default features
/// names none of [`HEAVY_PACKAGES`].
fn light_crates_pull_nothing_heavy() -> anyhow::Result<()> {
    let tree =
        Cmd::cargo().args(["tree", "-e", "normal", "--prefix", "none", "--no-default-features"]).args(LIGHT_CRATES);
    eprintln!("==> light-crates (after): {}", tree.display());
    let finished = cmd::timed(&tree)?;
    if !finished.success {
        anyhow::bail!("`{}` failed: {}", tree.display(), String::from_utf8_lossy(&finished.stderr).trim());
    }
    let heavy = heavy_packages(&String::from_utf8_lossy(&finished.stdout));
    if !heavy.is_empty() {
        anyhow::bail!(
            "without default features, toolgate-permissions or toolgate-hooks pulls {}; \
             `cargo tree -i NAME --no-default-features -p toolgate-permissions -p toolgate-hooks` says through what",
            heavy.join(", ")
        );
    }
    Ok(())
}

/// The [`HEAVY_PACKAGES`] named in `cargo tree --prefix none` output (`name vVERSION …` a
/// line), each once, in the order of that list.
fn heavy_packages(tree: &str) -> Vec<&'static str> {
    let names: Vec<&str> = tree.lines().filter_map(|line| line.split_whitespace().next()).collect();
    HEAVY_PACKAGES.iter().copied().filter(|heavy| names.contains(heavy)).collect()
}

/// `cargo` for a step whose output xtask reads through a pipe: keeps colours when a
/// person is watching (the counts parser strips them) unless the caller chose otherwise.
fn test_output_cargo() -> Cmd {
    let cargo = Cmd::cargo();
    if std::io::stderr().is_terminal() && std::env::var_os("CARGO_TERM_COLOR").is_none() {
        cargo.env("CARGO_TERM_COLOR", "always")
    } else {
        cargo
    }
}

/// Whether `cargo nextest --version` succeeds.
fn nextest_available() -> bool {
    cmd::run(&Cmd::cargo().args(["nextest", "--version"]), Output::Discard).is_ok_and(|finished| finished.success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heavy_packages_are_found_by_name_not_by_prefix() {
        let tree = "toolgate-permissions v0.1.0 (/work/main/crates/permissions)\n\
                    rustix v1.1.2\n\
                    reqwest v0.13.5\n\
                    hyper-util v0.1.21\n\
                    ring v0.17.14\n\
                    reqwest v0.13.5 (*)\n";
        assert_eq!(heavy_packages(tree), ["reqwest", "ring"]);
        assert_eq!(
            heavy_packages("toolgate-hooks v0.1.0 (/x)\nrustls-pki-types v1.16.0\nringbuf v0.4.0\n"),
            [] as [&str; 0]
        );
    }
}
