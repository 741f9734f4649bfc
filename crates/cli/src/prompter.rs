//! The terminal prompter: asks a person on the terminal (stderr and `/dev/tty`), one
//! keypress: `y` once, `a` always (saving the shown rule), `n` (or Ctrl-C, Esc) no.

use console::{Key, Term, style};
use toolgate_core::BoxFuture;
use toolgate_permissions::{PromptAnswer, PromptRequest, Prompter};

/// Prompts on the controlling terminal.
#[derive(Debug, Clone)]
pub struct TerminalPrompter {
    term: Term,
}

impl TerminalPrompter {
    /// A prompter when stderr is a terminal a person can answer on; `None` otherwise (then
    /// asks become denials naming the rule that would allow the call).
    pub fn open() -> Option<Self> {
        let term = Term::stderr();
        if !term.is_term() || std::env::var_os("TOOLGATE_NO_PROMPT").is_some() {
            return None;
        }
        Some(Self { term })
    }

    fn ask(&self, request: &PromptRequest) -> PromptAnswer {
        let term = &self.term;
        let always = match request.suggestions.as_slice() {
            [] => None,
            rules => Some(rules.join(", ")),
        };
        let _ = term.write_line("");
        let _ =
            term.write_line(&format!("{} {}", style("toolgate wants to run").bold(), style(&request.summary).cyan()));
        let _ = term.write_line(&format!("  {}", style(&request.message).dim()));
        let _ = term.write_line(&format!("  {} yes, once", style("[y]").green().bold()));
        if let Some(rules) = &always {
            let _ = term.write_line(&format!(
                "  {} yes, and always allow {}",
                style("[a]").green().bold(),
                style(rules).bold()
            ));
        }
        let _ = term.write_line(&format!("  {} no", style("[n]").red().bold()));
        loop {
            match term.read_key() {
                Ok(Key::Char('y' | 'Y')) => return PromptAnswer::AllowOnce,
                Ok(Key::Char('a' | 'A')) if always.is_some() => return PromptAnswer::AllowAlways,
                Ok(Key::Char('n' | 'N') | Key::Escape | Key::CtrlC) | Err(_) => {
                    return PromptAnswer::Deny { feedback: None };
                }
                Ok(_) => {}
            }
        }
    }
}

impl Prompter for TerminalPrompter {
    fn prompt<'a>(&'a self, request: &'a PromptRequest) -> BoxFuture<'a, PromptAnswer> {
        Box::pin(async move {
            let this = self.clone();
            let request = request.clone();
            // Reading a key blocks: keep it off the runtime's workers.
            tokio::task::spawn_blocking(move || this.ask(&request))
                .await
                .unwrap_or(PromptAnswer::Deny { feedback: None })
        })
    }
}
