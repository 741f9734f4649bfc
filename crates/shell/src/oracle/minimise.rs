//! Shrinking a diverging line while it keeps diverging the same way.
//!
//! Three passes, repeated while any of them shrinks the line and the budget of tries lasts:
//! delete whole lines, then blank-separated tokens, then single characters. Each candidate is
//! kept only when `keeps` says it still shows the divergence.

/// The smallest line found from `line` for which `keeps` holds, trying at most `budget`
/// candidates (`keeps(line)` itself is assumed).
pub(super) fn minimise(line: &str, budget: usize, mut keeps: impl FnMut(&str) -> bool) -> String {
    let mut best = line.to_owned();
    let mut tries = 0;
    loop {
        let before = best.len();
        for split in [Split::Lines, Split::Tokens, Split::Chars] {
            let mut i = 0;
            loop {
                let pieces = split.pieces(&best);
                if i >= pieces.len() || tries >= budget {
                    break;
                }
                let candidate: String =
                    pieces.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, p)| p.as_str()).collect();
                if candidate.trim().is_empty() {
                    i += 1;
                    continue;
                }
                tries += 1;
                if keeps(&candidate) {
                    best = candidate;
                } else {
                    i += 1;
                }
            }
        }
        if best.len() == before || tries >= budget {
            return best;
        }
    }
}

/// How a line is cut into pieces that are deleted one at a time.
#[derive(Debug, Clone, Copy)]
enum Split {
    /// Lines, each with its newline.
    Lines,
    /// Runs of non-blanks, each with the blanks after it.
    Tokens,
    /// Characters.
    Chars,
}

impl Split {
    /// The pieces of `line`; joined they give `line` back.
    fn pieces(self, line: &str) -> Vec<String> {
        match self {
            Split::Lines => line.split_inclusive('\n').map(str::to_owned).collect(),
            Split::Chars => line.chars().map(String::from).collect(),
            Split::Tokens => {
                let mut out: Vec<String> = Vec::new();
                let mut in_blanks = false;
                for c in line.chars() {
                    let blank = c == ' ' || c == '\t';
                    if !blank && in_blanks || out.is_empty() {
                        out.push(String::new());
                    }
                    in_blanks = blank;
                    if let Some(last) = out.last_mut() {
                        last.push(c);
                    }
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_shrinks_to_what_keeps_the_property() {
        let line = "echo a\ncat b; touch pwned now\nls";
        let small = minimise(line, 1000, |c| c.contains("touch p"));
        assert_eq!(small, "touch p");
    }

    #[test]
    fn pieces_join_back_and_the_budget_is_kept() {
        for split in [Split::Lines, Split::Tokens, Split::Chars] {
            assert_eq!(split.pieces("a  b\nc d").concat(), "a  b\nc d");
        }
        let mut calls = 0;
        minimise("a b c d e f", 3, |_| {
            calls += 1;
            false
        });
        assert_eq!(calls, 3);
    }
}
