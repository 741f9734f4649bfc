//! Medians read from divan's table (run with `--color never`).
//!
//! divan prints a tree, one benchmark per line, with the columns
//! `fastest │ slowest │ median │ mean │ samples │ iters`:
//!
//! ```text
//! overhead                  fastest       │ slowest       │ median        │ mean          │ samples │ iters
//! ├─ concurrent_50ms_calls                │               │               │               │         │
//! │  ├─ 1                   51 ms         │ 61.04 ms      │ 51.2 ms       │ 54.41 ms      │ 3       │ 3
//! │  ╰─ 10                  51.32 ms      │ 54.57 ms      │ 51.5 ms       │ 52.46 ms      │ 3       │ 3
//! ╰─ seven_steps            4.516 µs      │ 111.4 µs      │ 5.818 µs      │ 40.6 µs       │ 3       │ 3
//! ```
//!
//! Each leaf becomes `path → median`, the path joining the names below the root with
//! `/` (`concurrent_50ms_calls/10`). Lines that are not part of a table are ignored.

use std::collections::BTreeMap;
use std::time::Duration;

/// The medians of every benchmark in `output`, by path.
pub(crate) fn medians(output: &str) -> BTreeMap<String, Duration> {
    let mut found = BTreeMap::new();
    let mut stack: Vec<String> = Vec::new();
    for line in output.lines() {
        // The tree prefix (`│  ├─ `) is made of the same bar as the column separators,
        // so take it off before splitting the columns.
        let name_start = line.find(|c: char| !matches!(c, '│' | '├' | '╰' | '─' | ' ')).unwrap_or(line.len());
        let prefix_chars = line[..name_start].chars().count();
        let cells: Vec<&str> = line[name_start..].split('│').collect();
        // name and fastest, slowest, median, mean, samples, iters.
        if cells.len() != 6 {
            continue;
        }
        let name = cells[0].split_whitespace().next().unwrap_or_default();
        if name.is_empty() {
            continue;
        }
        if prefix_chars == 0 {
            // The header line, naming the bench binary: a new table.
            stack.clear();
            continue;
        }
        let depth = prefix_chars / 3;
        stack.truncate(depth.saturating_sub(1));
        stack.push(name.to_owned());
        if let Some(median) = parse_duration(cells[2]) {
            found.insert(stack.join("/"), median);
        }
    }
    found
}

/// `5.818 µs`, `51 ms`, `350.7 ns`, `1.2 s`, `20 ps` as a duration.
pub(crate) fn parse_duration(text: &str) -> Option<Duration> {
    let mut words = text.split_whitespace();
    let value: f64 = words.next()?.parse().ok()?;
    let scale = match words.next()? {
        "ps" => 1e-12,
        "ns" => 1e-9,
        "µs" | "us" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(value * scale).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "\
Timer precision: 20 ns
overhead                  fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ concurrent_50ms_calls                │               │               │               │         │
│  ├─ 1                   51 ms         │ 61.04 ms      │ 51.2 ms       │ 54.41 ms      │ 3       │ 3
│  ╰─ 10                  51.32 ms      │ 54.57 ms      │ 51.5 ms       │ 52.46 ms      │ 3       │ 3
├─ direct_call            350.7 ns      │ 3.384 µs      │ 480.7 ns      │ 1.405 µs      │ 3       │ 3
╰─ seven_steps            4.516 µs      │ 111.4 µs      │ 5.818 µs      │ 40.6 µs       │ 3       │ 3

search                          fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ glob_rs_files                              │               │               │               │         │
│  ├─ fd_process                9.1 ms        │ 12 ms         │ 10 ms         │ 10 ms         │ 20      │ 20
│  ╰─ ours_library              8 ms          │ 9 ms          │ 8.5 ms        │ 8.6 ms        │ 20      │ 20
╰─ process_floor                1 ms          │ 2 ms          │ 1.5 ms        │ 1.5 ms        │ 50      │ 50
";

    #[test]
    fn leaves_are_found_by_path_with_their_medians() {
        let found = medians(OUTPUT);
        let us = |v: f64| Duration::from_secs_f64(v * 1e-6);
        assert_eq!(found["concurrent_50ms_calls/1"], Duration::from_micros(51_200));
        assert_eq!(found["concurrent_50ms_calls/10"], Duration::from_micros(51_500));
        assert!(found["direct_call"].abs_diff(us(0.4807)) < Duration::from_nanos(1));
        assert!(found["seven_steps"].abs_diff(us(5.818)) < Duration::from_nanos(1));
        assert_eq!(found["glob_rs_files/fd_process"], Duration::from_millis(10));
        assert_eq!(found["glob_rs_files/ours_library"], Duration::from_micros(8_500));
        assert_eq!(found["process_floor"], Duration::from_micros(1_500));
        assert_eq!(found.len(), 7, "{found:?}");
    }

    /// The interleaved tables the benches print after divan's (`bench/interleave.rs`), with
    /// names wider than their column.
    #[test]
    fn interleaved_tables_are_read_too() {
        let out = "interleaved             fastest       │ slowest       │ median        │ mean          │ samples │ iters\n\
                   ├─ interleaved_seven_steps 3.537 µs      │ 7.432 µs      │ 3.563 µs      │ 3.608 µs      │ 300     │ 300\n\
                   ╰─ interleaved_direct_call 0.304 µs      │ 0.566 µs      │ 0.324 µs      │ 0.327 µs      │ 300     │ 300\n";
        let found = medians(out);
        assert_eq!(found["interleaved_seven_steps"], Duration::from_secs_f64(3.563e-6));
        assert_eq!(found["interleaved_direct_call"], Duration::from_secs_f64(0.324e-6));
    }

    #[test]
    fn durations_in_every_unit() {
        assert_eq!(parse_duration(" 20 ps "), Some(Duration::from_secs_f64(20e-12)));
        assert_eq!(parse_duration("1.5 s"), Some(Duration::from_millis(1_500)));
        assert_eq!(parse_duration("3 µs"), Some(Duration::from_micros(3)));
        assert_eq!(parse_duration(""), None);
        assert_eq!(parse_duration("3 parsecs"), None);
    }
}
