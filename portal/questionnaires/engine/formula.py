"""The formula language: tokenizer and parser, the ids a formula uses, renaming one of them,
and the order in which dependent formulas are settled. Evaluating a parsed formula is
`evaluation`'s."""

from __future__ import annotations

import functools
import re

from portal.questionnaires.engine.messages import FormulaError
from portal.questionnaires.engine.vocabulary import (
    ID_RE,
    MAX_FORMULA_DEPTH,
    MAX_FORMULA_LENGTH,
    json_kind,
)

_TOKEN_RE = re.compile(
    r"(?P<num>[0-9]+(?:\.[0-9]+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_.]*)|\{(?P<braced>[^{}]*)\}"
    r"|(?P<op>==|!=|<=|>=|[<>+\-*/%(),])"
)
_KEYWORDS = ("and", "or", "not", "true", "false")
# Name -> (fewest, most) arguments; None means no upper bound.
_FUNCTIONS = {"round": (1, 2), "min": (1, None), "max": (1, None), "abs": (1, 1), "if": (3, 3)}
_BINARY_PRECEDENCE = {
    "or": 1, "and": 2, "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3,
    "+": 4, "-": 4, "*": 5, "/": 5, "%": 5,
}  # fmt: skip
_COMPARISON = 3
_NOT_PRECEDENCE = 3  # `not a == b` is `not (a == b)`, as in Python
_UNARY_PRECEDENCE = 6


def _tokenize(formula: str) -> list[tuple[str, object, int]]:
    """(kind, value, position) tokens; kind is num, name (bare), id (braced), kw, op or end."""
    tokens: list[tuple[str, object, int]] = []
    pos = 0
    while True:
        while pos < len(formula) and formula[pos] in " \t\r\n":
            pos += 1
        if pos == len(formula):
            tokens.append(("end", None, pos))
            return tokens
        match = _TOKEN_RE.match(formula, pos)
        if match is None:
            if formula[pos] == "{":
                raise FormulaError("formula_unclosed_brace", position=pos)
            if formula[pos] == "=":
                raise FormulaError("formula_single_equals", position=pos)
            raise FormulaError("formula_bad_character", char=formula[pos], position=pos)
        if match["num"] is not None:
            text = match["num"]
            tokens.append(("num", float(text) if "." in text else int(text), pos))
        elif match["name"] is not None:
            name = match["name"]
            tokens.append(("kw" if name in _KEYWORDS else "name", name, pos))
        elif match["braced"] is not None:
            # Braces quote ids a bare name cannot spell, such as "weight-kg" or "2nd".
            if not ID_RE.fullmatch(match["braced"]):
                raise FormulaError("formula_bad_braced_id", position=pos)
            tokens.append(("id", match["braced"], pos))
        else:
            tokens.append(("op", match["op"], pos))
        pos = match.end()


class _Parser:
    """A Pratt parser producing a tree of tuples."""

    # Same-precedence chains become one n-ary node, so a long sum stays a shallow tree and
    # evaluating it never recurses deeply.

    def __init__(self, tokens: list[tuple[str, object, int]]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def peek(self) -> tuple[str, object, int]:
        return self.tokens[self.pos]

    def take(self) -> tuple[str, object, int]:
        token = self.tokens[self.pos]
        if token[0] != "end":
            self.pos += 1
        return token

    def expect(self, text: str) -> None:
        kind, value, pos = self.take()
        if kind != "op" or value != text:
            if kind == "end":
                raise FormulaError("formula_expected_end", expected=text, position=pos)
            raise FormulaError("formula_expected", expected=text, position=pos, token=value)

    def expression(self, min_precedence: int = 0) -> tuple:
        self.depth += 1
        if self.depth > MAX_FORMULA_DEPTH:
            raise FormulaError("formula_too_deep", limit=MAX_FORMULA_DEPTH)
        left = self.prefix()
        chain_precedence, items = None, []
        while True:
            kind, value, _ = self.peek()
            precedence = _BINARY_PRECEDENCE.get(value) if kind in ("op", "kw") else None
            if precedence is None or precedence < min_precedence:
                break
            self.take()
            right = self.expression(precedence + 1)
            if precedence == chain_precedence:
                if precedence == _COMPARISON:
                    raise FormulaError("formula_chained_comparison")
                items.append((value, right))
            else:
                # The loop sees non-increasing precedence, so a new chain wraps the old one.
                left = _finish_chain(chain_precedence, left, items)
                chain_precedence, items = precedence, [(value, right)]
        self.depth -= 1
        return _finish_chain(chain_precedence, left, items)

    def prefix(self) -> tuple:
        kind, value, pos = self.take()
        if kind == "num":
            return ("num", value)
        if kind == "op" and value == "-":
            operand = self.expression(_UNARY_PRECEDENCE)
            if operand[0] == "num" and not isinstance(operand[1], bool):
                return ("num", -operand[1])
            return ("neg", operand)
        if kind == "op" and value == "(":
            inner = self.expression()
            self.expect(")")
            return inner
        if kind == "kw" and value == "not":
            return ("not", self.expression(_NOT_PRECEDENCE))
        if kind == "kw" and value in ("true", "false"):
            return ("num", value == "true")
        if kind == "name" and self.peek()[:2] == ("op", "("):
            return self.call(value, pos)
        if kind in ("name", "id"):
            return ("id", value)
        raise _unexpected(kind, value, pos)

    def call(self, name: str, pos: int) -> tuple:
        if name not in _FUNCTIONS:
            raise FormulaError("formula_unknown_function", name=name, position=pos)
        self.expect("(")
        args = []
        if self.peek()[:2] != ("op", ")"):
            args.append(self.expression())
            while self.peek()[:2] == ("op", ","):
                self.take()
                args.append(self.expression())
        self.expect(")")
        fewest, most = _FUNCTIONS[name]
        if len(args) < fewest or (most is not None and len(args) > most):
            reason = (
                "formula_arguments"
                if fewest == most
                else "formula_arguments_least"
                if most is None
                else "formula_arguments_range"
            )
            raise FormulaError(reason, name=name, min=fewest, max=most, given=len(args))
        return ("call", name, tuple(args))


def _unexpected(kind: str, value: object, pos: int) -> FormulaError:
    """The error for a token that cannot stand where it is."""
    if kind == "end":
        return FormulaError("formula_unexpected_end", position=pos)
    return FormulaError("formula_unexpected", token=value, position=pos)


def _finish_chain(precedence: int | None, first: tuple, items: list) -> tuple:
    """The node for `first op x op y ...` at one precedence level."""
    if precedence is None:
        return first
    if precedence in (1, 2):
        return (items[0][0], (first, *(node for _, node in items)))
    if precedence == _COMPARISON:
        return ("cmp", items[0][0], first, items[0][1])
    return ("arith", first, tuple(items))


@functools.lru_cache(maxsize=1024)
def _parse_cached(formula: str) -> tuple:
    """The syntax tree of a formula; immutable tuples, so safe to share from the cache."""
    parser = _Parser(_tokenize(formula))
    tree = parser.expression()
    kind, value, pos = parser.peek()
    if kind != "end":
        raise _unexpected(kind, value, pos)
    return tree


def parse_formula(formula: str) -> object:
    """The syntax tree of a formula; raises FormulaError when it does not parse."""
    if not isinstance(formula, str):
        raise FormulaError("formula_not_string", type=json_kind(formula))
    if len(formula) > MAX_FORMULA_LENGTH:
        raise FormulaError("formula_too_long", limit=MAX_FORMULA_LENGTH)
    if not formula.strip():
        raise FormulaError("formula_empty")
    return _parse_cached(formula)


def formula_references(formula: str) -> set[str]:
    """The question ids a formula refers to; raises FormulaError when it does not parse."""
    found: set[str] = set()
    pending = [parse_formula(formula)]
    while pending:
        node = pending.pop()
        kind = node[0]
        if kind == "id":
            found.add(node[1])
        elif kind in ("neg", "not"):
            pending.append(node[1])
        elif kind in ("and", "or", "call"):
            pending.extend(node[-1])
        elif kind == "cmp":
            pending.extend(node[2:])
        elif kind == "arith":
            pending.append(node[1])
            pending.extend(operand for _, operand in node[2])
    return found


def strong_components(edges: list[list[int]]) -> list[list[int]]:
    """Strongly connected components (Tarjan, iterative), each after those it depends on."""
    count = len(edges)
    index: list[int | None] = [None] * count
    low = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    components: list[list[int]] = []
    counter = 0
    for root in range(count):
        if index[root] is not None:
            continue
        work = [(root, 0)]
        while work:
            node, next_edge = work.pop()
            if next_edge == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack[node] = True
            for position in range(next_edge, len(edges[node])):
                target = edges[node][position]
                if index[target] is None:
                    work.extend(((node, position + 1), (target, 0)))
                    break
                if on_stack[target]:
                    low[node] = min(low[node], index[target])
            else:
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack[member] = False
                        component.append(member)
                        if member == node:
                            break
                    components.append(component)
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
    return components


_BARE_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def rename_reference(formula: object, old: str, new: str) -> object:
    """The formula with its references to question id `old` spelled as `new`.

    A formula that does not tokenize, and a `new` that is no valid id, leave it as it is.
    """
    if (
        not isinstance(formula, str)
        or len(formula) > MAX_FORMULA_LENGTH
        or not isinstance(new, str)
        or not ID_RE.fullmatch(new)
    ):
        return formula
    bare = bool(_BARE_NAME_RE.fullmatch(new)) and new not in _KEYWORDS and new not in _FUNCTIONS
    spelled = new if bare else "{" + new + "}"
    parts: list[str] = []
    pos = 0
    while pos < len(formula):
        if formula[pos] in " \t\r\n":
            parts.append(formula[pos])
            pos += 1
            continue
        match = _TOKEN_RE.match(formula, pos)
        if match is None:
            return formula
        text = match.group(0)
        after = formula[match.end() :].lstrip(" \t\r\n")
        is_call = match["name"] is not None and after.startswith("(")
        if (match["name"] == old and old not in _KEYWORDS and not is_call) or match[
            "braced"
        ] == old:
            text = spelled
        parts.append(text)
        pos = match.end()
    return "".join(parts)
