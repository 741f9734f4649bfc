//! The ApplyPatch tool's model-facing description.

/// The description the model reads.
pub(crate) fn description() -> String {
    "Applies a patch that adds, deletes, updates and moves files, all of them or none.

The patch goes in the `patch` field, in one of two formats.

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

- `*** Add File:` is followed by the new file's lines, each starting with `+`.
- `*** Update File:` is followed by an optional `*** Move to:` and by hunks. A hunk starts with `@@`, optionally followed by a line that comes before the change (such as the enclosing function's header) to say where it is. Its lines start with a space (unchanged context), `-` (removed) or `+` (added). Give about three lines of context before and after each change, copied exactly from the file. `*** End of File` after a hunk pins it to the end of the file.

2. A unified diff, as `diff -u` or `git diff` print it: `--- a/path` and `+++ b/path` headers (`/dev/null` for a created or deleted file) and `@@ -start,count +start,count @@` hunks whose counts match their lines.

Rules:
- Paths may be absolute or relative to the working directory.
- Every file to update or delete must have been read with Read first and be unchanged since. A file to add must not exist yet.
- The whole patch is checked before anything is written: if any hunk does not apply, nothing changes, and the error says which file and hunk failed and shows the closest text of the file.
- Files not touched by a hunk keep their line endings; a file's final newline stays as it was.
- The result lists each file with what happened to it."
        .to_owned()
}
