//! The property: what bash ran and changed must be what the analysis lists.
//!
//! A run diverges from its analysis when (a) bash ran a command no listed command matches, (b)
//! a file changed that no listed write names, or (c) the analysis calls the line read-only but
//! a file changed or an external program ran that is not read-only by itself. (a) and (b) are
//! skipped when a hazard hides what runs: such a line is never approved automatically.
//!
//! The matcher's leniency, all of it on the side of matching more than it should:
//!
//! - argv[0] is compared by basename (`/bin/rm` matches `rm`);
//! - a listed word holding an expansion, glob, brace or leading tilde (`$`, a backtick, `*`,
//!   `?`, `[`, `{`, `~` first, a process substitution `<(`/`>(`) matches any run of zero or more recorded words, since bash's
//!   expansion may yield any words;
//! - a recorded wrapper invocation (`timeout 5 rm x`) matches a listed command whose
//!   `wrappers` hold the recorded program's basename and whose argv matches any suffix of the
//!   record after its first word, whatever the wrapper's own options were;
//! - a listed array assignment word of a declaration (`export A=()`) matches the name alone,
//!   as xtrace prints it (`export A`);
//! - a shim that records the script operand of a listed shell (`sh -p /bin/rm a` records
//!   `/bin/rm a`) is that shell reading the file as a script: every program here is a shim
//!   script, so the shell runs it where a real program file would not be a script; what a
//!   script file runs is beyond any analysis of the line;
//! - a relative write matches a changed file at any depth under `work/` when the line lists a
//!   `cd`, `pushd` or `popd` (the analysis does not follow directory changes).

use super::record::{Execution, Source};
use super::sandbox::{HOME, Root, Run, WORK};
use crate::{BashAnalysis, SimpleCommand, analyze, is_read_only};

/// The kind of a divergence: what a minimised case must keep.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Kind {
    /// Bash ran this program (basename) or builtin, and no listed command matches.
    Unlisted(String),
    /// A file changed that no listed write names.
    UnlistedWrite,
    /// The analysis says read-only, and a file changed.
    ReadOnlyChanged,
    /// The analysis says read-only, and bash ran this external program in a way that is not.
    ReadOnlyRanUnsafe(String),
}

/// One way a run diverged from its analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Divergence {
    /// What kind of divergence it is.
    pub(super) kind: Kind,
    /// The offending execution or file, for the report.
    pub(super) what: String,
}

/// How a run compares with its analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Everything bash did is listed.
    Agrees,
    /// The command ran out of time without a divergence before: nothing can be decided.
    Undecided,
    /// These divergences.
    Diverges(Vec<Divergence>),
}

/// Compares `run` with `analysis`.
pub(super) fn verdict(analysis: &BashAnalysis<'_>, run: &Run) -> Verdict {
    let divergences = divergences(analysis, run);
    match (divergences.is_empty(), run.timed_out) {
        (true, true) => Verdict::Undecided,
        (true, false) => Verdict::Agrees,
        (false, _) => Verdict::Diverges(divergences),
    }
}

/// Every divergence of `run` from `analysis`.
fn divergences(analysis: &BashAnalysis<'_>, run: &Run) -> Vec<Divergence> {
    let mut out = Vec::new();
    if !analysis.hazards.iter().any(|h| h.hides_what_runs()) {
        for execution in &run.executions {
            let whole: Vec<String> = execution.assigned.iter().chain(&execution.argv).cloned().collect();
            let listed = |argv: &[String]| analysis.commands.iter().any(|listed| matches(listed, argv));
            let script = execution.source == Source::Shim && read_as_script(analysis, &execution.argv);
            if !listed(&execution.argv) && (execution.assigned.is_empty() || !listed(&whole)) && !script {
                let kind = Kind::Unlisted(basename(&execution.argv[0]).to_owned());
                out.push(Divergence { kind, what: format!("bash ran {}", describe(execution)) });
            }
        }
        for change in &run.changes {
            if !write_listed(analysis, change.root, &change.path) {
                out.push(Divergence { kind: Kind::UnlistedWrite, what: format!("{} {}", change.what, shown(change)) });
            }
        }
    }
    if is_read_only(analysis) {
        for change in &run.changes {
            out.push(Divergence { kind: Kind::ReadOnlyChanged, what: format!("{} {}", change.what, shown(change)) });
        }
        for execution in run.executions.iter().filter(|e| e.source != Source::Trace) {
            let mut words = execution.argv.clone();
            words[0] = basename(&words[0]).to_owned();
            let line = words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
            if !is_read_only(&analyze(&line)) {
                let kind = Kind::ReadOnlyRanUnsafe(words[0].clone());
                out.push(Divergence { kind, what: format!("read-only line ran `{line}`, which is not read-only") });
            }
        }
    }
    out
}

/// Whether `argv` is the script operand of a listed bash-like shell, with its arguments
/// (`sh -p /bin/rm a` lists `/bin/rm a` as the script and its arguments).
fn read_as_script(analysis: &BashAnalysis<'_>, argv: &[String]) -> bool {
    analysis.commands.iter().any(|listed| {
        let words = &listed.argv;
        if !words.first().is_some_and(|name| crate::is_bash_like_shell(basename(name))) {
            return false;
        }
        let options = crate::shell_options(|at| words.get(at).map(|w| (&**w, true)));
        options.string_option.is_none()
            && !options.reads_stdin
            && words
                .get(options.next..)
                .is_some_and(|rest| rest.iter().map(|w| &**w).eq(argv.iter().map(String::as_str)))
    })
}

/// A changed file as `work/…` or `home/…`.
fn shown(change: &super::sandbox::Change) -> String {
    let root = if change.root == Root::Work { "work" } else { "home" };
    format!("{root}/{}", change.path)
}

/// An execution for a report: its words, quoted, and where it was recorded.
pub(super) fn describe(execution: &Execution) -> String {
    let line = execution.argv.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
    let source = match execution.source {
        Source::Shim => "shim",
        Source::NotFound => "not found",
        Source::Trace => "xtrace",
    };
    format!("`{line}` ({source})")
}

/// Whether the listed command matches the recorded words, directly or as a wrapper's payload.
pub(super) fn matches(listed: &SimpleCommand<'_>, recorded: &[String]) -> bool {
    if direct(listed, recorded) {
        return true;
    }
    let Some(first) = recorded.first() else { return false };
    listed.wrappers.iter().any(|w| basename(w) == basename(first))
        && (1..recorded.len()).any(|skip| direct(listed, &recorded[skip..]))
}

/// Whether the listed argv matches the recorded words, argv[0] by basename.
fn direct(listed: &SimpleCommand<'_>, recorded: &[String]) -> bool {
    let (Some(name), Some(first)) = (listed.argv.first(), recorded.first()) else { return false };
    if is_dynamic(name) {
        return words_match(&listed.argv, recorded);
    }
    basename(name) == basename(first) && words_match(&listed.argv[1..], &recorded[1..])
}

/// Whether `pattern` matches `words` exactly, each dynamic word of it matching any run of
/// zero or more words.
fn words_match<S: AsRef<str>>(pattern: &[S], words: &[String]) -> bool {
    // reachable[j]: the pattern's first i words can match exactly the first j words.
    let mut reachable = vec![false; words.len() + 1];
    reachable[0] = true;
    for p in pattern {
        let p = p.as_ref();
        let mut next = vec![false; words.len() + 1];
        if is_dynamic(p) {
            let mut seen = false;
            for j in 0..=words.len() {
                seen |= reachable[j];
                next[j] = seen;
            }
        } else {
            for j in 1..=words.len() {
                next[j] = reachable[j - 1] && (words[j - 1] == p || array_assignment_name(p) == Some(&words[j - 1]));
            }
        }
        reachable = next;
    }
    reachable[words.len()]
}

/// The name a declaration's array assignment word (`A=(…)`, `A+=(…)`) is traced as: xtrace
/// prints `export A=()` as the assignment and then `export A`.
fn array_assignment_name(word: &str) -> Option<&str> {
    let (name, value) = word.split_once('=')?;
    (value.starts_with('(') && value.ends_with(')')).then(|| name.strip_suffix('+').unwrap_or(name))
}

/// Whether a listed word may expand to other words than itself.
fn is_dynamic(word: &str) -> bool {
    word.contains(['$', '`', '*', '?', '[', '{']) || word.starts_with('~') || word.contains("<(") || word.contains(">(")
}

/// The last `/`-separated part of a path.
fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Whether the analysis lists a write to `path` under `root`.
fn write_listed(analysis: &BashAnalysis<'_>, root: Root, path: &str) -> bool {
    let changes_dir = analysis
        .commands
        .iter()
        .any(|c| c.argv.first().is_some_and(|name| ["cd", "pushd", "popd"].contains(&basename(name))));
    analysis.writes.iter().any(|write| {
        if write.dynamic {
            return true;
        }
        let (write_root, relative, target) = resolve(&write.path);
        let Some(target) = target else { return false };
        write_root == root && (target == path || (relative && changes_dir && path.ends_with(&format!("/{target}"))))
    })
}

/// Where a write's static target is: its folder, whether it was relative, and its path under
/// the folder (`None` when outside both folders).
fn resolve(path: &str) -> (Root, bool, Option<String>) {
    let (root, rest, relative) = if let Some(rest) = path.strip_prefix(WORK).filter(|r| r.starts_with('/')) {
        (Root::Work, rest, false)
    } else if let Some(rest) = path.strip_prefix(HOME).filter(|r| r.starts_with('/')) {
        (Root::Home, rest, false)
    } else if path.starts_with('/') {
        return (Root::Work, false, None);
    } else {
        (Root::Work, path, true)
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return (root, relative, None);
                }
            }
            part => parts.push(part),
        }
    }
    (root, relative, Some(parts.join("/")))
}

/// A word quoted for bash: bare when it is made of safe characters, otherwise in `'…'`.
pub(super) fn quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_./=:,+@%-".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether some command of the analysis of `line` matches `recorded`.
    fn listed_matches(line: &str, recorded: &[&str]) -> bool {
        let recorded: Vec<String> = recorded.iter().map(|&w| w.to_owned()).collect();
        analyze(line).commands.iter().any(|c| matches(c, &recorded))
    }

    #[test]
    fn an_expansion_matches_any_run_of_words() {
        assert!(listed_matches("rm $X", &["rm", "a", "b"]));
        assert!(listed_matches("rm $X", &["/usr/bin/rm"]));
        assert!(listed_matches("rm -f *.txt end", &["rm", "-f", "a.txt", "b.txt", "end"]));
        assert!(!listed_matches("rm $X end", &["rm", "a", "b"]));
        assert!(listed_matches("cat <(ls)", &["cat", "/dev/fd/63"]));
    }

    #[test]
    fn static_words_must_be_equal() {
        assert!(!listed_matches("echo hi", &["touch", "x"]));
        assert!(!listed_matches("echo hi", &["echo", "hi", "there"]));
        assert!(!listed_matches("echo hi", &["echo"]));
        assert!(!listed_matches("ls", &["rm", "ls"]), "a suffix matches only after a wrapper");
        assert!(listed_matches("/bin/echo hi", &["echo", "hi"]));
    }

    #[test]
    fn a_wrapper_record_matches_its_stripped_payload() {
        assert!(listed_matches("timeout 5 rm x", &["/usr/bin/timeout", "5", "rm", "x"]));
        assert!(listed_matches("sudo -u root rm x", &["sudo", "-u", "root", "rm", "x"]));
        assert!(!listed_matches("timeout 5 rm x", &["timeout", "5", "rm", "y"]));
        assert!(!listed_matches("rm x", &["timeout", "5", "rm", "x"]), "timeout is not among rm's wrappers");
    }

    #[test]
    fn writes_resolve_against_work_and_home() {
        let analysis = analyze("echo > ./sub/../out.txt; echo > /opt/oracle/home/h");
        assert!(write_listed(&analysis, Root::Work, "out.txt"));
        assert!(write_listed(&analysis, Root::Home, "h"));
        assert!(!write_listed(&analysis, Root::Home, "out.txt"));
        assert!(!write_listed(&analysis, Root::Work, "sub/out.txt"));
        assert!(write_listed(&analyze("cd sub; echo > out.txt"), Root::Work, "sub/out.txt"));
        assert!(write_listed(&analyze("echo > $F"), Root::Home, "anything"));
    }

    #[test]
    fn quoting_round_trips_through_the_analysis() {
        let words = ["it's", "a b", "", "$HOME", "plain-1.txt"];
        let line = words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
        assert_eq!(analyze(&format!("echo {line}")).commands[0].argv[1..], words);
    }
}
