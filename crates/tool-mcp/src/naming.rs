//! `mcp__<server>__<tool>` names: building them from server and tool names, and reading
//! them back.

/// `x` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
///
/// Servers named `claude.ai …` (claude.ai connectors) also have runs of `_` collapsed
/// and leading and trailing `_` trimmed, as Claude Code does.
///
/// ```
/// use toolgate_mcp::normalize_name_part;
/// assert_eq!(normalize_name_part("a.b/c d"), "a_b_c_d");
/// assert_eq!(normalize_name_part("claude.ai Google Drive"), "claude_ai_Google_Drive");
/// ```
pub fn normalize_name_part(x: &str) -> String {
    let replaced: String =
        x.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if !x.starts_with("claude.ai ") {
        return replaced;
    }
    let mut collapsed = String::with_capacity(replaced.len());
    for c in replaced.chars() {
        if !(c == '_' && collapsed.ends_with('_')) {
            collapsed.push(c);
        }
    }
    collapsed.trim_matches('_').to_owned()
}

/// The pool name of `tool` on `server`.
pub fn mcp_tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{}__{}", normalize_name_part(server), normalize_name_part(tool))
}

/// The parts of an MCP tool name or server-level name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpName<'a> {
    /// The (normalized) server name.
    pub server: &'a str,
    /// The tool name, absent for a server-level name such as `mcp__github`.
    pub tool: Option<&'a str>,
}

/// Reads `mcp__server` or `mcp__server__tool`: the first `__`-separated part after `mcp`
/// is the server and the rest, re-joined with `__`, the tool (so a server name containing
/// `__` cannot round-trip, as in Claude Code). `None` for names that are not MCP names.
///
/// ```
/// use toolgate_mcp::parse_mcp_tool_name;
/// assert_eq!(parse_mcp_tool_name("mcp__gh").unwrap().tool, None);
/// assert_eq!(parse_mcp_tool_name("mcp__gh__a__b").unwrap().tool, Some("a__b"));
/// assert!(parse_mcp_tool_name("Read").is_none());
/// ```
pub fn parse_mcp_tool_name(name: &str) -> Option<McpName<'_>> {
    let rest = name.strip_prefix("mcp__")?;
    if rest.is_empty() {
        return None;
    }
    match rest.split_once("__") {
        Some((server, tool)) if !server.is_empty() && !tool.is_empty() => Some(McpName { server, tool: Some(tool) }),
        Some(_) => None,
        None => Some(McpName { server: rest, tool: None }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_for_ordinary_servers() {
        for (server, tool) in [("github", "create_issue"), ("my-server", "do-thing"), ("fs", "read")] {
            let name = mcp_tool_name(server, tool);
            let parsed = parse_mcp_tool_name(&name).unwrap();
            assert_eq!((parsed.server, parsed.tool), (server, Some(tool)), "{name}");
        }
    }

    #[test]
    fn hostile_characters_are_replaced() {
        assert_eq!(mcp_tool_name("../../x", "a(b)*"), "mcp________x__a_b__");
        assert_eq!(mcp_tool_name("ünï", "t"), "mcp___n___t");
    }

    #[test]
    fn malformed_names_are_rejected() {
        for bad in ["mcp__", "mcp____tool", "mcp__server__", "mcp_x", "Bash"] {
            assert!(parse_mcp_tool_name(bad).is_none(), "{bad}");
        }
    }
}
