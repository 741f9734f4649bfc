//! The batch plan: consecutive concurrency-safe calls share a batch; any other call (an
//! unknown tool, or an input that fails its schema, included) is a batch of one. Results
//! keep the calls' order.

use std::ops::Range;

use toolgate_core::ToolPool;

use crate::ToolCall;

/// A run of calls executed together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The calls' indices in the message.
    pub calls: Range<usize>,
    /// Whether they run concurrently (all concurrency-safe).
    pub concurrent: bool,
}

/// Splits a message's calls into batches, in order.
pub fn plan_batches(pool: &ToolPool, calls: &[ToolCall]) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        // A call whose input fails its schema is never concurrency-safe.
        let safe = pool.get(&call.name).is_some_and(|t| {
            t.is_concurrency_safe(&call.input) && pool.schema(t.name()).is_ok_and(|s| s.validate(&call.input).is_ok())
        });
        match batches.last_mut() {
            Some(last) if safe && last.concurrent => last.calls.end = i + 1,
            _ => batches.push(Batch { calls: i..i + 1, concurrent: safe }),
        }
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolgate_core::ToolBuilder;

    #[test]
    fn input_dependent_safety_and_unknown_tools_split_batches() {
        let pool = ToolPool::builder()
            .builtin(ToolBuilder::new("Bash").concurrency_safe_when(|i| i["command"] == "ls").build())
            .build();
        let calls = vec![
            ToolCall::new("1", "Bash", json!({"command": "ls"})),
            ToolCall::new("2", "Bash", json!({"command": "ls"})),
            ToolCall::new("3", "Nope", json!({})),
            ToolCall::new("4", "Bash", json!({"command": "ls"})),
            ToolCall::new("5", "Bash", json!({"command": "rm x"})),
            ToolCall::new("6", "Bash", json!({"command": "rm y"})),
        ];
        let strict = ToolPool::builder()
            .builtin(
                ToolBuilder::new("Read")
                    .schema(json!({"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]}))
                    .concurrency_safe(true)
                    .build(),
            )
            .build();
        let reads = [ToolCall::new("a", "Read", json!({"p": "x"})), ToolCall::new("b", "Read", json!({"p": 1}))];
        assert_eq!(plan_batches(&strict, &reads).len(), 2, "a schema-invalid call is never safe");
        let plan = plan_batches(&pool, &calls);
        let ranges: Vec<_> = plan.iter().map(|b| (b.calls.clone(), b.concurrent)).collect();
        assert_eq!(ranges, [(0..2, true), (2..3, false), (3..4, true), (4..5, false), (5..6, false)]);
        assert!(plan_batches(&pool, &[]).is_empty());
    }
}
