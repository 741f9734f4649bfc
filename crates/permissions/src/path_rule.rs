//! Path specifiers (`Read(...)`, `Edit(...)`) with gitignore-style globs and Claude Code's
//! anchors, and `WebFetch(domain:...)` host patterns.
//!
//! | written | anchored at |
//! |---|---|
//! | `//path` | the filesystem root |
//! | `~/path` | the home directory |
//! | `/path` | the rule's settings source (project root, `~/.claude`, a `--settings` file's dir) |
//! | `path`, `./path` | the start directory |
//!
//! A pattern without a `/` (other than a trailing one) matches at any depth below its
//! base (`.env` is `**/.env`). A relative pattern with a `/` means `<cwd>/pattern` in an
//! allow rule, and that pattern at any depth in a deny or ask rule, so a deny is never
//! narrower than it reads. In an allow rule `./path` is anchored at the start directory; in a
//! deny or ask rule it reads as `path` does (Claude Code's `Read(./src/**)` denies
//! `lib/src/a.rs` too: a deny here matches at least wherever Claude Code's does).

use std::path::{Path, PathBuf};

use globset::{Candidate, GlobBuilder, GlobSet, GlobSetBuilder};
use toolgate_core::{PermissionBehavior, normalize_path};

/// A compiled path specifier.
///
/// ```
/// use std::path::Path;
/// use toolgate_core::PermissionBehavior::{Allow, Deny};
/// use toolgate_permissions::PathPattern;
/// let base = PathPattern::context(Path::new("/repo"), Path::new("/repo"), Some(Path::new("/home/u")));
/// let env = PathPattern::compile(".env", Deny, &base).unwrap();
/// assert!(env.matches(Path::new("/repo/a/b/.env")));
/// let src = PathPattern::compile("src/**", Allow, &base).unwrap();
/// assert!(src.matches(Path::new("/repo/src/x.rs")) && !src.matches(Path::new("/repo/lib/src/x.rs")));
/// let src_deny = PathPattern::compile("src/**", Deny, &base).unwrap();
/// assert!(src_deny.matches(Path::new("/repo/lib/src/x.rs")));
/// let home = PathPattern::compile("~/secrets/**", Deny, &base).unwrap();
/// assert!(home.matches(Path::new("/home/u/secrets/k")));
/// ```
#[derive(Debug, Clone)]
pub struct PathPattern {
    /// The globs a matching path matches one of (see [`PathPattern::globs`]).
    set: GlobSet,
    globs: Vec<String>,
    text: String,
}

/// The directories a path pattern's anchors refer to.
#[derive(Debug, Clone)]
pub struct PathContext {
    /// The rule's settings-source anchor, for `/path`.
    pub anchor: PathBuf,
    /// The start directory, for `path` and `./path`.
    pub cwd: PathBuf,
    /// The home directory, for `~/path`.
    pub home: Option<PathBuf>,
}

impl PathPattern {
    /// The anchors for compiling patterns.
    pub fn context(anchor: &Path, cwd: &Path, home: Option<&Path>) -> PathContext {
        PathContext { anchor: anchor.to_path_buf(), cwd: cwd.to_path_buf(), home: home.map(Path::to_path_buf) }
    }

    /// Compiles a specifier for a rule of the given behaviour.
    ///
    /// # Errors
    /// A glob that does not compile, or `~/` without a home directory.
    pub fn compile(spec: &str, behavior: PermissionBehavior, ctx: &PathContext) -> Result<Self, String> {
        let spec = spec.trim();
        if spec.is_empty() {
            return Err("empty path pattern".to_owned());
        }
        let (base, rest, anchored): (PathBuf, &str, bool) = if let Some(rest) = spec.strip_prefix("//") {
            (PathBuf::from("/"), rest, true)
        } else if let Some(rest) = spec.strip_prefix("~/") {
            let home = ctx.home.clone().ok_or_else(|| format!("'{spec}' needs a home directory, and there is none"))?;
            (home, rest, true)
        } else if spec == "~" {
            let home = ctx.home.clone().ok_or_else(|| format!("'{spec}' needs a home directory, and there is none"))?;
            (home, "", true)
        } else if let Some(rest) = spec.strip_prefix('/') {
            (ctx.anchor.clone(), rest, true)
        } else if let Some(rest) = spec.strip_prefix("./") {
            (ctx.cwd.clone(), rest, behavior == PermissionBehavior::Allow)
        } else {
            (ctx.cwd.clone(), spec, false)
        };
        let trimmed = rest.trim_end_matches('/');
        let dir_only_suffix = if rest.ends_with('/') { "/**" } else { "" };
        let has_inner_slash = trimmed.contains('/');
        let base_text = normalize_path(&base).to_string_lossy().into_owned();
        let escaped_base = globset::escape(base_text.trim_end_matches('/'));
        let pattern = if trimmed.is_empty() {
            format!("{escaped_base}/**")
        } else if !has_inner_slash && !anchored {
            // A bare name matches at any depth below the base.
            format!("{escaped_base}/**/{trimmed}{dir_only_suffix}")
        } else if !anchored && behavior != PermissionBehavior::Allow {
            // `src/**` in deny/ask: a `src` directory at any depth.
            format!("**/{trimmed}{dir_only_suffix}")
        } else {
            format!("{escaped_base}/{trimmed}{dir_only_suffix}")
        };
        // A path matches the glob, or lies below something that does (a directory
        // pattern covers what is inside it), or is the directory a `dir/**` pattern names.
        let mut globs = vec![pattern.clone()];
        if !pattern.ends_with("/**") {
            globs.push(format!("{pattern}/**"));
        }
        if let Some(dir) = pattern.strip_suffix("/**").filter(|d| !d.is_empty()) {
            globs.push(dir.to_owned());
        }
        let set = glob_set(&globs).map_err(|e| format!("'{spec}' is not a valid glob: {e}"))?;
        Ok(Self { set, globs, text: pattern })
    }

    /// Whether an absolute, normalized path matches (a directory pattern also covers what
    /// is inside it).
    pub fn matches(&self, path: &Path) -> bool {
        self.set.is_match(path)
    }

    /// [`PathPattern::matches`] for a path already made a glob candidate (to match one path
    /// against many patterns).
    pub fn matches_candidate(&self, path: &Candidate<'_>) -> bool {
        self.set.is_match_candidate(path)
    }

    /// The globs a path is matched against: the specifier's glob, everything below what
    /// it matches, and for `dir/**` the directory itself.
    pub fn globs(&self) -> &[String] {
        &self.globs
    }

    /// The absolute glob the specifier compiled to.
    pub fn as_glob(&self) -> &str {
        &self.text
    }
}

/// The globs as one set, compiled the way path specifiers are (`*` stops at `/`,
/// backslash escapes).
///
/// # Errors
/// The first glob that does not compile.
pub(crate) fn glob_set<S: AsRef<str>>(globs: &[S]) -> Result<GlobSet, globset::Error> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(GlobBuilder::new(glob.as_ref()).literal_separator(true).backslash_escape(true).build()?);
    }
    builder.build()
}

/// A path as written (`.` and `..` removed lexically) and, when it differs, the real path the
/// kernel would open for it: symlinks followed, `..` applied to the directory reached so far
/// (after a symlink, the parent of its target). A path that does not exist yet resolves
/// through its deepest existing part, the rest appended as written.
///
/// Deny and ask rules fire if *any* form matches; allow rules and "inside the working
/// directories" need *every* form to match.
///
/// ```
/// use std::path::Path;
/// let forms = toolgate_permissions::path_forms(Path::new("/no/such/dir/../file"));
/// assert_eq!(forms, [Path::new("/no/such/file")]);
/// ```
pub fn path_forms(path: &Path) -> Vec<PathBuf> {
    crate::real_path::Resolver::new(Path::new("/")).forms(path).into_vec()
}

/// A compiled `domain:` specifier.
///
/// ```
/// use toolgate_permissions::DomainPattern;
/// let p = DomainPattern::parse("domain:*.example.com").unwrap();
/// assert!(p.matches("docs.example.com") && p.matches("a.b.example.com"));
/// assert!(!p.matches("example.com"));
/// assert!(DomainPattern::parse("domain:Example.COM.").unwrap().matches("example.com"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainPattern {
    labels: Vec<String>,
    any_subdomain: bool,
}

impl DomainPattern {
    /// Parses `domain:host`.
    ///
    /// # Errors
    /// A specifier without the `domain:` prefix, or an empty host.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let host = spec
            .strip_prefix("domain:")
            .ok_or_else(|| format!("'{spec}' is not a domain pattern (expected domain:<host>)"))?;
        let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
        if host.is_empty() {
            return Err(format!("'{spec}' has an empty host"));
        }
        if host == "*" {
            return Ok(Self { labels: Vec::new(), any_subdomain: true });
        }
        let (any_subdomain, rest) = match host.strip_prefix("*.") {
            Some(rest) => (true, rest.to_owned()),
            None => (false, host),
        };
        Ok(Self { labels: rest.split('.').map(str::to_owned).collect(), any_subdomain })
    }

    /// Whether `host` matches (case-insensitive, trailing dot ignored).
    pub fn matches(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let labels: Vec<&str> = host.split('.').collect();
        if self.labels.is_empty() {
            return true;
        }
        if self.any_subdomain {
            if labels.len() <= self.labels.len() {
                return false;
            }
            let tail = &labels[labels.len() - self.labels.len()..];
            return label_match(&self.labels, tail);
        }
        labels.len() == self.labels.len() && label_match(&self.labels, &labels)
    }
}

fn label_match(pattern: &[String], labels: &[&str]) -> bool {
    pattern.iter().zip(labels).all(|(p, l)| p == "*" || p == l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_core::PermissionBehavior::{Allow, Ask, Deny};

    fn ctx() -> PathContext {
        PathPattern::context(Path::new("/proj"), Path::new("/proj/sub"), Some(Path::new("/home/me")))
    }

    #[test]
    fn anchor_table() {
        let cases: &[(&str, PermissionBehavior, &str, bool)] = &[
            ("//etc/passwd", Deny, "/etc/passwd", true),
            ("//etc/**", Deny, "/etc/ssh/sshd_config", true),
            ("~/.ssh/**", Deny, "/home/me/.ssh/id_rsa", true),
            ("~/.ssh/**", Deny, "/proj/.ssh/id_rsa", false),
            ("/src/**", Allow, "/proj/src/a.rs", true),
            ("/src/**", Allow, "/proj/sub/src/a.rs", false),
            ("./x.txt", Allow, "/proj/sub/x.txt", true),
            ("./x.txt", Allow, "/proj/sub/d/x.txt", false),
            ("./x.txt", Deny, "/proj/sub/d/x.txt", true),
            ("./src/**", Deny, "/proj/sub/lib/src/a.rs", true),
            ("./src/**", Ask, "/proj/sub/lib/src/a.rs", true),
            ("./src/**", Allow, "/proj/sub/lib/src/a.rs", false),
            ("*.env", Deny, "/proj/sub/a/b/prod.env", true),
            ("*.env", Deny, "/proj/sub/prod.env.bak", false),
            (".env", Deny, "/proj/sub/.env", true),
            ("src/**", Allow, "/proj/sub/src/m.rs", true),
            ("src/**", Allow, "/proj/sub/lib/src/m.rs", false),
            ("src/**", Ask, "/proj/sub/lib/src/m.rs", true),
            ("src/**", Deny, "/elsewhere/src/m.rs", true),
            ("secrets/", Deny, "/proj/sub/secrets/k", true),
            ("*.rs", Allow, "/proj/sub/a/b.rs", true),
            ("src/*.rs", Allow, "/proj/sub/src/a/b.rs", false),
            ("src/**/*.rs", Allow, "/proj/sub/src/a/b.rs", true),
            ("//tmp/[ab]", Allow, "/tmp/a", true),
            ("secrets", Deny, "/proj/sub/x/secrets/key.pem", true),
        ];
        for (spec, behavior, path, want) in cases {
            let p = PathPattern::compile(spec, *behavior, &ctx()).unwrap();
            assert_eq!(p.matches(Path::new(path)), *want, "{spec} ({behavior}) vs {path} via {}", p.as_glob());
        }
    }

    /// One glob set answers what matching the glob, the `dir` of `dir/**`, and every
    /// ancestor but `/` one by one answers.
    #[test]
    fn the_glob_set_agrees_with_matching_each_ancestor() {
        let specs = [
            "//etc/passwd",
            "//etc/**",
            "~/.ssh/**",
            "/src/**",
            "./x.txt",
            "*.env",
            ".env",
            "src/**",
            "secrets/",
            "*.rs",
            "src/*.rs",
            "src/**/*.rs",
            "//tmp/[ab]",
            "secrets",
            "//",
            "/",
            "a/b",
            "**/node_modules",
            "//{a,b}/c",
            "d?r/*",
        ];
        let paths = [
            "/",
            "/etc",
            "/etc/passwd",
            "/etc/ssh/x",
            "/home/me/.ssh",
            "/home/me/.ssh/id",
            "/proj",
            "/proj/src",
            "/proj/src/a.rs",
            "/proj/sub",
            "/proj/sub/x.txt",
            "/proj/sub/.env",
            "/proj/sub/.env/inner",
            "/proj/sub/a/b/prod.env",
            "/proj/sub/secrets",
            "/proj/sub/secrets/k/l",
            "/proj/sub/src/a/b.rs",
            "/tmp/a",
            "/tmp/a/deeper",
            "/tmp/c",
            "/x/a/b/c",
            "/a/c",
            "/b/c/d",
            "/proj/sub/node_modules/x/y",
            "/proj/sub/dir/q",
            "/proj/sub/dxr/q/r",
        ];
        for spec in specs {
            for behavior in [Allow, Deny] {
                let p = PathPattern::compile(spec, behavior, &ctx()).unwrap();
                let one = |g: &str| {
                    GlobBuilder::new(g)
                        .literal_separator(true)
                        .backslash_escape(true)
                        .build()
                        .unwrap()
                        .compile_matcher()
                };
                let glob = one(p.as_glob());
                let dir = p.as_glob().strip_suffix("/**").filter(|d| !d.is_empty()).map(one);
                for path in paths {
                    let path = Path::new(path);
                    let expected = glob.is_match(path)
                        || dir.as_ref().is_some_and(|d| d.is_match(path))
                        || path.ancestors().skip(1).any(|a| a != Path::new("/") && glob.is_match(a));
                    assert_eq!(p.matches(path), expected, "{spec} ({behavior}) vs {path:?} via {:?}", p.globs());
                    assert_eq!(p.matches_candidate(&Candidate::new(path)), expected);
                }
            }
        }
    }

    #[test]
    fn anchors_with_glob_characters_are_escaped() {
        let odd = PathPattern::context(Path::new("/p[1]"), Path::new("/p[1]"), None);
        let p = PathPattern::compile("/a", Allow, &odd).unwrap();
        assert!(p.matches(Path::new("/p[1]/a")));
        assert!(!p.matches(Path::new("/p1/a")));
        assert!(PathPattern::compile("~/x", Allow, &odd).is_err());
    }

    #[test]
    fn symlink_forms_include_the_target() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let forms = path_forms(&link.join("new-file.txt"));
        assert_eq!(forms.len(), 2);
        assert!(forms[1].ends_with("real/new-file.txt"), "{forms:?}");
        let dotted = path_forms(&tmp.path().join("real/../real/x"));
        assert!(dotted[0].ends_with("real/x"));
    }

    #[test]
    fn domain_table() {
        let cases: &[(&str, &str, bool)] = &[
            ("domain:example.com", "example.com", true),
            ("domain:example.com", "EXAMPLE.com.", true),
            ("domain:example.com", "www.example.com", false),
            ("domain:*.example.com", "example.com", false),
            ("domain:*.example.com", "a.b.example.com", true),
            ("domain:*.example.com", "badexample.com", false),
            ("domain:api.*.com", "api.github.com", true),
            ("domain:api.*.com", "api.a.b.com", false),
            ("domain:*", "anything.org", true),
        ];
        for (spec, host, want) in cases {
            assert_eq!(DomainPattern::parse(spec).unwrap().matches(host), *want, "{spec} vs {host}");
        }
        assert!(DomainPattern::parse("example.com").is_err());
        assert!(DomainPattern::parse("domain:").is_err());
    }
}
