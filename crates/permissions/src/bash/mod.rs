//! The Bash part of the engine's content layer: every simple command of the analysis on its
//! own, against the command rules, the read-only table and the path rules, and every path it
//! names checked where the shell would open it.
//!
//! [`bash_content`] fills the engine's [`Content`] for one analysed command string. Its
//! order, and what each finding means for the decision:
//!
//! 1. Deny and ask command rules, on every command in any of its spellings (the words
//!    joined, the source text, the program by its basename without git's global options). A
//!    deny ends the layer.
//! 2. Output redirections are writes (`Edit` path rules, protected paths, `acceptEdits`,
//!    `Edit` allow rules); input redirections are reads (`Read` path rules; outside the
//!    working directories nothing is approved automatically).
//! 3. Each command: critical `rm` (and `rm` handed its paths by `xargs`, or by `find -exec`
//!    and `find -delete` judged on find's starting points); its operands (those of a
//!    read-only command are the files it reads, those of any other command may be read or
//!    written); a recursive read's files; `acceptEdits`' simple file commands; allow rules,
//!    which every command that is not read-only must match.
//! 4. The analysis' hazards: critical ones (`cd` then `git`, `rm` under an empty variable),
//!    and the first other one, which keeps the call from any automatic approval.
//!
//! What a deny rule or the critical-path check may catch only at run time is noted as
//! [`Content::unresolved`], which nothing approves (`bypassPermissions`, hooks, rules and
//! classifiers included): a hazard that hides what runs ([`Hazard::hides_what_runs`]), a
//! command with words known only at run time (or given more by `xargs`) that a deny or ask
//! rule may match once they are, and a path known only at run time while a `Read` or `Edit`
//! deny or ask rule exists.
//!
//! The common path (a few commands, a few plain operands) allocates little: spellings are
//! built only where they differ from the source text, rules of all three behaviours are
//! found in one pass, and the rare checks live in functions of their own.

use std::path::{Path, PathBuf};

use smallvec::SmallVec;
use toolgate_core::{DecisionReason, PermissionBehavior, PermissionMode, ToolContext};
use toolgate_shell::programs::{self, DirChange, Role};
use toolgate_shell::{BashAnalysis, Hazard, SimpleCommand, Text, is_read_only_command};

mod args;
pub(crate) mod bases;
mod git;
pub(crate) mod rules;

use self::args::{Args, find_start_points, option_paths, read_operands, recursion, sed_edits_only_operands};
use self::bases::{
    Bases, MAX_WALKED, Targets, basename, glob_folder, glob_may_name_hidden, is_static_path, shell_path, walk_below,
};
use self::git::{GitAnchor, GitReads, GitWrites, git_content_paths, git_written_paths, repository_tops};
use self::rules::{Spellings, launched_by, may_match_later, rule_approvable, unapprovable_text};
use crate::content::{Content, Paths, concat};
use crate::real_path::Forms;
use crate::rule_index::{CommandIndex, PathRules, RuleBook};
use crate::rules::CompiledRule;
use crate::settings::RuleEntry;
use crate::{critical_rm_reason, protected_path_reason};

/// Fills `content` for the Bash call `analysis` describes (see the module documentation).
pub(crate) fn bash_content<'b>(
    book: &'b RuleBook,
    commands: &CommandIndex,
    analysis: &BashAnalysis<'_>,
    ctx: &ToolContext,
    home: Option<&Path>,
    paths: &mut Paths<'_>,
    content: &mut Content<'b>,
) {
    let rules = book.rules.as_slice();
    // A hazard that hides what runs is the first reason nothing may approve the call.
    if let Some(hazard) = analysis.hazards.iter().find(|h| h.hides_what_runs()) {
        content.unresolved =
            Some(format!("{hazard}; the deny rules and the critical-path checks cannot see what it runs"));
    }
    // 1. Command rules, of all three behaviours at once (allow rules are read in step 3).
    let mut allows: SmallVec<[Option<&'b CompiledRule>; 4]> = SmallVec::new();
    for cmd in &analysis.commands {
        let spelled = Spellings::of(cmd);
        let found = commands.find_each(rules, &spelled.as_slice(), spelled.allow_mask, spelled.exact_allows);
        for (rule, slot) in [(found.deny, &mut content.deny), (found.ask, &mut content.ask)] {
            if slot.is_none()
                && let Some(r) = rule
            {
                let shown = cmd.wrapped.as_ref().map_or(&cmd.text, |w| &w.text);
                *slot = Some((&r.entry, concat(&["the command `", shown, "`"])));
            }
        }
        allows.push(found.allow);
        if found.deny.is_none() && found.ask.is_none() && content.unresolved.is_none() {
            content.unresolved = may_match_later(rules, commands, cmd);
        }
    }
    // A deny decides the call: nothing else in the content layer is looked at.
    if content.deny.is_some() {
        return;
    }

    let mut check = Check {
        rules,
        path_rules: book.paths(),
        paths,
        content,
        bases: Bases::of(analysis, &ctx.cwd, home),
        home,
        all_read_only: analysis.hazards.is_empty() && analysis.writes.is_empty(),
        accept_ok: analysis.hazards.is_empty(),
        rule_ok: analysis.hazards.is_empty(),
        allowing_rule: None,
        unapprovable: None,
    };
    // Each command's read-only verdict, computed once (the whole is read-only when every
    // command is and nothing else is in the way).
    let mut read_only: SmallVec<[bool; 4]> = analysis.commands.iter().map(is_read_only_command).collect();
    // A read-only program that a repository file points at another program is no read
    // (`cargo --version` runs the toolchain `rust-toolchain.toml` names).
    // The program may run in a folder the line changes to (`cd sub && cargo --version`, with
    // `sub/rust-toolchain.toml`): each folder a `cd` reaches is looked in too, found once and
    // only for a line that runs such a program.
    let mut reached = None;
    for (cmd, read_only) in analysis.commands.iter().zip(read_only.iter_mut()).filter(|(_, r)| **r) {
        let program = cmd.argv.first().map(|p| basename(p)).unwrap_or_default();
        if !crate::program_files::redirectable(program) {
            continue;
        }
        let Some(dirs) = reached.get_or_insert_with(|| crate::program_files::folders_reached(analysis, &ctx.cwd))
        else {
            *read_only = false;
            check.content.bash_hazard.get_or_insert_with(|| {
                format!("`{program}` runs in a folder known only at run time, whose files may choose what it runs")
            });
            continue;
        };
        if let Some(file) = dirs.iter().find_map(|dir| crate::program_redirect(program, dir, home)) {
            *read_only = false;
            check
                .content
                .bash_hazard
                .get_or_insert_with(|| format!("`{program}` runs what {} chooses", file.display()));
        }
    }
    check.all_read_only &= read_only.iter().all(|&r| r);

    // 2. Redirections.
    for write in &analysis.writes {
        check.write(&write.path, write.dynamic);
    }
    for read in &analysis.reads {
        check.read(read);
    }

    // 3. Each command. A `mv` or `cp` changes where later paths of the same line lead (a
    // relative symlink moved elsewhere points elsewhere): acceptEdits takes nothing naming a
    // path after one.
    let moves = |c: &SimpleCommand<'_>| {
        c.argv.first().is_some_and(|p| matches!(programs::get(basename(p)).role, Role::Moves | Role::Copies))
    };
    let first_move = analysis.commands.iter().position(moves);
    if first_move.is_some() && !(analysis.writes.is_empty() && analysis.reads.is_empty()) {
        check.accept_ok = false;
    }
    let mut last_find: Option<usize> = None;
    for (index, ((cmd, &command_read_only), allow)) in analysis.commands.iter().zip(&read_only).zip(allows).enumerate()
    {
        let program = cmd.argv.first().map(|p| basename(p)).unwrap_or_default();
        let args = Args::of(cmd);
        let (entry, operands) = (args.entry, &args.operands);
        if first_move.is_some_and(|at| index > at) && !operands.is_empty() {
            check.accept_ok = false;
        }
        if entry.role == Role::Removes {
            check.critical_rm(cmd, program, operands, &ctx.cwd);
            check.launched_rm(last_find.map(|at| &analysis.commands[at]), cmd, &ctx.cwd);
        } else if entry.role == Role::Find {
            // A find's payloads are listed after it, before the next find.
            last_find = Some(index);
            if cmd.argv.iter().any(|a| a == "-delete") {
                check.find_removes(cmd, "-delete", &ctx.cwd);
            }
        }
        // The files a read-only command reads are Read targets (outside the working
        // directories it is not read-only any more); `cd` only has to stay inside. The
        // operands of any command that is not read-only may be read or written (`tee f`,
        // `sed -i … f`, `cp f …`), so Read and Edit deny and ask rules both hold against
        // them; of a command that writes its operands (`cp`'s last, all of `mv`'s) or where
        // its options say (`-o F`, `--output=F`), a protected path is a protected write,
        // whatever rule allows the command.
        if !command_read_only {
            let first_written = args.first_written(cmd);
            for (at, arg) in operands.iter().enumerate() {
                let access = match at >= first_written {
                    true => Access::Change { written: true },
                    false if entry.role == Role::Copies => Access::Copied,
                    false => Access::Change { written: false },
                };
                check.operand(cmd, arg, &["Read", "Edit"], access);
            }
            if matches!(entry.role, Role::Copies | Role::Moves | Role::Sed) {
                check.option_writes(cmd, entry.role);
            }
            for path in args.outputs() {
                check.operand(cmd, path, &["Read", "Edit"], Access::Change { written: true });
            }
            if entry.role == Role::Git {
                check.git_writes(cmd, &git_written_paths(cmd));
            }
        } else if matches!(entry.role, Role::ChangesDir(DirChange::Cd | DirChange::Push)) {
            for arg in operands {
                check.operand(cmd, arg, &[], Access::Enter);
            }
        } else if let Some(reads) = read_operands(cmd, program) {
            for arg in reads {
                check.operand(cmd, arg, &["Read"], Access::Read);
            }
        }
        // An unquoted glob lists the folder it matches in, whatever the command does with
        // the names (`echo ~/*` prints the home folder's as `ls ~` does).
        for &at in &cmd.glob_words {
            let folder = glob_folder(&cmd.argv[at]);
            check.operand(cmd, folder, &["Read"], Access::Read);
        }
        // Files named in `--name=VALUE` options, and what git prints of a repository's files
        // (read, unless the command is not read-only).
        let families: &[&str] = if command_read_only { &["Read"] } else { &["Read", "Edit"] };
        for value in args.option_values() {
            check.operand(cmd, value, families, Access::Change { written: false });
        }
        if entry.role == Role::Git {
            check.git_reads(cmd, &git_content_paths(cmd), families);
        }
        // A recursive read (`grep -r`, `rg`, `diff` of folders) reads every file below its
        // folders, read-only or not.
        check.recursive_read(cmd, program);
        if command_read_only {
            continue;
        }
        // acceptEdits: simple file commands on paths inside the working dirs (only
        // acceptEdits mode reads the verdict: other modes skip the paths).
        if check.accept_ok {
            let edits_ok = ctx.permission_mode == PermissionMode::AcceptEdits
                && entry.accept_edits
                && check.accept_edits(cmd, entry.role, operands);
            check.accept_ok = edits_ok;
        }
        // Allow rules: every command not read-only must be matched, and approvable.
        let approvable = rule_approvable(cmd);
        match allow {
            Some(r) if approvable => {
                check.allowing_rule.get_or_insert(&r.entry);
            }
            _ => {
                check.rule_ok = false;
                if !approvable {
                    check.unapprovable.get_or_insert(cmd);
                }
            }
        }
    }

    // 4. Hazards.
    if !analysis.hazards.is_empty() {
        check.hazards(&analysis.hazards);
    }
    if let Some(cmd) = check.unapprovable {
        check.content.bash_hazard.get_or_insert_with(|| unapprovable_text(cmd));
    }
    let Check { content, all_read_only, accept_ok, rule_ok, allowing_rule, .. } = check;
    content.read_only = all_read_only;
    content.read_only_commands = read_only;
    if all_read_only {
        content.auto_allow =
            Some(DecisionReason::Classifier { classifier: "static-bash".into(), reason: "read-only command".into() });
    }
    content.accept_edits_ok = accept_ok && !analysis.commands.is_empty();
    if rule_ok && (allowing_rule.is_some() || all_read_only) {
        content.allow_rule = allowing_rule;
    }
}

/// How a command uses an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// A read-only command reads it.
    Read,
    /// `cd` goes there.
    Enter,
    /// A command that is not read-only may read or change it; `written`: it is one of the
    /// paths the command writes, creates or removes.
    Change { written: bool },
    /// `cp` copies it (a source): read, as `cat` would read it, by a command that is not
    /// read-only.
    Copied,
}

/// The state of one Bash call's check.
struct Check<'c, 'b, 'p> {
    rules: &'b [CompiledRule],
    path_rules: &'b PathRules,
    paths: &'c mut Paths<'p>,
    content: &'c mut Content<'b>,
    /// Where relative paths lead (the working directory, and wherever a `cd` went).
    bases: Bases<'c>,
    home: Option<&'c Path>,
    /// Nothing but read-only commands reading inside the working directories.
    all_read_only: bool,
    /// What `acceptEdits` may approve (its own checks run in acceptEdits mode only).
    accept_ok: bool,
    /// Every command that is not read-only has an allow rule, and nothing is in the way.
    rule_ok: bool,
    /// The first allow rule that matched.
    allowing_rule: Option<&'b RuleEntry>,
    /// The first command that is not read-only and that no allow rule can approve, for an
    /// expansion in its arguments or an assignment in front of it.
    unapprovable: Option<&'c SimpleCommand<'c>>,
}

impl Check<'_, '_, '_> {
    /// The paths a word of `cmd` names (a glob: what it matches now), `None` when they are
    /// only known at run time.
    fn word_paths(&self, cmd: &SimpleCommand<'_>, word: &str) -> Option<Targets> {
        if cmd.has_glob { self.bases.glob_paths(word, self.home) } else { self.bases.paths(word, self.home) }
    }

    /// The forms of every path in `targets`.
    fn forms(&mut self, targets: Targets) -> Forms {
        self.paths.forms_of_owned(targets)
    }

    /// Notes the first deny and ask rule of each of `families` that a path matches.
    fn path_rules(&mut self, forms: &[std::path::PathBuf], families: &[&'static str]) {
        let hits = self.path_rules.hits(self.rules, forms);
        if hits.is_empty() {
            return;
        }
        for &family in families {
            let verb = if family == "Read" { "reading" } else { "writing" };
            self.content.path_rules(&hits, family, verb, forms);
        }
    }

    /// An operand of `cmd`: checked against the deny and ask path rules of `families`; a
    /// read-only command's must lie inside the working directories, and one a command writes
    /// must not be protected.
    fn operand(&mut self, cmd: &SimpleCommand<'_>, arg: &str, families: &[&'static str], access: Access) {
        let read_only = matches!(access, Access::Read | Access::Enter);
        let Some(targets) = self.word_paths(cmd, arg) else {
            // A path known only at run time: not read-only, and not an edit acceptEdits can
            // vouch for; one it writes may be protected (`mv x "$HOME/.bashrc"`).
            self.all_read_only = false;
            self.accept_ok = false;
            self.rule_ok &= !read_only;
            if access == (Access::Change { written: true }) {
                self.content.protected.get_or_insert_with(|| {
                    format!("`{}` writes `{arg}`, a path known only at run time, which may be protected", cmd.text)
                });
            }
            let program = programs::get(basename(cmd.argv.first().map_or("", |p| &**p)));
            if !matches!(program.role, Role::ChangesDir(DirChange::Cd | DirChange::Push)) {
                self.unknown_path(families, || {
                    format!("`{}` names `{arg}`, which leads to a place only known at run time", cmd.text)
                });
            }
            return;
        };
        let forms = self.forms(targets);
        if !families.is_empty() {
            self.path_rules(&forms, families);
        }
        if access == (Access::Change { written: true }) {
            self.protected(&forms);
            // A file command's write outside the working directories: as for a read, the
            // rule that allows the command does not vouch for where it writes (`Bash(rm:*)`
            // and `rm -rf /etc/nginx`).
            if !toolgate_shell::is_exempt_device(arg) && !self.paths.inside(&forms) {
                let shown = self.outside_reading(arg, &forms);
                self.outside(|| format!("`{}` writes {shown}, outside the working directories", cmd.text));
            }
        } else if access == Access::Copied && !self.paths.inside(&forms) {
            let shown = self.outside_reading(arg, &forms);
            self.outside(|| format!("`{}` reads {shown}, outside the working directories", cmd.text));
        }
        if read_only && !self.paths.inside(&forms) {
            // A read (or a `cd`) outside the working directories: acceptEdits only covers
            // edits inside them, and an allow rule for another command of the line does not
            // vouch for it (`cd /tmp/other && npm test`).
            let verb = if families.is_empty() { "goes to" } else { "reads" };
            let shown = self.outside_reading(arg, &forms);
            self.outside(|| format!("`{}` {verb} {shown}, outside the working directories", cmd.text));
        }
    }

    /// What a `git` command prints of a repository's files, each path taken from where git
    /// takes it: the folder it runs in (each base, then each `-C`), or the top of the
    /// repository above that folder. A pattern is no read while a Read rule may match below
    /// its folder, nor is a path of a repository known only at run time.
    #[inline(never)]
    fn git_reads(&mut self, cmd: &SimpleCommand<'_>, reads: &GitReads<'_>, families: &[&'static str]) {
        if reads.paths.is_empty() {
            return;
        }
        let runs_in = self.git_folders(&reads.dirs);
        // The tops of the repositories, looked for once (each looks up every folder above).
        let mut tops: Option<SmallVec<[PathBuf; 2]>> = None;
        // A read-only command's reads stay inside the working directories, as `cat`'s do.
        let access = if families == ["Read"] { Access::Read } else { Access::Change { written: false } };
        for &(path, anchor) in &reads.paths {
            let from_top = matches!(anchor, GitAnchor::Top | GitAnchor::PatternTop);
            // A repository named elsewhere (`--git-dir`) prints its own files, whatever folder
            // the paths are taken from.
            let Some(runs_in) = runs_in.as_ref().filter(|_| !reads.elsewhere) else {
                self.all_read_only = false;
                self.accept_ok = false;
                self.unknown_path(families, || {
                    format!("`{}` reads `{path}` of a repository only known at run time", cmd.text)
                });
                continue;
            };
            let folders: &[PathBuf] = match from_top {
                true => tops.get_or_insert_with(|| runs_in.iter().flat_map(|dir| repository_tops(dir)).collect()),
                false => runs_in,
            };
            for folder in folders {
                let target = folder.join(path);
                // A pattern, or a folder (`..`, `:/`, `--no-index DIR`), names every file below.
                let below = matches!(anchor, GitAnchor::PatternHere | GitAnchor::PatternTop)
                    || matches!(path, "" | "." | ".." | "./" | "../")
                    || target.is_dir();
                if below {
                    let lexical = self.paths.forms(&target).swap_remove(0);
                    if self.path_rules.restrict_reads_below(&lexical) {
                        self.unknown_path(families, || {
                            format!("`{}` reads the files a pathspec matches below {}", cmd.text, lexical.display())
                        });
                    }
                }
                if !matches!(anchor, GitAnchor::PatternHere | GitAnchor::PatternTop)
                    && let Some(target) = target.to_str()
                {
                    self.operand(cmd, target, families, access);
                }
            }
        }
    }

    /// What a `git` command writes in a work tree, each path taken from the folder it runs in:
    /// a protected one is a protected write whatever rule allows the command, and so is a work
    /// tree named elsewhere or files named only in a patch.
    #[inline(never)]
    fn git_writes(&mut self, cmd: &SimpleCommand<'_>, writes: &GitWrites<'_>) {
        if writes.elsewhere || writes.unlisted {
            let why = match writes.elsewhere {
                true => "writes a work tree named elsewhere (`--work-tree`, `--git-dir`, `GIT_WORK_TREE`)",
                false => {
                    "writes files named only by its patch, a pattern or a word known at run time, which may be protected"
                }
            };
            self.content.protected.get_or_insert_with(|| format!("`{}` {why}", cmd.text));
            return;
        }
        let Some(folders) = self.git_folders(&writes.dirs) else {
            self.content.protected.get_or_insert_with(|| {
                format!("`{}` writes in a folder known only at run time, which may be protected", cmd.text)
            });
            return;
        };
        for path in &writes.paths {
            for folder in &folders {
                if let Some(target) = folder.join(path).to_str() {
                    // `~/x` is the home's, not the folder's.
                    let target = if path.starts_with('~') { path } else { target };
                    self.operand(cmd, target, &["Read", "Edit"], Access::Change { written: true });
                }
            }
        }
    }

    /// The folders a `git` command runs in: each base, then each of its `-C` folders; `None`
    /// when one is only known at run time.
    fn git_folders(&self, dirs: &[&str]) -> Option<SmallVec<[PathBuf; 2]>> {
        if dirs.iter().any(|dir| !is_static_path(dir, self.home)) {
            return None;
        }
        let absolute = dirs.iter().rposition(|dir| dir.starts_with('/') || dir.starts_with('~'));
        if self.bases.unknown && absolute.is_none() {
            return None;
        }
        let mut folders: SmallVec<[PathBuf; 2]> = match absolute {
            Some(at) => smallvec::smallvec![shell_path(&self.bases.dirs[0], dirs[at], self.home)],
            None => self.bases.dirs.iter().map(|dir| dir.to_path_buf()).collect(),
        };
        for dir in &dirs[absolute.map_or(0, |at| at + 1)..] {
            for folder in &mut folders {
                *folder = shell_path(folder, dir, self.home);
            }
        }
        Some(folders)
    }

    /// The paths `cmd` (`cp`, `mv` or `sed`) writes that its options name (`-t DIR`, the
    /// backups of a suffix), as written operands; where an option or a folder's contents as
    /// the source (`cp -r pkg/. .`) may write entries nobody can list beforehand, a `.git` or
    /// `.claude` among them, the call is a protected write.
    /// A `sed` whose script writes or runs what it names (`w FILE`, `e CMD`) is one too.
    #[inline(never)]
    fn option_writes(&mut self, cmd: &SimpleCommand<'_>, role: Role) {
        if role == Role::Sed && !sed_edits_only_operands(cmd) {
            let why = || {
                format!(
                    "the script of `{}` names files it writes or commands it runs (`w`, `e`), which may be protected",
                    cmd.text
                )
            };
            self.content.protected.get_or_insert_with(why);
            return;
        }
        match option_paths(cmd) {
            Some(paths) => {
                for path in &paths {
                    self.operand(cmd, path, &["Read", "Edit"], Access::Change { written: true });
                }
            }
            None => {
                let why = || {
                    format!(
                        "`{}` may write protected entries such as .git/ that cannot be listed beforehand (a \
                         folder's contents, `-T`, or a backup suffix with `/`)",
                        cmd.text
                    )
                };
                self.content.protected.get_or_insert_with(why);
            }
        }
    }

    /// Notes the first of `forms` that is protected, as the protected path the call writes.
    fn protected(&mut self, forms: &[std::path::PathBuf]) {
        if self.content.protected.is_none()
            && let Some(reason) = forms.iter().find_map(|f| protected_path_reason(f))
        {
            self.content.protected = Some(reason);
        }
    }

    /// A path known only at run time (`what` says which): a deny or ask rule of `families`
    /// may match it then, so nothing approves the call automatically.
    fn unknown_path(&mut self, families: &[&str], what: impl FnOnce() -> String) {
        if self.content.unresolved.is_some() {
            return;
        }
        if let Some(rule) = self.path_rules.first_restricting(self.rules, families) {
            let (behavior, text, origin) = (rule.behavior(), &rule.entry.text, &rule.entry.origin);
            self.content.unresolved =
                Some(format!("{}, and the {behavior} rule {text} in {origin} may match it", what()));
        }
    }

    /// The first of `forms` outside the working directories (the real path, when the path as
    /// written is inside), for messages.
    fn outside_form(&mut self, forms: &[std::path::PathBuf]) -> String {
        let outside = forms.iter().find(|f| !self.paths.inside(std::slice::from_ref(*f)));
        outside.or(forms.first()).map(|f| f.display().to_string()).unwrap_or_default()
    }

    /// The outside form of `word`'s `forms`, for messages, saying from which folder it is
    /// read when that is not the working directory: a relative word is read from every folder
    /// a `cd` of the line may lead to (`cd a/link; cd ..` adds the working directory's parent,
    /// should the first `cd` fail), and naming the path alone would look like a wrong reading.
    fn outside_reading(&mut self, word: &str, forms: &[PathBuf]) -> String {
        if word.starts_with('/') || word.starts_with('~') || self.bases.dirs.len() < 2 {
            return self.outside_form(forms);
        }
        let bases: Vec<PathBuf> = self.bases.dirs.iter().map(|dir| dir.to_path_buf()).collect();
        for (at, base) in bases.iter().enumerate() {
            let reading = self.paths.forms(&shell_path(base, word, self.home));
            if self.paths.inside(&reading) {
                continue;
            }
            let shown = self.outside_form(&reading);
            return match at {
                0 => shown,
                _ => format!(
                    "{shown} (run in {}, where a `cd` of the line may lead)",
                    toolgate_core::normalize_path(base).display()
                ),
            };
        }
        self.outside_form(forms)
    }

    /// Something read outside the working directories (or read from a path known only at
    /// run time): nothing is approved automatically; `why` says what, for the message.
    fn outside(&mut self, why: impl FnOnce() -> String) {
        self.all_read_only = false;
        self.accept_ok = false;
        self.rule_ok = false;
        self.content.bash_hazard.get_or_insert_with(why);
    }

    /// An output redirection: a write, checked as `Edit(path)`.
    #[inline(never)]
    fn write(&mut self, path: &Text<'_>, dynamic: bool) {
        // `~/x` is only a home-relative path; anything else dynamic cannot be checked.
        let tilde_only =
            path.strip_prefix("~/").is_some_and(|rest| !rest.contains(['$', '*', '?', '[', '`', '~', '{']));
        let targets = if dynamic && !tilde_only { None } else { self.bases.paths(path, self.home) };
        let Some(targets) = targets else {
            self.accept_ok = false;
            self.rule_ok = false;
            self.content.bash_hazard.get_or_insert_with(|| format!("the redirection target `{path}` is not static"));
            self.unknown_path(&["Edit"], || format!("the redirection target `{path}` is only known at run time"));
            // It may be protected (`> "$HOME/.bashrc"`): not even bypassPermissions writes it.
            self.content.protected.get_or_insert_with(|| {
                format!("the redirection target `{path}` is only known at run time, and may be protected")
            });
            return;
        };
        let forms = self.forms(targets);
        self.path_rules(&forms, &["Edit"]);
        self.protected(&forms);
        self.accept_ok &= self.paths.inside(&forms);
        match self.path_rules.all(self.rules, "Edit", PermissionBehavior::Allow, &forms) {
            Some(r) => {
                self.allowing_rule.get_or_insert(&r.entry);
            }
            None => self.rule_ok = false,
        }
    }

    /// An input redirection (`< file`): a read, checked as `Read(path)`.
    #[inline(never)]
    fn read(&mut self, path: &str) {
        let Some(targets) = self.bases.glob_paths(path, self.home) else {
            let why = || format!("the input file `{path}` is only known at run time");
            self.outside(why);
            self.unknown_path(&["Read"], why);
            return;
        };
        let forms = self.forms(targets);
        self.path_rules(&forms, &["Read"]);
        if !self.paths.inside(&forms) {
            // A read outside: allow rules vouch for commands, not for what they read.
            let shown = self.outside_form(&forms);
            self.outside(|| format!("the input file {shown} is outside the working directories"));
        }
    }

    /// Critical `rm`, judged on each path an operand may name and on the real path behind
    /// it (`rm -rf link/repo` where the link leads to the working directory's parent).
    #[inline(never)]
    fn critical_rm(&mut self, cmd: &SimpleCommand<'_>, program: &str, operands: &[&str], cwd: &Path) {
        for &arg in operands {
            if let Some(reason) = critical_rm_reason(arg, cwd, self.home) {
                self.content.critical.get_or_insert(reason);
                continue;
            }
            let Some(targets) = self.word_paths(cmd, arg) else {
                self.content
                    .critical
                    .get_or_insert_with(|| format!("`{program} {arg}` removes a path that is only known at run time"));
                continue;
            };
            let cwd_forms = self.paths.forms(cwd);
            for form in self.forms(targets) {
                let shown = form.to_string_lossy();
                if let Some(reason) = cwd_forms.iter().find_map(|cwd| critical_rm_reason(&shown, cwd, self.home)) {
                    self.content.critical.get_or_insert(format!("{reason} (`{arg}` leads to {shown})"));
                }
            }
        }
    }

    /// Critical `rm` by a launcher that hands it paths: an `xargs` payload removes paths read
    /// from its input, which are only known at run time; a `find -exec` payload removes the
    /// starting points themselves (`find ~ -exec rm -rf {} +`), judged as `rm` operands
    /// (`.` and `..` apart, which `rm` refuses). `fd` never hands over its starting points.
    /// `find`: the last `find` listed before `cmd`, its launcher if it is a `find` payload.
    #[inline(never)]
    fn launched_rm(&mut self, find: Option<&SimpleCommand<'_>>, cmd: &SimpleCommand<'_>, cwd: &Path) {
        if self.content.critical.is_some() {
            return;
        }
        let shown = cmd.wrapped.as_ref().map_or(&cmd.text, |w| &w.text);
        if launched_by(cmd, "xargs") {
            self.content.critical.get_or_insert_with(|| {
                format!("`xargs {shown}` removes the paths it reads from its input, which are only known at run time")
            });
            return;
        }
        if !launched_by(cmd, "find") {
            return;
        }
        if let Some(find) = find {
            self.find_removes(find, &format!("-exec {shown}"), cwd);
        }
    }

    /// Critical removal by `find` (`-delete`, or `action`, an `-exec rm` payload), judged on
    /// its starting points as `rm` operands: `find` removes them too (`find ~ -delete`).
    #[inline(never)]
    fn find_removes(&mut self, find: &SimpleCommand<'_>, action: &str, cwd: &Path) {
        for (at, root) in find_start_points(&find.argv) {
            if matches!(root.trim_end_matches('/'), "." | "..") {
                continue;
            }
            let reason = if at >= find.static_words {
                Some(format!("`find … {action}` removes starting points that are only known at run time"))
            } else {
                critical_rm_reason(root, cwd, self.home)
                    .map(|reason| format!("{reason}: `find … {action}` removes its starting point `{root}`"))
            };
            if let Some(reason) = reason {
                self.content.critical.get_or_insert(reason);
                return;
            }
        }
    }

    /// A recursive read (`grep -r`, `rg`) reads every file below its folders: each is
    /// checked against the Read rules that deny or ask (when there are any).
    #[inline(never)]
    fn recursive_read(&mut self, cmd: &SimpleCommand<'_>, program: &str) {
        let Some(recursion) = recursion(cmd, program) else { return };
        for root in recursion.roots {
            // Walked from the folder as written, `.` and `..` removed (rules match that form).
            let below = self.word_paths(cmd, root).and_then(|targets| {
                let mut all = Vec::new();
                for target in targets {
                    let lexical = self.paths.forms(&target).swap_remove(0);
                    // No rule can match below it, or nothing is there: nothing to walk. `diff`'s
                    // folders are walked whatever the rules: a link in one may lead anywhere.
                    let may_match = programs::get(program).walk == programs::Walk::Always
                        || self.path_rules.restrict_reads_below(&lexical);
                    if may_match && self.paths.exists(&lexical) {
                        all.extend(walk_below(&lexical, recursion.filtered, MAX_WALKED)?);
                    }
                }
                Some(all)
            });
            let Some(below) = below else {
                self.outside(|| {
                    format!("`{program}` reads more files below `{root}` than are checked against the Read rules")
                });
                continue;
            };
            for path in below {
                // A link is read where it leads (`diff a b` with `a/id_rsa -> ~/.ssh/id_rsa`),
                // and one leading out of the working directories makes the walk no read.
                let link = path.is_symlink();
                let forms = if link { self.paths.forms(&path) } else { smallvec::smallvec![path] };
                if link && !self.paths.inside(&forms) {
                    let shown = forms.last().map(|f| f.display().to_string()).unwrap_or_default();
                    self.outside(|| {
                        format!("`{program}` follows a link below `{root}` to {shown}, outside the working directories")
                    });
                }
                let hits = self.path_rules.hits(self.rules, &forms);
                let verb = format!("`{program}` reading");
                self.content.path_rules(&hits, "Read", &verb, &forms);
            }
        }
    }

    /// Whether `acceptEdits` may approve `cmd`, one of its simple file commands: no
    /// expansion or wrapper, no glob that may name a hidden entry, and every path it writes
    /// (operands, and paths in its options) inside the working directories and unprotected.
    #[inline(never)]
    fn accept_edits(&mut self, cmd: &SimpleCommand<'_>, role: Role, operands: &[&str]) -> bool {
        if cmd.has_expansion || !cmd.wrappers.is_empty() {
            return false;
        }
        if role == Role::Sed && !sed_edits_only_operands(cmd) {
            return false;
        }
        if cmd.has_glob && operands.iter().any(|a| glob_may_name_hidden(a)) {
            return false;
        }
        let Some(options) = option_paths(cmd) else { return false };
        operands.iter().copied().chain(options.iter().map(String::as_str)).all(|a| {
            self.word_paths(cmd, a).is_some_and(|targets| {
                let forms = self.forms(targets);
                self.paths.inside(&forms) && forms.iter().all(|f| protected_path_reason(f).is_none())
            })
        })
    }

    /// The hazards: critical ones are noted as such, the first other one as the reason no
    /// automatic approval applies.
    #[inline(never)]
    fn hazards(&mut self, hazards: &[Hazard]) {
        for hazard in hazards {
            let slot = match hazard {
                Hazard::CdThenGit | Hazard::RmGlobUnderVariable { .. } => &mut self.content.critical,
                _ => &mut self.content.bash_hazard,
            };
            slot.get_or_insert_with(|| hazard.to_string());
        }
    }
}

#[cfg(test)]
mod tests;
