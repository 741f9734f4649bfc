//! Step 2 of the pipeline: a tool's input JSON Schema, compiled once, checks every call.
//!
//! [`InputSchema::validate`] first repairs the one mistake models make all the time and
//! that is harmless to repair: a number or boolean sent as a string (`"30"`, `"false"`)
//! where the schema wants a number or boolean and does not accept a string. Claude Code
//! coerces these silently too, while the advertised schema keeps saying number/boolean.
//! Then it reports *every* remaining violation, one per line, sorted by location, in
//! words a model can act on:
//!
//! ```text
//! missing required field 'file_path'
//! unknown field 'filepath' (did you mean 'file_path'?)
//! limit: must be at least 1, got 0
//! todos[1].status: expected one of "pending", "in_progress", "completed", got "done"
//! ```
//!
//! Locations read like code: root fields by name (`file_path`), nested ones as
//! `todos[1].status`, the input itself as `input`.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{JsonType, ValidationError, Validator};
use serde_json::{Map, Number, Value};

use crate::ToolError;

/// How many characters of an offending value a message shows before cutting it with `…`.
const MAX_VALUE_CHARS: usize = 60;
/// How long a message passed through from the validator may get.
const MAX_FALLBACK_CHARS: usize = 200;
/// How many allowed values an enum message lists before summarising the rest.
const MAX_LISTED_OPTIONS: usize = 30;
/// How many `$ref`/`allOf`/`anyOf`/`oneOf` hops coercion follows without descending into
/// the input; bounds reference cycles such as `{"$ref": "#"}`.
const MAX_SCHEMA_HOPS: usize = 32;

/// A tool's input JSON Schema, compiled once and checked against every call's input.
///
/// Cheap to clone (the raw schema is shared) and `Send + Sync`, so a tool pool can hand it
/// to any task. Compile it when the tool is registered: a schema that does not compile is
/// a bug in the tool, reported as a [`SchemaError`] then, never at call time.
///
/// [`validate`](InputSchema::validate) coerces numbers and booleans sent as strings, then
/// reports every violation at once:
///
/// ```
/// use serde_json::json;
/// use toolgate_core::InputSchema;
///
/// let schema = InputSchema::compile(&json!({
///     "type": "object",
///     "properties": {
///         "file_path": {"type": "string"},
///         "limit": {"type": "integer", "minimum": 1}
///     },
///     "required": ["file_path"],
///     "additionalProperties": false
/// }))?;
///
/// // "30" becomes 30, as Claude Code does for numbers sent as strings.
/// let call = json!({"file_path": "/src/main.rs", "limit": "30"});
/// let input = schema.validate(&call)?;
/// assert_eq!(*input, json!({"file_path": "/src/main.rs", "limit": 30}));
///
/// let err = schema.validate(&json!({"filepath": "/src/main.rs", "limit": 0})).unwrap_err();
/// assert_eq!(
///     err.message(),
///     "missing required field 'file_path'\n\
///      unknown field 'filepath' (did you mean 'file_path'?)\n\
///      limit: must be at least 1, got 0"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct InputSchema {
    raw: Arc<Value>,
    validator: Validator,
}

impl fmt::Debug for InputSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The compiled validator is a large tree that says nothing the raw schema does not.
        f.debug_struct("InputSchema").field("raw", &self.raw).finish_non_exhaustive()
    }
}

impl InputSchema {
    /// Compiles `schema` (any draft `jsonschema` detects from `$schema`; 2020-12 when
    /// absent, which is what `schemars` emits).
    ///
    /// Only references inside the schema itself resolve (`#/$defs/...`); nothing is
    /// fetched from files or the network.
    ///
    /// # Errors
    ///
    /// [`SchemaError`] when the schema is not valid JSON Schema or a `$ref` points nowhere.
    pub fn compile(schema: &Value) -> Result<Self, SchemaError> {
        let validator = jsonschema::validator_for(schema).map_err(|err| SchemaError::from_build(&err))?;
        Ok(Self { raw: Arc::new(schema.clone()), validator })
    }

    /// The schema exactly as given to [`compile`](InputSchema::compile): what the model is
    /// shown.
    pub fn raw(&self) -> &Value {
        &self.raw
    }

    /// Checks `input` against the schema.
    ///
    /// A valid input comes back borrowed and untouched. Otherwise strings are first
    /// coerced where the schema at that place wants a number, integer or boolean and
    /// does not accept a string (`"30"` → `30`, `"-2.5"` → `-2.5`, `"false"` → `false`),
    /// through `$ref`, `properties`, `items`, `allOf`, `anyOf` and `oneOf`; if that makes
    /// it valid, the coerced copy comes back owned.
    ///
    /// # Errors
    ///
    /// An [`InvalidInput`](crate::ToolErrorKind::InvalidInput) [`ToolError`] whose message
    /// lists every violation of the (coerced) input, one per line, sorted by location and
    /// then by text.
    pub fn validate<'a>(&self, input: &'a Value) -> Result<Cow<'a, Value>, ToolError> {
        if self.validator.is_valid(input) {
            return Ok(Cow::Borrowed(input));
        }
        let value = match coerce(&self.raw, &View::One(&self.raw), input) {
            Some(coerced) => Cow::Owned(coerced),
            None => Cow::Borrowed(input),
        };
        match self.report(&value) {
            None => Ok(value),
            Some(message) => Err(ToolError::invalid_input(message)),
        }
    }

    /// Every violation of `value`, one per line, or `None` when it is valid.
    fn report(&self, value: &Value) -> Option<String> {
        let errors: Vec<ValidationError<'_>> = self.validator.iter_errors(value).collect();
        if errors.is_empty() {
            return None;
        }
        let mut findings = Vec::new();
        let sources = Sources { schema: Some(&self.raw), input: value };
        describe(&errors, sources, &mut findings);
        let mut lines: Vec<(Vec<Segment>, String)> =
            findings.into_iter().map(|finding| finding.render(value)).collect();
        lines.sort();
        lines.dedup();
        if lines.is_empty() {
            return Some("input does not match the schema".to_owned());
        }
        Some(lines.into_iter().map(|(_, line)| line).collect::<Vec<_>>().join("\n"))
    }
}

/// Why a schema could not be compiled into an [`InputSchema`].
///
/// ```
/// use serde_json::json;
/// use toolgate_core::{InputSchema, SchemaError};
///
/// let err = InputSchema::compile(&json!({"$ref": "#/$defs/Missing"})).unwrap_err();
/// assert!(matches!(err, SchemaError::UnresolvedReference { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// A keyword has a value JSON Schema does not allow (`{"type": 12}`, a `pattern` that
    /// is not a regular expression …).
    #[error("invalid schema at {}: {message}", display_pointer(.pointer))]
    Invalid {
        /// JSON Pointer to the offending place in the schema (`""` is the root).
        pointer: String,
        /// What is wrong there.
        message: String,
    },
    /// A `$ref` points nowhere. Only references inside the schema itself resolve.
    #[error("unresolvable reference in schema: {message}")]
    UnresolvedReference {
        /// What could not be resolved.
        message: String,
    },
}

impl SchemaError {
    /// Restates a compile failure of `jsonschema` (whose instance is the schema itself).
    fn from_build(err: &ValidationError<'_>) -> Self {
        if let ValidationErrorKind::Referencing(inner) = err.kind() {
            return Self::UnresolvedReference { message: lowercase_first(&inner.to_string()) };
        }
        // The instance is the schema; its schema paths point into the meta-schema, where
        // known fields are not worth looking up.
        let mut findings = Vec::new();
        let sources = Sources { schema: None, input: err.instance() };
        describe(std::slice::from_ref(err), sources, &mut findings);
        findings.sort_by(|a, b| (&a.pointer, &a.message).cmp(&(&b.pointer, &b.message)));
        match findings.into_iter().next() {
            Some(finding) => Self::Invalid { pointer: finding.pointer, message: lowercase_first(&finding.message) },
            None => Self::Invalid {
                pointer: err.instance_path().as_str().to_owned(),
                message: lowercase_first(&err.to_string()),
            },
        }
    }
}

fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() { "the root" } else { pointer }
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------
// Coercion
// ---------------------------------------------------------------------------------------

// JSON types as bits, so that `allOf` intersects and `anyOf` unites. "number" admits
// integers too, so it sets both bits.
const NULL: u8 = 1;
const BOOLEAN: u8 = 1 << 1;
const INTEGER: u8 = 1 << 2;
const NUMBER: u8 = 1 << 3;
const STRING: u8 = 1 << 4;
const ARRAY: u8 = 1 << 5;
const OBJECT: u8 = 1 << 6;
const ANY: u8 = NULL | BOOLEAN | INTEGER | NUMBER | STRING | ARRAY | OBJECT;

/// The schemas that apply at one place of the input.
enum View<'s> {
    /// One (sub)schema of the root document.
    One(&'s Value),
    /// All of these apply (`allOf`, `$ref` beside other keywords, `properties` beside
    /// `allOf`).
    All(Vec<View<'s>>),
    /// At least one of these applies (`anyOf`, `oneOf`). Branches that say nothing about a
    /// place are left out: a branch that never mentions a field is usually a different
    /// shape of object, not an "anything goes" for that field.
    Any(Vec<View<'s>>),
}

/// One step down into the input.
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

impl<'s> View<'s> {
    fn all(mut parts: Vec<View<'s>>) -> Option<Self> {
        match parts.len() {
            0 => None,
            1 => parts.pop(),
            _ => Some(View::All(parts)),
        }
    }

    fn any(mut parts: Vec<View<'s>>) -> Option<Self> {
        match parts.len() {
            0 => None,
            1 => parts.pop(),
            _ => Some(View::Any(parts)),
        }
    }

    /// The JSON types a value here may have.
    fn types(&self, root: &'s Value) -> u8 {
        match self {
            View::One(schema) => schema_types(root, schema, 0),
            View::All(parts) => parts.iter().fold(ANY, |acc, part| acc & part.types(root)),
            View::Any(parts) => parts.iter().fold(0, |acc, part| acc | part.types(root)),
        }
    }

    /// The schemas that apply one step further down, if any say something.
    fn step(&self, root: &'s Value, step: &Step<'_>) -> Option<View<'s>> {
        match self {
            View::One(schema) => subschema_view(root, schema, step, 0),
            View::All(parts) => View::all(parts.iter().filter_map(|p| p.step(root, step)).collect()),
            View::Any(parts) => View::any(parts.iter().filter_map(|p| p.step(root, step)).collect()),
        }
    }
}

/// Coerces the strings of `value` the schemas of `view` want as numbers or booleans;
/// `None` when nothing changed (so nothing is allocated).
fn coerce<'s>(root: &'s Value, view: &View<'s>, value: &Value) -> Option<Value> {
    match value {
        Value::String(text) => coerce_string(view.types(root), text),
        Value::Object(map) => {
            let mut changed: Option<Map<String, Value>> = None;
            for (key, child) in map {
                let Some(sub) = view.step(root, &Step::Key(key)) else {
                    continue;
                };
                if let Some(new) = coerce(root, &sub, child) {
                    changed.get_or_insert_with(|| map.clone()).insert(key.clone(), new);
                }
            }
            changed.map(Value::Object)
        }
        Value::Array(items) => {
            let mut changed: Option<Vec<Value>> = None;
            for (index, child) in items.iter().enumerate() {
                let Some(sub) = view.step(root, &Step::Index(index)) else {
                    continue;
                };
                if let Some(new) = coerce(root, &sub, child)
                    && let Some(slot) = changed.get_or_insert_with(|| items.clone()).get_mut(index)
                {
                    *slot = new;
                }
            }
            changed.map(Value::Array)
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => None,
    }
}

/// `text` as a number or boolean, if the place wants one of those, no string, and `text`
/// parses: booleans are exactly `true`/`false`, numbers follow JSON's grammar, and an
/// integer-only place takes only integers.
fn coerce_string(types: u8, text: &str) -> Option<Value> {
    if types & STRING != 0 {
        return None;
    }
    if types & BOOLEAN != 0 {
        match text {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    if types & (INTEGER | NUMBER) == 0 {
        return None;
    }
    let number = parse_number(text)?;
    let integral = number.is_i64() || number.is_u64();
    (integral || types & NUMBER != 0).then_some(Value::Number(number))
}

/// A JSON number, strictly: no surrounding spaces, no `+` sign, nothing non-finite.
fn parse_number(text: &str) -> Option<Number> {
    let plausible = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
        && !text.starts_with('+');
    if !plausible {
        return None;
    }
    serde_json::from_str::<Number>(text).ok()
}

/// The JSON types `schema` admits, following `$ref`, `allOf`, `anyOf` and `oneOf`.
fn schema_types(root: &Value, schema: &Value, hops: usize) -> u8 {
    let Value::Object(map) = schema else {
        return if *schema == Value::Bool(false) { 0 } else { ANY };
    };
    if hops > MAX_SCHEMA_HOPS {
        return ANY;
    }
    let mut types = map.get("type").map_or(ANY, type_keyword);
    if let Some(value) = map.get("const") {
        types &= literal_type(value);
    }
    if let Some(Value::Array(options)) = map.get("enum") {
        types &= options.iter().fold(0, |acc, option| acc | literal_type(option));
    }
    if let Some(target) = ref_target(root, map) {
        types &= schema_types(root, target, hops + 1);
    }
    if let Some(Value::Array(parts)) = map.get("allOf") {
        for part in parts {
            types &= schema_types(root, part, hops + 1);
        }
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(keyword) {
            types &= branches.iter().fold(0, |acc, branch| acc | schema_types(root, branch, hops + 1));
        }
    }
    types
}

fn type_keyword(value: &Value) -> u8 {
    match value {
        Value::String(name) => type_name(name),
        Value::Array(names) => names.iter().filter_map(Value::as_str).fold(0, |acc, n| acc | type_name(n)),
        _ => ANY,
    }
}

fn type_name(name: &str) -> u8 {
    match name {
        "null" => NULL,
        "boolean" => BOOLEAN,
        "integer" => INTEGER,
        "number" => NUMBER | INTEGER,
        "string" => STRING,
        "array" => ARRAY,
        "object" => OBJECT,
        _ => ANY,
    }
}

fn literal_type(value: &Value) -> u8 {
    match value {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::Number(_) => NUMBER | INTEGER,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
    }
}

/// The target of a `$ref` inside the document (`#`, `#/$defs/X`, `#/definitions/X`).
fn ref_target<'s>(root: &'s Value, map: &'s Map<String, Value>) -> Option<&'s Value> {
    let fragment = map.get("$ref")?.as_str()?.strip_prefix('#')?;
    root.pointer(fragment)
}

/// The schemas `schema` applies one step down, through `$ref` and the applicators.
fn subschema_view<'s>(root: &'s Value, schema: &'s Value, step: &Step<'_>, hops: usize) -> Option<View<'s>> {
    let Value::Object(map) = schema else {
        return None;
    };
    if hops > MAX_SCHEMA_HOPS {
        return None;
    }
    let mut parts: Vec<View<'s>> = own_subschema(map, step).map(View::One).into_iter().collect();
    if let Some(target) = ref_target(root, map) {
        parts.extend(subschema_view(root, target, step, hops + 1));
    }
    if let Some(Value::Array(branches)) = map.get("allOf") {
        parts.extend(branches.iter().filter_map(|b| subschema_view(root, b, step, hops + 1)));
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(keyword) {
            let alternatives = branches.iter().filter_map(|b| subschema_view(root, b, step, hops + 1));
            parts.extend(View::any(alternatives.collect()));
        }
    }
    View::all(parts)
}

/// The subschema of `map` itself for one step: `properties` (else `additionalProperties`,
/// unless `patternProperties` might claim the key), `prefixItems`, `items` (schema or
/// tuple form, then `additionalItems`).
fn own_subschema<'s>(map: &'s Map<String, Value>, step: &Step<'_>) -> Option<&'s Value> {
    match *step {
        Step::Key(key) => match map.get("properties").and_then(|p| p.get(key)) {
            Some(schema) => Some(schema),
            None if map.contains_key("patternProperties") => None,
            None => map.get("additionalProperties").filter(|s| s.is_object()),
        },
        Step::Index(index) => {
            if let Some(schema) = map.get("prefixItems").and_then(|p| p.get(index)) {
                return Some(schema);
            }
            match map.get("items") {
                Some(Value::Array(tuple)) => {
                    tuple.get(index).or_else(|| map.get("additionalItems").filter(|s| s.is_object()))
                }
                Some(items @ Value::Object(_)) => Some(items),
                _ => None,
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------

/// One problem, before its location is turned into a path.
struct Finding {
    /// JSON Pointer into the input.
    pointer: String,
    message: String,
    scope: Scope,
}

/// Whether a message is about a value (`input: expected object, got array`) or about the
/// fields of an object (`missing required field 'x'`, unprefixed at the root).
#[derive(Clone, Copy)]
enum Scope {
    Value,
    Object,
}

/// A step of a location, ordered so that `todos[2]` sorts before `todos[10]`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Segment {
    Index(usize),
    Key(String),
}

impl Finding {
    fn value(pointer: &str, message: String) -> Self {
        Self { pointer: pointer.to_owned(), message, scope: Scope::Value }
    }

    fn object(pointer: &str, message: String) -> Self {
        Self { pointer: pointer.to_owned(), message, scope: Scope::Object }
    }

    /// The sort key and the line the model reads.
    fn render(self, input: &Value) -> (Vec<Segment>, String) {
        let (key, path) = render_path(input, &self.pointer);
        let line = match self.scope {
            Scope::Object if key.is_empty() => self.message,
            Scope::Object | Scope::Value => format!("{path}: {}", self.message),
        };
        (key, line)
    }
}

/// `todos[1].status` for `/todos/1/status`; `input` for the root. A numeric step is an
/// index only where the input holds an array there.
fn render_path(input: &Value, pointer: &str) -> (Vec<Segment>, String) {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut current = Some(input);
    for raw in pointer.split('/').skip(1) {
        let name = raw.replace("~1", "/").replace("~0", "~");
        let index = match current {
            Some(Value::Array(_)) | None => name.parse::<usize>().ok(),
            Some(_) => None,
        };
        if let Some(index) = index {
            current = current.and_then(|v| v.get(index));
            text.push('[');
            text.push_str(&index.to_string());
            text.push(']');
            key.push(Segment::Index(index));
        } else {
            current = current.and_then(|v| v.get(name.as_str()));
            if is_plain_name(&name) {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(&name);
            } else {
                text.push('[');
                text.push_str(&Value::String(name.clone()).to_string());
                text.push(']');
            }
            key.push(Segment::Key(name));
        }
    }
    if text.is_empty() {
        text.push_str("input");
    }
    (key, text)
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| !c.is_whitespace() && !c.is_control() && !matches!(c, '.' | '[' | ']' | '"' | '\''))
}

/// What error messages are phrased against.
#[derive(Clone, Copy)]
struct Sources<'a> {
    /// The root schema, to look up known fields; `None` when describing a schema's own
    /// compile errors.
    schema: Option<&'a Value>,
    /// The value that was validated.
    input: &'a Value,
}

/// Findings for `errors`. A type error is dropped where an `enum`/`const` error speaks
/// about the same place: the list of allowed values says more.
fn describe(errors: &[ValidationError<'_>], sources: Sources<'_>, out: &mut Vec<Finding>) {
    let literal_places: HashSet<&str> = errors
        .iter()
        .filter(|e| matches!(e.kind(), ValidationErrorKind::Enum { .. } | ValidationErrorKind::Constant { .. }))
        .map(|e| e.instance_path().as_str())
        .collect();
    for error in errors {
        let redundant = matches!(error.kind(), ValidationErrorKind::Type { .. })
            && literal_places.contains(error.instance_path().as_str());
        if !redundant {
            describe_one(error, sources, out);
        }
    }
}

fn describe_one(error: &ValidationError<'_>, sources: Sources<'_>, out: &mut Vec<Finding>) {
    let pointer = error.instance_path().as_str();
    let instance: &Value = error.instance();
    let message = match error.kind() {
        ValidationErrorKind::Type { kind } => {
            format!("expected {}, got {}", join_types(&kind_types(kind)), typed(instance))
        }
        ValidationErrorKind::Required { property } => {
            let name = match property {
                Value::String(name) => field_name(name),
                other => shown(other),
            };
            out.push(Finding::object(pointer, format!("missing required field '{name}'")));
            return;
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let known = sources.schema.and_then(|root| known_fields(root, error.schema_path().as_str(), false));
            for name in unexpected {
                out.push(Finding::object(pointer, unknown_field(name, known.as_deref())));
            }
            return;
        }
        ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let known = sources.schema.and_then(|root| known_fields(root, error.schema_path().as_str(), true));
            for name in unexpected {
                out.push(Finding::object(pointer, unknown_field(name, known.as_deref())));
            }
            return;
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            summarise(pointer, instance, context, sources, out);
            return;
        }
        ValidationErrorKind::Enum { options } => {
            let options: Vec<String> = match &**options {
                Value::Array(options) => options.iter().map(shown).collect(),
                other => vec![shown(other)],
            };
            format!("expected one of {}, got {}", literal_list(&options), shown(instance))
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("must be {}, got {}", shown(expected_value), shown(instance))
        }
        ValidationErrorKind::Minimum { limit } => {
            format!("must be at least {}, got {}", shown(limit), shown(instance))
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("must be at most {}, got {}", shown(limit), shown(instance))
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("must be greater than {}, got {}", shown(limit), shown(instance))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("must be less than {}, got {}", shown(limit), shown(instance))
        }
        ValidationErrorKind::MinLength { limit } => format!(
            "must be at least {limit} {}, got {}",
            plural(*limit == 1, "character", "characters"),
            char_count(instance)
        ),
        ValidationErrorKind::MaxLength { limit } => format!(
            "must be at most {limit} {}, got {}",
            plural(*limit == 1, "character", "characters"),
            char_count(instance)
        ),
        ValidationErrorKind::MinItems { limit } => {
            format!("must have at least {limit} {}, got {}", plural(*limit == 1, "item", "items"), item_count(instance))
        }
        ValidationErrorKind::MaxItems { limit } => {
            format!("must have at most {limit} {}, got {}", plural(*limit == 1, "item", "items"), item_count(instance))
        }
        ValidationErrorKind::AdditionalItems { limit } => {
            format!("must have at most {limit} {}, got {}", plural(*limit == 1, "item", "items"), item_count(instance))
        }
        ValidationErrorKind::MinProperties { limit } => format!(
            "must have at least {limit} {}, got {}",
            plural(*limit == 1, "field", "fields"),
            field_count(instance)
        ),
        ValidationErrorKind::MaxProperties { limit } => format!(
            "must have at most {limit} {}, got {}",
            plural(*limit == 1, "field", "fields"),
            field_count(instance)
        ),
        ValidationErrorKind::Pattern { pattern } => {
            format!("must match pattern {pattern}, got {}", shown(instance))
        }
        ValidationErrorKind::Format { format } => {
            format!("must be a valid {format}, got {}", shown(instance))
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("must be a multiple of {multiple_of}, got {}", shown(instance))
        }
        ValidationErrorKind::UniqueItems => "must not contain duplicate items".to_owned(),
        ValidationErrorKind::FalseSchema => {
            // `additionalProperties: false` without `properties` compiles to a false schema
            // that names no field: find the unexpected ones in the input.
            if let Some(lines) = unexpected_fields(error, sources) {
                out.extend(lines.into_iter().map(|line| Finding::object(pointer, line)));
                return;
            }
            "is not allowed here".to_owned()
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            "matches more than one of the allowed forms; it must match exactly one".to_owned()
        }
        _ => truncate(error.to_string(), MAX_FALLBACK_CHARS),
    };
    out.push(Finding::value(pointer, message));
}

/// An `anyOf`/`oneOf` that no branch accepts. When every branch rejects the value itself
/// (wrong type, not an allowed value), one line lists what any branch would take;
/// otherwise the branch that came closest (fewest errors, preferring branches whose type
/// fits) is reported as if it were the only one.
fn summarise(
    pointer: &str,
    instance: &Value,
    branches: &[Vec<ValidationError<'static>>],
    sources: Sources<'_>,
    out: &mut Vec<Finding>,
) {
    let here = |e: &ValidationError<'_>| e.instance_path().as_str() == pointer;
    let rejects_value = |e: &ValidationError<'_>| {
        here(e)
            && matches!(
                e.kind(),
                ValidationErrorKind::Type { .. }
                    | ValidationErrorKind::Enum { .. }
                    | ValidationErrorKind::Constant { .. }
            )
    };
    if !branches.is_empty() && branches.iter().all(|b| b.iter().any(rejects_value)) {
        let mut literals: Vec<String> = Vec::new();
        let mut types: Vec<JsonType> = Vec::new();
        for branch in branches {
            let mut branch_literals = Vec::new();
            let mut branch_types = Vec::new();
            for error in branch.iter().filter(|e| here(e)) {
                match error.kind() {
                    ValidationErrorKind::Enum { options } => {
                        branch_literals.extend(options.as_array().into_iter().flatten().map(shown));
                    }
                    ValidationErrorKind::Constant { expected_value } => {
                        branch_literals.push(shown(expected_value));
                    }
                    ValidationErrorKind::Type { kind } => branch_types.extend(kind_types(kind)),
                    _ => {}
                }
            }
            if branch_literals.is_empty() {
                types.extend(branch_types);
            } else {
                literals.extend(branch_literals);
            }
        }
        let mut seen = HashSet::new();
        literals.retain(|literal| seen.insert(literal.clone()));
        let message = match (literals.is_empty(), types.is_empty()) {
            (true, _) => format!("expected {}, got {}", join_types(&types), typed(instance)),
            (false, true) => {
                format!("expected one of {}, got {}", literal_list(&literals), shown(instance))
            }
            (false, false) => format!(
                "expected one of {}, or {}, got {}",
                literal_list(&literals),
                join_types(&types),
                shown(instance)
            ),
        };
        out.push(Finding::value(pointer, message));
        return;
    }
    let closest = branches
        .iter()
        .filter(|branch| !branch.is_empty())
        .min_by_key(|branch| (branch.iter().any(rejects_value), branch.len()));
    match closest {
        Some(branch) => describe(branch, sources, out),
        None => out.push(Finding::value(pointer, "does not match any of the allowed forms".to_owned())),
    }
}

fn kind_types(kind: &TypeKind) -> Vec<JsonType> {
    match kind {
        TypeKind::Single(single) => vec![*single],
        TypeKind::Multiple(set) => set.iter().collect(),
    }
}

/// `integer or null`: each type once, `null` last.
fn join_types(types: &[JsonType]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for name in types.iter().map(|t| t.as_str()) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names.sort_by_key(|name| *name == "null");
    names.join(" or ")
}

fn literal_list(options: &[String]) -> String {
    if options.len() <= MAX_LISTED_OPTIONS {
        return options.join(", ");
    }
    format!("{}, … ({} more)", options[..MAX_LISTED_OPTIONS].join(", "), options.len() - MAX_LISTED_OPTIONS)
}

/// The known fields of the object schema owning the `additionalProperties` (or, with
/// `through_applicators`, `unevaluatedProperties`) keyword at `schema_path`, sorted.
fn known_fields(root: &Value, schema_path: &str, through_applicators: bool) -> Option<Vec<String>> {
    let (parent, _keyword) = schema_path.rsplit_once('/')?;
    let object = root.pointer(parent)?;
    let mut names = Vec::new();
    collect_fields(root, object, through_applicators, 0, &mut names);
    names.sort();
    names.dedup();
    Some(names)
}

/// One `unknown field` message per field of the object at a false-schema error's place
/// that its schema's `additionalProperties`/`unevaluatedProperties` rejects, or `None` if
/// the error is of another kind or the fields cannot be told apart.
fn unexpected_fields(error: &ValidationError<'_>, sources: Sources<'_>) -> Option<Vec<String>> {
    let root = sources.schema?;
    let schema_path = error.schema_path().as_str();
    let deep = if schema_path.ends_with("/additionalProperties") {
        false
    } else if schema_path.ends_with("/unevaluatedProperties") {
        true
    } else {
        return None;
    };
    let (parent, _keyword) = schema_path.rsplit_once('/')?;
    if root.pointer(parent)?.get("patternProperties").is_some() {
        return None;
    }
    let object = sources.input.pointer(error.instance_path().as_str())?.as_object()?;
    let known = known_fields(root, schema_path, deep)?;
    let lines: Vec<String> =
        object.keys().filter(|key| !known.contains(key)).map(|key| unknown_field(key, Some(&known))).collect();
    (!lines.is_empty()).then_some(lines)
}

fn collect_fields(root: &Value, schema: &Value, deep: bool, hops: usize, names: &mut Vec<String>) {
    let Value::Object(map) = schema else {
        return;
    };
    if let Some(Value::Object(properties)) = map.get("properties") {
        names.extend(properties.keys().cloned());
    }
    if !deep || hops > MAX_SCHEMA_HOPS {
        return;
    }
    if let Some(target) = ref_target(root, map) {
        collect_fields(root, target, deep, hops + 1, names);
    }
    for keyword in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(keyword) {
            for branch in branches {
                collect_fields(root, branch, deep, hops + 1, names);
            }
        }
    }
}

fn unknown_field(name: &str, known: Option<&[String]>) -> String {
    let shown_name = field_name(name);
    match known {
        None => format!("unknown field '{shown_name}'"),
        Some([]) => format!("unknown field '{shown_name}' (no fields are accepted here)"),
        Some(known) => match closest_name(name, known) {
            Some(best) => format!("unknown field '{shown_name}' (did you mean '{best}'?)"),
            None => format!("unknown field '{shown_name}' (expected one of: {})", known.join(", ")),
        },
    }
}

/// The known name nearest to `name`, if near enough: at most `max(2, len / 3)` edits
/// away, and not a wholesale replacement (fewer edits than the longer name has
/// characters, so `x` never suggests `a`). Ties go to the alphabetically first.
fn closest_name<'k>(name: &str, known: &'k [String]) -> Option<&'k str> {
    let length = name.chars().count();
    let limit = (length / 3).max(2);
    known
        .iter()
        .filter_map(|candidate| {
            let distance = name_distance(name, candidate);
            let longer = length.max(candidate.chars().count());
            (distance <= limit && distance < longer).then_some((distance, candidate.as_str()))
        })
        .min()
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance ignoring case, where also dropping every `_` and `-` is free
/// (`filePath`, `file-path` and `filepath` are all `file_path`).
fn name_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.to_lowercase(), b.to_lowercase());
    let strip = |s: &str| s.chars().filter(|c| !matches!(c, '_' | '-')).collect::<String>();
    levenshtein(&a, &b).min(levenshtein(&strip(&a), &strip(&b)))
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// A field name as the model sent it, with quotes and control characters escaped so it
/// stays on one line.
fn field_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_control() || c == '\'' {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    truncate(out, MAX_VALUE_CHARS)
}

/// A value, compactly: JSON for scalars (cut at [`MAX_VALUE_CHARS`]), just `object` or
/// `array` for containers.
fn shown(value: &Value) -> String {
    match value {
        Value::Object(_) => "object".to_owned(),
        Value::Array(_) => "array".to_owned(),
        scalar => truncate(scalar.to_string(), MAX_VALUE_CHARS),
    }
}

/// A value with its type: `number 123`, `string "abc"`, `null`, `object`.
fn typed(value: &Value) -> String {
    match value {
        Value::Null | Value::Object(_) | Value::Array(_) => shown(value),
        Value::Bool(_) => format!("boolean {}", shown(value)),
        Value::Number(_) => format!("number {}", shown(value)),
        Value::String(_) => format!("string {}", shown(value)),
    }
}

fn truncate(text: String, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn plural(is_one: bool, one: &'static str, many: &'static str) -> &'static str {
    if is_one { one } else { many }
}

fn char_count(value: &Value) -> usize {
    value.as_str().map_or(0, |s| s.chars().count())
}

fn item_count(value: &Value) -> usize {
    value.as_array().map_or(0, Vec::len)
}

fn field_count(value: &Value) -> usize {
    value.as_object().map_or(0, Map::len)
}

#[cfg(test)]
mod tests {
    use super::*;

    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    use crate::ToolErrorKind;

    #[derive(Debug, Default, PartialEq, Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Content,
        #[default]
        FilesWithMatches,
        Count,
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Todo {
        content: String,
        status: Mode,
        priority: Option<u8>,
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct ReadInput {
        file_path: String,
        offset: Option<u64>,
        limit: Option<u32>,
        replace_all: Option<bool>,
        #[serde(default)]
        mode: Mode,
        #[serde(default)]
        todos: Vec<Todo>,
    }

    fn read_schema() -> InputSchema {
        let schema = serde_json::to_value(schemars::schema_for!(ReadInput)).unwrap();
        InputSchema::compile(&schema).unwrap()
    }

    /// The error message for `input`, which must be invalid.
    fn message(schema: &InputSchema, input: Value) -> String {
        let err = schema.validate(&input).unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
        err.message().to_owned()
    }

    fn compile(schema: Value) -> InputSchema {
        InputSchema::compile(&schema).unwrap()
    }

    #[test]
    fn schemars_schema_has_the_shapes_the_coercion_walks() {
        // Guards the premise of the coercion tests: nested types in `$defs`, `Option<T>`
        // as a type array with "null".
        let schema = read_schema();
        let raw = schema.raw();
        assert_eq!(raw["properties"]["limit"]["type"], json!(["integer", "null"]));
        assert_eq!(raw["properties"]["todos"]["items"], json!({"$ref": "#/$defs/Todo"}));
        assert_eq!(raw["$defs"]["Todo"]["properties"]["status"], json!({"$ref": "#/$defs/Mode"}));
    }

    #[test]
    fn valid_input_comes_back_borrowed() {
        let schema = read_schema();
        let input = json!({"file_path": "/a.rs", "limit": 10, "mode": "count"});
        let out = schema.validate(&input).unwrap();
        assert!(matches!(out, Cow::Borrowed(_)));
        assert_eq!(*out, input);
    }

    #[test]
    fn numbers_and_booleans_sent_as_strings_are_coerced() {
        let schema = read_schema();
        let input = json!({"file_path": "/a.rs", "offset": "30", "limit": "2000", "replace_all": "false"});
        let out = schema.validate(&input).unwrap();
        assert!(matches!(out, Cow::Owned(_)));
        assert_eq!(*out, json!({"file_path": "/a.rs", "offset": 30, "limit": 2000, "replace_all": false}));
        // The coerced value is what the typed input is parsed from.
        let typed: ReadInput = serde_json::from_value(out.into_owned()).unwrap();
        assert_eq!(
            typed,
            ReadInput {
                file_path: "/a.rs".into(),
                offset: Some(30),
                limit: Some(2000),
                replace_all: Some(false),
                mode: Mode::FilesWithMatches,
                todos: Vec::new(),
            }
        );
    }

    #[test]
    fn coercion_reaches_array_items_through_ref() {
        let schema = read_schema();
        let input = json!({
            "file_path": "/a.rs",
            "todos": [
                {"content": "a", "status": "content", "priority": "3"},
                {"content": "b", "status": "count", "priority": 4},
            ],
        });
        let out = schema.validate(&input).unwrap();
        assert_eq!(out["todos"][0]["priority"], json!(3));
        // Only the coerced string changed; strings the schema wants stay strings.
        assert_eq!(out["todos"][0]["content"], json!("a"));
        assert_eq!(out["todos"][1], input["todos"][1]);
        let typed: ReadInput = serde_json::from_value(out.into_owned()).unwrap();
        assert_eq!(typed.todos[0].priority, Some(3));
        assert_eq!(typed.todos[0].status, Mode::Content);
        assert_eq!(typed.todos[1].content, "b");
    }

    #[test]
    fn coercion_through_definitions_items_tuples_and_applicators() {
        let schema = compile(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "n": {"$ref": "#/definitions/Count"},
                "ids": {"type": "array", "items": {"type": "integer"}},
                "pair": {"type": "array", "items": [{"type": "number"}, {"type": "boolean"}]},
                "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "both": {"allOf": [{"type": "number"}, {"minimum": 0}]},
                "nested": {
                    "type": "object",
                    "properties": {"deep": {"properties": {"on": {"type": "boolean"}}}}
                },
                "level": {"enum": [1, 2, 3]}
            },
            "definitions": {"Count": {"type": "integer"}}
        }));
        let input = json!({
            "n": "7",
            "ids": ["1", "-2", 3],
            "pair": ["-2.5", "true"],
            "maybe": "8",
            "both": "0.5",
            "nested": {"deep": {"on": "true"}},
            "level": "2"
        });
        assert_eq!(
            *schema.validate(&input).unwrap(),
            json!({
                "n": 7,
                "ids": [1, -2, 3],
                "pair": [-2.5, true],
                "maybe": 8,
                "both": 0.5,
                "nested": {"deep": {"on": true}},
                "level": 2
            })
        );
        // Draft 2020-12 spells tuples `prefixItems`, definitions `$defs`.
        let schema = compile(json!({
            "type": "array",
            "prefixItems": [{"type": "boolean"}, {"$ref": "#/$defs/N"}],
            "items": {"type": "integer"},
            "$defs": {"N": {"type": ["number", "null"]}}
        }));
        assert_eq!(*schema.validate(&json!(["false", "1.5", "3"])).unwrap(), json!([false, 1.5, 3]));
    }

    #[test]
    fn no_coercion_where_a_string_is_accepted() {
        let schema = compile(json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "number"]},
                "b": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                "c": {},
                "d": {"oneOf": [{"type": "boolean"}, {"enum": ["auto"]}]}
            }
        }));
        let input = json!({"a": "30", "b": "30", "c": "30", "d": "auto", "e": "30"});
        let out = schema.validate(&input).unwrap();
        assert!(matches!(out, Cow::Borrowed(_)));
        // One branch takes a string, so "true" stays a string and is reported.
        assert_eq!(
            message(&schema, json!({"a": "30", "d": "true"})),
            "d: expected one of \"auto\", or boolean, got \"true\""
        );
    }

    #[test]
    fn strings_that_do_not_parse_are_reported_as_they_are() {
        let schema = read_schema();
        assert_eq!(
            message(&schema, json!({"file_path": "/a", "limit": "ten", "replace_all": "yes", "offset": " 5"})),
            "limit: expected integer or null, got string \"ten\"\n\
             offset: expected integer or null, got string \" 5\"\n\
             replace_all: expected boolean or null, got string \"yes\""
        );
        // An integer-only field does not take a fraction.
        assert_eq!(
            message(&schema, json!({"file_path": "/a", "limit": "2.5"})),
            "limit: expected integer or null, got string \"2.5\""
        );
    }

    #[test]
    fn coercion_keeps_other_errors_and_reports_against_the_coerced_input() {
        let schema = read_schema();
        assert_eq!(
            message(&schema, json!({"file_path": 1, "limit": "30"})),
            "file_path: expected string, got number 1"
        );
    }

    #[test]
    fn type_messages() {
        let schema = read_schema();
        assert_eq!(message(&schema, json!({"file_path": 123})), "file_path: expected string, got number 123");
        assert_eq!(message(&schema, json!({"file_path": {"a": 1}})), "file_path: expected string, got object");
        assert_eq!(message(&schema, json!({"file_path": [1]})), "file_path: expected string, got array");
        assert_eq!(message(&schema, json!({"file_path": null})), "file_path: expected string, got null");
        assert_eq!(
            message(&schema, json!({"file_path": "/a", "replace_all": 1})),
            "replace_all: expected boolean or null, got number 1"
        );
        assert_eq!(
            message(&schema, json!({"file_path": "/a", "limit": 2.5})),
            "limit: expected integer or null, got number 2.5"
        );
        assert_eq!(message(&schema, json!([])), "input: expected object, got array");
    }

    #[test]
    fn long_values_are_cut() {
        let schema = read_schema();
        let long = "x".repeat(100);
        assert_eq!(
            message(&schema, json!({"file_path": "/a", "limit": long})),
            format!("limit: expected integer or null, got string \"{}…", "x".repeat(59))
        );
    }

    #[test]
    fn required_messages() {
        let schema = read_schema();
        assert_eq!(message(&schema, json!({})), "missing required field 'file_path'");
        assert_eq!(
            message(
                &schema,
                json!({
                    "file_path": "/a",
                    "todos": [{"content": "a", "status": "count"}, {"content": "b"}]
                })
            ),
            "todos[1]: missing required field 'status'"
        );
    }

    #[test]
    fn unknown_field_suggests_the_closest_known_field() {
        let schema = read_schema();
        assert_eq!(
            message(&schema, json!({"file_path": "/a", "limt": 1})),
            "unknown field 'limt' (did you mean 'limit'?)"
        );
        assert_eq!(
            message(&schema, json!({"filepath": "/a"})),
            "missing required field 'file_path'\n\
             unknown field 'filepath' (did you mean 'file_path'?)"
        );
        assert_eq!(
            message(&schema, json!({"file_path": "/a", "replaceAll": true})),
            "unknown field 'replaceAll' (did you mean 'replace_all'?)"
        );
        assert_eq!(
            message(
                &schema,
                json!({
                    "file_path": "/a",
                    "todos": [{"content": "a", "status": "count", "statsu": 1}]
                })
            ),
            "todos[0]: unknown field 'statsu' (did you mean 'status'?)"
        );
    }

    #[test]
    fn unknown_field_without_a_close_match_lists_the_fields() {
        let schema = read_schema();
        assert_eq!(
            message(&schema, json!({"file_path": "/a", "pattern": "x"})),
            "unknown field 'pattern' \
             (expected one of: file_path, limit, mode, offset, replace_all, todos)"
        );
        let abc = compile(json!({
            "type": "object",
            "properties": {"a": {}, "b": {}, "c": {}},
            "additionalProperties": false
        }));
        assert_eq!(
            message(&abc, json!({"x": 1, "y": 2})),
            "unknown field 'x' (expected one of: a, b, c)\n\
             unknown field 'y' (expected one of: a, b, c)"
        );
        let empty = compile(json!({"type": "object", "additionalProperties": false}));
        assert_eq!(
            message(&empty, json!({"x": 1, "y": 2})),
            "unknown field 'x' (no fields are accepted here)\n\
             unknown field 'y' (no fields are accepted here)"
        );
        let forbidden = compile(json!({"type": "object", "properties": {"a": false}}));
        assert_eq!(message(&forbidden, json!({"a": 1})), "a: is not allowed here");
    }

    #[test]
    fn unevaluated_properties_know_fields_from_all_branches() {
        let schema = compile(json!({
            "allOf": [{"properties": {"command": {"type": "string"}}}],
            "properties": {"timeout": {"type": "integer"}},
            "unevaluatedProperties": false
        }));
        assert_eq!(message(&schema, json!({"comand": "ls"})), "unknown field 'comand' (did you mean 'command'?)");
    }

    #[test]
    fn enum_messages() {
        let schema = read_schema();
        assert_eq!(
            message(&schema, json!({"file_path": "/a", "mode": "lines"})),
            "mode: expected one of \"content\", \"files_with_matches\", \"count\", got \"lines\""
        );
        // A wrong type is reported once, by the list of allowed values.
        assert_eq!(
            message(&schema, json!({"file_path": "/a", "mode": 5})),
            "mode: expected one of \"content\", \"files_with_matches\", \"count\", got 5"
        );
        assert_eq!(
            message(&schema, json!({"file_path": "/a", "todos": [{"content": "a", "status": "done"}]})),
            "todos[0].status: expected one of \"content\", \"files_with_matches\", \"count\", \
             got \"done\""
        );
    }

    #[test]
    fn bound_messages() {
        let schema = compile(json!({
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "minimum": 1, "maximum": 600000},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "step": {"type": "integer", "multipleOf": 5},
                "header": {"type": "string", "minLength": 1, "maxLength": 12},
                "query": {"type": "string", "minLength": 2},
                "questions": {"type": "array", "minItems": 1, "maxItems": 4},
                "options": {"type": "array", "maxItems": 1, "uniqueItems": true},
                "meta": {"type": "object", "minProperties": 1},
                "slug": {"type": "string", "pattern": "^[a-z-]+$"},
                "kind": {"const": "edit"}
            }
        }));
        let cases = [
            (json!({"limit": 0}), "limit: must be at least 1, got 0"),
            (json!({"limit": 700000}), "limit: must be at most 600000, got 700000"),
            (json!({"ratio": 0}), "ratio: must be greater than 0, got 0"),
            (json!({"ratio": 1.0}), "ratio: must be less than 1, got 1.0"),
            (json!({"step": 7}), "step: must be a multiple of 5, got 7"),
            (json!({"header": "a very long header"}), "header: must be at most 12 characters, got 18"),
            (json!({"header": ""}), "header: must be at least 1 character, got 0"),
            (json!({"query": "ü"}), "query: must be at least 2 characters, got 1"),
            (json!({"questions": []}), "questions: must have at least 1 item, got 0"),
            (json!({"questions": [1, 2, 3, 4, 5]}), "questions: must have at most 4 items, got 5"),
            (json!({"options": ["a", "b"]}), "options: must have at most 1 item, got 2"),
            (
                json!({"options": ["a", "a"]}),
                "options: must have at most 1 item, got 2\n\
                 options: must not contain duplicate items",
            ),
            (json!({"meta": {}}), "meta: must have at least 1 field, got 0"),
            (json!({"slug": "Hello World"}), "slug: must match pattern ^[a-z-]+$, got \"Hello World\""),
            (json!({"kind": "write"}), "kind: must be \"edit\", got \"write\""),
        ];
        for (input, expected) in cases {
            assert_eq!(message(&schema, input.clone()), expected, "input {input}");
        }
    }

    #[test]
    fn format_message_where_the_draft_asserts_formats() {
        let schema = compile(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"email": {"type": "string", "format": "email"}}
        }));
        assert_eq!(message(&schema, json!({"email": "nobody"})), "email: must be a valid email, got \"nobody\"");
    }

    #[test]
    fn any_of_reports_the_closest_branch() {
        let schema = compile(json!({
            "type": "object",
            "properties": {
                "target": {"anyOf": [
                    {"type": "string"},
                    {
                        "type": "object",
                        "properties": {"line": {"type": "integer", "minimum": 1}},
                        "required": ["line"]
                    }
                ]}
            }
        }));
        assert_eq!(message(&schema, json!({"target": {"line": 0}})), "target.line: must be at least 1, got 0");
        assert_eq!(message(&schema, json!({"target": {}})), "target: missing required field 'line'");
    }

    #[test]
    fn any_of_rejecting_the_value_everywhere_lists_what_would_do() {
        let schema = compile(json!({
            "type": "object",
            "properties": {
                "id": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "mode": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}]},
                "side": {"anyOf": [{"const": "left"}, {"const": "right"}]}
            },
            "$defs": {"Mode": {"type": "string", "enum": ["content", "count"]}}
        }));
        assert_eq!(message(&schema, json!({"id": true})), "id: expected string or integer, got boolean true");
        assert_eq!(
            message(&schema, json!({"mode": 5})),
            "mode: expected one of \"content\", \"count\", or null, got 5"
        );
        assert_eq!(message(&schema, json!({"side": "up"})), "side: expected one of \"left\", \"right\", got \"up\"");
    }

    #[test]
    fn other_errors_fall_back_to_the_validator_message() {
        let schema = compile(json!({
            "type": "object",
            "properties": {"tags": {"type": "array", "contains": {"type": "integer"}}}
        }));
        assert_eq!(message(&schema, json!({"tags": ["a"]})), "tags: None of [\"a\"] are valid under the given schema");
    }

    #[test]
    fn every_violation_is_reported_sorted_by_location() {
        let schema = read_schema();
        let input = json!({
            "filepath": "/a",
            "limit": -1,
            "mode": "lines",
            "todos": [
                {"content": 1, "status": "count"},
                {"content": "b", "status": "count"},
                {"content": "c", "status": "count"},
                {"content": "d", "status": "count"},
                {"content": "e", "status": "count"},
                {"content": "f", "status": "count"},
                {"content": "g", "status": "count"},
                {"content": "h", "status": "count"},
                {"content": "i", "status": "count"},
                {"content": "j", "status": "count"},
                {"status": "done"}
            ]
        });
        assert_eq!(
            message(&schema, input),
            "missing required field 'file_path'\n\
             unknown field 'filepath' (did you mean 'file_path'?)\n\
             limit: must be at least 0, got -1\n\
             mode: expected one of \"content\", \"files_with_matches\", \"count\", got \"lines\"\n\
             todos[0].content: expected string, got number 1\n\
             todos[10]: missing required field 'content'\n\
             todos[10].status: expected one of \"content\", \"files_with_matches\", \"count\", \
             got \"done\""
        );
    }

    #[test]
    fn paths_unescape_json_pointer_and_quote_odd_names() {
        let schema = compile(json!({
            "type": "object",
            "properties": {
                "a/b~c": {"type": "integer"},
                "outer": {
                    "type": "object",
                    "properties": {"x y": {"type": "integer"}, "1": {"type": "integer"}}
                }
            }
        }));
        assert_eq!(
            message(&schema, json!({"a/b~c": "no", "outer": {"x y": "no", "1": "no"}})),
            "a/b~c: expected integer, got string \"no\"\n\
             outer.1: expected integer, got string \"no\"\n\
             outer[\"x y\"]: expected integer, got string \"no\""
        );
    }

    #[test]
    fn uncompilable_schemas_are_schema_errors() {
        let err = InputSchema::compile(&json!({"type": 12})).unwrap_err();
        assert!(matches!(&err, SchemaError::Invalid { pointer, .. } if pointer == "/type"));
        assert_eq!(
            err.to_string(),
            "invalid schema at /type: expected one of \"array\", \"boolean\", \"integer\", \
             \"null\", \"number\", \"object\", \"string\", or array, got 12"
        );
        let err = InputSchema::compile(&json!({"properties": {"a": {"pattern": "("}}})).unwrap_err();
        assert_eq!(err.to_string(), "invalid schema at /properties/a/pattern: must be a valid regex, got \"(\"");
        let err = InputSchema::compile(&json!({"$ref": "#/$defs/Nope"})).unwrap_err();
        assert_eq!(err.to_string(), "unresolvable reference in schema: pointer '/$defs/Nope' does not exist");
    }

    #[test]
    fn reference_cycles_do_not_hang_coercion() {
        let schema = compile(json!({
            "$defs": {"Loop": {"$ref": "#/$defs/Loop"}},
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/Loop"}, "n": {"type": "integer"}}
        }));
        assert_eq!(*schema.validate(&json!({"a": "1", "n": "2"})).unwrap(), json!({"a": "1", "n": 2}));
    }

    #[test]
    fn name_distance_ignores_case_and_separators() {
        assert_eq!(name_distance("filePath", "file_path"), 0);
        assert_eq!(name_distance("file-path", "file_path"), 0);
        assert_eq!(name_distance("limt", "limit"), 1);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        let known = ["a".to_owned(), "b".to_owned(), "xy".to_owned()];
        assert_eq!(closest_name("x", &known), Some("xy"));
        assert_eq!(closest_name("q", &known), None);
    }

    #[test]
    fn input_schema_is_send_sync_and_debug_shows_the_schema() {
        fn assert_send_sync<T: Send + Sync + Clone>() {}
        assert_send_sync::<InputSchema>();
        let schema = compile(json!({"type": "object"}));
        assert_eq!(format!("{schema:?}"), "InputSchema { raw: Object {\"type\": String(\"object\")}, .. }");
    }
}
