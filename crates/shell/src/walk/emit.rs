//! Emitting a simple command: wrappers stripped, then what the command itself runs (`find -exec`,
//! `xargs` and `fd -x` payloads, `bash -c` strings, `eval`, `trap`, git's payloads, commands in
//! options) and the hazards it carries.

use std::borrow::Cow;

use super::*;
use crate::programs::{self, CommandIn, DirChange, Role};
use crate::word::{Word, is_reserved_word};
use crate::wrappers::*;
use crate::{Hazard, SimpleCommand, Text, Wrapped};

impl<'s> Walker<'s, '_, '_> {
    /// Lists the simple command made of `words` (after `assignments`), stripping wrappers.
    pub(crate) fn emit(
        &mut self,
        words: Vec<Word<'s>>,
        assignments: Vec<(Text<'s>, Text<'s>)>,
        wrappers: Vec<Text<'s>>,
        chdir: bool,
    ) {
        let words = self.join_continuations(words);
        self.emit_from(&words, assignments, wrappers, chdir);
    }

    /// Joins words that only a line continuation separates: tree-sitter splits `r\<newline>m`
    /// in two, bash runs `rm`.
    pub(crate) fn join_continuations(&self, words: Vec<Word<'s>>) -> Vec<Word<'s>> {
        let continued =
            |pair: &[Word<'s>]| pair[0].end < pair[1].start && is_continuation(self.slice(pair[0].end, pair[1].start));
        if !words.windows(2).any(continued) {
            return words;
        }
        let mut joined: Vec<Word<'s>> = Vec::with_capacity(words.len());
        for word in words {
            match joined.last_mut() {
                Some(previous)
                    if previous.end < word.start && is_continuation(self.slice(previous.end, word.start)) =>
                {
                    previous.join(word);
                }
                _ => joined.push(word),
            }
        }
        joined
    }

    /// [`Walker::emit`] on borrowed words.
    pub(crate) fn emit_from(
        &mut self,
        words: &[Word<'s>],
        mut assignments: Vec<(Text<'s>, Text<'s>)>,
        mut wrappers: Vec<Text<'s>>,
        mut chdir: bool,
    ) {
        let mut i = 0;
        // Where the first wrapper that Claude Code does not strip stands (see
        // `SimpleCommand::wrapped`).
        let mut wrapped_from: Option<(usize, usize)> = None;
        while let Some(name) = words.get(i) {
            if !self.check_name(name) {
                break;
            }
            let Some(wrapper) = wrapper_kind(&name.value) else { break };
            if wrapper == Wrapper::Coproc {
                // `coproc NAME { …; }` is a form tree-sitter does not parse as bash does.
                self.out.hazard(Hazard::UnknownConstruct { kind: "coproc".to_owned() });
            }
            let mut stripped = strip(wrapper, words, i);
            if wrapper == Wrapper::Time
                && let Some(mut next) = stripped.next
            {
                // `time X=1 cmd`: bash's parser reads unquoted assignments after the keyword
                // (and after a `!` that negates the pipeline).
                while words.get(next).is_some_and(|w| self.slice(w.start, w.end) == "!") {
                    next += 1;
                }
                while let Some(word) = words.get(next).filter(|w| is_shell_assignment(self.slice(w.start, w.end))) {
                    stripped.assignments.extend(as_assignment(word));
                    next += 1;
                }
                stripped.next = (next < words.len()).then_some(next);
            }
            if stripped.unresolved {
                self.out.hazard(Hazard::UnresolvedWrapper { wrapper: excerpt(&name.value) });
            }
            if let Some(split) = &stripped.split_string {
                let mut outer = wrappers.clone();
                outer.push(name.value.clone());
                self.nested(Cow::Owned(split.clone()), &outer);
            }
            // No wrapped command: the wrapper is the command (`env` printing, `sudo -l`).
            let Some(next) = stripped.next else { break };
            let stripped_assignments = stripped.assignments.len();
            assignments.extend(stripped.assignments);
            if stripped.chdir {
                // `env -C DIR`, `sudo -D DIR`: the wrapped command's relative paths are relative
                // to a directory the path checks do not follow.
                self.out.hazard(Hazard::UnresolvedWrapper { wrapper: format!("{} (changes directory)", name.value) });
            }
            chdir |= stripped.chdir;
            if wrapped_from.is_none() && wrapper.kept_for_rules() {
                wrapped_from = Some((i, assignments.len() - stripped_assignments));
            }
            if wrapper == Wrapper::Xargs {
                // `xargs` stays a command of its own, so that a rule on it can match.
                let wrapped = wrapped_from.map(|(from, leading)| (&words[from..], leading));
                self.push_command(&words[i..], assignments.clone(), wrappers.clone(), chdir, wrapped);
                let replace = stripped.replace.as_deref();
                self.fed_payload(&words[next..], replace.as_slice(), "xargs", replace.is_none());
            }
            if wrapper == Wrapper::Exec && !words[next].is_static() {
                self.out.hazard(Hazard::DynamicEval { command: excerpt(&name.value) });
            }
            wrappers.push(name.value.clone());
            i = next;
        }
        let wrapped = wrapped_from.map(|(from, leading)| (&words[from..], leading));
        self.push_command(&words[i.min(words.len())..], assignments, wrappers, chdir, wrapped);
    }

    /// Records the hazards of a command-name word; `false` when it is not static (then it
    /// cannot be a wrapper either).
    pub(crate) fn check_name(&mut self, name: &Word<'s>) -> bool {
        if name.ansi_c {
            self.out.hazard(Hazard::AnsiCQuoting);
        }
        // A name made by brace expansion (`r{m,} -rf ~`) is known, but not what the source
        // text says: rules and readers of the text would misjudge it.
        if name.expansion || name.glob || name.braced {
            let text = excerpt(self.slice(name.start, name.end));
            self.out.hazard(Hazard::DynamicCommandName { text });
            return false;
        }
        true
    }

    /// Runs `src` through the analysis as a nested command string.
    pub(crate) fn nested(&mut self, src: Text<'s>, wrappers: &[Text<'s>]) {
        self.out.analyze_nested(src, wrappers);
    }

    /// [`Walker::nested`] for the text a command `name` runs in this shell's process or a
    /// child with its standard input (`sh -c TEXT`, `eval TEXT`): a shell of the text that
    /// reads its script from standard input reads this command's, so `sh -c sh <<<'rm x'`
    /// runs `rm x`.
    pub(crate) fn nested_with_stdin(&mut self, src: Text<'s>, name: &str, wrappers: &[Text<'s>]) {
        let shells = self.out.stdin_shells;
        self.nested(src, wrappers);
        if self.out.stdin_shells > shells {
            self.script_from_stdin(name, wrappers);
        }
    }

    /// Lists a payload (`find -exec`, `fd -x`) as a command of its own.
    pub(crate) fn payload(&mut self, words: &[Word<'s>], wrappers: Vec<Text<'s>>) {
        if words.is_empty() {
            return;
        }
        if self.out.nesting >= MAX_NESTING {
            self.out.too_deep();
            return;
        }
        self.out.nesting += 1;
        self.emit_from(words, Vec::new(), wrappers, false);
        self.out.nesting -= 1;
    }

    /// The source text of `words`: as written where they are adjacent in the source, joined
    /// by a space where something else (a redirect) sits between them.
    pub(crate) fn text_of(&self, words: &[Word<'s>]) -> Text<'s> {
        let (first, last) = match (words.first(), words.last()) {
            (Some(first), Some(last)) => (first.start, last.end),
            _ => return Cow::Borrowed(""),
        };
        // The words brace expansion made of one word as written are that word's text, once.
        let words: Cow<'_, [Word<'s>]> = if words.windows(2).any(|pair| pair[0].start == pair[1].start) {
            let mut distinct = words.to_vec();
            distinct.dedup_by(|next, previous| next.start == previous.start && next.end == previous.end);
            Cow::Owned(distinct)
        } else {
            Cow::Borrowed(words)
        };
        // Words apart only by blanks or line continuations: the source between them as it is.
        let adjacent = words.windows(2).all(|pair| {
            pair[0].end <= pair[1].start && {
                let gap = self.slice(pair[0].end, pair[1].start);
                !gap.is_empty() && gap.chars().all(|c| c.is_whitespace() || c == '\\')
            }
        });
        if adjacent && first <= last {
            return Cow::Borrowed(self.slice(first, last));
        }
        let mut text = String::with_capacity(last.saturating_sub(first));
        for (k, word) in words.iter().enumerate() {
            if let Some(previous) = k.checked_sub(1).and_then(|p| words.get(p)) {
                let gap = if previous.end <= word.start { self.slice(previous.end, word.start) } else { "" };
                if !gap.is_empty() && gap.chars().all(|c| c.is_whitespace() || c == '\\') {
                    text.push_str(gap);
                } else {
                    text.push(' ');
                }
            }
            text.push_str(self.slice(word.start, word.end));
        }
        Cow::Owned(text)
    }

    /// Lists one command (wrappers already stripped) and looks at what it runs.
    pub(crate) fn push_command(
        &mut self,
        words: &[Word<'s>],
        assignments: Vec<(Text<'s>, Text<'s>)>,
        wrappers: Vec<Text<'s>>,
        chdir: bool,
        wrapped: Option<(&[Word<'s>], usize)>,
    ) {
        let carried = carried_commands(&assignments, words);
        if words.is_empty() {
            if !assignments.is_empty() {
                self.out.commands.push(SimpleCommand { assignments, wrappers, ..SimpleCommand::default() });
            }
            self.command_variables(carried);
            return;
        }
        if self.out.aliases.iter().any(|alias| *alias == *words[0].value) {
            self.out.hazard(Hazard::AliasedCommand { name: excerpt(&words[0].value) });
        }
        // `f() { sh; }; f <<<'…'` runs what `f` reads.
        if self.out.function_reads_stdin(&words[0].value) {
            self.script_from_stdin(&words[0].value.clone(), &wrappers);
        }
        let command = SimpleCommand {
            argv: words.iter().map(|word| word.value.clone()).collect(),
            text: self.text_of(words),
            assignments,
            wrappers,
            has_expansion: words.iter().any(|word| word.expansion),
            has_glob: words.iter().skip(1).any(|word| word.glob),
            glob_words: words.iter().enumerate().skip(1).filter(|(_, word)| word.glob).map(|(at, _)| at).collect(),
            static_words: words.iter().position(|word| !word.is_static()).unwrap_or(words.len()),
            wrapped: wrapped.map(|(from, leading)| Wrapped {
                text: self.text_of(from),
                joined: from.iter().map(|word| &*word.value).collect::<Vec<_>>().join(" "),
                assignments: leading,
            }),
        };
        self.out.commands.push(command);
        self.evaluated_arguments(words);
        self.program(words, chdir);
        self.command_variables(carried);
    }

    /// Lists the commands a builtin's arguments run when bash evaluates them as arithmetic or
    /// as variable names with a subscript: `read 'a[$(rm x)]'`, `unset`, `printf -v`, `test
    /// -v`, `let` … expand a `$(…)` or backtick inside the subscript however it was quoted.
    pub(crate) fn evaluated_arguments(&mut self, words: &[Word<'s>]) {
        // `[[` is a keyword, not a builtin, and evaluates `-eq` operands as arithmetic.
        if EVALUATING_BUILTINS.binary_search(&&*words[0].value).is_err() && words[0].value != "[[" {
            return;
        }
        for word in &words[1..] {
            // A word known only at run time still holds its literal text (`"a[\$(rm …)$z]"`).
            if (word.is_static() || word.literal_dollar) && crate::word::has_substitution_text(&word.value) {
                self.out.hazard(Hazard::CommandSubstitution);
                let mut scripts = crate::walk::backtick_scripts(&word.value);
                scripts.extend(crate::walk::dollar_paren_scripts(&word.value, &[]));
                for script in crate::walk::bounded(self.out, scripts) {
                    self.nested(Cow::Owned(script), &[]);
                }
            }
        }
    }

    /// Analyses the commands that variables set by a command carry ([`carried_commands`]):
    /// a static value as a command string of its own, one known only at run time as
    /// [`Hazard::DynamicEval`].
    pub(crate) fn command_variables(&mut self, carried: Vec<(Text<'s>, Text<'s>)>) {
        for (name, value) in carried {
            if value.contains(['$', '`']) {
                self.out.hazard(Hazard::DynamicEval { command: name.into_owned() });
                continue;
            }
            // `LESSOPEN='|lesspipe %s'`: the pipe marks a command, and is not part of it.
            let script = match value {
                Cow::Borrowed(value) => Cow::Borrowed(value.trim_start_matches('|')),
                Cow::Owned(value) => Cow::Owned(value.trim_start_matches('|').to_owned()),
            };
            self.nested(script, &[name]);
        }
    }

    /// The wrappers of the command listed last, then `name`: those of the commands it runs.
    pub(crate) fn outer(&self, name: &str) -> Vec<Text<'s>> {
        let mut outer = self.out.commands.last().map(|command| command.wrappers.clone()).unwrap_or_default();
        outer.push(Cow::Owned(name.to_owned()));
        outer
    }

    /// What the command just listed (`words`) runs, or needs a hazard for, as its entry of
    /// the program table says ([`programs::built_in`]: no user's file changes what the walker
    /// reads): `cd` before `git`, git's configuration options, `rm` under a variable,
    /// `find -exec` and `fd -x` payloads, the commands in options; then bash's own builtins
    /// (`eval`, `source`, `trap`, `alias`), shells' `-c` strings and launchers.
    #[inline(never)]
    pub(crate) fn program(&mut self, words: &[Word<'s>], chdir: bool) {
        let name = basename(&words[0].value);
        let outer = |this: &Self| this.outer(name);
        let entry = programs::built_in(name);
        match entry.role {
            Role::ChangesDir(change) => return self.change_dir(words, change),
            Role::Git => {
                if self.out.changed_dir || chdir {
                    self.out.hazard(Hazard::CdThenGit);
                }
                let git_config_env =
                    self.out.commands.last().is_some_and(|command| {
                        command.assignments.iter().any(|(name, _)| name.starts_with("GIT_CONFIG"))
                    });
                if git_config_env {
                    self.out.hazard(Hazard::GitConfigOverride);
                }
                return self.git_options(words);
            }
            Role::Removes => {
                for word in &words[1..] {
                    if rm_glob_under_variable(&word.value) {
                        self.out.hazard(Hazard::RmGlobUnderVariable { arg: excerpt(&word.value) });
                    }
                }
                return;
            }
            Role::Find => return self.find_payloads(words, outer(self)),
            Role::Fd => return self.fd_payloads(words, outer(self)),
            _ => {}
        }
        if entry.command_options != programs::CommandOptions::NONE {
            return self.program_option_commands(entry, &words[1..]);
        }
        match name {
            "eval" => self.eval(words, outer(self)),
            "source" | "." if words.get(1).is_some_and(|word| !word.is_static() || reads_a_stream(&word.value)) => {
                self.out.hazard(Hazard::DynamicEval { command: name.to_owned() });
            }
            "trap" => self.trap(words, outer(self)),
            "alias" => {
                // An alias body is a command string (run when aliases are expanded). (The
                // wrappers are taken before any body is listed.)
                let outer = outer(self);
                for word in &words[1..] {
                    match split_once(&word.value, '=') {
                        Some((alias, body)) if word.is_static() => {
                            self.nested(body, &outer);
                            // Bash expands an alias named like a reserved word where that word
                            // would start a command (`alias !='rm -rf'`, then `! ~`), and there
                            // tree-sitter reads syntax: its uses cannot be found.
                            if is_reserved_word(&alias) {
                                self.out.hazard(Hazard::AliasedCommand { name: excerpt(&alias) });
                            }
                            self.out.aliases.push(alias.into_owned());
                        }
                        Some(_) => self.out.hazard(Hazard::DynamicEval { command: name.to_owned() }),
                        None => {}
                    }
                }
            }
            shell if is_bash_like_shell(shell) => self.shell_string(words, name, outer(self)),
            launcher
                if is_unfollowed_launcher(launcher)
                    || schedules_commands(launcher, &words[1..])
                    || builtin_runs_unseen(launcher, &words[1..]) =>
            {
                self.out.hazard(Hazard::UnfollowedLauncher { launcher: launcher.to_owned() });
            }
            "fish" | "csh" | "tcsh" | "nu" | "elvish" | "xonsh" | "pwsh" | "powershell" => {
                let runs_string = words[1..].iter().any(|word| {
                    word.value == "-c"
                        || word.value.eq_ignore_ascii_case("-command")
                        || (word.value.starts_with('-') && !word.value.starts_with("--") && word.value.contains('c'))
                });
                if runs_string {
                    self.out.hazard(Hazard::DynamicEval { command: name.to_owned() });
                }
            }
            _ => {}
        }
    }

    /// Notes a `cd`/`pushd`/`popd` (`change`) to somewhere other than `.`.
    pub(crate) fn change_dir(&mut self, words: &[Word<'s>], change: DirChange) {
        let mut operands = words[1..].iter().skip_while(|word| {
            word.is_static() && word.value.starts_with('-') && word.value.len() > 1 && word.value != "--"
        });
        let mut target = operands.next();
        if target.is_some_and(|word| word.is_static() && word.value == "--") {
            target = operands.next();
        }
        let stays = change == DirChange::Cd
            && target.is_some_and(|word| word.is_static() && matches!(&*word.value, "." | "./"));
        if !stays {
            self.out.changed_dir = true;
        }
    }

    /// `git` global options: `-c` and `--config-env` are [`Hazard::GitConfigOverride`].
    pub(crate) fn git_options(&mut self, words: &[Word<'s>]) {
        let mut j = 1;
        while let Some(word) = words.get(j) {
            if !word.is_static() {
                break;
            }
            let value = &*word.value;
            if value == "-c" || value == "--config-env" || value.starts_with("--config-env=") {
                self.out.hazard(Hazard::GitConfigOverride);
            }
            if crate::git::takes_value(value) {
                j += 2;
            } else if value.starts_with('-') {
                j += 1;
            } else {
                break;
            }
        }
        if words.get(j).is_some_and(|w| w.is_static() && w.value == "config") && sets_command_config(&words[j + 1..]) {
            self.out.hazard(Hazard::GitConfigOverride);
        }
        if let Some(sub) = words.get(j).filter(|w| w.is_static()) {
            self.git_payloads(&sub.value, &words[j + 1..]);
        }
    }

    /// What a git subcommand runs that its arguments name: the shell command of `submodule
    /// foreach`, `rebase --exec`, `filter-branch --*-filter`, `difftool --extcmd`, `grep
    /// --open-files-in-pager`, `send-email --*-cmd` and the transport commands
    /// (`--upload-pack`, `--receive-pack`, `--exec`), each parsed as a command string; and
    /// the command `bisect run` runs. One known only at run time is [`Hazard::DynamicEval`].
    /// `clone`/`init` given configuration (`-c`) is [`Hazard::GitConfigOverride`], and given
    /// a template folder of hooks (`--template`) [`Hazard::UnfollowedLauncher`].
    #[inline(never)]
    pub(crate) fn git_payloads(&mut self, sub: &str, args: &[Word<'s>]) {
        let dynamic = |this: &mut Self| this.out.hazard(Hazard::DynamicEval { command: format!("git {sub}") });
        if matches!(sub, "clone" | "init") {
            // The new repository's configuration (`-c core.hooksPath=…`, which the checkout of
            // `clone` already runs) and hooks copied from a template folder.
            let options = args.iter().take_while(|w| w.value != "--");
            for word in options {
                let value = &*word.value;
                if matches!(value, "-c" | "--config")
                    || value.starts_with("--config=")
                    || (value.starts_with("-c") && sub == "clone")
                {
                    self.out.hazard(Hazard::GitConfigOverride);
                } else if value == "--template" || value.starts_with("--template=") {
                    self.out.hazard(Hazard::UnfollowedLauncher { launcher: format!("git {sub} --template") });
                }
            }
        }
        match sub {
            "submodule" => {
                // `submodule [--quiet] foreach [--recursive] COMMAND…`: the words, joined, are
                // evaluated by a shell.
                let Some(at) = args.iter().position(|w| w.value == "foreach") else { return };
                let command: Vec<&Word<'s>> = args[at + 1..].iter().skip_while(|w| w.value.starts_with('-')).collect();
                if command.iter().all(|w| w.is_static()) {
                    let joined: Vec<&str> = command.iter().map(|w| &*w.value).collect();
                    let outer = self.outer("git");
                    self.nested(Cow::Owned(joined.join(" ")), &outer);
                } else {
                    dynamic(self);
                }
            }
            "bisect" => {
                if args.first().is_some_and(|w| w.value == "run") {
                    let outer = self.outer("git");
                    self.payload(&args[1..], outer);
                }
            }
            _ => {
                let Some((_, options)) = programs::GIT_COMMAND_OPTIONS.iter().find(|(s, _)| *s == sub) else { return };
                self.option_commands("git", &format!("git {sub}"), options, args);
            }
        }
    }

    /// The commands program `name` runs from its options (`args`, after its name), as its
    /// entry's [`CommandOptions`](programs::CommandOptions) names them, each parsed as a command
    /// of the line: `--opt=CMD`, `--opt CMD`, `-xCMD` or `-x CMD` for a short one, and a short
    /// one at the end of a cluster of flags where the entry says so. One known only at run time
    /// is [`Hazard::DynamicEval`]. Scanning stops at `--`.
    #[inline(never)]
    pub(crate) fn program_option_commands(&mut self, entry: &programs::Program, mut args: &[Word<'s>]) {
        let (name, options) = (entry.name, entry.command_options);
        let owner = match options.after.first() {
            Some(first) => {
                if !args.first().is_some_and(|w| options.after.contains(&&*w.value)) {
                    return;
                }
                args = &args[1..];
                Cow::Owned(format!("{name} {first}"))
            }
            None => Cow::Borrowed(name),
        };
        self.option_commands(name, &owner, options.options, args);
        if !options.clustered.is_empty() {
            self.clustered_commands(entry, options.clustered, args);
        }
    }

    /// The commands the `options` of program `name` hand a shell, in `args`; one known only
    /// at run time is [`Hazard::DynamicEval`] of `owner` (`git rebase`). Scanning stops at `--`.
    pub(crate) fn option_commands(
        &mut self,
        name: &str,
        owner: &str,
        options: &[(&str, CommandIn)],
        args: &[Word<'s>],
    ) {
        let outer = self.outer(name);
        let mut k = 0;
        while let Some(word) = args.get(k) {
            k += 1;
            if word.value == "--" {
                break;
            }
            let (spelled, attached) = match word.value.split_once('=') {
                Some((spelled, value)) if spelled.starts_with("--") => (spelled, Some(value)),
                _ => (&*word.value, None),
            };
            // A short option takes the rest of its word (`-Igzip`, `-Ovim`).
            let short = options.iter().find(|(o, _)| o.len() == 2 && spelled.len() > 2 && spelled.starts_with(o));
            let (value, within) = if let Some((short, within)) = short {
                (Some(word.value[short.len()..].to_owned()), *within)
            } else if let Some((_, within)) = options.iter().find(|(o, _)| *o == spelled) {
                let value = match attached {
                    Some(value) => Some(value.to_owned()),
                    None if *within == CommandIn::Attached => None,
                    None => {
                        k += 1;
                        args.get(k - 1).map(|w| w.value.to_string())
                    }
                };
                (value, *within)
            } else {
                continue;
            };
            let Some(value) = value else { continue };
            if word.is_static() && args.get(k - 1).is_none_or(|w| w.is_static()) {
                if let Some(command) = command_in(within, &value) {
                    self.nested(Cow::Owned(command.to_owned()), &outer);
                }
            } else {
                self.out.hazard(Hazard::DynamicEval { command: owner.to_owned() });
            }
        }
    }

    /// The commands the short options `letters` of program `entry` take in a cluster of flags
    /// (`rsync -avze CMD`, `tar -cIzstd`), attached or as the next word: getopt gives the rest
    /// of the word, or the next word, to the cluster's first letter that takes a value. Where
    /// the program reads its first word as options without a dash (`tar cIf zstd a.tar`), each
    /// letter of it that takes a value takes the next word, in order.
    pub(crate) fn clustered_commands(&mut self, entry: &programs::Program, letters: &[char], args: &[Word<'s>]) {
        let outer = self.outer(entry.name);
        let takes_value = |c: char| entry.value_taking_letters().any(|l| l == c);
        let mut k = 0;
        if entry.options_first && args.first().is_some_and(|w| !w.value.starts_with('-')) {
            let first = &args[0];
            k = 1;
            for letter in first.value.chars().filter(|&c| takes_value(c)) {
                let value = args.get(k);
                k += 1;
                if letters.contains(&letter) {
                    match value {
                        Some(value) if first.is_static() && value.is_static() => {
                            self.nested(value.value.clone(), &outer)
                        }
                        None => {}
                        Some(_) => self.out.hazard(Hazard::DynamicEval { command: entry.name.to_owned() }),
                    }
                }
            }
        }
        while let Some(word) = args.get(k) {
            k += 1;
            if word.value == "--" {
                break;
            }
            let Some(cluster) = word.value.strip_prefix('-').filter(|c| !c.is_empty() && !c.starts_with('-')) else {
                continue;
            };
            let Some(at) = cluster.find(takes_value) else { continue };
            let rest = &cluster[at + 1..];
            let next = if rest.is_empty() {
                k += 1;
                args.get(k - 1)
            } else {
                None
            };
            if !cluster[at..].starts_with(letters) {
                continue;
            }
            match (rest.is_empty(), next) {
                (false, _) if word.is_static() => self.nested(Cow::Owned(rest.to_owned()), &outer),
                (true, Some(value)) if word.is_static() && value.is_static() => {
                    self.nested(value.value.clone(), &outer);
                }
                // The letter last, with nothing after it: the program refuses to start.
                (true, None) => {}
                _ => self.out.hazard(Hazard::DynamicEval { command: entry.name.to_owned() }),
            }
        }
    }

    /// The payloads of `find -exec/-execdir/-ok/-okdir CMD … ;|+`.
    pub(crate) fn find_payloads(&mut self, words: &[Word<'s>], wrappers: Vec<Text<'s>>) {
        let mut k = 1;
        while k < words.len() {
            let word = &words[k];
            if !matches!(&*word.value, "-exec" | "-execdir" | "-ok" | "-okdir") {
                k += 1;
                continue;
            }
            let start = k + 1;
            let mut end = start;
            while let Some(word) = words.get(end) {
                let closes = word.value == ";" || (word.value == "+" && end > start && words[end - 1].value == "{}");
                if closes {
                    break;
                }
                end += 1;
            }
            self.fed_payload(&words[start..end], &["{}"], "find", false);
            self.payload(&words[start..end], wrappers.clone());
            k = end + 1;
        }
    }

    /// What a launcher feeds a payload at run time (`xargs` its input, `find` its paths):
    /// a command name with the replace string in it is only known then
    /// ([`Hazard::DynamicCommandName`]), and so is what a shell runs whose `-c` string or
    /// script holds it (`xargs -I{} sh -c '{}'`, not `sh -c '…' _ {}`), or, where the launcher
    /// `appends` what it reads, one given neither (`xargs sh`): [`Hazard::DynamicEval`].
    #[inline(never)]
    pub(crate) fn fed_payload(&mut self, payload: &[Word<'s>], replace: &[&str], launcher: &str, appends: bool) {
        // Wrappers in front (`xargs nice sh -c`, `find -exec env {} ;`) hand on what is fed:
        // judge the command they run, and a wrapper left without one runs what is appended.
        let mut at = 0;
        while let Some(word) = payload.get(at).filter(|word| word.is_static()) {
            let Some(wrapper) = wrapper_kind(&word.value) else { break };
            match strip(wrapper, payload, at).next {
                Some(next) => at = next,
                None => {
                    if appends {
                        self.out
                            .hazard(Hazard::DynamicEval { command: format!("{launcher} {}", excerpt(&word.value)) });
                    }
                    return;
                }
            }
        }
        let Some((program, args)) = payload[at..].split_first() else { return };
        let holds = |word: &Word<'s>| replace.iter().any(|r| !r.is_empty() && word.value.contains(r));
        if holds(program) {
            self.out.hazard(Hazard::DynamicCommandName { text: excerpt(&program.value) });
            return;
        }
        let shell = basename(&program.value);
        if !is_bash_like_shell(shell) {
            return;
        }
        // The script: the string after `-c` (or a cluster with `c`), else the first operand.
        let runs_string =
            |word: &&Word<'s>| word.value.starts_with('-') && !word.value.starts_with("--") && word.value.contains('c');
        let script = match args.iter().position(|word| runs_string(&word)) {
            Some(at) => args.get(at + 1),
            None => args.iter().find(|word| !word.value.starts_with('-')),
        };
        let fed = match script {
            Some(script) => holds(script),
            None => appends,
        };
        if fed {
            self.out.hazard(Hazard::DynamicEval { command: format!("{launcher} {shell}") });
        }
    }

    /// The payloads of `fd -x/--exec/-X/--exec-batch CMD … [;]`.
    pub(crate) fn fd_payloads(&mut self, words: &[Word<'s>], wrappers: Vec<Text<'s>>) {
        let mut k = 1;
        while k < words.len() {
            let value = &*words[k].value;
            // `--exec=CMD`, `-xCMD` and `-HIx CMD` run a command too; where it starts is not
            // followed.
            let attached = value.starts_with("--exec=")
                || value.starts_with("--exec-batch=")
                || (value.len() > 2
                    && !value.starts_with("--")
                    && value.starts_with('-')
                    && value.contains(['x', 'X']));
            if attached {
                self.out
                    .hazard(Hazard::UnresolvedWrapper { wrapper: format!("{} {}", words[0].value, excerpt(value)) });
            }
            if !matches!(value, "-x" | "--exec" | "-X" | "--exec-batch") {
                k += 1;
                continue;
            }
            let start = k + 1;
            let end = words[start..].iter().position(|word| word.value == ";").map_or(words.len(), |p| start + p);
            // fd appends the path where no placeholder stands in the command.
            const PLACEHOLDERS: &[&str] = &["{}", "{/}", "{//}", "{.}", "{/.}"];
            let placed = words[start..end].iter().any(|w| PLACEHOLDERS.iter().any(|p| w.value.contains(p)));
            self.fed_payload(&words[start..end], PLACEHOLDERS, "fd", !placed);
            self.payload(&words[start..end], wrappers.clone());
            k = end + 1;
        }
    }

    /// The arguments of `eval`, joined and parsed recursively when all static.
    pub(crate) fn eval(&mut self, words: &[Word<'s>], wrappers: Vec<Text<'s>>) {
        // `eval -- TEXT`: bash's builtins take `--` as the end of (no) options.
        let first = if words.get(1).is_some_and(|word| word.is_static() && word.value == "--") { 2 } else { 1 };
        let args = words.get(first..).unwrap_or_default();
        if args.iter().all(Word::is_static) {
            let joined: Vec<&str> = args.iter().map(|word| &*word.value).collect();
            self.nested_with_stdin(Cow::Owned(joined.join(" ")), "eval", &wrappers);
        } else {
            self.out.hazard(Hazard::DynamicEval { command: "eval".to_owned() });
        }
    }

    /// The action of `trap ACTION SIGNAL…`, parsed recursively when static.
    pub(crate) fn trap(&mut self, words: &[Word<'s>], wrappers: Vec<Text<'s>>) {
        let mut j = 1;
        match words.get(1) {
            Some(word) if word.is_static() && matches!(&*word.value, "-p" | "-l") => return,
            Some(word) if word.is_static() && word.value == "--" => j = 2,
            _ => {}
        }
        if words.len() < j + 2 {
            return;
        }
        let action = &words[j];
        if !action.is_static() {
            self.out.hazard(Hazard::DynamicEval { command: "trap".to_owned() });
        } else if !action.value.is_empty() && action.value != "-" {
            self.nested(action.value.clone(), &wrappers);
        }
    }

    /// A shell (or a function running one) that reads its script from standard input: a
    /// here-document's or here-string's, that of the compound command around it, or what the
    /// pipeline stage before it prints.
    pub(crate) fn script_from_stdin(&mut self, name: &str, wrappers: &[Text<'s>]) {
        self.out.stdin_shells += 1;
        match self.stdin.take().or_else(|| self.inherited.clone()) {
            Some(Stdin::Static(script)) => self.nested(script, wrappers),
            Some(Stdin::Dynamic) => self.out.hazard(Hazard::DynamicEval { command: name.to_owned() }),
            None if self.out.piped => self.out.hazard(Hazard::DynamicEval { command: name.to_owned() }),
            None => {}
        }
    }

    /// The string of `bash -c STRING`, parsed recursively when static.
    pub(crate) fn shell_string(&mut self, words: &[Word<'s>], name: &str, wrappers: Vec<Text<'s>>) {
        let options = shell_options(|at| words.get(at).map(|w| (&*w.value, w.is_static())));
        // A login or interactive shell runs its startup files (`~/.bash_profile`, `~/.bashrc`,
        // `/etc/profile`) before the string or script.
        if let Some(option) = options.startup_files.and_then(|at| words.get(at)) {
            self.out.hazard(Hazard::UnfollowedLauncher { launcher: format!("{name} {}", option.value) });
        }
        let (j, runs_string, reads_stdin) = (options.next, options.string_option.is_some(), options.reads_stdin);
        if !runs_string {
            match words.get(j).filter(|_| !reads_stdin) {
                None => self.script_from_stdin(name, &wrappers),
                // A script named at run time (`bash <(curl …)`, `sh $SCRIPT`), or read from a
                // stream (`sh /dev/stdin`).
                Some(script) if !script.is_static() || reads_a_stream(&script.value) => {
                    self.out.hazard(Hazard::DynamicEval { command: name.to_owned() });
                }
                Some(_) => {}
            }
            return;
        }
        match words.get(j) {
            Some(string) if string.is_static() => self.nested_with_stdin(string.value.clone(), name, &wrappers),
            Some(_) => self.out.hazard(Hazard::DynamicEval { command: name.to_owned() }),
            None => {}
        }
    }
}

/// The command an option's `value` holds, where it holds one.
fn command_in(within: CommandIn, value: &str) -> Option<&str> {
    match within {
        CommandIn::Value | CommandIn::Attached => Some(value),
        CommandIn::After(prefix) => value.strip_prefix(prefix),
        CommandIn::Program => value.starts_with('/').then_some(value),
        // `Key=value` or `Key value`, the key in any case.
        CommandIn::Keys(keys) => {
            let (key, command) = value.split_once(['=', ' ', '\t'])?;
            keys.iter().any(|k| k.eq_ignore_ascii_case(key.trim())).then(|| command.trim())
        }
    }
}
