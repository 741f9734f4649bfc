//! The plan-mode tools' model-facing texts.

/// EnterPlanMode's description.
pub(super) fn enter() -> String {
    "\
Switches the session to plan mode, for work that deserves a plan the user approves before \
anything changes: a feature touching several files, an unclear approach, a risky change. \
In plan mode you explore and design with read-only tools; edits and commands that change \
files are refused. When the plan is ready, present it with ExitPlanMode. Skip plan mode \
for small, clear changes."
        .to_owned()
}

/// ExitPlanMode's description.
pub(super) fn exit() -> String {
    "\
Presents your plan to the user for approval and, when they approve it, leaves plan mode so \
you can carry it out. Use it only in plan mode, once the plan is complete.

- plan: the plan, as concise markdown: the steps, the files to change, how you will check \
the result. It is saved to the session's plan file and shown to the user. If you leave it \
out, the plan file's current content is presented.
- If the user does not approve, you stay in plan mode; revise the plan with their feedback \
and call ExitPlanMode again.
- Do not use AskUserQuestion to ask whether the plan is ready; this tool is that question."
        .to_owned()
}

/// What EnterPlanMode tells the model.
pub(super) fn entered(plan_file: &std::path::Path) -> String {
    format!(
        "Entered plan mode. Explore the code and design the approach with read-only tools; \
edits and commands that change files are refused until the user approves a plan. When the \
plan is ready, call ExitPlanMode with it in `plan` (markdown); it is saved to {} and shown \
to the user.",
        plan_file.display()
    )
}
