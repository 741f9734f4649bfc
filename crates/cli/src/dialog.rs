//! The terminal dialog: AskUserQuestion's questions and ExitPlanMode's plan approval, asked
//! on the terminal (stderr and `/dev/tty`) like the permission prompter asks.

use console::{Key, Term, style};
use toolgate_builtin::{Answer, PlanDecision, PlanReview, Question, QuestionsOutcome, UserDialog};
use toolgate_core::{BoxFuture, PermissionMode};

/// Asks the person on the controlling terminal, one dialog at a time.
#[derive(Debug, Clone)]
pub struct TerminalDialog {
    term: Term,
    /// One dialog at a time: concurrent calls must not interleave on the terminal.
    busy: std::sync::Arc<tokio::sync::Mutex<()>>,
}

impl TerminalDialog {
    /// A dialog when stderr is a terminal a person can answer on; `None` otherwise (then
    /// AskUserQuestion and the plan-mode tools are not offered).
    pub fn open() -> Option<Self> {
        let term = Term::stderr();
        if !term.is_term() || std::env::var_os("TOOLGATE_NO_PROMPT").is_some() {
            return None;
        }
        Some(Self { term, busy: std::sync::Arc::default() })
    }

    fn line(&self, text: &str) {
        let _ = self.term.write_line(text);
    }

    fn ask_all(&self, questions: &[Question]) -> QuestionsOutcome {
        let mut answers = Vec::with_capacity(questions.len());
        self.line("");
        self.line(&style("The model has a question for you (Enter on an empty line declines):").bold().to_string());
        for question in questions {
            self.line("");
            self.line(&format!("{} {}", style(format!("[{}]", question.header)).cyan().bold(), question.question));
            for (i, option) in question.options.iter().enumerate() {
                let description =
                    if option.description.is_empty() { String::new() } else { format!(" — {}", option.description) };
                self.line(&format!(
                    "  {} {}{}",
                    style(format!("{}.", i + 1)).bold(),
                    option.label,
                    style(description).dim()
                ));
                for preview in option.preview.iter().flat_map(|p| p.lines()) {
                    self.line(&format!("       {}", style(preview).dim()));
                }
            }
            let n = question.options.len();
            let how =
                if question.multi_select { format!("1-{n}, several separated by commas") } else { format!("1-{n}") };
            loop {
                let _ = self.term.write_str(&format!("  Your choice ({how}): "));
                let Ok(reply) = self.term.read_line() else {
                    return QuestionsOutcome::Unavailable { reason: "the terminal could not be read".into() };
                };
                if reply.trim().is_empty() {
                    return QuestionsOutcome::Declined { feedback: None };
                }
                let picked = match parse_choice(&reply, n, question.multi_select) {
                    Ok(picked) => picked,
                    Err(problem) => {
                        self.line(&format!("  {}", style(problem).red()));
                        continue;
                    }
                };
                let mut answer = Answer::default();
                for i in picked {
                    let option = &question.options[i];
                    if option.free_text {
                        let _ = self.term.write_str("  Your answer: ");
                        match self.term.read_line() {
                            Ok(text) if !text.trim().is_empty() => answer.other = Some(text.trim().to_owned()),
                            Ok(_) => {}
                            Err(_) => {
                                return QuestionsOutcome::Unavailable {
                                    reason: "the terminal could not be read".into(),
                                };
                            }
                        }
                    } else {
                        answer.selected.push(option.label.clone());
                    }
                }
                if answer.selected.is_empty() && answer.other.is_none() {
                    self.line(&format!("  {}", style("an answer is needed; type it, or pick a choice").red()));
                    continue;
                }
                answers.push(answer);
                break;
            }
        }
        QuestionsOutcome::Answered(answers)
    }

    fn review(&self, review: &PlanReview) -> PlanDecision {
        self.line("");
        self.line(&format!(
            "{} {}",
            style("The model's plan, for your approval").bold(),
            style(format!("(saved to {})", review.plan_file.display())).dim()
        ));
        for line in review.plan.lines() {
            self.line(&format!("  {line}"));
        }
        let offer_accept_edits = review.restores != PermissionMode::AcceptEdits;
        self.line(&format!("  {} yes, go ahead ({} mode)", style("[y]").green().bold(), review.restores));
        if offer_accept_edits {
            self.line(&format!("  {} yes, and accept edits without asking", style("[a]").green().bold()));
        }
        self.line(&format!("  {} no, keep planning", style("[n]").red().bold()));
        loop {
            match self.term.read_key() {
                Ok(Key::Char('y' | 'Y')) => return PlanDecision::Approved { mode: None },
                Ok(Key::Char('a' | 'A')) if offer_accept_edits => {
                    return PlanDecision::Approved { mode: Some(PermissionMode::AcceptEdits) };
                }
                Ok(Key::Char('n' | 'N')) => {
                    let _ = self.term.write_str("  What should change? (Enter to skip): ");
                    let feedback = self.term.read_line().ok().map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
                    return PlanDecision::Rejected { feedback };
                }
                Ok(Key::Escape | Key::CtrlC) => return PlanDecision::Rejected { feedback: None },
                Err(_) => return PlanDecision::Unavailable { reason: "the terminal could not be read".into() },
                Ok(_) => {}
            }
        }
    }
}

/// The 0-based choices a reply names: numbers 1..=n separated by commas or spaces, one
/// unless `multi`, each at most once.
fn parse_choice(reply: &str, n: usize, multi: bool) -> Result<Vec<usize>, String> {
    let mut picked = Vec::new();
    for word in reply.split(|c: char| c == ',' || c.is_whitespace()).filter(|w| !w.is_empty()) {
        let i = word
            .parse::<usize>()
            .ok()
            .filter(|i| (1..=n).contains(i))
            .ok_or_else(|| format!("type a number from 1 to {n}"))?;
        if !picked.contains(&(i - 1)) {
            picked.push(i - 1);
        }
    }
    if picked.len() > 1 && !multi {
        return Err("pick one choice".to_owned());
    }
    Ok(picked)
}

impl UserDialog for TerminalDialog {
    fn ask<'a>(&'a self, questions: &'a [Question]) -> BoxFuture<'a, QuestionsOutcome> {
        Box::pin(async move {
            let _turn = self.busy.lock().await;
            let (this, questions) = (self.clone(), questions.to_vec());
            // Reading the terminal blocks: keep it off the runtime's workers.
            tokio::task::spawn_blocking(move || this.ask_all(&questions))
                .await
                .unwrap_or(QuestionsOutcome::Unavailable { reason: "the terminal dialog failed".into() })
        })
    }

    fn review_plan<'a>(&'a self, review: &'a PlanReview) -> BoxFuture<'a, PlanDecision> {
        Box::pin(async move {
            let _turn = self.busy.lock().await;
            let (this, review) = (self.clone(), review.clone());
            tokio::task::spawn_blocking(move || this.review(&review))
                .await
                .unwrap_or(PlanDecision::Unavailable { reason: "the terminal dialog failed".into() })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_numbers_in_range_and_one_unless_multi() {
        assert_eq!(parse_choice("2", 3, false), Ok(vec![1]));
        assert_eq!(parse_choice(" 1, 3 3", 3, true), Ok(vec![0, 2]));
        assert_eq!(parse_choice("1,2", 3, false), Err("pick one choice".to_owned()));
        assert_eq!(parse_choice("4", 3, true), Err("type a number from 1 to 3".to_owned()));
        assert_eq!(parse_choice("x", 3, true), Err("type a number from 1 to 3".to_owned()));
    }
}
