//! [`UserDialog`]: the host service through which tools reach the person: the questions of
//! AskUserQuestion and the plan approval of ExitPlanMode.

use std::path::PathBuf;

use toolgate_core::{BoxFuture, PermissionMode};

/// One question as the person is shown it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The full question.
    pub question: String,
    /// A short label (at most 12 characters), e.g. "Database".
    pub header: String,
    /// The choices: the model's, then the free-text "Other" choice the tool adds.
    pub options: Vec<QuestionOption>,
    /// Whether several choices may be picked.
    pub multi_select: bool,
}

/// One choice of a [`Question`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionOption {
    /// What the person picks, e.g. "PostgreSQL".
    pub label: String,
    /// What picking it means.
    pub description: String,
    /// Optional content to show beside the choice (a mock-up, a code sample).
    pub preview: Option<String>,
    /// Picking this choice means typing an answer of one's own (the added "Other").
    pub free_text: bool,
}

/// The person's answer to one question.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    /// The labels picked (one for a single-select question), free-text choice excluded.
    pub selected: Vec<String>,
    /// The text typed for the free-text choice, when it was picked.
    pub other: Option<String>,
}

impl Answer {
    /// One picked label.
    pub fn pick(label: impl Into<String>) -> Self {
        Self { selected: vec![label.into()], other: None }
    }

    /// A typed answer (the free-text choice).
    pub fn other(text: impl Into<String>) -> Self {
        Self { selected: Vec::new(), other: Some(text.into()) }
    }

    /// The answer as one line: the labels joined by ", ", then the typed text.
    ///
    /// ```
    /// use toolgate_builtin::Answer;
    /// let a = Answer { selected: vec!["Auth".into(), "Search".into()], other: Some("Billing".into()) };
    /// assert_eq!(a.to_line(), "Auth, Search, Billing");
    /// ```
    pub fn to_line(&self) -> String {
        self.selected.iter().cloned().chain(self.other.clone()).collect::<Vec<_>>().join(", ")
    }
}

/// How asking went.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum QuestionsOutcome {
    /// One answer per question, in order.
    Answered(Vec<Answer>),
    /// The person chose not to answer.
    Declined {
        /// What they said instead, if anything.
        feedback: Option<String>,
    },
    /// No person could be reached (no terminal, the UI went away).
    Unavailable {
        /// Why.
        reason: String,
    },
}

/// A plan the person is asked to approve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanReview {
    /// The plan, as markdown.
    pub plan: String,
    /// The file it was saved to.
    pub plan_file: PathBuf,
    /// The mode the session returns to when the plan is approved as is.
    pub restores: PermissionMode,
}

/// The person's verdict on a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanDecision {
    /// Approved: leave plan mode, for `mode` when the person picked one (e.g.
    /// `acceptEdits`), else for the mode in force before plan mode.
    Approved {
        /// The mode the person chose to continue in.
        mode: Option<PermissionMode>,
    },
    /// Not approved: stay in plan mode.
    Rejected {
        /// What to change, if the person said.
        feedback: Option<String>,
    },
    /// No person could be reached.
    Unavailable {
        /// Why.
        reason: String,
    },
}

/// The person, as tools reach them: a host service.
///
/// The host inserts it into the [`Extensions`](toolgate_core::Extensions) it builds the
/// tools from, as `Arc<dyn UserDialog>`; without one, AskUserQuestion, EnterPlanMode and
/// ExitPlanMode are not offered. The `toolgate` binary asks on the terminal; other hosts
/// show their own UI. Calls may be cancelled by dropping the future.
///
/// ```
/// use std::sync::Arc;
/// use toolgate_builtin::{PlanDecision, PlanReview, Question, QuestionsOutcome, UserDialog};
/// use toolgate_core::{BoxFuture, Extensions};
///
/// /// Nobody is home.
/// struct Away;
/// impl UserDialog for Away {
///     fn ask<'a>(&'a self, _: &'a [Question]) -> BoxFuture<'a, QuestionsOutcome> {
///         Box::pin(async { QuestionsOutcome::Unavailable { reason: "away".into() } })
///     }
///     fn review_plan<'a>(&'a self, _: &'a PlanReview) -> BoxFuture<'a, PlanDecision> {
///         Box::pin(async { PlanDecision::Unavailable { reason: "away".into() } })
///     }
/// }
/// let mut services = Extensions::default();
/// services.insert::<Arc<dyn UserDialog>>(Arc::new(Away));
/// let tools = toolgate_builtin::planning_tools(&services);
/// assert!(tools.iter().any(|t| t.name() == "AskUserQuestion" && t.is_enabled()));
/// ```
pub trait UserDialog: Send + Sync {
    /// Asks the questions, in order.
    fn ask<'a>(&'a self, questions: &'a [Question]) -> BoxFuture<'a, QuestionsOutcome>;

    /// Asks the person to approve a plan.
    fn review_plan<'a>(&'a self, review: &'a PlanReview) -> BoxFuture<'a, PlanDecision>;
}
