//! Sleep's model-facing description.

/// The description.
pub(super) fn description(max_ms: u64) -> String {
    format!(
        "\
Waits for duration_ms milliseconds (1 to {max_ms}) without holding a shell, then returns. \
Use it to give a background task or an external process time before you check on it \
again, instead of running `sleep` in Bash. The user can interrupt the wait at any time."
    )
}
