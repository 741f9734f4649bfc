//! The ApplyPatch tool's model-facing description.

/// The description the model reads.
pub(crate) fn description() -> String {
    "Applies a patch that adds, deletes, updates and moves files, all of them or none.

The patch is in one of two formats.

1. The envelope format:

*** Begin Patch
*** Add File: src/new_module.py
+def hello():
+    return \"hello\"
*** Update File: src/app.py
*** Move to: src/main.py
@@ def run():
-    print(\"old\")
+    print(\"new\")
*** Delete File: src/obsolete.py
*** End Patch

- Add File: the new file's lines, each starting with `+`.
- Update File: an optional `*** Move to:`, then hunks. A hunk starts with `@@`, optionally followed by a line before the change (the enclosing function's header) that places it; its lines start with a space (context), `-` (removed) or `+` (added). Copy about three lines of context on each side exactly from the file. `*** End of File` after a hunk pins it to the end.

2. A unified diff as `diff -u` or `git diff` prints it (`/dev/null` for a created or deleted file; hunk counts must match their lines).

- Paths may be absolute or relative to the working directory.
- Files to update or delete must have been read and be unchanged since; a file to add must not exist.
- Nothing is written unless every hunk applies; the error names the failing file and hunk and shows the closest text.
- Line endings and final newlines stay as they were. The result lists each file and what happened to it."
        .to_owned()
}
