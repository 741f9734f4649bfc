//! git's own command line: the global options before its subcommand, stated once for every
//! reader of a `git` command (the walker, the path checks, the exit-status meaning).

/// git's global options that take their value as the next word (`-C DIR`, `--attr-source
/// TREE`); each also takes it after `=` where it is a long option. Sorted. Every option of
/// `git --help` that takes a value is here (checked by a test where git exists); git reads
/// any other option before the subcommand as a flag of its own.
pub const GIT_OPTIONS_WITH_VALUE: &[&str] =
    &["--attr-source", "--config-env", "--git-dir", "--namespace", "--super-prefix", "--work-tree", "-C", "-c"];

/// How many of `args` (git's arguments, without `git`) are global options before the
/// subcommand, values included.
///
/// ```
/// use toolgate_shell::git_global_options;
/// assert_eq!(git_global_options(&["--attr-source", "HEAD", "push", "--force"]), 2);
/// assert_eq!(git_global_options(&["-C", "sub", "--no-pager", "log"]), 3);
/// assert_eq!(git_global_options(&["--git-dir=x", "status"]), 1);
/// ```
pub fn git_global_options<S: AsRef<str>>(args: &[S]) -> usize {
    let mut at = 0;
    while let Some(arg) = args.get(at).map(AsRef::as_ref) {
        if !arg.starts_with('-') || arg == "--" {
            break;
        }
        at += if takes_value(arg) { 2 } else { 1 };
    }
    at.min(args.len())
}

/// Whether `option`, a git global option as written, takes the next word as its value.
pub fn takes_value(option: &str) -> bool {
    GIT_OPTIONS_WITH_VALUE.binary_search(&option).is_ok()
}

/// The options with which `git config` reads a value (and writes nothing).
pub(crate) const GIT_CONFIG_GETS: &[&str] =
    &["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool"];

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is sorted, and holds every option `git --help` shows with a value (`-C
    /// <path>`, `--git-dir=<path>`); options it shows with an optional value (`--exec-path[=…]`)
    /// take it only after `=`.
    #[test]
    fn every_global_option_of_git_that_takes_a_value_is_listed() {
        assert!(GIT_OPTIONS_WITH_VALUE.is_sorted(), "not sorted");
        let run = toolgate_core::process::ProcessSpec::exec("git", ["--help"]).cwd("/");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let Ok(outcome) = runtime.block_on(run.run(&toolgate_core::CancellationToken::new())) else {
            panic!("git is needed for this test (the CI installs it)");
        };
        let help = outcome.stdout.text();
        let usage: String = help.lines().take_while(|line| !line.trim().is_empty()).collect::<Vec<_>>().join(" ");
        let mut seen = 0;
        for item in usage.split('[').skip(1) {
            let item = item.split(']').next().unwrap_or_default();
            for alternative in item.split('|').map(str::trim) {
                let Some((option, value)) = alternative.split_once([' ', '=']) else { continue };
                if option.starts_with('-') && value.starts_with('<') && !alternative.contains("[=") {
                    seen += 1;
                    assert!(takes_value(option), "git --help shows `{alternative}`: add {option} to the table");
                }
            }
        }
        assert!(seen >= 5, "git --help's usage was not read: {usage}");
    }
}
