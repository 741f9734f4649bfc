//! The keyword index behind ToolSearch: built once per pool, on the first keyword query,
//! so a query over thousands of MCP tools looks words up instead of re-reading every
//! tool's name and description.
//!
//! Tools named `mcp__…` are indexed: their lowercase names in one text (one substring scan
//! per term finds every name and name-part hit), their name parts, search-hint words and
//! description words in maps from word to tools. The few deferred tools with other names
//! (CamelCase parts) are scored directly, by the same rules.

use std::collections::HashMap;

use crate::ToolPool;

/// Per-term weights, as documented in [`crate::search_tools`].
pub(crate) mod weight {
    /// A name part equal to the term (MCP, other).
    pub const EXACT_PART: (u32, u32) = (12, 10);
    /// A name part containing the term, or contained in it (MCP, other).
    pub const PARTIAL_PART: (u32, u32) = (6, 5);
    /// The whole lowercase name contains the term.
    pub const NAME: u32 = 3;
    /// A search-hint word equal to the term.
    pub const HINT: u32 = 4;
    /// A description word equal to the term.
    pub const DESCRIPTION: u32 = 2;
}

/// The MCP prefix of tool names.
const MCP_PREFIX: &str = "mcp__";

/// The indexed view of a pool's deferred tools.
pub(crate) struct SearchIndex {
    /// The indexed (MCP-named) deferred tools' names, in pool order.
    names: Vec<Box<str>>,
    /// Their lowercase names, each followed by a newline.
    text: String,
    /// Where each name starts in `text`.
    starts: Vec<usize>,
    /// Name parts (after `mcp__`, split on `_` and `-`) to the tools that have them.
    parts: HashMap<Box<str>, Vec<u32>>,
    /// The longest name part, in bytes.
    longest_part: usize,
    /// Search-hint words to tools.
    hints: HashMap<Box<str>, Vec<u32>>,
    /// Description words to tools.
    descriptions: HashMap<Box<str>, Vec<u32>>,
    /// Deferred tools with other names, scored one by one.
    others: Vec<Box<str>>,
}

impl SearchIndex {
    /// Indexes the deferred tools of `pool`.
    pub fn build(pool: &ToolPool) -> Self {
        let mut index = SearchIndex {
            names: Vec::new(),
            text: String::new(),
            starts: Vec::new(),
            parts: HashMap::new(),
            longest_part: 0,
            hints: HashMap::new(),
            descriptions: HashMap::new(),
            others: Vec::new(),
        };
        for tool in pool.tools().filter(|t| pool.is_deferred(t.name())) {
            let name = tool.name();
            if !name.starts_with(MCP_PREFIX) || name.contains('\n') {
                index.others.push(name.into());
                continue;
            }
            let id = u32::try_from(index.names.len()).unwrap_or(u32::MAX);
            index.names.push(name.into());
            index.starts.push(index.text.len());
            index.text.push_str(&name.to_lowercase());
            index.text.push('\n');
            for part in name_parts(name) {
                index.longest_part = index.longest_part.max(part.len());
                add(&mut index.parts, part, id);
            }
            for word in tool.search_hint().map(|h| words(h).collect::<Vec<_>>()).unwrap_or_default() {
                add(&mut index.hints, word, id);
            }
            for word in words(&tool.description()) {
                add(&mut index.descriptions, word, id);
            }
        }
        index
    }

    /// Scores every deferred tool for `terms` (lowercase, with whether each is required):
    /// `(score, name)` for each tool that scored and missed no required term.
    pub fn score<'p>(&'p self, pool: &'p ToolPool, terms: &[(String, bool)]) -> Vec<(u32, &'p str)> {
        let count = self.names.len();
        let mut totals = vec![0u32; count];
        let mut missed = vec![false; count];
        let mut name_scores = vec![0u32; count];
        let mut touched: Vec<u32> = Vec::new();
        for (term, required) in terms {
            let mut term_scores = vec![0u32; count];
            self.name_scores(term, &mut name_scores, &mut touched);
            for &id in &touched {
                term_scores[id as usize] += std::mem::take(&mut name_scores[id as usize]);
            }
            touched.clear();
            for &id in self.hints.get(term.as_str()).map_or(&[][..], Vec::as_slice) {
                term_scores[id as usize] += weight::HINT;
            }
            for &id in self.descriptions.get(term.as_str()).map_or(&[][..], Vec::as_slice) {
                term_scores[id as usize] += weight::DESCRIPTION;
            }
            for (id, score) in term_scores.into_iter().enumerate() {
                if *required && score == 0 {
                    missed[id] = true;
                }
                totals[id] += score;
            }
        }
        let mut scored: Vec<(u32, &str)> = totals
            .iter()
            .zip(&missed)
            .zip(&self.names)
            .filter(|((total, missed), _)| **total > 0 && !**missed)
            .map(|((total, _), name)| (*total, &**name))
            .collect();
        for name in &self.others {
            if let Some(tool) = pool.get(name)
                && let Some(score) = score_tool(&name_parts(name), &name.to_lowercase(), tool, terms)
            {
                scored.push((score, &**name));
            }
        }
        scored
    }

    /// Records each indexed tool's name score for `term` (the best of exact part, partial
    /// part and whole-name substring) in `scores`, listing the tools it touched.
    fn name_scores(&self, term: &str, scores: &mut [u32], touched: &mut Vec<u32>) {
        let mut raise = |id: u32, score: u32| {
            let slot = &mut scores[id as usize];
            if *slot == 0 {
                touched.push(id);
            }
            *slot = (*slot).max(score);
        };
        // A part equal to the term.
        for &id in self.parts.get(term).map_or(&[][..], Vec::as_slice) {
            raise(id, weight::EXACT_PART.0);
        }
        // A part of three bytes or more inside the term.
        let bounds: Vec<usize> = term.char_indices().map(|(i, _)| i).chain([term.len()]).collect();
        for (a, &start) in bounds.iter().enumerate() {
            for &end in &bounds[a + 1..] {
                let len = end - start;
                if len > self.longest_part {
                    break;
                }
                if len < 3 {
                    continue;
                }
                for &id in self.parts.get(&term[start..end]).map_or(&[][..], Vec::as_slice) {
                    raise(id, weight::PARTIAL_PART.0);
                }
            }
        }
        // The term inside a name: inside one part when it lies past the prefix and holds no
        // separator, else only inside the whole name.
        if term.is_empty() || term.contains('\n') {
            return;
        }
        let in_part_possible = !term.contains(['_', '-']);
        for (at, _) in self.text.match_indices(term) {
            let id = self.starts.partition_point(|&s| s <= at) - 1;
            let offset = at - self.starts[id];
            let id = u32::try_from(id).unwrap_or(u32::MAX);
            let score =
                if in_part_possible && offset >= MCP_PREFIX.len() { weight::PARTIAL_PART.0 } else { weight::NAME };
            raise(id, score);
        }
    }
}

/// Adds `id` to `word`'s list once.
fn add(map: &mut HashMap<Box<str>, Vec<u32>>, word: String, id: u32) {
    let ids = map.entry(word.into_boxed_str()).or_default();
    if ids.last() != Some(&id) {
        ids.push(id);
    }
}

/// Splits a tool name into lowercase parts: MCP names on `__`, `_` and `-` after the
/// `mcp__` prefix; others on CamelCase boundaries and `_`.
pub(crate) fn name_parts(name: &str) -> Vec<String> {
    if let Some(rest) = name.strip_prefix(MCP_PREFIX) {
        return rest.split(['_', '-']).filter(|p| !p.is_empty()).map(str::to_lowercase).collect();
    }
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' {
            if !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            parts.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// The lowercase words of `text`.
pub(crate) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

/// One tool's score for the terms, or `None` when a required term misses or nothing hit.
pub(crate) fn score_tool(
    parts: &[String],
    lower_name: &str,
    tool: &crate::DynTool,
    terms: &[(String, bool)],
) -> Option<u32> {
    let is_mcp = tool.name().starts_with(MCP_PREFIX);
    let pick = |(mcp, other): (u32, u32)| if is_mcp { mcp } else { other };
    let hint_words: Vec<String> = tool.search_hint().map(|h| words(h).collect()).unwrap_or_default();
    let description = tool.description();
    let desc_words: Vec<String> = words(&description).collect();
    let mut total = 0;
    for (term, required) in terms {
        let mut s = 0;
        if parts.iter().any(|p| p == term) {
            s += pick(weight::EXACT_PART);
        } else if parts.iter().any(|p| p.contains(term.as_str()) || (p.len() >= 3 && term.contains(p.as_str()))) {
            s += pick(weight::PARTIAL_PART);
        } else if lower_name.contains(term.as_str()) {
            s += weight::NAME;
        }
        if hint_words.iter().any(|w| w == term) {
            s += weight::HINT;
        }
        if desc_words.iter().any(|w| w == term) {
            s += weight::DESCRIPTION;
        }
        if *required && s == 0 {
            return None;
        }
        total += s;
    }
    (total > 0).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolBuilder;

    /// The index scores exactly as scoring each tool directly does.
    #[test]
    fn the_index_agrees_with_direct_scoring() {
        let names = [
            "mcp__github__create_issue",
            "mcp__github__get-issue",
            "mcp__jira__create_ticket",
            "mcp__slack0__send_message",
            "mcp__Slack__PostMessage",
            "mcp__db__sql",
            "mcp__x__ab",
            "mcp__mcp__mcp",
        ];
        let mut builder = ToolPool::builder().builtin(crate::ToolSearchTool::shared());
        for (i, name) in names.iter().enumerate() {
            builder = builder.mcp(
                ToolBuilder::new(*name)
                    .description(format!("Create or send an issue message number {i}, SQL too"))
                    .search_hint(if i % 2 == 0 { "ticket tracker" } else { "chat" })
                    .build(),
            );
        }
        builder =
            builder.builtin(ToolBuilder::new("NotebookEdit").description("Edit a notebook").should_defer(true).build());
        let pool = builder.build();
        let index = SearchIndex::build(&pool);
        let queries = [
            "issue",
            "create +jira",
            "iss",
            "createissue",
            "githubx",
            "send_message",
            "get-issue",
            "mcp",
            "mcp__",
            "__",
            "sql ticket",
            "postmessage",
            "slack",
            "+chat message",
            "ab",
            "tedi notebook",
            "é",
            "+nothing create",
        ];
        for query in queries {
            let terms: Vec<(String, bool)> = query
                .split_whitespace()
                .map(|t| match t.strip_prefix('+') {
                    Some(rest) => (rest.to_lowercase(), true),
                    None => (t.to_lowercase(), false),
                })
                .collect();
            let mut fast = index.score(&pool, &terms);
            fast.sort();
            let mut slow: Vec<(u32, &str)> = pool
                .tools()
                .filter(|t| pool.is_deferred(t.name()))
                .filter_map(|t| {
                    score_tool(&name_parts(t.name()), &t.name().to_lowercase(), t, &terms).map(|s| (s, t.name()))
                })
                .collect();
            slow.sort();
            assert_eq!(fast, slow, "query {query:?}");
        }
    }
}
