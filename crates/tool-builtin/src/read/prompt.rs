//! The Read tool's model-facing description.

use super::{DEFAULT_LIMIT, MAX_OUTPUT_CHARS};
use crate::read::lines::MAX_LINE_CHARS;
use crate::read::pdf::{MAX_PAGES_PER_CALL, MAX_PAGES_WITHOUT_RANGE};

/// The description the model reads.
pub(crate) fn description() -> String {
    format!(
        "Reads a file from the local file system and returns its contents.

Usage:
- file_path must be an absolute path. A relative path is resolved against the working directory, and the result says how it was resolved.
- Without offset and limit, up to {DEFAULT_LIMIT} lines are returned from the start of the file. For a long file, read a part: offset is the 1-based line to start at, limit the number of lines. When a file is small enough, read it whole.
- Lines come back numbered like `cat -n`: the line number right-aligned in six columns, a tab, then the line. The number and the tab are not part of the file; never copy them into old_string or new_string of Edit.
- Lines longer than {MAX_LINE_CHARS} characters are cut, with a note saying how much is missing.
- A read whose output would exceed about {MAX_OUTPUT_CHARS} characters stops early, with a note giving the offset to continue from.
- Images (PNG, JPEG, GIF, WebP) are shown to you as images. Jupyter notebooks (.ipynb) come back as their cells with outputs. PDF files come back as the text of their pages, each under a `--- Page N of T ---` header. A PDF of more than {MAX_PAGES_WITHOUT_RANGE} pages must be read with pages, and one call returns at most {MAX_PAGES_PER_CALL} pages: pages takes a page (\"3\"), a range (\"1-5\") or a list (\"2,4-6\"). Pages without extractable text (scans) are reported as such; render them to images to see them.
- Binary files are refused. Directories cannot be read: list them with LS, or `ls` in Bash.
- For a file that does not exist, the error lists the closest existing paths.
- Reading the same lines of a file that has not changed since your last read returns a short note instead of the content again: your earlier result is still current.
- Read a file before you change it: Edit, MultiEdit, NotebookEdit, ApplyPatch and Write refuse to change an existing file you have not read, or one that changed after you read it.
- You can read several files at once by calling Read for each in the same message."
    )
}
