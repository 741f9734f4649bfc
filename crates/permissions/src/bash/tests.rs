//! Unit tests of `bases.rs` and `args.rs`: where a command's words lead, and which paths it
//! reads or writes.

use std::path::Path;

use toolgate_shell::{SimpleCommand, analyze};

use super::args::*;
use super::bases::*;

fn first(src: &str) -> SimpleCommand<'_> {
    analyze(src).commands.remove(0)
}

#[test]
fn bases_follow_cd_and_give_up_where_it_cannot() {
    let home = Some(Path::new("/h"));
    let cwd = Path::new("/r");
    let dirs = |src: &str| {
        let bases = Bases::of(&analyze(src), cwd, home);
        (bases.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>(), bases.unknown)
    };
    assert_eq!(dirs("cat a"), (vec!["/r".to_owned()], false));
    assert_eq!(dirs("cd /etc && cat shadow"), (vec!["/r".to_owned(), "/etc".to_owned()], false));
    assert_eq!(
        dirs("cd sub && cd .. && cat x"),
        (vec!["/r".to_owned(), "/r/sub".to_owned(), "/r/..".to_owned(), "/r/sub/..".to_owned()], false)
    );
    assert_eq!(dirs("cd && cat .bashrc"), (vec!["/r".to_owned(), "/h".to_owned()], false));
    assert_eq!(dirs("(cd /tmp); cat x").0, ["/r", "/tmp"]);
    for unknown in ["cd - && cat x", "cd $D && cat x", "cd ~root && cat x", "pushd +1", "popd; cat x", "cd a*"] {
        assert!(dirs(unknown).1, "{unknown}");
    }
    let many = (0..10).map(|i| format!("cd d{i}")).collect::<Vec<_>>().join(" && ");
    assert!(dirs(&many).1);
}

#[test]
fn paths_of_words() {
    let home = Some(Path::new("/h"));
    let bases = Bases::of(&analyze("cd /etc; cat x"), Path::new("/r"), home);
    let shown =
        |word: &str| bases.paths(word, home).map(|ps| ps.iter().map(|p| p.display().to_string()).collect::<Vec<_>>());
    assert_eq!(shown("shadow"), Some(vec!["/r/shadow".to_owned(), "/etc/shadow".to_owned()]));
    assert_eq!(shown("/x"), Some(vec!["/x".to_owned()]));
    assert_eq!(shown("~/.ssh/id_rsa"), Some(vec!["/h/.ssh/id_rsa".to_owned()]));
    for unknown in ["~root/.ssh/id_rsa", "~+/.env", "~-", "~1", "$HOME/x", "a`b`"] {
        assert_eq!(shown(unknown), None, "{unknown}");
    }
    assert!(!is_static_path("~/x", None));
}

#[test]
fn globs_name_what_they_match_now() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    for file in [".env", "a.md", "b.md", "src/lib.rs"] {
        std::fs::write(root.join(file), "x").unwrap();
    }
    std::os::unix::fs::symlink("/etc", root.join("etclink")).unwrap();
    let bases = Bases::of(&analyze("true"), &root, None);
    let names = |word: &str| {
        bases.glob_paths(word, None).map(|paths| {
            let mut names: Vec<String> =
                paths.iter().map(|p| p.strip_prefix(&root).unwrap_or(p).display().to_string()).collect();
            names.sort();
            names
        })
    };
    assert_eq!(names("*.md").unwrap(), ["a.md", "b.md"]);
    assert_eq!(names(".e*").unwrap(), [".env"]);
    assert_eq!(names(".en?").unwrap(), [".env"]);
    assert_eq!(names(".en[v]").unwrap(), [".env"]);
    assert_eq!(names("*").unwrap(), ["a.md", "b.md", "etclink", "src"]);
    assert_eq!(names("s*/*.rs").unwrap(), ["src/lib.rs"]);
    assert_eq!(names("etc*/passwd").unwrap(), ["etclink/passwd"]);
    assert_eq!(names("*.none").unwrap(), ["*.none"]);
    assert_eq!(names("plain").unwrap(), ["plain"]);
    std::fs::write(root.join("-R"), "x").unwrap();
    assert_eq!(names("*"), None);
    assert_eq!(names("*.md").unwrap(), ["a.md", "b.md"]);
    assert_eq!(names("{.env,x}").unwrap(), [".env", "x"]);
    assert_eq!(names("*.{md,rs}").unwrap(), ["*.rs", "a.md", "b.md"]);
    assert_eq!(names("{src,none}/*.rs").unwrap(), ["none/*.rs", "src/lib.rs"]);
}

#[test]
fn braces_expand_as_bash_expands_them() {
    let words = |w: &str| expand_braces(w).unwrap();
    assert_eq!(words("a{b,c}d"), ["abd", "acd"]);
    assert_eq!(words("file{,.bak}"), ["file", "file.bak"]);
    assert_eq!(words("{a,b{1,2}}x"), ["ax", "b1x", "b2x"]);
    assert_eq!(words("{x,y}{1,2}"), ["x1", "x2", "y1", "y2"]);
    assert_eq!(words("f{1..3}"), ["f1", "f2", "f3"]);
    assert_eq!(words("{5..1..2}"), ["5", "3", "1"]);
    assert_eq!(words("{a..c}"), ["a", "b", "c"]);
    for literal in ["{}", "{a}", "a{b", "b}c", "{a..}", "{1..b}", "{a..bb}"] {
        assert_eq!(words(literal), [literal], "{literal}");
    }
    assert_eq!(expand_braces("{1..100000}"), None);
    assert_eq!(expand_braces("{-9223372036854775808..9223372036854775807..9223372036854775807}"), None);
    assert_eq!(expand_braces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"), None);
}

#[test]
fn recursive_reads_and_what_they_skip() {
    let rec = |src: &str| {
        let cmd = first(src);
        let program = basename(&cmd.argv[0]).to_owned();
        recursion(&cmd, &program).map(|r| (r.roots.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(), r.filtered))
    };
    assert_eq!(rec("grep -rn TODO"), Some((vec![".".to_owned()], false)));
    assert_eq!(rec("grep -n -r TODO src"), Some((vec!["src".to_owned()], false)));
    assert_eq!(rec("grep -d recurse x ."), Some((vec![".".to_owned()], false)));
    assert_eq!(rec("grep TODO a.txt"), None);
    assert_eq!(rec("rg TODO"), Some((vec![".".to_owned()], true)));
    assert_eq!(rec("rg --hidden TODO src"), Some((vec!["src".to_owned()], false)));
    assert_eq!(rec("rg -uu TODO"), Some((vec![".".to_owned()], false)));
    assert_eq!(rec("rg -t rust TODO"), Some((vec![".".to_owned()], false)));
    assert_eq!(rec("rg -e TODO"), Some((vec![".".to_owned()], true)));
    assert_eq!(rec("rg --max-depth 5 TODO src"), Some((vec!["src".to_owned()], true)));
    assert_eq!(rec("rg -g .env KEY"), Some((vec![".".to_owned()], false)));
    assert_eq!(rec("grep -r -e KEY"), Some((vec![".".to_owned()], false)));
    assert_eq!(rec("diff -r a b"), Some((vec!["a".to_owned(), "b".to_owned()], false)));
    assert_eq!(rec("diff a b"), Some((vec!["a".to_owned(), "b".to_owned()], false)));
    // Each option by the one name the table's reading gives it.
    assert_eq!(rec("diff --recursiv --no-dereference a b"), Some((vec!["a".to_owned(), "b".to_owned()], false)));
    assert_eq!(rec("grep --recursiv x ."), Some((vec![".".to_owned()], false)));
    assert_eq!(rec("grep --dir rec x src"), Some((vec!["src".to_owned()], false)));
    assert_eq!(rec("grep -drecu x"), Some((vec![".".to_owned()], false)));
    assert_eq!(rec("grep -d skip x ."), None);
    assert_eq!(rec("rg --unrestricted x"), Some((vec![".".to_owned()], false)));
}

#[test]
fn walks_stop_at_their_bound_and_skip_what_ripgrep_skips() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    // (ripgrep reads `.gitignore` only inside a git repository.)
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".env"), "x").unwrap();
    std::fs::write(root.join("src/a.rs"), "x").unwrap();
    std::fs::write(root.join(".gitignore"), "src/\n").unwrap();
    let names = |filtered: bool| {
        let mut names: Vec<String> = walk_below(root, filtered, MAX_WALKED)
            .unwrap()
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(false), ["", ".env", ".git", ".gitignore", "src", "src/a.rs"]);
    assert_eq!(names(true), [""]);
    assert_eq!(walk_below(root, false, 6).map(|all| all.len()), Some(6));
    assert_eq!(walk_below(root, false, 5), None);
}

#[test]
fn read_operands_skip_patterns_and_find_expressions() {
    let ops = |src: &str| {
        let cmd = first(src);
        let program = basename(&cmd.argv[0]).to_owned();
        read_operands(&cmd, &program).map(|v| v.into_iter().map(str::to_owned).collect::<Vec<_>>())
    };
    assert_eq!(ops("paste a /etc/shadow"), Some(vec!["a".to_owned(), "/etc/shadow".to_owned()]));
    assert_eq!(ops("grep -rn TODO src"), Some(vec!["src".to_owned()]));
    assert_eq!(ops("grep -e TODO src"), Some(vec!["src".to_owned()]));
    assert_eq!(ops("rg -t rust TODO src"), Some(vec!["src".to_owned()]));
    assert_eq!(ops("find / -name x"), Some(vec!["/".to_owned()]));
    assert_eq!(ops("find -L . -newer /etc/x"), Some(vec![".".to_owned()]));
    assert_eq!(ops("find -P -- ~"), Some(vec!["~".to_owned()]));
    assert_eq!(ops("find -O3 -D tree /etc -name x"), Some(vec!["/etc".to_owned()]));
    assert_eq!(ops("find -H -name x"), Some(vec![".".to_owned()]));
    for (word, folder) in
        [("~/.ss?/id_*", "~"), ("/etc/*", "/etc"), ("*.rs", "."), ("/*", "/"), ("src/a/*.rs", "src/a")]
    {
        assert_eq!(glob_folder(word), folder, "{word}");
    }
    assert_eq!(ops("fd pattern /"), Some(vec!["/".to_owned()]));
    assert_eq!(ops("echo /etc/shadow"), None);
    assert_eq!(ops("git log -- /etc"), None);
    assert_eq!(ops("git status"), None);
    assert_eq!(ops("git diff HEAD~1 -- src/lib.rs"), Some(vec!["HEAD~1".to_owned(), "src/lib.rs".to_owned()]));
    assert_eq!(ops("git diff --stat src/a.rs /etc/passwd").unwrap()[1], "/etc/passwd");
    assert_eq!(ops("jq -R . /etc/shadow"), Some(vec!["/etc/shadow".to_owned()]));
}

#[test]
fn option_values_name_files() {
    let values = |src: &str| {
        let cmd = first(src);
        Args::of(&cmd).option_values().collect::<Vec<_>>().join(" ")
    };
    assert_eq!(values("wc --files0-from=.env -l"), ".env");
    assert_eq!(values("git log --format=%H --since= -- --x=y"), "%H");
    assert_eq!(values("grep --include=*.rs -r x ."), "");
    assert_eq!(values("ls --color=$C"), "");
    assert_eq!(values("grep -f pats.txt x"), "pats.txt");
    assert_eq!(values("grep -fpats.txt --file list x"), "pats.txt list");
    // An option the table takes for one with a value (every program's `-o`) may take none:
    // the word after it is read as an option too (`grep -o` prints only the matches, and
    // `-f .env` still names the file grep reads its patterns from).
    assert_eq!(values("grep -o -f .env x"), ".env");
    assert_eq!(values("grep -of .env x"), ".env");
    // A `--` that an option took as its value ends no options.
    assert_eq!(values("grep -o -- --files0-from=.env x"), ".env");
    assert_eq!(values("wc -- --files0-from=.env"), "");
}

#[test]
fn output_paths_are_the_values_of_output_options() {
    let paths = |src: &str| {
        let cmd = first(src);
        Args::of(&cmd).outputs().collect::<Vec<_>>().join(" ")
    };
    let cases = [
        ("git log --output=.git/hooks/pre-commit", ".git/hooks/pre-commit"),
        ("git log --output out.txt -p", "out.txt"),
        ("git format-patch -o patches HEAD~2", "patches"),
        ("sort -oout.txt in.txt", "out.txt"),
        ("sort -ro out.txt in.txt", "out.txt"),
        ("curl -sSL --output-dir d -O https://x/y", "d"),
        ("go build -o bin/app ./cmd", "bin/app"),
        ("wget -qO ~/.bashrc https://x", "~/.bashrc"),
        ("wget -P downloads https://x", "downloads"),
        ("tar czf out.tgz src", "out.tgz"),
        ("tar -c -f out.tar src", "out.tar"),
        ("tar -xzvf in.tgz", "in.tgz"),
        ("tar --file=a.tar -c src", "a.tar"),
        ("dd if=/dev/zero of=disk.img bs=1M", "disk.img"),
        // Each letter of tar's first word that takes a value takes the next word, in order.
        ("tar cTf list.txt out.tar", "out.tar"),
        ("sort -o -- -o.git/config in", "-- .git/config"),
        // Options that do not name outputs, and what follows `--`.
        ("cargo build --release -p core", ""),
        ("rm -f a b", ""),
        ("tar cz src", ""),
        ("npm test -- -o x", ""),
    ];
    for (src, want) in cases {
        assert_eq!(paths(src), want, "{src}");
    }
}

#[test]
fn option_paths_of_accept_edits_commands() {
    let paths = |src: &str| option_paths(&first(src)).map(|v| v.join(" "));
    assert_eq!(paths("mv --target-directory=.git/hooks x").as_deref(), Some(".git/hooks"));
    assert_eq!(paths("cp -t/tmp x").as_deref(), Some("/tmp"));
    assert_eq!(paths("cp -vt/tmp x").as_deref(), Some("/tmp"));
    assert_eq!(paths("cp -t dir x").as_deref(), Some(""));
    assert_eq!(paths("mkdir -p -m755 a").as_deref(), Some(""));
    assert_eq!(paths("sed -i s/a/b/ f").as_deref(), Some(""));
    // Backups are writes too.
    assert_eq!(paths("sed -i.bak s/a/b/ f").as_deref(), Some("f.bak"));
    assert_eq!(paths("sed -i.json s/a/b/ .mcp").as_deref(), Some(".mcp.json"));
    assert_eq!(paths("sed -i'.mcp.jso*' s/a/b/ d/n").as_deref(), Some("d/.mcp.json"));
    // (`-e`'s script is no operand: the file it edits is the only backup.)
    assert_eq!(paths("sed --in-place=rc -e s/a/b/ .bash").as_deref(), Some(".bashrc"));
    assert_eq!(paths("cp -b --suffix=rc a .bash").as_deref(), Some("arc .bashrc"));
    assert_eq!(paths("mv -S rc a .bash").as_deref(), Some("rcrc arc .bashrc"));
    assert_eq!(paths("cp -r src/. dest").as_deref(), None);
    assert_eq!(paths("cp -a vendor/pkg/./ .").as_deref(), None);
    assert_eq!(paths("cp -rT vendor/pkg .").as_deref(), None);
    assert_eq!(paths("cp -r src .").as_deref(), Some(""));
    for refused in [
        "sed -i'/root/.bash*' s/x/y/ rc",
        "sed --in-place=/root/x s/x/y/ rc",
        "sed -ni'.git/hooks/pre-*' p f",
        "cp --suffix=/x --backup a b",
        "mv -S/x a b",
    ] {
        assert_eq!(paths(refused), None, "{refused}");
    }
    // `-e` takes the rest of the word: the `i` is part of its script.
    assert_eq!(paths("sed -es/a/i/ f").as_deref(), Some(""));
}

#[test]
fn globs_that_may_name_hidden_entries() {
    for hidden in [".g*", ".gi?", "{.g*,x}", "src/../.gi?", "a/{b,.c*}/d", ".*"] {
        assert!(glob_may_name_hidden(hidden), "{hidden}");
    }
    for plain in ["*.js", "dist/*.js", "src/?.rs", ".gitignore", "a/.b/c", "x[0-9]", "file{,.bak}", "{.git,x}"] {
        assert!(!glob_may_name_hidden(plain), "{plain}");
    }
}

#[test]
fn sed_in_place_is_only_an_edit_of_its_operands() {
    for ok in ["sed -i s/a/b/g f", "sed -i.bak -e s/a/b/ f", "sed -Ei 's/a+/b/' f", "sed --in-place=.orig -n p f"] {
        assert!(sed_edits_only_operands(&first(ok)), "{ok}");
    }
    for refused in [
        "sed -i '1e rm -rf ~' f",
        "sed -i 's/a/b/e' x",
        "sed -i 'w .git/hooks/pre-commit' x",
        "sed -i 's/a/b/w /etc/x' x",
        "sed -ie 's/a/b/w out' x",
    ] {
        assert!(!sed_edits_only_operands(&first(refused)), "{refused}");
    }
}
