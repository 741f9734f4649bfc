//! The worktree tools' model-facing descriptions.

/// EnterWorktree's description.
pub(super) fn enter() -> String {
    "\
Creates an isolated git worktree and moves this session into it, so you can work on a \
separate branch without touching the user's checkout.

- name: a short name for the worktree (letters, digits, `.`, `_`, `-`; `/` separates \
segments; at most 64 characters). The worktree is created at .claude/worktrees/<name> in \
the repository, on a new branch worktree-<name> starting from the current HEAD. Omit it to \
get a generated name.
- path: instead of name, an existing worktree of this repository to enter.
- Afterwards relative paths, Bash commands and searches work inside the worktree.
- Only one worktree at a time: call ExitWorktree before entering another.
- Use it when the user asks for a worktree or for work isolated from the current checkout; \
not for ordinary edits."
        .to_owned()
}

/// ExitWorktree's description.
pub(super) fn exit() -> String {
    "\
Leaves the worktree entered with EnterWorktree and moves the session back to where it was.

- action \"keep\": leave the worktree and its branch on disk (the user can review or merge it).
- action \"remove\": delete the worktree and its branch. Refused when the worktree has \
uncommitted changes, untracked files or commits of its own, unless discard_changes is true; \
only set discard_changes when the user agreed to throw that work away.
- Only worktrees entered in this session can be left; worktrees entered by path can only be kept."
        .to_owned()
}
