"""The vocabulary of the tree-sitter-bash grammar as `bash_tree` reads it: which node types hold
statements, which are leaves that run nothing, which are redirections, which make a word decided at
run time, and the reserved words that must never stand where a command does. A node type in none of
these is one the checker does not know, and a line holding it is not approved."""

from __future__ import annotations

import re

# Nodes that hold statements or expressions: read child by child.
CONTAINERS = frozenset({
    "program", "list", "pipeline", "subshell", "compound_statement", "do_group", "if_statement",
    "elif_clause", "else_clause", "while_statement", "for_statement", "c_style_for_statement",
    "case_statement", "case_item", "negated_command", "redirected_statement", "test_command",
    "variable_assignments", "binary_expression", "unary_expression", "ternary_expression",
    "postfix_expression", "parenthesized_expression", "array", "subscript", "heredoc_body",
    "expansion", "arithmetic_expansion", "command_substitution", "process_substitution", "string",
    "concatenation", "translated_string", "function_definition",
})
# Leaves that run nothing.
LEAVES = frozenset({
    "word", "number", "raw_string", "ansi_c_string", "string_content", "variable_name",
    "special_variable_name", "comment", "heredoc_start", "heredoc_end", "heredoc_content",
    "file_descriptor", "test_operator", "regex", "simple_expansion", "brace_expression",
})
REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
DYNAMIC = frozenset({"simple_expansion", "expansion", "command_substitution", "process_substitution",
                     "arithmetic_expansion", "brace_expression", "extglob_pattern"})
RESERVED = frozenset("{ } ! [[ ]] case do done elif else esac fi for function if in select then until while".split())


def descendants(node, kinds: tuple[str, ...]):
    """The nodes under `node` whose type is one of `kinds`, without recursion."""
    stack = list(node.children)
    while stack:
        child = stack.pop()
        if child.type in kinds:
            yield child
        stack.extend(child.children)


def unbackquoted(body: str) -> str:
    """A backquoted body as bash runs it: `\\``, `\\$` and `\\\\` lose their backslash."""
    return re.sub(r"\\([`$\\])", r"\1", body)
