//! Progress for people: a spinner on stderr for calls that take over a second, with the
//! call's summary, elapsed time and its last progress line. Nothing when stderr is not a
//! terminal.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use toolgate_pipeline::{Event, EventSink};

/// How long a call runs before its spinner appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// The spinners of this process, drawn on stderr.
fn spinners() -> &'static MultiProgress {
    static MULTI: std::sync::OnceLock<MultiProgress> = std::sync::OnceLock::new();
    MULTI.get_or_init(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()))
}

/// Runs `ask` (a question on the terminal) with every spinner hidden, so that none draws over it.
#[cfg(feature = "mcp")]
pub fn suspend<R>(ask: impl FnOnce() -> R) -> R {
    spinners().suspend(ask)
}

/// An event sink drawing spinners, or `None` when stderr is not a terminal.
pub fn spinner_sink() -> Option<EventSink> {
    if !console::Term::stderr().is_term() {
        return None;
    }
    let multi = spinners().clone();
    let bars: Arc<Mutex<HashMap<String, (ProgressBar, String)>>> = Arc::default();
    let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    Some(Arc::new(move |event: Event| {
        let mut bars = bars.lock().unwrap_or_else(PoisonError::into_inner);
        match event {
            Event::CallStarted { tool_use_id, summary, .. } => {
                let bar = ProgressBar::hidden().with_style(style.clone()).with_message(summary.clone());
                bars.insert(tool_use_id, (bar.clone(), summary));
                let multi = multi.clone();
                // Quick calls finish before the spinner would appear: nothing is drawn.
                std::thread::spawn(move || {
                    std::thread::sleep(SHOW_AFTER);
                    if !bar.is_finished() {
                        multi.add(bar).enable_steady_tick(Duration::from_millis(120));
                    }
                });
            }
            Event::Progress(p) => {
                if let Some((bar, summary)) = bars.get(&p.tool_use_id) {
                    let line = p.message.lines().last().unwrap_or_default();
                    bar.set_message(format!("{summary} — {line}"));
                }
            }
            Event::CallFinished { tool_use_id, .. } => {
                if let Some((bar, _)) = bars.remove(&tool_use_id) {
                    bar.finish_and_clear();
                }
            }
            _ => {}
        }
    }))
}
