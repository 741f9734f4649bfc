//! Read on PDFs built by the tests themselves: whole documents, page selections and their
//! errors, the page limits, the output cap, broken files and pages without text.

use lopdf::content::{Content, Operation};
use lopdf::{Document, Object, Stream, dictionary};
use serde_json::json;
use toolgate_core::ToolErrorKind;

use crate::common::{Fixture, text, tool};

/// A PDF with one page per entry of `pages`; each page shows its lines of text (none for
/// an empty slice) in Helvetica.
fn pdf(pages: &[Vec<String>]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let resources_id = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
    let mut kids: Vec<Object> = Vec::new();
    for lines in pages {
        let mut operations = Vec::new();
        if lines.is_empty() {
            // A drawn line and no text, as on a scanned or drawing-only page.
            operations.push(Operation::new("m", vec![10.into(), 10.into()]));
            operations.push(Operation::new("l", vec![200.into(), 200.into()]));
            operations.push(Operation::new("S", vec![]));
        } else {
            operations.push(Operation::new("BT", vec![]));
            operations.push(Operation::new("Tf", vec!["F1".into(), 12.into()]));
            operations.push(Operation::new("TL", vec![14.into()]));
            operations.push(Operation::new("Td", vec![50.into(), 800.into()]));
            for line in lines {
                operations.push(Operation::new("Tj", vec![Object::string_literal(line.as_str())]));
                operations.push(Operation::new("T*", vec![]));
            }
            operations.push(Operation::new("ET", vec![]));
        }
        let content = Content { operations };
        let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content_id,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        });
        kids.push(page_id.into());
    }
    let count = i64::try_from(kids.len()).unwrap();
    doc.objects
        .insert(pages_id, Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }));
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

/// A PDF of `n` pages, page `i` reading "This is page i."
fn numbered(n: usize) -> Vec<u8> {
    let pages: Vec<Vec<String>> = (1..=n).map(|i| vec![format!("This is page {i}.")]).collect();
    pdf(&pages)
}

#[tokio::test]
async fn a_short_pdf_is_read_whole_page_by_page() {
    let fx = Fixture::new();
    let path = fx.file("three.pdf", numbered(3));
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    let t = fx.scrub(&text(&out));
    assert_eq!(
        t,
        "PDF [ROOT]/three.pdf: 3 pages; showing pages 1-3.\n\n--- Page 1 of 3 ---\nThis is page 1.\n\n--- Page 2 of 3 ---\nThis is page 2.\n\n--- Page 3 of 3 ---\nThis is page 3.\n"
    );
    let structured = out.structured.unwrap();
    assert_eq!(structured["type"], "pdf");
    assert_eq!(structured["file"]["numPages"], 3);
    assert_eq!(structured["file"]["pages"], json!([1, 2, 3]));
    // Every page was shown: a whole read.
    assert!(!fx.ctx.file_state.get(&path).unwrap().partial);
}

#[tokio::test]
async fn pages_selects_one_page_or_a_range_and_the_read_is_partial() {
    let fx = Fixture::new();
    let path = fx.file("three.pdf", numbered(3));
    let out = fx.run("Read", json!({"file_path": path, "pages": "2"})).await.unwrap();
    let t = text(&out);
    assert!(t.contains("3 pages; showing page 2.\n"), "{t}");
    assert!(t.contains("--- Page 2 of 3 ---\nThis is page 2.\n"), "{t}");
    assert!(!t.contains("page 1.") && !t.contains("page 3."), "{t}");
    assert!(fx.ctx.file_state.get(&path).unwrap().partial);

    let out = fx.run("Read", json!({"file_path": path, "pages": "2-3"})).await.unwrap();
    let t = text(&out);
    assert!(t.contains("showing pages 2-3.\n"), "{t}");
    assert!(t.contains("This is page 2.") && t.contains("This is page 3.") && !t.contains("page 1."), "{t}");
    assert_eq!(out.structured.unwrap()["file"]["pages"], json!([2, 3]));
    assert!(fx.ctx.file_state.get(&path).unwrap().partial);

    // A list; repeats and order do not matter.
    let path = fx.file("seven.pdf", numbered(7));
    let out = fx.run("Read", json!({"file_path": path, "pages": "6, 2,4-6"})).await.unwrap();
    let t = text(&out);
    assert!(t.contains("7 pages; showing pages 2,4-6.\n"), "{t}");
    assert_eq!(t.matches("--- Page ").count(), 4, "{t}");

    // Every page named: a whole read again.
    let path = fx.file("two.pdf", numbered(2));
    fx.run("Read", json!({"file_path": path, "pages": "1-2"})).await.unwrap();
    assert!(!fx.ctx.file_state.get(&path).unwrap().partial);
}

#[tokio::test]
async fn pages_past_the_end_name_the_page_count() {
    let fx = Fixture::new();
    let path = fx.file("three.pdf", numbered(3));
    for pages in ["4", "2-9", "1,5"] {
        let err = fx.run("Read", json!({"file_path": path, "pages": pages})).await.unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
        assert!(err.message().contains("has only 3 pages"), "{pages}: {}", err.message());
        assert_eq!(err.hint(), Some("Use pages from 1 to 3."));
    }
}

#[tokio::test]
async fn malformed_pages_are_refused_with_the_accepted_forms() {
    let fx = Fixture::new();
    let path = fx.file("three.pdf", numbered(3));
    for pages in ["", "abc", "0", "3-1", "1-", "1;2", "1..3", "first"] {
        let err = tool("Read").validate_input(&json!({"file_path": path, "pages": pages}), &fx.ctx).await.unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
        assert!(err.message().contains("is not a valid page selection"), "{pages}: {}", err.message());
        let hint = err.hint().unwrap();
        assert!(hint.contains("\"3\"") && hint.contains("\"1-5\"") && hint.contains("\"2,4-6\""), "{hint}");
    }
    let err = fx.run("Read", json!({"file_path": path, "pages": "5-2"})).await.unwrap_err();
    assert!(err.message().contains("runs backwards"), "{}", err.message());
}

#[tokio::test]
async fn a_long_pdf_needs_pages() {
    let fx = Fixture::new();
    let path = fx.file("twelve.pdf", numbered(12));
    let err = fx.run("Read", json!({"file_path": path})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    assert!(err.message().contains("has 12 pages"), "{}", err.message());
    assert!(err.message().contains("over 10 pages must be read with pages"), "{}", err.message());
    assert!(err.hint().unwrap().contains("pages=\"1-12\""), "{:?}", err.hint());
    // Nothing was read.
    assert!(fx.ctx.file_state.get(&path).is_none());
    // With pages it reads.
    let out = fx.run("Read", json!({"file_path": path, "pages": "11-12"})).await.unwrap();
    assert!(text(&out).contains("--- Page 12 of 12 ---\nThis is page 12.\n"));
}

#[tokio::test]
async fn at_most_twenty_pages_per_call() {
    let fx = Fixture::new();
    let path = fx.file("many.pdf", numbered(25));
    let err = fx.run("Read", json!({"file_path": path, "pages": "1-21"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    assert!(err.message().contains("selects 21 pages"), "{}", err.message());
    assert!(err.message().contains("at most 20"), "{}", err.message());
    assert!(err.hint().unwrap().contains("pages=\"1-20\""), "{:?}", err.hint());
    let err = fx.run("Read", json!({"file_path": path, "pages": "1-10,15-25"})).await.unwrap_err();
    assert!(err.message().contains("selects 21 pages"), "{}", err.message());
    let out = fx.run("Read", json!({"file_path": path, "pages": "6-25"})).await.unwrap();
    assert_eq!(text(&out).matches("--- Page ").count(), 20);
}

#[tokio::test]
async fn broken_pdfs_give_a_clear_error() {
    let fx = Fixture::new();
    let whole = numbered(3);
    let cases = [
        ("header.pdf", b"%PDF-1.4\n".to_vec()),
        ("garbage.pdf", b"%PDF-1.7\nthis is not a pdf at all\n%%EOF\n".to_vec()),
        ("text.pdf", b"just some text\n".to_vec()),
        ("empty.pdf", Vec::new()),
        ("truncated.pdf", whole[..whole.len() / 3].to_vec()),
    ];
    for (name, bytes) in cases {
        let path = fx.file(name, bytes);
        let err = fx.run("Read", json!({"file_path": path})).await.unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidInput, "{name}");
        assert!(err.message().starts_with("Cannot read "), "{name}: {}", err.message());
        assert!(err.hint().unwrap().contains("pdftotext"), "{name}: {:?}", err.hint());
        assert!(fx.ctx.file_state.get(&path).is_none(), "{name}");
    }
}

#[tokio::test]
async fn a_page_without_text_is_reported_with_a_way_to_see_it() {
    let fx = Fixture::new();
    let pages = vec![vec!["Words here.".to_owned()], Vec::new(), vec!["More words.".to_owned()]];
    let path = fx.file("scan.pdf", pdf(&pages));
    let out = fx.run("Read", json!({"file_path": path})).await.unwrap();
    let t = fx.scrub(&text(&out));
    assert!(t.contains("--- Page 1 of 3 ---\nWords here.\n"), "{t}");
    assert!(t.contains("--- Page 2 of 3 ---\n(No extractable text on this page.)\n"), "{t}");
    assert!(t.contains("--- Page 3 of 3 ---\nMore words.\n"), "{t}");
    assert!(t.contains("[Page 2 has no extractable text"), "{t}");
    assert!(t.contains("pdftoppm -png -r 100 -f 2 -l 2 [ROOT]/scan.pdf"), "{t}");
}

#[tokio::test]
async fn output_over_the_cap_stops_at_a_page_and_says_how_to_continue() {
    let fx = Fixture::new();
    // Five pages of about 30,000 characters each: three fit under the 100,000 cap.
    let page =
        |i: usize| -> Vec<String> { (0..300).map(|l| format!("page {i} line {l:03} {}", "x".repeat(84))).collect() };
    let pages: Vec<Vec<String>> = (1..=5).map(page).collect();
    let path = fx.file("big.pdf", pdf(&pages));
    let out = fx.run("Read", json!({"file_path": path, "pages": "1-5"})).await.unwrap();
    let t = text(&out);
    assert!(t.chars().count() <= 101_000, "{}", t.chars().count());
    assert!(t.contains("--- Page 3 of 5 ---") && !t.contains("--- Page 4 of 5 ---"), "{}", &t[t.len() - 400..]);
    assert!(
        t.ends_with("[Output stopped after page 3: the rest would pass the 100000-character limit of one read. Continue with pages=\"4-5\".]"),
        "{}",
        &t[t.len() - 400..]
    );
    assert!(fx.ctx.file_state.get(&path).unwrap().partial);
}

#[tokio::test]
async fn offset_and_limit_are_ignored_with_a_note() {
    let fx = Fixture::new();
    let path = fx.file("three.pdf", numbered(3));
    let out = fx.run("Read", json!({"file_path": path, "offset": 5, "limit": 2})).await.unwrap();
    let t = text(&out);
    assert!(t.contains("This is page 3."), "{t}");
    assert!(
        t.ends_with("[offset and limit apply to text files and were ignored; use pages to choose PDF pages.]"),
        "{t}"
    );
}
