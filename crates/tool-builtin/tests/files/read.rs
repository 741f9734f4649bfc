//! Read on real files: windows, caps, encodings, kinds of file, errors, the read record.

use std::fmt::Write as _;
use std::io::Write as _;

use serde_json::json;
use toolgate_core::{ContentBlock, ResultLimit, ToolErrorKind};

use crate::common::{Fixture, permissions_are_ignored, text, tool};

#[tokio::test]
async fn reads_a_small_file_in_cat_n_shape() {
    let fx = Fixture::new();
    let path = fx.file("a.txt", "alpha\nbeta\n\ngamma");
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    assert_eq!(text(&out), "     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma\n");
    let structured = out.structured.unwrap();
    assert_eq!(structured["type"], "text");
    assert_eq!(structured["file"]["numLines"], 4);
    assert_eq!(structured["file"]["totalLines"], 4);
    assert_eq!(structured["file"]["content"], "alpha\nbeta\n\ngamma\n");
    // A whole read counts as a full read for Write.
    assert!(!fx.ctx.file_state.get(&path).unwrap().partial);
}

#[tokio::test]
async fn offset_and_limit_give_a_window_and_say_how_to_go_on() {
    let fx = Fixture::new();
    let content: String = (1..=50).map(|i| format!("line {i}\n")).collect();
    let path = fx.file("n.txt", content);
    let out = fx.run("Read", json!({"file_path": path, "offset": 10, "limit": 3})).await.unwrap();
    assert_eq!(
        text(&out),
        "    10\tline 10\n    11\tline 11\n    12\tline 12\n\n[Showing lines 10-12; the file continues. Read on with offset=13 (limit up to 2000 lines).]"
    );
    assert!(fx.ctx.file_state.get(&path).unwrap().partial);
    // offset 0 means the start.
    let out = fx.run("Read", json!({"file_path": path, "offset": 0, "limit": 1})).await.unwrap();
    assert!(text(&out).starts_with("     1\tline 1\n"));
}

#[tokio::test]
async fn default_window_is_2000_lines() {
    let fx = Fixture::new();
    let content: String = (1..=2_500).map(|i| format!("{i}\n")).collect();
    let path = fx.file("long.txt", content);
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    let t = text(&out);
    assert!(t.contains("  2000\t2000\n"));
    assert!(!t.contains("\t2001\n"));
    assert!(t.ends_with("Read on with offset=2001 (limit up to 2000 lines).]"), "{}", &t[t.len() - 200..]);
    assert!(fx.ctx.file_state.get(&path).unwrap().partial);
}

#[tokio::test]
async fn long_lines_are_cut_with_a_marker() {
    let fx = Fixture::new();
    let path = fx.file("wide.txt", format!("{}\nshort\n", "x".repeat(5_000)));
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    let t = text(&out);
    let first = t.lines().next().unwrap();
    assert_eq!(first, format!("     1\t{}… [line cut: 3000 more characters]", "x".repeat(2_000)));
    assert!(t.contains("     2\tshort\n"));
    assert!(t.contains("[1 line longer than 2000 characters was cut."));
    // The model did not see the whole line: the read is partial.
    assert!(fx.ctx.file_state.get(&path).unwrap().partial);
}

#[tokio::test]
async fn output_over_the_cap_stops_with_a_notice() {
    let fx = Fixture::new();
    let content: String = (1..=1_500).map(|i| format!("{i:04} {}\n", "y".repeat(195))).collect();
    let path = fx.file("big.txt", content);
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    let t = text(&out);
    assert!(t.chars().count() < 101_000, "{}", t.chars().count());
    let shown = t.lines().filter(|l| l.contains('\t')).count();
    assert!(shown > 400 && shown < 1_500, "{shown}");
    let notice = t.lines().last().unwrap();
    assert_eq!(
        notice,
        format!(
            "[Output stopped at lines 1-{shown}: the rest would pass the 100000-character limit of one read. Continue with offset={} and limit={shown}.]",
            shown + 1
        )
    );
    assert!(fx.ctx.file_state.get(&path).unwrap().partial);
}

#[tokio::test]
async fn crlf_is_shown_without_cr_and_recorded_raw() {
    let fx = Fixture::new();
    let path = fx.file("dos.txt", "one\r\ntwo\r\n");
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    assert_eq!(text(&out), "     1\tone\n     2\ttwo\n");
    let state = fx.ctx.file_state.get(&path).unwrap();
    assert_eq!(state.size, 10);
    assert!(!state.partial);
}

#[tokio::test]
async fn non_utf8_is_shown_lossily_with_a_note() {
    let fx = Fixture::new();
    let path = fx.file("latin1.txt", b"caf\xe9\n");
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    let t = text(&out);
    assert!(t.starts_with("     1\tcaf\u{fffd}\n"));
    assert!(t.contains("not valid UTF-8"));
}

#[tokio::test]
async fn empty_file_gets_a_reminder() {
    let fx = Fixture::new();
    let path = fx.file("empty.txt", "");
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    assert_eq!(fx.scrub(&text(&out)), "(The file [ROOT]/empty.txt exists but is empty.)");
    assert!(!fx.ctx.file_state.get(&path).unwrap().partial);
}

#[tokio::test]
async fn offset_past_the_end_says_how_many_lines_there_are() {
    let fx = Fixture::new();
    let path = fx.file("three.txt", "a\nb\nc\n");
    for offset in [4, 100] {
        let err = fx.run("Read", json!({"file_path": path, "offset": offset})).await.unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
        assert_eq!(
            fx.error_text(&err),
            format!("[ROOT]/three.txt has 3 lines, so offset {offset} is past its end\nUse an offset from 1 to 3.")
        );
    }
    // An unterminated last line counts.
    let path = fx.file("two.txt", "a\nb");
    let err = fx.run("Read", json!({"file_path": path, "offset": 5})).await.unwrap_err();
    assert!(err.message().contains("has 2 lines"));
}

#[tokio::test]
async fn directories_point_to_ls() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.path("sub")).unwrap();
    let err = fx.run("Read", json!({"file_path": fx.path("sub")})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    assert!(err.message().ends_with("sub is a directory, not a file"));
    assert!(err.hint().unwrap().contains("LS"));
}

#[tokio::test]
async fn binary_files_are_refused() {
    let fx = Fixture::new();
    let path = fx.file("blob.dat", b"\x00\x01\x02binary");
    let err = fx.run("Read", json!({"file_path": path})).await.unwrap_err();
    assert!(err.message().contains("appears to be a binary .dat file"), "{err:?}");
    let path = fx.file("utf16.txt", b"\xff\xfeh\x00i\x00");
    let err = fx.run("Read", json!({"file_path": path})).await.unwrap_err();
    assert!(err.message().contains("UTF-16"));
}

#[tokio::test]
async fn devices_are_refused() {
    let fx = Fixture::new();
    let err = fx.run("Read", json!({"file_path": "/dev/null"})).await.unwrap_err();
    assert!(err.message().contains("not a regular file"), "{err:?}");
}

#[tokio::test]
async fn missing_files_list_the_closest_paths() {
    let fx = Fixture::new();
    fx.file("src/config.rs", "");
    fx.file("docs/deep/notes.md", "");
    let err = fx.run("Read", json!({"file_path": fx.path("src/confg.rs")})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::NotFound);
    let shown = fx.error_text(&err);
    assert!(shown.starts_with("File does not exist: [ROOT]/src/confg.rs\n"), "{shown}");
    assert!(shown.contains("Did you mean [ROOT]/src/config.rs?"), "{shown}");
    // The same name elsewhere under the roots.
    let err = fx.run("Read", json!({"file_path": fx.path("notes.md")})).await.unwrap_err();
    assert!(fx.error_text(&err).contains("Did you mean [ROOT]/docs/deep/notes.md?"));
}

#[tokio::test]
async fn permission_denied_is_a_permission_error() {
    use std::os::unix::fs::PermissionsExt as _;
    let fx = Fixture::new();
    let path = fx.file("secret.txt", "s3cret\n");
    if permissions_are_ignored(&fx.root()) {
        // Running as root: the kernel does not stop us, so there is nothing to observe.
        return;
    }
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    let err = fx.run("Read", json!({"file_path": path})).await.unwrap_err();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(err.kind(), ToolErrorKind::Permission);
    assert!(err.message().starts_with("Permission denied"));
}

#[tokio::test]
async fn symlinks_are_followed_and_dangling_ones_explained() {
    let fx = Fixture::new();
    let real = fx.file("real.txt", "via link\n");
    let link = fx.path("link.txt");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = fx.run("Read", json!({"file_path": link})).await.unwrap();
    assert_eq!(text(&out), "     1\tvia link\n");
    let dangling = fx.path("dangling.txt");
    std::os::unix::fs::symlink(fx.path("gone.txt"), &dangling).unwrap();
    let err = fx.run("Read", json!({"file_path": dangling})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::NotFound);
    assert!(err.message().contains("is a symbolic link to"), "{err:?}");
}

#[tokio::test]
async fn images_become_image_blocks() {
    let fx = Fixture::new();
    let png = [b"\x89PNG\r\n\x1a\n".as_slice(), b"\x00\x00\x00\rIHDR rest of a tiny image"].concat();
    let path = fx.file("pic.png", &png);
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    assert_eq!(out.content.len(), 2);
    match &out.content[1] {
        ContentBlock::Image { source } => {
            assert_eq!(source.media_type, "image/png");
            assert_eq!(source.kind, "base64");
            assert!(!source.data.is_empty());
        }
        other => panic!("expected an image block, got {other:?}"),
    }
    // A file named .png that is not one.
    let path = fx.file("fake.png", "not an image");
    let err = fx.run("Read", json!({"file_path": path})).await.unwrap_err();
    assert!(err.message().contains("does not look like"));
    // Too large.
    let path = fx.file("huge.png", [png.as_slice(), &vec![0u8; 4_000_000]].concat());
    let err = fx.run("Read", json!({"file_path": path})).await.unwrap_err();
    assert!(err.message().contains("too large to show"), "{err:?}");
}

#[tokio::test]
async fn notebooks_show_cells_and_outputs() {
    let fx = Fixture::new();
    let nb = json!({
        "cells": [
            {"cell_type": "markdown", "id": "title", "metadata": {}, "source": ["# Analysis"]},
            {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1, "source": ["print('hi')"],
             "outputs": [{"output_type": "stream", "name": "stdout", "text": ["hi\n"]}]}
        ],
        "metadata": {"kernelspec": {"language": "python"}}, "nbformat": 4, "nbformat_minor": 5
    });
    let path = fx.file("nb.ipynb", serde_json::to_string_pretty(&nb).unwrap());
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    let t = text(&out);
    assert!(t.starts_with("Jupyter notebook, 2 cells, language: python\n"), "{t}");
    assert!(t.contains("<cell id=\"c1\" type=\"code\" execution_count=\"1\">\nprint('hi')\n</cell>\n<outputs of=\"c1\">\nhi\n</outputs>"));
    assert!(!fx.ctx.file_state.get(&path).unwrap().partial);
    // Broken notebook JSON is shown as text.
    let path = fx.file("broken.ipynb", "{not json");
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    assert!(text(&out).contains("not valid notebook JSON"));
}

#[tokio::test]
async fn a_broken_pdf_is_refused_and_pages_needs_a_pdf() {
    let fx = Fixture::new();
    let path = fx.file("doc.pdf", "%PDF-1.4\n");
    let err = fx.run("Read", json!({"file_path": path, "pages": "1-2"})).await.unwrap_err();
    assert!(err.message().contains("not a readable PDF"));
    assert!(err.hint().unwrap().contains("pdftotext"));
    let txt = fx.file("doc.txt", "x\n");
    let err = tool("Read").validate_input(&json!({"file_path": txt, "pages": "1"}), &fx.ctx).await.unwrap_err();
    assert!(err.message().starts_with("pages applies only to PDF files"));
    let err = tool("Read").validate_input(&json!({"file_path": txt, "limit": 0}), &fx.ctx).await.unwrap_err();
    assert_eq!(err.message(), "limit must be at least 1");
}

#[tokio::test]
async fn relative_paths_are_resolved_and_the_result_says_so() {
    let fx = Fixture::new();
    let path = fx.file("src/lib.rs", "pub fn f() {}\n");
    let read = tool("Read");
    let normalized = read.normalize_input(&json!({"file_path": "src/lib.rs"}), &fx.ctx);
    assert_eq!(normalized["file_path"], path.to_string_lossy().as_ref());
    // What the permission engine matches Read rules against: the absolute path.
    assert_eq!(read.permission_target(&normalized), Some(path.to_string_lossy().into_owned()));
    let out = fx.run("Read", json!({"file_path": "src/lib.rs"})).await.unwrap();
    assert_eq!(
        fx.scrub(&text(&out)),
        "     1\tpub fn f() {}\n\nNote: the relative path `src/lib.rs` was resolved against the working directory to [ROOT]/src/lib.rs."
    );
}

#[tokio::test]
async fn a_repeat_read_of_an_unchanged_file_is_a_short_note() {
    let fx = Fixture::new();
    let path = fx.file("same.txt", "one\ntwo\n");
    let first = fx.run("Read", json!({"file_path": path})).await.unwrap();
    assert!(text(&first).contains("\tone"));
    let again = fx.run("Read", json!({"file_path": path})).await.unwrap();
    assert!(text(&again).starts_with("File unchanged since your last Read"), "{}", text(&again));
    assert_eq!(again.structured.unwrap()["type"], "file_unchanged");
    // Another window is read in full.
    let other = fx.run("Read", json!({"file_path": path, "offset": 2})).await.unwrap();
    assert_eq!(text(&other), "     2\ttwo\n");
    // A changed file is read again.
    std::fs::write(&path, "one\nTWO!\n").unwrap();
    let changed = fx.run("Read", json!({"file_path": path})).await.unwrap();
    assert!(text(&changed).contains("\tTWO!"));
}

/// A window near the end of a file of three million lines: the lines before it are
/// counted, not kept, and the window is exact.
#[tokio::test]
async fn a_window_near_the_end_of_a_huge_file() {
    let fx = Fixture::new();
    let path = fx.path("huge.log");
    {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
        let mut line = String::new();
        for i in 1..=3_000_000u32 {
            line.clear();
            writeln!(line, "entry {i} of the log").unwrap();
            out.write_all(line.as_bytes()).unwrap();
        }
        out.flush().unwrap();
    }
    assert!(std::fs::metadata(&path).unwrap().len() > 60_000_000);
    let out = fx.run("Read", json!({"file_path": path, "offset": 2_999_998, "limit": 5})).await.unwrap();
    assert_eq!(
        text(&out),
        "2999998\tentry 2999998 of the log\n2999999\tentry 2999999 of the log\n3000000\tentry 3000000 of the log\n"
    );
    let out = fx.run("Read", json!({"file_path": path, "offset": 1_500_000, "limit": 1})).await.unwrap();
    assert!(text(&out).starts_with("1500000\tentry 1500000 of the log\n\n[Showing lines 1500000-1500000;"));
    let err = fx.run("Read", json!({"file_path": path, "offset": 3_000_001})).await.unwrap_err();
    assert!(err.message().contains("has 3000000 lines"));
}

#[tokio::test]
async fn capabilities_are_truthful() {
    let read = tool("Read");
    let input = json!({"file_path": "/x"});
    assert!(read.is_read_only(&input));
    assert!(read.is_concurrency_safe(&input));
    assert_eq!(read.max_result_size_chars(), ResultLimit::Never);
    assert_eq!(read.render_use(&json!({"file_path": "/x", "offset": 5, "limit": 10})), "Read(/x, lines 5-14)");
    let writers = [
        ("Write", json!({"file_path": "/x", "content": ""})),
        ("Edit", json!({"file_path": "/x", "old_string": "a", "new_string": "b"})),
        ("MultiEdit", json!({"file_path": "/x", "edits": [{"old_string": "a", "new_string": "b"}]})),
        ("NotebookEdit", json!({"notebook_path": "/x.ipynb", "new_source": ""})),
        ("ApplyPatch", json!({"patch": "*** Begin Patch\n*** Delete File: /x\n*** End Patch"})),
    ];
    for (name, input) in writers {
        let t = tool(name);
        assert!(!t.is_read_only(&input), "{name}");
        assert!(!t.is_concurrency_safe(&input), "{name}");
        assert!(t.permission_target(&input).is_some_and(|p| p.starts_with("/x")), "{name}");
    }
}
