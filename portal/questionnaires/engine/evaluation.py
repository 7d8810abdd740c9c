"""A formula's value over other questions' values: numbers and booleans, JSON-safe results,
three-valued logic, and missing (None) as soon as a needed operand is missing."""

from __future__ import annotations

import decimal
import math

from portal.questionnaires.engine.formula import parse_formula
from portal.questionnaires.engine.vocabulary import MAX_SAFE_INTEGER, is_int


def _operand(value: object) -> float | int | bool | None:
    """A question's value as a formula operand; anything but a finite number or bool is missing."""
    if isinstance(value, bool) or (is_int(value)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return None


def _tame(value: float | int) -> float | int | None:
    """Keep results JSON-safe: huge ints become floats, inf and nan become missing."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
        return _tame(float(value))
    return value


def _arith(op: str, left: float | int, right: float | int) -> float | int | None:
    """One arithmetic step; division or remainder by zero is missing, not an error."""
    left, right = +left, +right  # unary plus turns bools into ints
    if op == "+":
        return _tame(left + right)
    if op == "-":
        return _tame(left - right)
    if op == "*":
        return _tame(left * right)
    if right == 0:
        return None
    return _tame(left / right if op == "/" else left % right)


def _round(value: float | int, digits: float | int) -> float | int | None:
    """Round half away from zero (what people expect; Python's round() is banker's)."""
    if isinstance(digits, float):
        if not digits.is_integer():
            return None
        digits = int(digits)
    digits = int(digits)
    if abs(digits) > 100:
        return None
    if is_int(value) and digits >= 0:
        return value
    exact = decimal.Decimal(repr(value) if isinstance(value, float) else int(value))
    with decimal.localcontext() as context:
        context.prec = 1000
        rounded = exact.quantize(decimal.Decimal(1).scaleb(-digits), decimal.ROUND_HALF_UP)
    return _tame(int(rounded) if digits <= 0 else float(rounded))


def _evaluate_node(node: tuple, values: dict) -> float | int | bool | None:
    """The value of a syntax tree; None as soon as a needed operand is missing."""
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "id":
        return _operand(values.get(node[1]))
    if kind in ("neg", "not"):
        operand = _evaluate_node(node[1], values)
        if operand is None:
            return None
        return _tame(-operand) if kind == "neg" else not bool(operand)
    if kind == "arith":
        result = _evaluate_node(node[1], values)
        for op, operand_node in node[2]:
            if result is None:
                return None
            operand = _evaluate_node(operand_node, values)
            if operand is None:
                return None
            result = _arith(op, result, operand)
        return result
    if kind == "cmp":
        left, right = _evaluate_node(node[2], values), _evaluate_node(node[3], values)
        if left is None or right is None:
            return None
        op = node[1]
        if op in ("==", "!="):
            return (left == right) == (op == "==")
        return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]
    if kind in ("and", "or"):
        # Three-valued logic: `false and missing` is false, `true or missing` is true.
        decisive = kind == "or"
        missing = False
        for operand_node in node[1]:
            operand = _evaluate_node(operand_node, values)
            if operand is None:
                missing = True
            elif bool(operand) == decisive:
                return decisive
        return None if missing else not decisive
    name, arg_nodes = node[1], node[2]
    if name == "if":
        condition = _evaluate_node(arg_nodes[0], values)
        if condition is None:
            return None
        return _evaluate_node(arg_nodes[1] if bool(condition) else arg_nodes[2], values)
    args = [_evaluate_node(arg, values) for arg in arg_nodes]
    if any(arg is None for arg in args):
        return None
    if name == "abs":
        return _tame(abs(args[0]))
    if name == "round":
        return _round(args[0], args[1] if len(args) > 1 else 0)
    return min(args) if name == "min" else max(args)


def evaluate_formula(formula: str, values: dict) -> float | int | bool | None:
    """Evaluate a formula over other questions' values; None if an operand is missing/None."""
    # A formula that does not parse raises FormulaError from parse_formula.
    tree = parse_formula(formula)
    try:
        result = _evaluate_node(tree, values if isinstance(values, dict) else {})
        # Literals are not tamed while parsing, so "1e999"-sized ones are caught here.
        return result if result is None or isinstance(result, bool) else _tame(result)
    except ArithmeticError:  # overflow in float conversion or Decimal: no usable result
        return None
