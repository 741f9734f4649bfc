//! AskUserQuestion's model-facing description.

/// The description.
pub(super) fn description() -> String {
    "\
Asks the user one to four multiple-choice questions and returns their answers. Use it \
when a decision is theirs to make (a preference, a trade-off, an ambiguous requirement) \
rather than guessing.

- questions: 1 to 4, each with question (the full question, ending in \"?\"), header (a \
label of at most 12 characters, e.g. \"Database\"), options (2 to 4 choices, each with a \
label and a description of what it means, optionally a preview) and multiSelect (true \
when several choices may be picked; default false).
- An \"Other\" choice, where the user types their own answer, is added to every question \
automatically: do not add one yourself.
- Question texts must differ, and so must the labels within a question.
- The user may decline to answer; then go on with your best judgement.
- In plan mode, ask about requirements here, not about whether the plan is ready: that is \
what ExitPlanMode is for."
        .to_owned()
}
