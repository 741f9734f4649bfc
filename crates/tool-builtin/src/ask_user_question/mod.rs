//! AskUserQuestion: one to four multiple-choice questions to the person, through the host's
//! [`UserDialog`], with a free-text "Other" choice added to each.
//!
//! The tool requires user interaction, so the permission engine never approves it on its
//! own: no rule, mode or classifier allows it, `dontAsk` denies it, and without anyone to
//! prompt it is denied. Answers a PreToolUse hook fills into `answers` are used as given.

pub(crate) mod dialog;
mod prompt;

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolgate_core::{DynTool, InterruptBehavior, ToolContext, ToolError, ToolOutput, TypedTool, typed};

pub use dialog::{Answer, PlanDecision, PlanReview, Question, QuestionOption, QuestionsOutcome, UserDialog};

/// The label of the free-text choice added to every question.
pub const OTHER_LABEL: &str = "Other";

/// One choice as the model writes it.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct OptionInput {
    /// What the user picks (1-5 words).
    #[schemars(length(min = 1))]
    label: String,
    /// What picking it means.
    description: String,
    /// Optional content shown beside the choice (a mock-up, a code sample).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    preview: Option<String>,
}

/// One question as the model writes it.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct QuestionInput {
    /// The full question, ending in a question mark.
    #[schemars(length(min = 1))]
    question: String,
    /// A short label shown with the question (at most 12 characters).
    #[schemars(length(min = 1, max = 12))]
    header: String,
    /// 2 to 4 choices; an "Other" choice for a typed answer is added automatically.
    #[schemars(length(min = 2, max = 4))]
    options: Vec<OptionInput>,
    /// Whether several choices may be picked.
    #[serde(default)]
    multi_select: bool,
}

/// AskUserQuestion's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AskUserQuestionInput {
    /// 1 to 4 questions.
    #[schemars(length(min = 1, max = 4))]
    questions: Vec<QuestionInput>,
    /// Answers already given (question text to answer), filled in by hooks.
    #[serde(default)]
    answers: Option<BTreeMap<String, String>>,
}

/// The AskUserQuestion tool; disabled without a dialog.
pub(crate) fn tool(dialog: Option<Arc<dyn UserDialog>>) -> DynTool {
    typed(AskUserQuestion { dialog })
}

struct AskUserQuestion {
    dialog: Option<Arc<dyn UserDialog>>,
}

fn check(input: &AskUserQuestionInput) -> Result<(), ToolError> {
    let mut texts = HashSet::new();
    for (i, q) in input.questions.iter().enumerate() {
        if q.question.trim().is_empty() || q.header.trim().is_empty() {
            return Err(ToolError::invalid_input(format!("questions[{i}] has a blank question or header"))
                .with_hint("Write the full question, and a header of at most 12 characters such as \"Database\"."));
        }
        if !texts.insert(q.question.trim()) {
            return Err(ToolError::invalid_input(format!("questions[{i}] repeats the question \"{}\"", q.question))
                .with_hint("Each question must be different; merge the duplicates into one."));
        }
        let mut labels = HashSet::new();
        for (j, o) in q.options.iter().enumerate() {
            let label = o.label.trim();
            if label.is_empty() {
                return Err(ToolError::invalid_input(format!("questions[{i}].options[{j}] has a blank label"))
                    .with_hint("Give every choice a short label (1-5 words)."));
            }
            if label.eq_ignore_ascii_case(OTHER_LABEL) {
                return Err(ToolError::invalid_input(format!(
                    "questions[{i}].options[{j}] is labelled \"{label}\", which is reserved"
                ))
                .with_hint("An \"Other\" choice where the user types an answer is added automatically; drop yours."));
            }
            if !labels.insert(label.to_lowercase()) {
                return Err(ToolError::invalid_input(format!("questions[{i}] offers the choice \"{label}\" twice"))
                    .with_hint("Labels within a question must differ; merge or rename the duplicates."));
            }
        }
    }
    if let Some(answers) = &input.answers
        && let Some(stray) = answers.keys().find(|k| !texts.contains(k.trim()))
    {
        return Err(ToolError::invalid_input(format!(
            "answers has an entry for \"{stray}\", which is not one of the questions"
        ))
        .with_hint("Key answers by the exact text of their question, or leave answers out."));
    }
    Ok(())
}

fn to_question(q: &QuestionInput) -> Question {
    let mut options: Vec<QuestionOption> = q
        .options
        .iter()
        .map(|o| QuestionOption {
            label: o.label.trim().to_owned(),
            description: o.description.clone(),
            preview: o.preview.clone(),
            free_text: false,
        })
        .collect();
    options.push(QuestionOption {
        label: OTHER_LABEL.to_owned(),
        description: "Type an answer of your own".to_owned(),
        preview: None,
        free_text: true,
    });
    Question {
        question: q.question.trim().to_owned(),
        header: q.header.trim().to_owned(),
        options,
        multi_select: q.multi_select,
    }
}

impl TypedTool for AskUserQuestion {
    type Input = AskUserQuestionInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "AskUserQuestion"
    }
    fn description(&self) -> String {
        prompt::description()
    }
    fn search_hint(&self) -> Option<&'static str> {
        Some("ask the user multiple-choice questions")
    }
    fn is_enabled(&self) -> bool {
        self.dialog.is_some()
    }
    fn is_read_only(&self, _: &AskUserQuestionInput) -> bool {
        true
    }
    fn requires_user_interaction(&self) -> bool {
        true
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }
    fn should_defer(&self) -> bool {
        true
    }
    async fn validate(&self, input: &AskUserQuestionInput, _: &ToolContext) -> Result<(), ToolError> {
        check(input)
    }
    async fn call(&self, input: AskUserQuestionInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        check(&input)?;
        let given = input.answers.clone().unwrap_or_default();
        let given: BTreeMap<&str, &str> = given.iter().map(|(k, v)| (k.trim(), v.as_str())).collect();
        let open: Vec<Question> =
            input.questions.iter().filter(|q| !given.contains_key(q.question.trim())).map(to_question).collect();
        let mut answers: BTreeMap<String, String> =
            given.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        if !open.is_empty() {
            let Some(dialog) = &self.dialog else {
                return Err(ToolError::permission("no one is available to answer questions in this session")
                    .with_hint("Go on with your best judgement and say which assumptions you made."));
            };
            match dialog.ask(&open).await {
                QuestionsOutcome::Answered(got) if got.len() == open.len() => {
                    for (q, a) in open.iter().zip(got) {
                        answers.insert(q.question.clone(), a.to_line());
                    }
                }
                QuestionsOutcome::Answered(got) => {
                    return Err(ToolError::internal(format!(
                        "the question service returned {} answers for {} questions",
                        got.len(),
                        open.len()
                    ))
                    .with_hint("This is a fault of the host, not of your input; ask again or go on without."));
                }
                QuestionsOutcome::Declined { feedback } => {
                    let hint = match feedback {
                        Some(f) if !f.trim().is_empty() => format!("The user said: {f}"),
                        _ => "Go on with your best judgement, or ask differently later.".to_owned(),
                    };
                    return Err(ToolError::permission("the user declined to answer your questions").with_hint(hint));
                }
                QuestionsOutcome::Unavailable { reason } => {
                    return Err(ToolError::permission(format!("no one could answer your questions: {reason}"))
                        .with_hint("Go on with your best judgement and say which assumptions you made."));
                }
            }
        }
        let mut text = "The user answered your questions:\n".to_owned();
        for q in &input.questions {
            let answer =
                answers.get(q.question.trim()).map_or("(no answer)", |a| if a.is_empty() { "(no answer)" } else { a });
            let _ = writeln!(text, "- \"{}\" → {answer}", q.question.trim());
        }
        text.push_str("Continue with these answers in mind.");
        let structured = json!({"questions": input.questions, "answers": answers});
        Ok(ToolOutput::text(text).with_structured(structured))
    }
    fn render_use(&self, input: &AskUserQuestionInput) -> String {
        let headers: Vec<&str> = input.questions.iter().map(|q| q.header.as_str()).collect();
        format!("AskUserQuestion({})", headers.join(", "))
    }
}
