//! toolgate's own log records, forwarded to the clients of `mcp serve` that set a level
//! (`logging/setLevel`): a tracing layer over the `toolgate*` targets, debug and above.

use std::fmt::Write as _;
use std::sync::OnceLock;

use toolgate_mcp::{LogLevel, McpLogs};
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::Context;

/// The process's MCP log clients, shared by the layer and `mcp serve`.
pub fn shared() -> &'static McpLogs {
    static LOGS: OnceLock<McpLogs> = OnceLock::new();
    LOGS.get_or_init(McpLogs::default)
}

/// The layer that forwards records, with its filter.
pub fn layer<S>() -> impl Layer<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    Forward.with_filter(Targets::new().with_target("toolgate", LevelFilter::DEBUG))
}

struct Forward;

impl<S: tracing::Subscriber> Layer<S> for Forward {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        let level = match *meta.level() {
            tracing::Level::ERROR => LogLevel::Error,
            tracing::Level::WARN => LogLevel::Warning,
            tracing::Level::INFO => LogLevel::Info,
            _ => LogLevel::Debug,
        };
        let logs = shared();
        if !logs.wanted(level) {
            return;
        }
        let mut text = Text::default();
        event.record(&mut text);
        logs.record(level, meta.target(), text.0);
    }
}

/// An event's message, then its other fields as `name=value`.
#[derive(Default)]
struct Text(String);

impl Visit for Text {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let fields = std::mem::take(&mut self.0);
            let _ = write!(self.0, "{value:?}{fields}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
}
