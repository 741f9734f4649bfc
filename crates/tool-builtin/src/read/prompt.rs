//! The Read tool's model-facing description.

use super::{DEFAULT_LIMIT, MAX_OUTPUT_CHARS};
use crate::read::lines::MAX_LINE_CHARS;
use crate::read::pdf::{MAX_PAGES_PER_CALL, MAX_PAGES_WITHOUT_RANGE};

/// The description the model reads.
pub(crate) fn description() -> String {
    format!(
        "Reads a file. Lines come back numbered like `cat -n` (the number, a tab, the line); that prefix is not part of the file, so never copy it into Edit's old_string or new_string.

- file_path should be absolute; a relative one is resolved against the working directory, and the result says how.
- Up to {DEFAULT_LIMIT} lines from the start unless you pass offset and limit; read small files whole. Lines over {MAX_LINE_CHARS} characters are cut with a note, and output over about {MAX_OUTPUT_CHARS} characters stops early with the offset to go on from.
- Images (PNG, JPEG, GIF, WebP) come back as images, notebooks (.ipynb) as cells with outputs, PDFs as page text under `--- Page N of T ---` headers: a PDF over {MAX_PAGES_WITHOUT_RANGE} pages needs pages, at most {MAX_PAGES_PER_CALL} per call; pages without text (scans) are reported, render them to images to see them.
- Binary files are refused; list a directory with LS or ls. A missing file's error lists the closest existing paths.
- Reading unchanged lines again returns a short note: your earlier result is still current.
- Edit, MultiEdit, NotebookEdit, ApplyPatch and Write refuse an existing file you have not read, or that changed since.
- Read several files at once with one call each in the same message."
    )
}
