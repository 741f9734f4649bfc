//! The node kinds the walker tells apart, as an enum read from a table indexed by
//! tree-sitter's kind id: matching on it costs a jump, not a string comparison per arm.
//!
//! The table is built once from tree-sitter-bash's own kind names, so [`kind`] of a node is
//! always [`Kind::of_name`] of [`kind_of`] the node: the same verdicts as matching the names.

use std::sync::OnceLock;

use tree_sitter::Node;

/// Defines [`Kind`] with one variant per node kind name the walker looks at, and
/// [`Kind::of_name`].
macro_rules! kinds {
    ($($variant:ident = $name:literal,)*) => {
        /// A node kind the walker tells apart ([`Kind::Other`] for every other kind).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(super) enum Kind {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
            /// Any other kind.
            Other,
        }

        impl Kind {
            /// Every variant but [`Kind::Other`], with its kind name.
            #[cfg(test)]
            const NAMED: &[(Kind, &str)] = &[$((Kind::$variant, $name),)*];

            /// The variant for a kind name.
            pub(super) fn of_name(name: &str) -> Kind {
                match name {
                    $($name => Kind::$variant,)*
                    _ => Kind::Other,
                }
            }
        }
    };
}

kinds! {
    Program = "program",
    List = "list",
    Pipeline = "pipeline",
    Subshell = "subshell",
    CompoundStatement = "compound_statement",
    DoGroup = "do_group",
    ElseClause = "else_clause",
    ElifClause = "elif_clause",
    NegatedCommand = "negated_command",
    IfStatement = "if_statement",
    WhileStatement = "while_statement",
    Error = "ERROR",
    Command = "command",
    RedirectedStatement = "redirected_statement",
    ForStatement = "for_statement",
    CStyleForStatement = "c_style_for_statement",
    CaseStatement = "case_statement",
    CaseItem = "case_item",
    FunctionDefinition = "function_definition",
    TestCommand = "test_command",
    DeclarationCommand = "declaration_command",
    UnsetCommand = "unset_command",
    VariableAssignment = "variable_assignment",
    VariableAssignments = "variable_assignments",
    Comment = "comment",
    FileRedirect = "file_redirect",
    HeredocRedirect = "heredoc_redirect",
    HerestringRedirect = "herestring_redirect",
    Word = "word",
    String = "string",
    RawString = "raw_string",
    Concatenation = "concatenation",
    Number = "number",
    SimpleExpansion = "simple_expansion",
    Expansion = "expansion",
    ArithmeticExpansion = "arithmetic_expansion",
    BinaryExpression = "binary_expression",
    UnaryExpression = "unary_expression",
    TernaryExpression = "ternary_expression",
    PostfixExpression = "postfix_expression",
    ParenthesizedExpression = "parenthesized_expression",
    Subscript = "subscript",
    VariableName = "variable_name",
    SpecialVariableName = "special_variable_name",
    TestOperator = "test_operator",
    Regex = "regex",
    ExtglobPattern = "extglob_pattern",
    BraceExpression = "brace_expression",
    Array = "array",
    AnsiCString = "ansi_c_string",
    TranslatedString = "translated_string",
    StringContent = "string_content",
    CommandName = "command_name",
    FileDescriptor = "file_descriptor",
    HeredocBody = "heredoc_body",
    HeredocContent = "heredoc_content",
    HeredocStart = "heredoc_start",
    HeredocEnd = "heredoc_end",
    CommandSubstitution = "command_substitution",
    ProcessSubstitution = "process_substitution",
    DoubleParen = "((",
    DoubleQuote = "\"",
}

/// tree-sitter-bash's kinds by kind id: their names and variants.
struct Table {
    names: Vec<Box<str>>,
    kinds: Vec<Kind>,
}

static TABLE: OnceLock<Table> = OnceLock::new();

fn table() -> &'static Table {
    TABLE.get_or_init(|| {
        let language: tree_sitter::Language = tree_sitter_bash::LANGUAGE.into();
        let names: Vec<Box<str>> = (0..language.node_kind_count())
            .map(|id| u16::try_from(id).ok().and_then(|id| language.node_kind_for_id(id)).unwrap_or_default().into())
            .collect();
        let kinds = names.iter().map(|name| Kind::of_name(name)).collect();
        Table { names, kinds }
    })
}

/// The kind of `node` (as [`Node::kind`], without converting the C string on every call).
pub(super) fn kind_of(node: Node<'_>) -> &'static str {
    match table().names.get(usize::from(node.kind_id())) {
        Some(kind) => kind,
        // Outside the table: the ERROR symbol, or a kind this grammar does not name.
        None if node.is_error() => "ERROR",
        None => "unknown",
    }
}

/// The [`Kind`] of `node`: `Kind::of_name(kind_of(node))`, from the table.
pub(super) fn kind(node: Node<'_>) -> Kind {
    match table().kinds.get(usize::from(node.kind_id())) {
        Some(kind) => *kind,
        None if node.is_error() => Kind::Error,
        None => Kind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant names a kind of tree-sitter-bash 0.25 (a misspelt name would never
    /// match), and each kind id maps to the variant of its name.
    #[test]
    fn every_variant_is_a_kind_of_the_grammar() {
        let table = table();
        for (variant, name) in Kind::NAMED {
            assert!(*name == "ERROR" || table.names.iter().any(|n| &**n == *name), "{name} is not a kind");
            assert_eq!(Kind::of_name(name), *variant);
        }
        for (id, name) in table.names.iter().enumerate() {
            assert_eq!(table.kinds[id], Kind::of_name(name), "{name}");
        }
    }
}
