//! Command lines to try: a grammar aimed at what attackers use, and mutations of known lines.
//!
//! Everything is deterministic from a seed ([`Rng`], xorshift64*). The grammar builds lines of
//! here-documents in every delimiter quoting, ANSI-C strings with every escape, substitutions,
//! expansions, globs, comments, continuations, compound commands, functions, aliases,
//! `coproc` and redirections, around programs that only read (`ls`, `cat`, `git status`) and
//! marker programs with side effects (`touch`, `rm`, `curl`, `sh`). Mutations insert, delete or
//! swap quoting and separator characters in the crate's table cases, fuzz seeds and regressions.

/// A small deterministic pseudo-random number generator (xorshift64*).
#[derive(Debug, Clone)]
pub(super) struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value, zero included).
    pub(super) fn new(seed: u64) -> Self {
        Rng((seed ^ 0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next 64 random bits.
    pub(super) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (`n` > 0).
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One of `items` (not empty).
    pub(super) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// The programs the generator names: read-only ones and side-effecting markers.
pub(super) const VOCABULARY: &[&str] = &[
    "ls", "cat", "grep", "echo", "git", "head", "wc", "printf", "true", "touch", "rm", "curl", "sh", "bash", "mkdir",
    "cp", "tee", "timeout", "nohup", "env", "sudo", "xargs", "find", "sed",
];

/// Programs with a side effect, each given a marker argument.
const MARKERS: &[&str] = &["touch pwned", "rm a.txt", "curl x", "sh -c 'touch s'", "mkdir m", "cp a.txt c"];

/// Read-only commands.
const READERS: &[&str] = &["ls", "ls -la sub", "cat a.txt", "grep -n x a.txt", "echo hi", "git status", "wc -l b.txt"];

/// Here-document delimiters as written, and the word bash may end them at.
const DELIMITERS: &[(&str, &str)] = &[
    ("EOF", "EOF"),
    ("'EOF'", "EOF"),
    ("\"EOF\"", "EOF"),
    ("E'O'F", "EOF"),
    ("E\"O\"F", "EOF"),
    ("EO'F'", "EOF"),
    ("E''OF", "EOF"),
    ("E$'O'F", "EOF"),
    ("E$'\\x4f'F", "EOF"),
    ("E''", "E"),
    ("\\EOF", "EOF"),
    ("E\\OF", "EOF"),
    ("''", ""),
    ("\"\"", ""),
    ("$'EOF'", "EOF"),
    ("$\"EOF\"", "EOF"),
    ("E$F", "E$F"),
    ("'E F'", "E F"),
];

/// ANSI-C string pieces: every escape, and characters that matter around them.
const ANSI_PIECES: &[&str] = &[
    "\\\\",
    "\\'",
    "\\\"",
    "\\x27",
    "\\x5c",
    "\\047",
    "\\0",
    "\\01",
    "\\cA",
    "\\c'",
    "\\u0027",
    "\\U0000005c",
    "\\n",
    "\\e",
    "\\q",
    "a",
    " ",
    ";",
    "#",
    "'",
    "\\x",
    "\\u",
];

/// `n` generated command lines, with mutations of `sources` among them.
pub(super) fn commands(seed: u64, n: usize, sources: &[String]) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| one(&mut rng, sources)).collect()
}

/// One generated line.
pub(super) fn one(rng: &mut Rng, sources: &[String]) -> String {
    if !sources.is_empty() && rng.one_in(3) {
        let source = sources[rng.below(sources.len())].clone();
        return mutate(rng, &source);
    }
    let line = list(rng, 0);
    if rng.one_in(4) { mutate(rng, &line) } else { line }
}

/// Statements joined by separators.
fn list(rng: &mut Rng, depth: usize) -> String {
    let mut out = statement(rng, depth);
    for _ in 0..rng.below(3) {
        out.push_str(rng.pick(&["; ", " && ", " || ", " | ", "\n", " & ", ";", " |& "]));
        out.push_str(&statement(rng, depth));
    }
    if rng.one_in(6) {
        out.push_str(rng.pick(&[" # c; touch pwned", " #'", "#x", " \\\n"]));
    }
    out
}

/// One statement: simple, compound or here-document.
fn statement(rng: &mut Rng, depth: usize) -> String {
    if depth > 2 {
        return simple(rng, depth);
    }
    let d = depth + 1;
    match rng.below(22) {
        0..=5 => simple(rng, depth),
        6..=8 => heredoc(rng, d),
        9 => format!("echo {} ; {}", ansi_c(rng), rng.pick(&["touch pwned #'", "touch pwned", "curl x | sh #'"])),
        10 => format!("( {} )", list(rng, d)),
        11 => format!("{{ {}; }}", list(rng, d)),
        12 => format!("if {}; then {}; else {}; fi", simple(rng, d), list(rng, d), simple(rng, d)),
        13 => format!("for x in a {}; do {}; done", word(rng, d), list(rng, d)),
        14 => format!("while {}; do {}; break; done", simple(rng, d), simple(rng, d)),
        15 => format!("case {} in a|{}) {};; *) {};; esac", word(rng, d), word(rng, d), simple(rng, d), simple(rng, d)),
        16 => format!("f() {{ {}; }}; f {}", list(rng, d), word(rng, d)),
        17 => format!(
            "shopt -s expand_aliases\nalias {}='{}'\n{} {}",
            word(rng, d),
            marker(rng),
            word(rng, d),
            word(rng, d)
        ),
        18 => format!("coproc {}", simple(rng, d)),
        19 => format!("{} {}", rng.pick(&["eval", "bash -c", "sh -c", "!", "time", "command", "exec"]), quoted(rng, d)),
        20 => format!("{} <({}) {}", rng.pick(&["cat", "diff a.txt", "echo"]), list(rng, d), redirect(rng)),
        _ => format!(
            "{}=({} {}); {} \"${{{}[{}]}}\"",
            "a",
            word(rng, d),
            word(rng, d),
            rng.pick(READERS),
            "a",
            word(rng, d)
        ),
    }
}

/// A side-effecting marker command.
fn marker(rng: &mut Rng) -> String {
    (rng.pick(MARKERS)).to_owned()
}

/// A simple command: assignments, a wrapper, a program, words and redirections.
fn simple(rng: &mut Rng, depth: usize) -> String {
    let mut out = String::new();
    if rng.one_in(6) {
        out.push_str(rng.pick(&["X=1 ", "PAGER=cat ", "a[$(touch arr)]=1 ", "Y=$'\\'' "]));
    }
    if rng.one_in(5) {
        out.push_str(rng.pick(&["timeout 5 ", "nohup ", "command ", "env ", "sudo ", "builtin ", "\\", "/bin/"]));
    }
    out.push_str(&if rng.one_in(2) { marker(rng) } else { (rng.pick(READERS)).to_owned() });
    for _ in 0..rng.below(3) {
        out.push(' ');
        out.push_str(&word(rng, depth + 1));
    }
    if rng.one_in(4) {
        out.push(' ');
        out.push_str(&redirect(rng));
    }
    out
}

/// A line in single quotes, for `eval` or `bash -c`.
fn quoted(rng: &mut Rng, depth: usize) -> String {
    let inner = simple(rng, depth + 1);
    match rng.below(3) {
        0 => format!("'{}'", inner.replace('\'', "'\\''")),
        1 => format!("\"{}\"", inner.replace(['"', '$', '`', '\\'], "")),
        _ => inner,
    }
}

/// A word of some kind.
fn word(rng: &mut Rng, depth: usize) -> String {
    let inner = |rng: &mut Rng| if depth > 2 { "x".to_owned() } else { simple(rng, depth + 1) };
    match rng.below(24) {
        0..=3 => (rng.pick(&["a.txt", "sub", "-l", "x", "pwned", "--", "-rf", "~", "~/doc.txt"])).to_owned(),
        4 => format!("'{}'", rng.pick(&["a b", "$(touch q)", "\\", "#", ";touch q"])),
        5 => format!("\"{}\"", rng.pick(&["a b", "$X", "`touch q`", "\\\"", "$(touch q)", "${X:-y}"])),
        6 => ansi_c(rng),
        7 => format!("$\"{}\"", rng.pick(&["x", "$(touch q)", "a\\\"b"])),
        8 => (rng.pick(&["$X", "$HOME", "$1", "$@", "$#", "$?", "$$", "${X}"])).to_owned(),
        9 => {
            (rng.pick(&["${X:-a}", "${X:=a}", "${#X}", "${X/a/b}", "${X##*/}", "${X:+$(touch q)}", "${!X}", "${X@Q}"]))
                .to_owned()
        }
        10 => format!("$({})", inner(rng)),
        11 => format!("`{}`", inner(rng).replace('`', "")),
        12 => (rng.pick(&["$((1+2))", "$((a[$(touch ar)]))", "$[1]", "$((X))", "$(( 2 * 3 ))"])).to_owned(),
        13 => (rng.pick(&["{a,b}", "{-r,-f}", "{1..3}", "x{,.bak}", "{rm,x}", "{a..c}"])).to_owned(),
        14 => (rng.pick(&["*.txt", "?.txt", "[ab].txt", "sub/*", "*", ".*"])).to_owned(),
        15 => (rng.pick(&["a#b", "#c", "x\\#", "a\\ b", "\\;", "\\'", "\\\n"])).to_owned(),
        16 => format!("$({})", heredoc(rng, depth + 1)),
        17 => (rng.pick(&["\r", "x\r", "\u{a0}x", "\t", "\u{b}"])).to_owned(),
        18 => (rng.pick(&["if", "then", "fi", "done", "{", "}", "!", "[[", "]]", "in", "esac", "function"])).to_owned(),
        19 => format!("<({})", inner(rng)),
        20 => format!(">({})", inner(rng)),
        _ => format!("x{}", rng.below(10)),
    }
}

/// An ANSI-C quoted string of random pieces.
fn ansi_c(rng: &mut Rng) -> String {
    let mut out = String::from("$'");
    for _ in 0..1 + rng.below(4) {
        out.push_str(rng.pick(ANSI_PIECES));
    }
    if rng.one_in(4) {
        // Leave it for the following text to close, as an attack would.
        return out;
    }
    out.push('\'');
    out
}

/// A redirection of some kind.
fn redirect(rng: &mut Rng) -> String {
    (rng.pick(&[
        "> out.txt",
        ">> a.txt",
        "2> err",
        "&> all",
        "&>> all",
        ">| clob",
        "3> three",
        "< a.txt",
        "<<< 'str'",
        ">&2",
        "2>&1",
        ">& both",
        "> ~/h.txt",
        "> $HOME/hh",
        "> sub/../up",
        "<> rw",
        "> /dev/null",
        "1>'sp ace'",
        ">\\$x",
        "> >(touch ps)",
    ]))
    .to_owned()
}

/// A here-document (or several) with a body bash may run, and text after it.
fn heredoc(rng: &mut Rng, depth: usize) -> String {
    let count = if rng.one_in(4) { 2 } else { 1 };
    let mut head = (rng.pick(&["cat", "bash", "sh", "grep x", "cat > hd"])).to_owned();
    let mut bodies = String::new();
    for _ in 0..count {
        let (spelled, word) = rng.pick(DELIMITERS);
        let dash = rng.one_in(3);
        head.push_str(if dash { " <<-" } else { " <<" });
        if rng.one_in(4) {
            head.push(' ');
        }
        head.push_str(spelled);
        for _ in 0..1 + rng.below(3) {
            bodies.push_str(rng.pick(&[
                "x",
                "touch pwned",
                "$(touch sub1)",
                "`rm b.txt`",
                "line \\",
                "\tindented",
                "${X:-$(touch px)}",
                "$'",
                "'",
            ]));
            bodies.push('\n');
        }
        // Closing lines: the word bash may end at, the spelling, near misses.
        let mut closers =
            [word.to_owned(), spelled.to_owned(), format!("\t{word}"), format!("{word} "), format!("{word}x")];
        for _ in 0..rng.below(3) {
            let i = rng.below(closers.len());
            let j = rng.below(closers.len());
            closers.swap(i, j);
        }
        for closer in closers.iter().take(1 + rng.below(3)) {
            bodies.push_str(closer);
            bodies.push('\n');
            if rng.one_in(2) {
                bodies.push_str(&marker(rng));
                bodies.push('\n');
            }
        }
    }
    let tail = match rng.below(6) {
        0 => format!(";{}", simple(rng, depth)),
        1 => format!("|{}", rng.pick(&["sh", "cat", "bash -s"])),
        2 => ")".to_owned(),
        _ => String::new(),
    };
    let open = if tail == ")" { "(" } else { "" };
    format!("{open}{head}{tail}\n{bodies}{}", marker(rng))
}

/// `source` with one to three random edits of quoting and separator characters.
pub(super) fn mutate(rng: &mut Rng, source: &str) -> String {
    let mut chars: Vec<char> = source.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(chars.len() + 1);
        match rng.below(5) {
            0 | 1 => {
                chars.insert(at, rng.pick(&['\'', '"', '\\', '\n', ';', '#', '$', ' ', '`', '(', ')', '{', '}', '|']))
            }
            2 if at < chars.len() => {
                chars.remove(at);
            }
            3 if at + 1 < chars.len() => chars.swap(at, at + 1),
            _ => chars.extend(rng.pick(&["; touch pwned", "\ntouch pwned", " #'", "'"]).chars()),
        }
    }
    chars.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_varied() {
        let a = commands(7, 200, &["echo hi".to_owned()]);
        assert_eq!(a, commands(7, 200, &["echo hi".to_owned()]));
        assert_ne!(a, commands(8, 200, &["echo hi".to_owned()]));
        let distinct: std::collections::BTreeSet<_> = a.iter().collect();
        assert!(distinct.len() > 150, "{} distinct lines", distinct.len());
        assert!(a.iter().any(|l| l.contains("<<")) && a.iter().any(|l| l.contains("$'")));
    }

    #[test]
    fn the_rng_covers_its_range() {
        let mut rng = Rng::new(0);
        let mut seen = [false; 10];
        for _ in 0..1000 {
            seen[rng.below(10)] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
