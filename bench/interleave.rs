//! Interleaved timing for the benches that compare two ways of doing one thing.
//!
//! divan times each bench function in its own block of samples, so load that changes between
//! the blocks moves the ratio of two functions. [`alternate`] times both sides round by round
//! (the order flipping every round) so that load falls on both alike, and [`print`] writes
//! the medians as a divan-style table, which `cargo xtask bench` reads with its divan parser.
//! Included by path (`#[path = "…/bench/interleave.rs"] mod interleave;`) into each bench.

use std::time::{Duration, Instant};

/// Times `ours` and `theirs` alternately for `rounds` rounds, each run repeated `batch` times
/// and timed as one (so that the timer's own cost is spread); returns the times of one run.
pub fn alternate(rounds: usize, batch: u32, ours: &dyn Fn(), theirs: &dyn Fn()) -> [Vec<Duration>; 2] {
    let time = |f: &dyn Fn()| {
        let started = Instant::now();
        for _ in 0..batch {
            f();
        }
        started.elapsed() / batch.max(1)
    };
    let mut times = [Vec::with_capacity(rounds), Vec::with_capacity(rounds)];
    for round in 0..rounds {
        if round % 2 == 0 {
            times[0].push(time(ours));
            times[1].push(time(theirs));
        } else {
            times[1].push(time(theirs));
            times[0].push(time(ours));
        }
    }
    times
}

/// Prints `rows` (a name and its times) as a divan-style table under `title`.
pub fn print(title: &str, rows: &mut [(&str, Vec<Duration>)]) {
    println!("\n{title:<23} fastest       │ slowest       │ median        │ mean          │ samples │ iters");
    let last = rows.len().saturating_sub(1);
    for (at, (name, times)) in rows.iter_mut().enumerate() {
        if times.is_empty() {
            continue;
        }
        times.sort_unstable();
        let mean = times.iter().sum::<Duration>() / u32::try_from(times.len()).unwrap_or(u32::MAX);
        let shown = |d: Duration| format!("{:.3} µs", d.as_secs_f64() * 1e6);
        let branch = if at == last { "╰─" } else { "├─" };
        println!(
            "{branch} {name:<20} {:<13} │ {:<13} │ {:<13} │ {:<13} │ {:<7} │ {}",
            shown(times[0]),
            shown(times[times.len() - 1]),
            shown(times[times.len() / 2]),
            shown(mean),
            times.len(),
            times.len(),
        );
    }
}
