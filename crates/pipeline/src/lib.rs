//! toolgate-pipeline: a message's tool calls in, one ordered result per call out.
//!
//! This crate is where toolgate comes together: it looks each call up, validates it, runs
//! hooks and the permission engine, executes it and shapes the result. Its first pieces
//! are the wire types ([`ToolCall`], [`ToolResultBlock`]) and the batch plan: consecutive
//! concurrency-safe calls share a batch and run together; any other call runs alone.
//!
//! ```
//! use serde_json::json;
//! use toolgate_core::{ToolBuilder, ToolPool};
//! use toolgate_pipeline::{ToolCall, plan_batches};
//!
//! let pool = ToolPool::builder()
//!     .builtin(ToolBuilder::new("Read").concurrency_safe(true).build())
//!     .builtin(ToolBuilder::new("Edit").build())
//!     .build();
//! let calls: Vec<ToolCall> = ["Read", "Read", "Edit", "Read"]
//!     .iter()
//!     .enumerate()
//!     .map(|(i, n)| ToolCall::new(format!("t{i}"), *n, json!({})))
//!     .collect();
//! let batches = plan_batches(&pool, &calls);
//! assert_eq!(batches.iter().map(|b| b.calls.clone()).collect::<Vec<_>>(), [0..2, 2..3, 3..4]);
//! assert!(batches[0].concurrent && !batches[1].concurrent);
//! ```

mod batch;
mod wire;

pub use batch::{Batch, plan_batches};
pub use wire::{ToolCall, ToolResultBlock};
