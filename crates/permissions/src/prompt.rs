//! The person in the loop: the [`Prompter`] trait, rule suggestions generalised from a
//! call, and saving "always allow" answers to `.claude/settings.local.json`.

use std::io::Write as _;
use std::path::Path;

use serde_json::Value;
use toolgate_core::{BoxFuture, DecisionReason, Tool, ToolContext};
use toolgate_shell::analyze;

use crate::rules::Family;

/// What the person is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptRequest {
    /// The tool.
    pub tool_name: String,
    /// One line describing the call.
    pub summary: String,
    /// The input.
    pub input: Value,
    /// Why approval is needed.
    pub message: String,
    /// Why the engine asked.
    pub reason: DecisionReason,
    /// Rules "always allow" would save (empty when the call may only be allowed once).
    pub suggestions: Vec<String>,
}

/// The person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PromptAnswer {
    /// Run this call.
    AllowOnce,
    /// Run it, and save the suggested rules.
    AllowAlways,
    /// Do not run it; optional feedback for the model.
    Deny {
        /// What to do instead.
        feedback: Option<String>,
    },
}

/// Asks a person. The CLI implements it on the terminal; hosts on their UI.
pub trait Prompter: Send + Sync {
    /// The answer to one request.
    fn prompt<'a>(&'a self, request: &'a PromptRequest) -> BoxFuture<'a, PromptAnswer>;
}

/// Words after which the second word names a subcommand worth keeping in a prefix rule.
const SUBCOMMAND_TOOLS: &[&str] = &[
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "npx",
    "cargo",
    "git",
    "go",
    "docker",
    "kubectl",
    "make",
    "pip",
    "poetry",
    "uv",
    "gradle",
    "mvn",
    "dotnet",
    "bundle",
    "rake",
    "mix",
    "deno",
    "terraform",
    "helm",
    "gh",
    "brew",
    "apt",
    "apt-get",
];

/// Rules that would allow a call, generalised the way a person would write them: a prefix
/// rule per subcommand (`Bash(npm run test:*)`, not the verbatim command; at most 5), a
/// directory rule for files, a domain rule for fetches, the bare name otherwise.
///
/// ```
/// use serde_json::json;
/// use toolgate_core::{ToolBuilder, ToolContext};
/// use toolgate_permissions::suggest_rules;
/// let bash = ToolBuilder::new("Bash").build();
/// let ctx = ToolContext::new("/repo");
/// let rules = suggest_rules("Bash", &*bash, &json!({"command": "npm run test -- --watch && cargo build --release"}), &ctx);
/// assert_eq!(rules, ["Bash(npm run test:*)", "Bash(cargo build:*)"]);
/// ```
pub fn suggest_rules(name: &str, tool: &dyn Tool, input: &Value, ctx: &ToolContext) -> Vec<String> {
    suggest_rules_with(name, tool, input, ctx, None, None)
}

/// [`suggest_rules`] reusing a Bash analysis the caller already has.
pub(crate) fn suggest_rules_with(
    name: &str,
    tool: &dyn Tool,
    input: &Value,
    ctx: &ToolContext,
    analysis: Option<&toolgate_shell::BashAnalysis>,
    read_only: Option<&[bool]>,
) -> Vec<String> {
    match Family::of(name) {
        Family::Bash => {
            let owned;
            let analysis = match analysis {
                Some(a) => a,
                None => {
                    let command = input.get("command").and_then(Value::as_str).unwrap_or_default();
                    owned = analyze(command);
                    &owned
                }
            };
            if !analysis.hazards.is_empty() {
                return Vec::new();
            }
            let mut out: Vec<String> = Vec::new();
            // Each command's read-only verdict, as the content layer found it (or found now).
            let read_only_at = |at: usize, cmd| {
                read_only
                    .and_then(|known| known.get(at).copied())
                    .unwrap_or_else(|| toolgate_shell::is_read_only_command(cmd))
            };
            let writing = analysis.commands.iter().enumerate().filter(|&(at, cmd)| !read_only_at(at, cmd));
            for (_, cmd) in writing {
                if !crate::bash::rules::rule_approvable(cmd) {
                    // No rule would allow the call (an argument known only at run time, or an
                    // assignment in front): suggesting one would promise what it cannot do.
                    return Vec::new();
                }
                // Through project runners only (`uv run pytest`): the runner's words, then the
                // prefix of what it runs, as for any command.
                let runner = cmd
                    .wrapped
                    .as_ref()
                    .filter(|_| cmd.wrappers.iter().all(|w| toolgate_shell::is_runner(toolgate_shell::basename(w))))
                    .and_then(|w| {
                        let argv = cmd.argv.iter().map(|a| &**a).collect::<Vec<_>>().join(" ");
                        Some(w.joined.strip_suffix(argv.as_str())?.trim_end().to_owned())
                    })
                    .filter(|runner| !runner.is_empty());
                if let Some(wrapped) = cmd.wrapped.as_ref().filter(|_| runner.is_none()) {
                    // Run through a wrapper rules keep (`sudo`, `env` …): no prefix of it is safe
                    // to suggest (`sudo:*` would allow anything as root); the command as it is.
                    let rule = format!("{name}({})", escape_exact(&wrapped.joined));
                    if !out.contains(&rule) {
                        out.push(rule);
                    }
                    if out.len() == 5 {
                        break;
                    }
                    continue;
                }
                // A use no prefix rule approves (`find . -delete`): the command as it is.
                if crate::bash::rules::beyond_prefix_rules(cmd) {
                    let argv = cmd.argv.iter().map(|a| &**a).collect::<Vec<_>>().join(" ");
                    let rule = format!("{name}({})", escape_exact(&argv));
                    if !out.contains(&rule) {
                        out.push(rule);
                    }
                    continue;
                }
                let words: Vec<&str> = cmd.argv.iter().map(|a| &**a).take_while(|w| !w.starts_with('-')).collect();
                let Some(first) = words.first() else { continue };
                let mut keep = 1;
                if SUBCOMMAND_TOOLS.contains(first) && words.len() > 1 {
                    keep = 2;
                    if words.get(1) == Some(&"run") && words.len() > 2 {
                        keep = 3;
                    }
                }
                // A shell given its script with `-c` (whose commands are listed, and suggested,
                // on their own): the shell with its options up to `-c`, never the bare shell,
                // whose rule would also approve any script file it is handed.
                let own = match shell_with_c(&cmd.argv) {
                    Some(options) => options,
                    None => words[..keep.min(words.len())].join(" "),
                };
                let prefix = escape(&runner.map_or(own.clone(), |runner| format!("{runner} {own}")));
                let rule = crate::content::concat(&[name, "(", &prefix, ":*)"]);
                if !out.contains(&rule) {
                    out.push(rule);
                }
                if out.len() == 5 {
                    break;
                }
            }
            // A redirection writes its target, which only an Edit rule approves (the command's
            // own rule does not): the rule for the target's folder, as for a Write there.
            for write in &analysis.writes {
                if write.dynamic {
                    // No rule can name a target known only at run time.
                    return Vec::new();
                }
                folder_rules("Edit", ctx, &write.path, &mut out);
            }
            out.truncate(5);
            out
        }
        // A rule for the folder of every path the call names (each file of a patch): the
        // call needs them all.
        Family::Read | Family::Edit => {
            let targets = tool.targets(input);
            if targets.is_empty() {
                return vec![name.to_owned()];
            }
            // A change needs an `Edit` rule, a read or listing a `Read` rule.
            let mut rules = Vec::new();
            for target in &targets {
                let rule_tool = if target.access.changes() { "Edit" } else { "Read" };
                folder_rules(rule_tool, ctx, &target.path, &mut rules);
            }
            rules
        }
        Family::Web => match tool.permission_target(input) {
            Some(host) => vec![format!("WebFetch(domain:{host})")],
            None => vec!["WebFetch".to_owned()],
        },
        // `Skill(name *)`: this skill (or subagent type) with any arguments.
        Family::Named => match tool.permission_target(input).as_deref().and_then(|t| t.split_whitespace().next()) {
            Some(first) => vec![format!("{name}({} *)", escape(first))],
            None => vec![name.to_owned()],
        },
        _ => vec![name.to_owned()],
    }
}

/// For a bash-like shell run with `-c` (or a cluster such as `-lc`), the shell and its words up
/// to that option (`bash -c`, `sh -O extglob -ec`), its options read as the analysis reads
/// them; `None` for anything else.
fn shell_with_c(argv: &[std::borrow::Cow<'_, str>]) -> Option<String> {
    let program = argv.first()?;
    if !toolgate_shell::is_bash_like_shell(toolgate_shell::basename(program)) {
        return None;
    }
    let at = toolgate_shell::shell_options(|at| argv.get(at).map(|w| (&**w, true))).string_option?;
    Some(argv[..=at].join(" "))
}

/// Adds to `rules` (each once) the `rule_tool` rule for the folder `target` is in (or for
/// `target` itself when it is a folder, as the `path` of Glob and Grep is), and, when a
/// symbolic link leads elsewhere, the rule for the real folder too, since an allow rule must
/// cover where a link leads as well.
fn folder_rules(rule_tool: &str, ctx: &ToolContext, target: &str, rules: &mut Vec<String>) {
    let path = ctx.resolve_path(target);
    let dir = if path.is_dir() { path.as_path() } else { path.parent().unwrap_or(&path) };
    let real = std::fs::canonicalize(dir).ok();
    for folder in std::iter::once(dir).chain(real.as_deref()) {
        let rule = format!("{rule_tool}({})", escape(&folder_spec(ctx, folder)));
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
}

/// The specifier of a rule for everything below `dir`, anchored where the rule is saved: the
/// working directory (`/src/**`), or the file system's root outside it (`//etc/**`, `//**`).
fn folder_spec(ctx: &ToolContext, dir: &std::path::Path) -> String {
    match dir.strip_prefix(&ctx.cwd) {
        Ok(rel) if rel.as_os_str().is_empty() => "/**".to_owned(),
        Ok(rel) => format!("/{}/**", rel.display()),
        Err(_) if dir.parent().is_none() => "//**".to_owned(),
        Err(_) => format!("/{}/**", dir.display()),
    }
}

/// `s` as an exact Bash specifier: [`escape`]d, and its stars literal (`\*`), so that it
/// matches this one command only.
fn escape_exact(s: &str) -> String {
    escape(s).replace('*', "\\*")
}

/// Escapes `(`, `)` and `\` for a rule specifier.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '(' | ')' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Adds rules to `permissions.allow` of a settings file, keeping every other key, creating
/// the file (and its folder) when missing, written atomically (see [`update_settings_file`]).
///
/// # Errors
/// The file exists but is not a JSON object, or cannot be written.
pub fn persist_allow_rules(path: &Path, rules: &[String]) -> std::io::Result<()> {
    update_settings_file(path, |root| {
        let perms = root.entry("permissions").or_insert_with(|| Value::Object(Default::default()));
        let Some(perms) = perms.as_object_mut() else {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "`permissions` is not an object"));
        };
        let allow = perms.entry("allow").or_insert_with(|| Value::Array(Vec::new()));
        let Some(allow) = allow.as_array_mut() else {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "`permissions.allow` is not an array"));
        };
        for rule in rules {
            if !allow.iter().any(|v| v.as_str() == Some(rule)) {
                allow.push(Value::String(rule.clone()));
            }
        }
        Ok(())
    })
}

/// Changes a settings file's top-level object with `change`, keeping every key it does not
/// touch, creating the file (and its folder) when missing. The new text is written to a
/// temporary file in the same folder and renamed over the old one, so a reader sees the
/// old file or the new one, never half of either. A file that exists but is not a JSON
/// object is left alone.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join(".claude/settings.local.json");
/// std::fs::create_dir_all(path.parent().unwrap()).unwrap();
/// std::fs::write(&path, r#"{"permissions": {"allow": ["Read"]}}"#).unwrap();
/// toolgate_permissions::update_settings_file(&path, |root| {
///     root.insert("model".into(), "sonnet".into());
///     Ok(())
/// })
/// .unwrap();
/// let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
/// assert_eq!(doc, serde_json::json!({"permissions": {"allow": ["Read"]}, "model": "sonnet"}));
/// ```
///
/// # Errors
/// The file exists but is not a JSON object, `change` fails, or the file cannot be written.
pub fn update_settings_file(
    path: &Path,
    change: impl FnOnce(&mut serde_json::Map<String, Value>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut doc = match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Value::Object(Default::default()),
        Ok(text) => serde_json::from_str::<Value>(&text).map_err(|e| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{} is not valid JSON: {e}", path.display()))
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Object(Default::default()),
        Err(e) => return Err(e),
    };
    let Some(root) = doc.as_object_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is not a JSON object", path.display()),
        ));
    };
    change(root)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    let text = serde_json::to_string_pretty(&doc).map_err(std::io::Error::other)?;
    tmp.write_all(text.as_bytes())?;
    tmp.write_all(b"\n")?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolgate_core::ToolBuilder;

    #[test]
    fn persisting_keeps_other_keys_and_dedupes() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(".claude/settings.local.json");
        persist_allow_rules(&path, &["Bash(ls:*)".to_owned()]).unwrap();
        std::fs::write(&path, r#"{"model": "x", "permissions": {"allow": ["Bash(ls:*)"], "deny": ["WebFetch"]}}"#)
            .unwrap();
        persist_allow_rules(&path, &["Bash(ls:*)".to_owned(), "Read(/src/**)".to_owned()]).unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(doc["model"], "x");
        assert_eq!(doc["permissions"]["deny"], json!(["WebFetch"]));
        assert_eq!(doc["permissions"]["allow"], json!(["Bash(ls:*)", "Read(/src/**)"]));
    }

    #[test]
    fn persisting_refuses_to_clobber_a_broken_file() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.json");
        std::fs::write(&path, "{broken").unwrap();
        assert!(persist_allow_rules(&path, &["Read".to_owned()]).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{broken");
    }

    #[test]
    fn suggestions_generalise() {
        let ctx = ToolContext::new("/repo");
        let bash = ToolBuilder::new("Bash").build();
        let s = |c: &str| suggest_rules("Bash", &*bash, &json!({"command": c}), &ctx);
        assert_eq!(s("git push origin main"), ["Bash(git push:*)"]);
        assert_eq!(s("./deploy.sh --prod"), ["Bash(./deploy.sh:*)"]);
        assert_eq!(s("ls && make"), ["Bash(make:*)"], "read-only parts need no rule");
        assert_eq!(s("ls > files.txt"), ["Edit(/**)"], "a redirection needs an Edit rule for its target");
        assert_eq!(s("bash -c 'npm test'"), ["Bash(bash -c:*)", "Bash(npm test:*)"], "never the bare shell");
        assert_eq!(s("sh -O extglob -ec 'make'"), ["Bash(sh -O extglob -ec:*)", "Bash(make:*)"]);
        assert!(s("bash --rcfile env.sh -c 'make'").is_empty(), "the rc file runs commands the line does not show");
        assert_eq!(s("bash build.sh"), ["Bash(bash:*)"]);
        assert!(s("$(curl x)").is_empty(), "what cannot be analysed gets no rule");
        assert_eq!(s("a1; a2; a3; a4; a5; a6").len(), 5);
        let rules = suggest_rules("Skill", &SkillLike, &json!({"skill": "deploy", "args": "prod"}), &ctx);
        assert_eq!(rules, ["Skill(deploy *)"], "a skill with any arguments");
    }

    /// A tool whose permission target is `skill args`, as the Skill tool's is.
    struct SkillLike;
    impl Tool for SkillLike {
        fn name(&self) -> &str {
            "Skill"
        }
        fn description(&self) -> std::borrow::Cow<'_, str> {
            "runs a skill".into()
        }
        fn input_schema(&self) -> &Value {
            &Value::Null
        }
        fn render_use(&self, _input: &Value) -> String {
            "Skill".into()
        }
        fn permission_target(&self, input: &Value) -> Option<String> {
            Some(format!("{} {}", input["skill"].as_str()?, input["args"].as_str().unwrap_or_default()))
        }
        fn call<'a>(
            &'a self,
            _input: Value,
            _ctx: &'a ToolContext,
        ) -> BoxFuture<'a, Result<toolgate_core::ToolOutput, toolgate_core::ToolError>> {
            Box::pin(async { Ok(toolgate_core::ToolOutput::text("")) })
        }
    }
}
