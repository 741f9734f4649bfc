//! The results table: rows, their targets, and the markdown it is printed and written as.

use std::fmt::Write as _;
use std::time::Duration;

/// A measured amount: a time or a size in memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Quantity {
    /// Seconds.
    Time(f64),
    /// Kilobytes (peak resident set size).
    Kilobytes(u64),
    /// Characters of text a model reads.
    Characters(u64),
    /// Estimated tokens (characters / 4).
    Tokens(u64),
}

impl Quantity {
    /// A [`Duration`] as a time.
    pub(crate) fn time(duration: Duration) -> Self {
        Quantity::Time(duration.as_secs_f64())
    }

    fn value(self) -> f64 {
        match self {
            Quantity::Time(seconds) => seconds,
            Quantity::Kilobytes(kb) | Quantity::Characters(kb) | Quantity::Tokens(kb) => kb as f64,
        }
    }

    /// The amount in the largest unit that keeps it at 1 or more, 3–4 significant digits.
    pub(crate) fn display(self) -> String {
        match self {
            Quantity::Time(seconds) => {
                let (value, unit) = if seconds >= 1.0 {
                    (seconds, "s")
                } else if seconds >= 1e-3 {
                    (seconds * 1e3, "ms")
                } else if seconds >= 1e-6 {
                    (seconds * 1e6, "µs")
                } else {
                    (seconds * 1e9, "ns")
                };
                format!("{} {unit}", significant(value))
            }
            Quantity::Kilobytes(kb) if kb >= 1024 => format!("{} MB", significant(kb as f64 / 1024.0)),
            Quantity::Kilobytes(kb) => format!("{kb} KB"),
            Quantity::Characters(n) => format!("{} chars", thousands(n)),
            Quantity::Tokens(n) => format!("{} tokens", thousands(n)),
        }
    }
}

/// `n` with a comma between each group of three digits.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `value` with three significant digits, or no decimals from 1,000 up.
fn significant(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// What a row must show to meet its target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Target {
    /// ours / reference ≤ this.
    RatioAtMost(f64),
    /// ours − reference < this many seconds.
    DifferenceBelow(f64),
    /// ours < this (no reference needed).
    Below(Quantity),
    /// Reported without a target.
    None,
}

impl Target {
    fn display(self) -> String {
        match self {
            Target::RatioAtMost(ratio) => format!("≤ {ratio}×"),
            Target::DifferenceBelow(seconds) => format!("< {} added", Quantity::Time(seconds).display()),
            Target::Below(limit) => format!("< {}", limit.display()),
            Target::None => "—".to_owned(),
        }
    }
}

/// One line of the table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row {
    /// The row number with a letter for its parts (`1a`).
    pub(crate) id: String,
    /// What was measured, and against what.
    pub(crate) what: String,
    /// Our median (or peak), if it was measured.
    pub(crate) ours: Option<Quantity>,
    /// The reference's median (or peak) in the same run.
    pub(crate) reference: Option<Quantity>,
    /// The target.
    pub(crate) target: Target,
    /// Why the row was skipped, or a remark (outputs differ, units), shown under the table.
    pub(crate) note: Option<String>,
}

impl Row {
    /// A row measured against a reference.
    pub(crate) fn new(
        id: &str,
        what: impl Into<String>,
        ours: Quantity,
        reference: Option<Quantity>,
        target: Target,
    ) -> Self {
        Row { id: id.to_owned(), what: what.into(), ours: Some(ours), reference, target, note: None }
    }

    /// A row that could not be measured, and why.
    pub(crate) fn skipped(id: &str, what: impl Into<String>, target: Target, why: impl Into<String>) -> Self {
        Row { id: id.to_owned(), what: what.into(), ours: None, reference: None, target, note: Some(why.into()) }
    }

    /// The same row with a remark.
    pub(crate) fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// ours / reference, when both were measured.
    pub(crate) fn ratio(&self) -> Option<f64> {
        match (self.ours, self.reference) {
            (Some(ours), Some(reference)) if reference.value() > 0.0 => Some(ours.value() / reference.value()),
            _ => None,
        }
    }

    /// Whether the target is met; `None` when there is no target or nothing to judge.
    pub(crate) fn met(&self) -> Option<bool> {
        match self.target {
            Target::RatioAtMost(limit) => self.ratio().map(|ratio| ratio <= limit),
            Target::DifferenceBelow(limit) => match (self.ours, self.reference) {
                (Some(ours), Some(reference)) => Some(ours.value() - reference.value() < limit),
                _ => None,
            },
            Target::Below(limit) => self.ours.map(|ours| ours.value() < limit.value()),
            Target::None => None,
        }
    }
}

/// Facts about the run printed above the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    /// `git rev-parse HEAD` (with `-dirty` when the tree has changes).
    pub(crate) commit: String,
    /// Available parallelism.
    pub(crate) cores: usize,
    /// `full` or `quick`.
    pub(crate) mode: &'static str,
    /// Where rows 1 and 2 searched.
    pub(crate) corpus: String,
    /// How long the whole run took, in seconds.
    pub(crate) seconds: u64,
    /// How much of it was the build, in seconds.
    pub(crate) build_seconds: u64,
    /// The one-minute load average when the run started (`/proc/loadavg`).
    pub(crate) load: String,
}

/// The markdown document: header, table, then the numbered notes.
pub(crate) fn render(header: &Header, rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# toolgate benchmark results\n");
    let _ = writeln!(
        out,
        "Written by `cargo xtask bench` ({} mode) in {} s ({} s of it building), at commit `{}`, on {} cores. \
         Rows 1 and 2 searched {}.\n",
        header.mode, header.seconds, header.build_seconds, header.commit, header.cores, header.corpus
    );
    let _ = writeln!(
        out,
        "Medians; every ratio is ours / reference, both measured in this run. The machine may be shared \
         (load average {} when the run started), so absolute times move from run to run; the ratios are what \
         to compare.\n",
        header.load
    );
    let _ = writeln!(
        out,
        "Whole-process rows, and rows 5a and 8, alternate ours and the reference run by run, so load from \
         other processes falls on both alike. The other divan rows (1a–1c, 2a, 4, 5b, 6 and 7) time each side in \
         its own block of samples, so a change of load between blocks moves their ratio: on a busy machine, \
         rerun before trusting a ratio near its target.\n"
    );
    let _ = writeln!(out, "| # | what | ours | reference | ratio | target | met? |");
    let _ = writeln!(out, "|---|------|-----:|----------:|------:|--------|------|");
    let mut notes = Vec::new();
    for row in rows {
        let cell = |q: Option<Quantity>| q.map_or_else(|| "—".to_owned(), Quantity::display);
        let ratio = row.ratio().map_or_else(|| "—".to_owned(), |r| format!("{r:.2}×"));
        let met = match (row.met(), row.ours) {
            (_, None) => "skipped",
            (Some(true), _) => "yes",
            (Some(false), _) => "**no**",
            (None, _) => "—",
        };
        let what = match &row.note {
            Some(note) => {
                notes.push((row.id.clone(), note.clone()));
                format!("{} [^{}]", row.what, row.id)
            }
            None => row.what.clone(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            row.id,
            what.replace('|', "\\|"),
            cell(row.ours),
            cell(row.reference),
            ratio,
            row.target.display(),
            met
        );
    }
    if !notes.is_empty() {
        out.push('\n');
        for (id, note) in notes {
            let _ = writeln!(out, "[^{id}]: {}", note.replace('\n', " "));
        }
    }
    out
}

/// The median of some samples (the mean of the middle two for an even count); `None`
/// for none.
pub(crate) fn median(samples: &[Duration]) -> Option<Duration> {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(value: u64) -> Duration {
        Duration::from_millis(value)
    }

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[ms(5), ms(1), ms(3)]), Some(ms(3)));
        assert_eq!(median(&[ms(4), ms(1), ms(3), ms(2)]), Some(Duration::from_micros(2_500)));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn quantities_in_readable_units() {
        assert_eq!(Quantity::Time(1.5).display(), "1.50 s");
        assert_eq!(Quantity::Time(0.012_34).display(), "12.3 ms");
        assert_eq!(Quantity::Time(0.000_456_7).display(), "457 µs");
        assert_eq!(Quantity::Time(3.2e-9).display(), "3.20 ns");
        assert_eq!(Quantity::Kilobytes(512).display(), "512 KB");
        assert_eq!(Quantity::Kilobytes(10 * 1024).display(), "10.0 MB");
        assert_eq!(Quantity::Characters(12_345).display(), "12,345 chars");
        assert_eq!(Quantity::Tokens(999).display(), "999 tokens");
        assert_eq!(Quantity::Tokens(1_234_567).display(), "1,234,567 tokens");
    }

    #[test]
    fn targets_are_judged() {
        let row = |ours: f64, reference: f64, target| {
            Row::new("x", "x", Quantity::Time(ours), Some(Quantity::Time(reference)), target)
        };
        assert_eq!(row(1.1, 1.0, Target::RatioAtMost(1.1)).met(), Some(true));
        assert_eq!(row(1.2, 1.0, Target::RatioAtMost(1.1)).met(), Some(false));
        assert_eq!(row(6e-6, 2e-6, Target::DifferenceBelow(5e-6)).met(), Some(true));
        assert_eq!(row(8e-6, 2e-6, Target::DifferenceBelow(5e-6)).met(), Some(false));
        let absolute = Row::new("7a", "q", Quantity::Time(2e-4), None, Target::Below(Quantity::Time(1e-3)));
        assert_eq!((absolute.met(), absolute.ratio()), (Some(true), None));
        assert_eq!(row(1.0, 1.0, Target::None).met(), None);
        assert_eq!(Row::skipped("2", "glob", Target::RatioAtMost(1.1), "no fd").met(), None);
    }

    #[test]
    fn the_table_renders_rows_skips_and_notes() {
        let header = Header {
            commit: "abc123".into(),
            cores: 2,
            mode: "quick",
            corpus: "the generated tree".into(),
            seconds: 42,
            build_seconds: 12,
            load: "1.5".into(),
        };
        let rows = [
            Row::new("1a", "Grep | rg", Quantity::Time(0.011), Some(Quantity::Time(0.010)), Target::RatioAtMost(1.1)),
            Row::new(
                "3b",
                "peak memory",
                Quantity::Kilobytes(20 * 1024),
                Some(Quantity::Kilobytes(2048)),
                Target::None,
            )
            .note("sed streams"),
            Row::skipped("2a", "Glob vs fd", Target::RatioAtMost(1.1), "fd is not installed: apt install fd-find"),
        ];
        let text = render(&header, &rows);
        let expected = "\
| 1a | Grep \\| rg | 11.0 ms | 10.0 ms | 1.10× | ≤ 1.1× | yes |
| 3b | peak memory [^3b] | 20.0 MB | 2.00 MB | 10.00× | — | — |
| 2a | Glob vs fd [^2a] | — | — | — | ≤ 1.1× | skipped |

[^3b]: sed streams
[^2a]: fd is not installed: apt install fd-find
";
        assert!(text.ends_with(expected), "{text}");
        assert!(text.contains("in 42 s (12 s of it building), at commit `abc123`, on 2 cores"), "{text}");
        assert!(text.contains("(load average 1.5 when the run started)"), "{text}");
    }
}
