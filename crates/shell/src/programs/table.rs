//! The program table: one entry per program name, sorted (a test keeps it so). Each field is
//! described on [`Program`]; a field an entry leaves out is [`Program::DEFAULT`]'s.
//!
//! An example's reads list an option's value twice where the option is not one the read-only
//! table spells (`awk -f .env x`): once as a word that is not an option, once as the file the
//! option names. Reading a path twice costs nothing; missing it would be a read past a rule.

use super::CommandIn::{After, Attached, Keys, Value};
use super::Holds::{Reads, Runs, Walks, WalksNone, Writes as Wrote};
use super::{CommandOptions, Destructive, DirChange, Example, Operands, Options, Program, Role, Walk, Writes};

/// Options that name a script or pattern file (`-f FILE`, `--file FILE`).
const FILE: Options = Options { letters: &['f'], longs: &["file"] };

/// ssh's settings that run a command (`-o ProxyCommand=CMD`), for ssh, scp and sftp.
const SSH_COMMANDS: &[&str] = &["ProxyCommand", "LocalCommand", "KnownHostsCommand"];

/// npm's and npx's option that runs a command string (`npx -c 'eslint .'`).
const CALL: &[(&str, super::CommandIn)] = &[("--call", Value), ("-c", Value)];

/// The options of git's subcommands whose values are commands git runs (`git rebase --exec
/// CMD`), sorted by subcommand (a test keeps them so). `git grep -O` alone opens the pager git
/// is configured with; `--smtp-server` names a host unless it is a path to a program.
pub const GIT_COMMAND_OPTIONS: &[(&str, &[(&str, super::CommandIn)])] = &[
    ("archive", &[("--exec", Value)]),
    ("clone", &[("--upload-pack", Value), ("-u", Value)]),
    ("difftool", &[("--extcmd", Value), ("-x", Value)]),
    ("fetch", &[("--upload-pack", Value)]),
    (
        "filter-branch",
        &[
            ("--tree-filter", Value),
            ("--index-filter", Value),
            ("--msg-filter", Value),
            ("--env-filter", Value),
            ("--commit-filter", Value),
            ("--parent-filter", Value),
            ("--tag-name-filter", Value),
        ],
    ),
    ("grep", &[("--open-files-in-pager", Attached), ("-O", Attached)]),
    ("ls-remote", &[("--upload-pack", Value)]),
    ("pull", &[("--upload-pack", Value)]),
    ("push", &[("--receive-pack", Value), ("--exec", Value)]),
    ("rebase", &[("--exec", Value), ("-x", Value)]),
    (
        "send-email",
        &[
            ("--to-cmd", Value),
            ("--cc-cmd", Value),
            ("--header-cmd", Value),
            ("--sendmail-cmd", Value),
            ("--smtp-server", super::CommandIn::Program),
        ],
    ),
];

/// What status 1 of a search means.
const NO_MATCH: &str = "no matches were found";

/// What status 1 of a comparison means.
const DIFFER: &str = "the inputs differ";

/// What status 1 of a test means.
const FALSE: &str = "the condition is false";

/// The git subcommands whose run is destructive, with the options that make it so (always,
/// where there are none).
const GIT_DESTRUCTIVE: &[(&str, &[&str])] = &[
    ("branch", &["-D"]),
    ("checkout", &["--", "."]),
    ("clean", &[]),
    ("push", &["-f", "--force", "--force-with-lease"]),
    ("reset", &["--hard"]),
    ("restore", &["--", "."]),
];

/// The table.
pub const PROGRAMS: &[Program] = &[
    Program {
        name: ":",
        operands: Operands::NotFiles,
        examples: &[Example { line: ": a.txt", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "[",
        exit_one: Some(FALSE),
        operands: Operands::NotFiles,
        examples: &[Example { line: "[ -f a.txt ]", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "[[",
        exit_one: Some(FALSE),
        operands: Operands::NotFiles,
        examples: &[Example { line: "[[ -f a.txt ]]", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "ack",
        exit_one: Some(NO_MATCH),
        examples: &[Example { line: "ack TODO a.rs", holds: Reads(&["TODO", "a.rs"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "ag",
        exit_one: Some(NO_MATCH),
        examples: &[Example { line: "ag TODO a.rs", holds: Reads(&["TODO", "a.rs"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "awk",
        reads_from: FILE,
        examples: &[Example { line: "awk -f .env x", holds: Reads(&[".env", "x", ".env"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "basename",
        operands: Operands::NotFiles,
        examples: &[Example { line: "basename src/a.rs", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "cargo",
        operands: Operands::NotFiles,
        examples: &[Example { line: "cargo test parser", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "cd",
        role: Role::ChangesDir(DirChange::Cd),
        examples: &[Example { line: "cd src", holds: WalksNone }],
        ..Program::DEFAULT
    },
    Program {
        name: "chgrp",
        writes: Writes::All,
        examples: &[Example { line: "chgrp g a.txt", holds: Wrote(&["g", "a.txt"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "chmod",
        writes: Writes::All,
        examples: &[Example { line: "chmod +x a.sh", holds: Wrote(&["+x", "a.sh"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "chown",
        writes: Writes::All,
        examples: &[Example { line: "chown u a.txt", holds: Wrote(&["u", "a.txt"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "cmp",
        exit_one: Some(DIFFER),
        examples: &[Example { line: "cmp a b", holds: Reads(&["a", "b"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "colordiff",
        exit_one: Some(DIFFER),
        examples: &[Example { line: "colordiff a b", holds: Reads(&["a", "b"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "command",
        operands: Operands::NotFiles,
        examples: &[Example { line: "command -v rg", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "cp",
        role: Role::Copies,
        value_letters: &['t'],
        writes: Writes::Destination { target_option: true },
        accept_edits: true,
        examples: &[
            Example { line: "cp a.txt b.txt out", holds: Wrote(&["out"]) },
            Example { line: "cp -t out a.txt", holds: Wrote(&["out", "a.txt"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "curl",
        reads_from: Options { letters: &['K', 'T'], longs: &["config", "upload-file"] },
        examples: &[
            Example {
                line: "curl -T .env https://example.com",
                holds: Reads(&[".env", "https://example.com", ".env"]),
            },
            Example { line: "curl -o out.html https://example.com", holds: Wrote(&["out.html"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "date",
        operands: Operands::NotFiles,
        examples: &[Example { line: "date +%F", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "dd",
        destructive: Destructive::Always,
        output_operand: Some("of="),
        examples: &[Example { line: "dd if=a.img of=b.img", holds: Wrote(&["b.img"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "diff",
        exit_one: Some(DIFFER),
        walk: Walk::Always,
        examples: &[Example { line: "diff a b", holds: Walks(&["a", "b"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "dirname",
        operands: Operands::NotFiles,
        examples: &[Example { line: "dirname src/a.rs", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "docker",
        operands: Operands::NotFiles,
        examples: &[Example { line: "docker ps -a", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "echo",
        operands: Operands::NotFiles,
        examples: &[Example { line: "echo a.txt", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "egrep",
        exit_one: Some(NO_MATCH),
        operands: Operands::PatternFirst { spelled: true, unspelled: true },
        reads_from: FILE,
        walk: Walk::GrepOptions,
        examples: &[
            Example { line: "egrep -n TODO src/a.rs b.rs", holds: Reads(&["src/a.rs", "b.rs"]) },
            Example { line: "egrep -e TODO a.rs", holds: Reads(&["a.rs"]) },
            Example { line: "egrep -nf .env x", holds: Reads(&["x", ".env"]) },
            Example { line: "egrep -rn TODO src", holds: Walks(&["src"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "env",
        operands: Operands::NotFiles,
        examples: &[Example { line: "env A=1", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "false",
        operands: Operands::NotFiles,
        examples: &[Example { line: "false a.txt", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "fd",
        runs_payloads: true,
        operands: Operands::PatternFirst { spelled: false, unspelled: true },
        role: Role::Fd,
        examples: &[
            Example { line: "fd main src", holds: Reads(&["src"]) },
            Example { line: "fd -e rs -x wc -l", holds: Runs(&["wc -l"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "fdfind",
        operands: Operands::PatternFirst { spelled: false, unspelled: true },
        role: Role::Fd,
        runs_payloads: true,
        examples: &[
            Example { line: "fdfind main src", holds: Reads(&["src"]) },
            Example { line: "fdfind -e rs --exec-batch wc -l", holds: Runs(&["wc -l"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "fgrep",
        exit_one: Some(NO_MATCH),
        operands: Operands::PatternFirst { spelled: true, unspelled: true },
        reads_from: FILE,
        walk: Walk::GrepOptions,
        examples: &[
            Example { line: "fgrep -n TODO src/a.rs b.rs", holds: Reads(&["src/a.rs", "b.rs"]) },
            Example { line: "fgrep -e TODO a.rs", holds: Reads(&["a.rs"]) },
            Example { line: "fgrep -nf .env x", holds: Reads(&["x", ".env"]) },
            Example { line: "fgrep -rn TODO src", holds: Walks(&["src"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "find",
        role: Role::Find,
        exit_one: Some("some paths could not be searched"),
        runs_payloads: true,
        operands: Operands::StartPoints,
        examples: &[
            Example { line: "find -P -- src docs -name x", holds: Reads(&["src", "docs"]) },
            Example { line: "find -name x", holds: Reads(&["."]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "free",
        operands: Operands::NotFiles,
        examples: &[Example { line: "free -h", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "gawk",
        reads_from: FILE,
        examples: &[Example { line: "gawk -f .env x", holds: Reads(&[".env", "x", ".env"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "git",
        role: Role::Git,
        subcommand_exit_one: &[("diff", DIFFER), ("grep", NO_MATCH)],
        destructive: Destructive::Subcommands(GIT_DESTRUCTIVE),
        operands: Operands::Git,
        examples: &[
            Example { line: "git diff a.rs b.rs", holds: Reads(&["a.rs", "b.rs"]) },
            Example { line: "git log a.rs", holds: Reads(&[]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "git-grep",
        exit_one: Some(NO_MATCH),
        examples: &[Example { line: "git-grep TODO", holds: Reads(&["TODO"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "grep",
        exit_one: Some(NO_MATCH),
        operands: Operands::PatternFirst { spelled: true, unspelled: true },
        reads_from: FILE,
        walk: Walk::GrepOptions,
        examples: &[
            Example { line: "grep -n TODO src/a.rs b.rs", holds: Reads(&["src/a.rs", "b.rs"]) },
            Example { line: "grep -e TODO a.rs", holds: Reads(&["a.rs"]) },
            Example { line: "grep -nf .env x", holds: Reads(&["x", ".env"]) },
            Example { line: "grep -rn TODO src", holds: Walks(&["src"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "groups",
        operands: Operands::NotFiles,
        examples: &[Example { line: "groups root", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "hd",
        reads_from: Options { letters: &['f'], longs: &["format-file"] },
        examples: &[Example { line: "hd -f.env f", holds: Reads(&["f", ".env"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "hexdump",
        reads_from: Options { letters: &['f'], longs: &["format-file"] },
        examples: &[Example { line: "hexdump -f.env f", holds: Reads(&["f", ".env"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "hostname",
        operands: Operands::NotFiles,
        examples: &[Example { line: "hostname -f", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "id",
        operands: Operands::NotFiles,
        examples: &[Example { line: "id root", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "install",
        writes: Writes::All,
        examples: &[Example { line: "install a b", holds: Wrote(&["a", "b"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "jq",
        operands: Operands::PatternFirst { spelled: false, unspelled: true },
        reads_from: Options { letters: &['f', 'L'], longs: &["from-file"] },
        examples: &[
            Example { line: "jq .name package.json", holds: Reads(&["package.json"]) },
            Example { line: "jq -L .env -n 1", holds: Reads(&["1", ".env"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "ln",
        writes: Writes::Destination { target_option: true },
        examples: &[Example { line: "ln -s a.txt link", holds: Wrote(&["link"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "lsof",
        operands: Operands::NotFiles,
        examples: &[Example { line: "lsof a.txt", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "man",
        // The browser of `-H`/`--html` is attached only (`-Hfirefox`): after a bare `-H` the
        // next word is the page.
        command_options: CommandOptions {
            options: &[("--pager", Value), ("-P", Value), ("--html", Attached), ("-H", Attached)],
            ..CommandOptions::NONE
        },
        examples: &[
            Example { line: "man -P 'less -R' ls", holds: Runs(&["less -R"]) },
            Example { line: "man -H ls", holds: Runs(&[]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "mawk",
        reads_from: FILE,
        examples: &[Example { line: "mawk -f .env x", holds: Reads(&[".env", "x", ".env"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "mkdir",
        value_letters: &['m'],
        writes: Writes::All,
        accept_edits: true,
        examples: &[Example { line: "mkdir -p out", holds: Wrote(&["out"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "mv",
        role: Role::Moves,
        value_letters: &['t'],
        writes: Writes::All,
        accept_edits: true,
        examples: &[Example { line: "mv a.txt b.txt", holds: Wrote(&["a.txt", "b.txt"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "nawk",
        reads_from: FILE,
        examples: &[Example { line: "nawk -f .env x", holds: Reads(&[".env", "x", ".env"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "npm",
        command_options: CommandOptions { after: &["exec", "x"], options: CALL, clustered: &[] },
        examples: &[
            Example { line: "npm exec -c 'eslint .'", holds: Runs(&["eslint ."]) },
            Example { line: "npm run -c x", holds: Runs(&[]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "nproc",
        operands: Operands::NotFiles,
        examples: &[Example { line: "nproc --all", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "npx",
        command_options: CommandOptions { options: CALL, ..CommandOptions::NONE },
        examples: &[Example { line: "npx -c 'eslint .'", holds: Runs(&["eslint ."]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "pgrep",
        operands: Operands::NotFiles,
        examples: &[Example { line: "pgrep cargo", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "popd",
        role: Role::ChangesDir(DirChange::Pop),
        examples: &[Example { line: "popd", holds: WalksNone }],
        ..Program::DEFAULT
    },
    Program {
        name: "printenv",
        operands: Operands::NotFiles,
        examples: &[Example { line: "printenv HOME", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "printf",
        operands: Operands::NotFiles,
        examples: &[Example { line: "printf %s a.txt", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "ps",
        operands: Operands::NotFiles,
        examples: &[Example { line: "ps aux", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "pushd",
        role: Role::ChangesDir(DirChange::Push),
        examples: &[Example { line: "pushd src", holds: WalksNone }],
        ..Program::DEFAULT
    },
    Program {
        name: "pwd",
        operands: Operands::NotFiles,
        examples: &[Example { line: "pwd -P", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "rg",
        exit_one: Some(NO_MATCH),
        operands: Operands::PatternFirst { spelled: true, unspelled: true },
        walk: Walk::Ripgrep,
        examples: &[
            Example { line: "rg -n TODO src", holds: Reads(&["src"]) },
            Example { line: "rg TODO", holds: Walks(&["."]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "rm",
        role: Role::Removes,
        destructive: Destructive::Always,
        writes: Writes::All,
        accept_edits: true,
        examples: &[Example { line: "rm -f a.txt", holds: Wrote(&["a.txt"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "rmdir",
        role: Role::Removes,
        destructive: Destructive::Always,
        writes: Writes::All,
        accept_edits: true,
        examples: &[Example { line: "rmdir sub", holds: Wrote(&["sub"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "rsync",
        writes: Writes::Destination { target_option: false },
        // Its short options that take a value (`-e CMD` also in a cluster: `-avze CMD`).
        value_letters: &['@', 'B', 'M', 'T', 'e', 'f'],
        command_options: CommandOptions { options: &[("--rsh", Value)], clustered: &['e'], after: &[] },
        examples: &[
            Example { line: "rsync -a src/ dst", holds: Wrote(&["dst"]) },
            Example { line: "rsync -avze 'ssh -p 2222' src host:dst", holds: Runs(&["ssh -p 2222"]) },
            Example { line: "rsync --rsh=rsh src host:dst", holds: Runs(&["rsh"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "scp",
        command_options: CommandOptions {
            options: &[("-o", Keys(SSH_COMMANDS)), ("-S", Value)],
            ..CommandOptions::NONE
        },
        examples: &[
            Example { line: "scp -S ./myssh a.txt host:", holds: Runs(&["./myssh"]) },
            Example { line: "scp -S./myssh a.txt host:", holds: Runs(&["./myssh"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "sed",
        role: Role::Sed,
        value_letters: &['i', 'e', 'f', 'l'],
        operands: Operands::PatternFirst { spelled: true, unspelled: false },
        writes: Writes::All,
        reads_from: FILE,
        accept_edits: true,
        examples: &[
            Example { line: "sed -n 1,5p a.txt", holds: Reads(&["a.txt"]) },
            Example { line: "sed -f .env x", holds: Reads(&["x", ".env"]) },
            Example { line: "sed -i s/a/b/ a.txt", holds: Wrote(&["s/a/b/", "a.txt"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "seq",
        operands: Operands::NotFiles,
        examples: &[Example { line: "seq 1 10", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "sftp",
        command_options: CommandOptions {
            options: &[("-o", Keys(SSH_COMMANDS)), ("-S", Value)],
            ..CommandOptions::NONE
        },
        examples: &[Example { line: "sftp -o 'ProxyCommand nc %h %p' host", holds: Runs(&["nc %h %p"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "shred",
        destructive: Destructive::Always,
        writes: Writes::All,
        examples: &[Example { line: "shred a.txt", holds: Wrote(&["a.txt"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "sleep",
        operands: Operands::NotFiles,
        examples: &[Example { line: "sleep 1", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "sort",
        command_options: CommandOptions { options: &[("--compress-program", Value)], ..CommandOptions::NONE },
        examples: &[Example { line: "sort --compress-program=gzip a.txt", holds: Runs(&["gzip"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "ssh",
        reads_from: Options { letters: &['F', 'i'], longs: &[] },
        command_options: CommandOptions { options: &[("-o", Keys(SSH_COMMANDS))], ..CommandOptions::NONE },
        examples: &[
            Example { line: "ssh -F .env host", holds: Reads(&[".env", "host", ".env"]) },
            Example { line: "ssh -o ProxyCommand='nc %h %p' -o Port=22 host", holds: Runs(&["nc %h %p"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "tar",
        reads_from: Options { letters: &['T', 'X'], longs: &["files-from", "exclude-from"] },
        // `-g FILE` writes its snapshot of what it archived.
        output_letters: &['f', 'g'],
        output_longs: &["file", "listed-incremental"],
        // Its other short options that take a value (`tar --help`, checked by a test): in
        // the old style (`tar cbf 20 out.tar src`) each letter takes the next word in order.
        value_letters: &['C', 'F', 'H', 'I', 'K', 'L', 'N', 'V', 'b'],
        options_first: true,
        command_options: CommandOptions {
            options: &[
                ("--to-command", Value),
                ("--use-compress-program", Value),
                ("--info-script", Value),
                ("--new-volume-script", Value),
                ("--rsh-command", Value),
                // Only the `exec=` action runs anything (`dot`, `echo`, `sleep=1` … do not).
                ("--checkpoint-action", After("exec=")),
            ],
            // `-I CMD` and `-F CMD`, also in a cluster (`-cIzstd`) and in the old style
            // (`tar cIf zstd out.tar src`).
            clustered: &['I', 'F'],
            ..CommandOptions::NONE
        },
        examples: &[
            Example { line: "tar -cf out.tar -T .env", holds: Reads(&["out.tar", ".env", ".env"]) },
            Example { line: "tar czf out.tgz src", holds: Wrote(&["out.tgz"]) },
            Example { line: "tar cbf 20 out.tar src", holds: Wrote(&["out.tar"]) },
            Example { line: "tar -g snap.db -czf out.tgz src", holds: Wrote(&["snap.db", "out.tgz"]) },
            Example { line: "tar -xf a.tar --to-command='wc -c'", holds: Runs(&["wc -c"]) },
            Example {
                line: "tar -cf a.tar --checkpoint-action=exec='touch x' --checkpoint-action=dot src",
                holds: Runs(&["touch x"]),
            },
            Example { line: "tar -cIzstd -f a.tar src", holds: Runs(&["zstd"]) },
            Example { line: "tar -c -I 'zstd -19' -f a.tar src", holds: Runs(&["zstd -19"]) },
            Example { line: "tar cIf zstd a.tar src", holds: Runs(&["zstd"]) },
            Example { line: "tar cfI a.tar zstd src", holds: Runs(&["zstd"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "tee",
        writes: Writes::All,
        examples: &[Example { line: "tee -a log.txt", holds: Wrote(&["log.txt"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "test",
        exit_one: Some(FALSE),
        operands: Operands::NotFiles,
        examples: &[Example { line: "test -f a.txt", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "touch",
        writes: Writes::All,
        accept_edits: true,
        examples: &[Example { line: "touch a.txt", holds: Wrote(&["a.txt"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "tr",
        operands: Operands::NotFiles,
        examples: &[Example { line: "tr a-z A-Z", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "true",
        operands: Operands::NotFiles,
        examples: &[Example { line: "true a.txt", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "truncate",
        destructive: Destructive::Always,
        writes: Writes::All,
        examples: &[Example { line: "truncate -s0 a.txt", holds: Wrote(&["a.txt"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "type",
        operands: Operands::NotFiles,
        examples: &[Example { line: "type ls", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "uname",
        operands: Operands::NotFiles,
        examples: &[Example { line: "uname -a", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "unlink",
        writes: Writes::All,
        examples: &[Example { line: "unlink a.txt", holds: Wrote(&["a.txt"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "uptime",
        operands: Operands::NotFiles,
        examples: &[Example { line: "uptime -p", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "wget",
        reads_from: Options { letters: &['i'], longs: &["input-file"] },
        output_letters: &['o', 'O', 'P'],
        examples: &[
            Example { line: "wget -i .env", holds: Reads(&[".env", ".env"]) },
            Example { line: "wget -O page.html https://example.com", holds: Wrote(&["page.html"]) },
        ],
        ..Program::DEFAULT
    },
    Program {
        name: "whereis",
        operands: Operands::NotFiles,
        examples: &[Example { line: "whereis ls", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "which",
        operands: Operands::NotFiles,
        examples: &[Example { line: "which cargo", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "whoami",
        operands: Operands::NotFiles,
        examples: &[Example { line: "whoami", holds: Reads(&[]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "wipefs",
        destructive: Destructive::Always,
        examples: &[Example { line: "wipefs -a disk.img", holds: Reads(&["disk.img"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "xargs",
        runs_payloads: true,
        operands: Operands::NotFiles,
        reads_from: Options { letters: &['a'], longs: &["arg-file"] },
        examples: &[Example { line: "xargs -a .env echo", holds: Reads(&[".env"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "zgrep",
        exit_one: Some(NO_MATCH),
        examples: &[Example { line: "zgrep TODO a.gz", holds: Reads(&["TODO", "a.gz"]) }],
        ..Program::DEFAULT
    },
    Program {
        name: "zip",
        command_options: CommandOptions {
            options: &[("--unzip-command", Value), ("-TT", Value)],
            ..CommandOptions::NONE
        },
        examples: &[Example { line: "zip -T -TT 'unzip -tq' a.zip a.txt", holds: Runs(&["unzip -tq"]) }],
        ..Program::DEFAULT
    },
];
