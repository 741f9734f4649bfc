//! Property tests through the pipeline: arbitrary JSON into every built-in tool always
//! yields exactly one result per call and never a panic (an `internal` error); Edit then
//! Read round-trips any text; a `ToolPool` does not depend on the order tools were
//! registered in.

use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};
use toolgate_core::{DefinitionFormat, DynTool, PermissionMode, ToolPool};
use toolgate_pipeline::{Session, ToolCall, ToolResultBlock};

fn text(r: &ToolResultBlock) -> String {
    r.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("\n")
}

/// Strings a model might send: random text, and paths, globs and commands that mean
/// something here. (No command that reads forever: a read-only one would run.)
fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,24}",
        prop::sample::select(vec![
            "a.txt",
            "./a.txt",
            "sub/../a.txt",
            "../outside",
            "/etc/hostname",
            "",
            " ",
            "sub",
            "sub/",
            "~",
            "*.txt",
            "**/*",
            "[",
            "{a,b",
            "(",
            "a+",
            "ls",
            "echo hi",
            "true",
            "\u{0}",
            "-n",
            "--",
            "\n",
            "é中",
        ])
        .prop_map(str::to_owned),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        prop::sample::select(vec![0i64, 1, -1, 2_000, i64::MAX, i64::MIN]).prop_map(Value::from),
        arb_string().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(arb_string(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// Values for `schema` (resolving `$ref` against `root`): of the declared type nine times
/// in ten (so calls get past validation and reach the tools), anything at all otherwise.
fn from_schema(schema: &Value, root: &Value, depth: usize) -> BoxedStrategy<Value> {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .strip_prefix("#/")
            .map(|path| path.split('/').fold(root, |v, part| &v[part]))
            .unwrap_or(&Value::Null),
        None => schema,
    };
    if depth > 4 {
        return arb_json().boxed();
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array).filter(|o| !o.is_empty()) {
        return prop_oneof![9 => prop::sample::select(options.clone()), 1 => arb_json()].boxed();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array).filter(|o| !o.is_empty()) {
            let choices: Vec<BoxedStrategy<Value>> = options.iter().map(|o| from_schema(o, root, depth + 1)).collect();
            return prop::strategy::Union::new(choices).boxed();
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "",
    };
    let typed: BoxedStrategy<Value> = match kind {
        "string" => arb_string().prop_map(Value::from).boxed(),
        "integer" => prop_oneof![0i64..3_000, any::<i64>()].prop_map(Value::from).boxed(),
        "number" => prop_oneof![(0.0f64..300_000.0).prop_map(Value::from), (0i64..3_000).prop_map(Value::from)].boxed(),
        "boolean" => any::<bool>().prop_map(Value::from).boxed(),
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            prop::collection::vec(from_schema(&items, root, depth + 1), 0..4).prop_map(Value::from).boxed()
        }
        "object" => {
            let props: Vec<(String, Value)> = schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default();
            let required: Vec<String> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default();
            let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = props
                .into_iter()
                .map(|(name, sub)| {
                    let value = from_schema(&sub, root, depth + 1);
                    let keep = if required.contains(&name) { Just(true).boxed() } else { any::<bool>().boxed() };
                    (keep, value).prop_map(move |(keep, v)| keep.then(|| (name.clone(), v))).boxed()
                })
                .collect();
            fields.prop_map(|pairs| Value::Object(pairs.into_iter().flatten().collect())).boxed()
        }
        _ => return arb_json().boxed(),
    };
    prop_oneof![9 => typed, 1 => arb_json()].boxed()
}

/// An input for `tool`: shaped by its schema, mostly.
fn arb_input(tool: &DynTool) -> BoxedStrategy<Value> {
    let schema = tool.input_schema().clone();
    from_schema(&schema, &schema, 0)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// Arbitrary JSON into every built-in tool, in default mode with nobody to ask (so no
/// write happens), a few calls per message: one result per call, in order, with the
/// call's id, and no tool panicked.
#[test]
fn arbitrary_input_to_every_builtin_tool_gives_exactly_one_result() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    let tools = toolgate_builtin::all_builtin_tools();
    let session = Session::builder()
        .cwd(&root)
        .mode(PermissionMode::Default)
        .results_dir(root.join(".results"))
        .builtin_tools(tools.clone())
        .build();
    let names: Vec<String> = session.pool().names().map(str::to_owned).collect();
    let strategies: Vec<_> = names.iter().map(|n| arb_input(session.pool().get(n).unwrap())).collect();
    let call = (0..names.len()).prop_flat_map(move |i| strategies[i].clone().prop_map(move |input| (i, input)));
    let rt = runtime();
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(200);
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let succeeded = std::cell::Cell::new(0usize);
    runner
        .run(&prop::collection::vec(call, 1..4), |calls| {
            let calls: Vec<ToolCall> = calls
                .into_iter()
                .enumerate()
                .map(|(k, (i, input))| ToolCall::new(format!("t{k}"), names[i].clone(), input))
                .collect();
            let ids: Vec<String> = calls.iter().map(|c| c.id.clone()).collect();
            let shown: Vec<String> = calls.iter().map(|c| format!("{} {}", c.name, c.input)).collect();
            let results = rt
                .block_on(async { tokio::time::timeout(Duration::from_secs(60), session.run_message(calls)).await })
                .map_err(|_| TestCaseError::fail(format!("the message hung: {shown:?}")))?;
            let got: Vec<String> = results.iter().map(|r| r.tool_use_id.clone()).collect();
            prop_assert_eq!(got, ids);
            for (r, call) in results.iter().zip(&shown) {
                prop_assert!(!text(r).contains("internal error"), "{}: {}", call, text(r));
                succeeded.set(succeeded.get() + usize::from(!r.is_error));
            }
            Ok(())
        })
        .unwrap();
    // The inputs reach the tools, not only the schema check.
    eprintln!("{} calls succeeded", succeeded.get());
    assert!(succeeded.get() > 0, "no generated call got past validation");
    for (name, stats) in session.stats() {
        assert!(!stats.errors.contains_key("internal"), "{name} failed internally: {stats:?}");
    }
}

/// Text a file may hold, without tabs after digits (those look like pasted `cat -n`
/// prefixes, which Edit strips on purpose) and without carriage returns.
fn arb_text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 éü中{}();,.=\n-]{0,300}"
}

/// Edit replaces exactly the text quoted and Read shows the file as it is on disk.
#[test]
fn edit_then_read_round_trips() {
    let rt = runtime();
    let mut runner = TestRunner::new(Config { cases: 64, failure_persistence: None, ..Config::default() });
    runner
        .run(&(arb_text(), arb_text(), arb_text()), |(before, after, new)| {
            const MARK: &str = "@@MARK@@";
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("f.txt");
            std::fs::write(&file, format!("{before}{MARK}{after}")).unwrap();
            let session = Session::builder()
                .cwd(dir.path())
                .mode(PermissionMode::AcceptEdits)
                .builtin_tools(toolgate_builtin::all_builtin_tools())
                .build();
            let results = rt.block_on(session.run_message(vec![
                ToolCall::new("r", "Read", json!({"file_path": file})),
                ToolCall::new("e", "Edit", json!({"file_path": file, "old_string": MARK, "new_string": new})),
                ToolCall::new("r2", "Read", json!({"file_path": file})),
            ]));
            prop_assert!(!results[1].is_error, "{}", text(&results[1]));
            let want = format!("{before}{new}{after}");
            prop_assert_eq!(&std::fs::read_to_string(&file).unwrap(), &want);
            // Read's lines, numbers stripped, are the file's lines.
            let shown = text(&results[2]);
            if want.is_empty() {
                return Ok(());
            }
            let lines: Vec<&str> = shown
                .lines()
                .map_while(|l| l.split_once('\t').filter(|(n, _)| n.trim().parse::<u64>().is_ok()).map(|(_, t)| t))
                .collect();
            let want_lines: Vec<&str> = want.lines().collect();
            prop_assert_eq!(lines, want_lines, "{}", shown);
            Ok(())
        })
        .unwrap();
}

/// However the tools are registered, the pool's order and definitions are the same.
#[test]
fn tool_pool_order_is_independent_of_registration_order() {
    let tools = toolgate_builtin::all_builtin_tools();
    let reference = ToolPool::builder().builtins(tools.clone()).build();
    let names: Vec<String> = reference.names().map(str::to_owned).collect();
    let definitions = reference.definitions_json(DefinitionFormat::Anthropic).to_owned();
    let mut runner = TestRunner::new(Config { cases: 64, failure_persistence: None, ..Config::default() });
    runner
        .run(&Just((0..tools.len()).collect::<Vec<usize>>()).prop_shuffle(), |order| {
            let pool = ToolPool::builder().builtins(order.iter().map(|&i| tools[i].clone())).build();
            let got: Vec<String> = pool.names().map(str::to_owned).collect();
            prop_assert_eq!(&got, &names);
            prop_assert_eq!(pool.definitions_json(DefinitionFormat::Anthropic), definitions.as_str());
            Ok(())
        })
        .unwrap();
}
