//! One Bash permission decision (parse + analysis + ~50 rules) beside the tree-sitter parse
//! alone, over a corpus of 1,000 real-world commands.
//!
//! `cargo bench -p toolgate-permissions --bench decision`; each sample runs the whole
//! corpus, so divide the reported time by 1,000 for one command.
//!
//! A measured run (`--bench`) then also alternates the parse, the analysis and the decision
//! over the corpus round by round and prints that table (`interleaved_parse_only`,
//! `interleaved_analysis`, `interleaved_decision`), which `cargo xtask bench` reads for its
//! row 4: load that changes between divan's blocks moves their ratio, not the interleaved one.
//! Lines of plain words (`git status`, most of the corpus) are decided without a syntax tree
//! (`bash::is_plain_line`); `tree_lines_parse_only`, `tree_lines_analysis` and
//! `tree_lines_decision` time the parse, the analysis and the decision over 1,000 commands of
//! the shapes that need one (the analysis less the parse is the walk; the decision less the
//! analysis, the content layer and the rest of the engine).
//! The same table ends with each command parsed and decided next to each other
//! (`paired_parse_only`, `paired_decision`): there the bare parse runs with the caches a
//! decision leaves, as every parse inside a decision does, where a corpus of bare parses in a
//! row keeps only the parser's own code and data cached.

use std::sync::OnceLock;

use serde_json::{Value, json};
use toolgate_core::{PermissionMode, RuleSource, ToolBuilder, ToolContext};
use toolgate_permissions::{LoadedSettings, PermissionEngine, SettingsFile};
use toolgate_shell as bash;

#[path = "../../../bench/interleave.rs"]
mod interleave;

fn main() {
    divan::main();
    if std::env::args().any(|a| a == "--bench") {
        interleaved();
    }
}

const BASES: &[&str] = &[
    "git status",
    "git log --oneline -20",
    "git diff HEAD~1 -- src/lib.rs",
    "git add -A && git commit -m 'fix: handle empty input'",
    "git push origin feature/x",
    "git checkout -b topic && git rebase main",
    "cargo build --release",
    "cargo test -p core -- --nocapture 2>&1 | tail -50",
    "cargo clippy --all-targets -- -D warnings",
    "npm run test -- --watch=false",
    "npm install --save-dev typescript@5",
    "npx tsc --noEmit",
    "yarn lint && yarn build",
    "pnpm -r test",
    "python -m pytest tests/ -x -q",
    "pip install -r requirements.txt",
    "ls -la src",
    "find . -name '*.rs' -not -path './target/*' | head -20",
    "grep -rn 'TODO' src | wc -l",
    "rg -l 'fn main' --type rust",
    "cat Cargo.toml | head -30",
    "head -100 README.md",
    "tail -f /var/log/syslog",
    "sed -n '10,40p' src/main.rs",
    "sed -i 's/foo/bar/g' src/lib.rs",
    "awk '{print $1}' access.log | sort | uniq -c | sort -rn | head",
    "docker ps -a",
    "docker compose up -d db",
    "docker build -t app:dev .",
    "kubectl get pods -n staging",
    "make -j4 all",
    "mkdir -p build/out && cp dist/*.js build/out/",
    "rm -rf node_modules/.cache",
    "mv old_name.rs new_name.rs",
    "curl -sSL https://example.com/install.sh | sh",
    "wget -qO- https://example.com/data.json | jq '.items[] | .name'",
    "echo \"$PATH\" | tr ':' '\\n'",
    "export RUST_LOG=debug && cargo run",
    "NODE_ENV=test npm test",
    "for f in *.md; do wc -l \"$f\"; done",
    "if [ -f .env ]; then source .env; fi",
    "cd frontend && npm run build",
    "cd .. && git status",
    "bash -c 'echo hello && ls'",
    "sudo apt-get install -y ripgrep",
    "timeout 30 ./scripts/integration.sh",
    "xargs -n1 echo < files.txt",
    "diff <(sort a.txt) <(sort b.txt)",
    "echo $(date +%Y-%m-%d) > stamp.txt",
    "tar czf backup.tgz src/ && ls -lh backup.tgz",
];

fn corpus() -> &'static [String] {
    static CORPUS: OnceLock<Vec<String>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        // 50 real-world shapes × 20 argument variants = 1,000 commands.
        let mut out = Vec::with_capacity(1_000);
        for i in 0..20 {
            for base in BASES {
                out.push(if i == 0 { (*base).to_owned() } else { format!("{base} # run {i}") });
            }
        }
        out
    })
}

/// 1,000 commands of the corpus's shapes that are not plain lines ([`bash::is_plain_line`]),
/// so that each decision parses its tree: the corpus's variants of those shapes, repeated.
fn tree_corpus() -> &'static [String] {
    static CORPUS: OnceLock<Vec<String>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let tree: Vec<&String> = corpus().iter().filter(|command| !bash::is_plain_line(command)).collect();
        tree.iter().cycle().take(1_000).map(|command| (*command).clone()).collect()
    })
}

fn rules() -> Value {
    let allow: Vec<String> = [
        "git status",
        "git log:*",
        "git diff:*",
        "git add:*",
        "git commit:*",
        "cargo build:*",
        "cargo test:*",
        "cargo clippy:*",
        "npm run test:*",
        "npm run build:*",
        "npx tsc:*",
        "yarn lint",
        "yarn build",
        "pnpm -r test",
        "python -m pytest:*",
        "ls:*",
        "make:*",
        "docker ps:*",
        "kubectl get:*",
        "mkdir:*",
        "cp:*",
        "mv:*",
        "jq:*",
        "wc:*",
        "head:*",
        "tail:*",
    ]
    .iter()
    .map(|r| format!("Bash({r})"))
    .collect();
    let deny: Vec<String> = ["rm -rf /:*", "curl:*", "wget:*", "sudo:*", "git push --force:*", "dd:*", "mkfs:*"]
        .iter()
        .map(|r| format!("Bash({r})"))
        .chain(
            ["Read(./.env)", "Read(./secrets/**)", "Edit(./.github/**)", "WebFetch(domain:*.internal)"]
                .map(String::from),
        )
        .collect();
    let ask: Vec<String> =
        ["git push:*", "docker build:*", "docker compose:*", "npm install:*", "pip install:*", "kubectl apply:*"]
            .iter()
            .map(|r| format!("Bash({r})"))
            .chain(["Edit(./Cargo.lock)", "Edit(./package-lock.json)"].map(String::from))
            .collect();
    json!({"permissions": {"allow": allow, "deny": deny, "ask": ask}})
}

/// The engine for a session in `cwd`, with the rules of [`rules`] in its project settings.
fn engine_in(cwd: &str) -> PermissionEngine {
    let mut loaded = LoadedSettings::default();
    loaded.add(SettingsFile {
        source: RuleSource::ProjectSettings,
        origin: format!("{cwd}/.claude/settings.json"),
        anchor: cwd.into(),
        value: rules(),
    });
    let (settings, _) = loaded.permissions();
    PermissionEngine::builder(settings).home(Some("/home/u".into())).cwd(cwd).build()
}

/// A session in `/repo`, which does not exist: resolving a path stops at its first lookup.
fn engine() -> &'static PermissionEngine {
    static ENGINE: OnceLock<PermissionEngine> = OnceLock::new();
    ENGINE.get_or_init(|| engine_in("/repo"))
}

/// A session in this crate's folder of the checkout: paths resolve through real folders.
fn checkout_engine() -> &'static PermissionEngine {
    static ENGINE: OnceLock<PermissionEngine> = OnceLock::new();
    ENGINE.get_or_init(|| engine_in(env!("CARGO_MANIFEST_DIR")))
}

/// A tree-sitter parser for Bash, as the analysis keeps one per thread.
fn bash_parser() -> tree_sitter::Parser {
    let language: tree_sitter::Language = tree_sitter_bash::LANGUAGE.into();
    let mut parser = tree_sitter::Parser::new();
    let _ = parser.set_language(&language);
    parser
}

#[divan::bench]
fn parse_only(bencher: divan::Bencher) {
    let mut parser = bash_parser();
    bencher.bench_local(|| {
        for command in corpus() {
            divan::black_box(parser.parse(command, None));
        }
    });
}

/// The parse plus a visit of every node of the tree that reads its kind and byte range and
/// nothing else: the floor under any analysis that walks the syntax tree.
#[divan::bench]
fn parse_and_visit(bencher: divan::Bencher) {
    let mut parser = bash_parser();
    bencher.bench_local(|| {
        for command in corpus() {
            let Some(tree) = parser.parse(command, None) else { continue };
            let mut cursor = tree.walk();
            let mut seen = 0usize;
            'tree: loop {
                let node = cursor.node();
                seen = seen.wrapping_add(usize::from(node.kind_id()) ^ node.start_byte() ^ node.end_byte());
                if cursor.goto_first_child() {
                    continue;
                }
                while !cursor.goto_next_sibling() {
                    if !cursor.goto_parent() {
                        break 'tree;
                    }
                }
            }
            divan::black_box(seen);
        }
    });
}

#[divan::bench]
fn analysis(bencher: divan::Bencher) {
    bencher.bench(|| {
        for command in corpus() {
            divan::black_box(bash::analyze(command));
        }
    });
}

fn decide_all(bencher: divan::Bencher, engine: &PermissionEngine, cwd: &str) {
    let bash = ToolBuilder::new("Bash").build();
    let mut ctx = ToolContext::new(cwd);
    ctx.permission_mode = PermissionMode::Default;
    let inputs: Vec<Value> = corpus().iter().map(|c| json!({"command": c})).collect();
    bencher.bench(|| {
        for input in &inputs {
            divan::black_box(engine.evaluate(&*bash, input, &ctx, None));
        }
    });
}

#[divan::bench]
fn decision(bencher: divan::Bencher) {
    decide_all(bencher, engine(), "/repo");
}

/// The same decisions in a working directory that exists (more lookups per path).
#[divan::bench]
fn decision_in_checkout(bencher: divan::Bencher) {
    decide_all(bencher, checkout_engine(), env!("CARGO_MANIFEST_DIR"));
}

/// The parse, the analysis and the decision over the whole corpus, alternated round by
/// round; then each command parsed and decided next to each other (`paired_*`); then the
/// parse, the analysis and the decision over the lines that need their tree (`tree_lines_*`).
fn interleaved() {
    let mut parser = bash_parser();
    let parser = std::cell::RefCell::new(&mut parser);
    let engine = engine();
    let bash = ToolBuilder::new("Bash").build();
    let mut ctx = ToolContext::new("/repo");
    ctx.permission_mode = PermissionMode::Default;
    // The parse, and the decision, of every command of `commands`.
    let parse_of = |commands: &'static [String]| {
        let parser = &parser;
        move || {
            let mut parser = parser.borrow_mut();
            for command in commands {
                divan::black_box(parser.parse(command, None));
            }
        }
    };
    let (bash, ctx) = (&bash, &ctx);
    let decision_of = |inputs: Vec<Value>| {
        move || {
            for input in &inputs {
                divan::black_box(engine.evaluate(&**bash, input, ctx, None));
            }
        }
    };
    let inputs: Vec<Value> = corpus().iter().map(|c| json!({"command": c})).collect();
    let tree_inputs: Vec<Value> = tree_corpus().iter().map(|c| json!({"command": c})).collect();
    let (parse, decision) = (parse_of(corpus()), decision_of(inputs.clone()));
    let (tree_parse, tree_decision) = (parse_of(tree_corpus()), decision_of(tree_inputs));
    let analysis_of = |commands: &'static [String]| {
        move || {
            for command in commands {
                divan::black_box(bash::analyze(command));
            }
        }
    };
    let (analysis, tree_analysis) = (analysis_of(corpus()), analysis_of(tree_corpus()));
    let [decided, parsed] = interleave::alternate(200, 1, &decision, &parse);
    let [analysed, _] = interleave::alternate(200, 1, &analysis, &parse);
    let [tree_decided, tree_parsed] = interleave::alternate(200, 1, &tree_decision, &tree_parse);
    let [tree_analysed, _] = interleave::alternate(200, 1, &tree_analysis, &tree_parse);
    let [paired_decisions, paired_parses] = paired(200, &mut parser.borrow_mut(), &inputs, &|input| {
        divan::black_box(engine.evaluate(&**bash, input, ctx, None));
    });
    interleave::print(
        "interleaved",
        &mut [
            ("interleaved_parse_only", parsed),
            ("interleaved_analysis", analysed),
            ("interleaved_decision", decided),
            ("paired_parse_only", paired_parses),
            ("paired_decision", paired_decisions),
            ("tree_lines_parse_only", tree_parsed),
            ("tree_lines_analysis", tree_analysed),
            ("tree_lines_decision", tree_decided),
        ],
    );
}

/// Each command of the corpus parsed and decided next to each other, the parse first in
/// even rounds and the decision first in odd ones, each timed alone: both see the caches as
/// the other leaves them (the round-by-round table times each over a whole corpus of its
/// own, where the bare parse finds only its own code cached). The times of one round, each
/// the sum over the corpus.
fn paired(
    rounds: usize,
    parser: &mut tree_sitter::Parser,
    inputs: &[Value],
    decide: &dyn Fn(&Value),
) -> [Vec<std::time::Duration>; 2] {
    use std::time::{Duration, Instant};
    let mut times = [Vec::with_capacity(rounds), Vec::with_capacity(rounds)];
    for round in 0..rounds {
        let (mut decisions, mut parses) = (Duration::ZERO, Duration::ZERO);
        for (command, input) in corpus().iter().zip(inputs) {
            let mut parse = || {
                let started = Instant::now();
                divan::black_box(parser.parse(command, None));
                parses += started.elapsed();
            };
            let mut decision = || {
                let started = Instant::now();
                decide(input);
                decisions += started.elapsed();
            };
            if round % 2 == 0 {
                parse();
                decision();
            } else {
                decision();
                parse();
            }
        }
        times[0].push(decisions);
        times[1].push(parses);
    }
    times
}
