//! Config's model-facing description.

use super::WRITABLE;

/// The description, listing the settings Config may write.
pub(super) fn description() -> String {
    let writable: Vec<String> = WRITABLE.iter().map(|w| format!("- {}: {}", w.key, w.help)).collect();
    format!(
        "\
Reads or changes a setting of this session's Claude Code / toolgate configuration.

- Read: pass only `setting`, a key or a dotted path such as `model`, `permissions.defaultMode` \
or `env.FOO`. You get the merged value from every settings file (managed, --settings, \
.claude/settings.local.json, .claude/settings.json, ~/.claude/settings.json), with the file \
it came from. Arrays such as `permissions.allow` are merged across files.
- Write: pass `setting` and `value` (a string, boolean or number). The value is saved to the \
project's .claude/settings.local.json, keeping every other key. Only these settings can be \
written:
{}
- Permissions, hooks, environment variables and every other setting are read-only here: \
tell the user which file and key to edit instead.",
        writable.join("\n")
    )
}
