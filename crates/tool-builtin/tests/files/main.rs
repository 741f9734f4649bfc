//! Integration tests of the file tools (Read, Write, Edit, MultiEdit, NotebookEdit,
//! ApplyPatch) on real files in temporary directories, through the tools' own
//! `validate_input`, `normalize_input` and `call`, in the order the pipeline uses them.

// The whole crate is test code: a failed unwrap in a helper is a failed assertion.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod apply_patch;
mod common;
mod crash;
mod edit;
mod messages;
mod multi_edit;
mod notebook_edit;
mod read;
mod read_pdf;
mod write;
