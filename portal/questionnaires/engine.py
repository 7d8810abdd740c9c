"""Questionnaire engine: checks definitions, evaluates visibility and formulas, validates answers.

Pure functions over JSON values (no Flask, no database, no I/O), so the server's answer check
and the builder's live preview run the same rules and cannot disagree.

Problem codes are stable: duplicate_id, field_type, required_field, unknown_field,
invalid_value, field_not_allowed, type_unknown, schema_version, too_large, options_missing,
duplicate_option, min_gt_max, regex_invalid, unknown_reference, forward_reference,
enclosing_reference, reference_type, operator_unknown, operator_type, value_type,
not_an_option, out_of_range, pattern_mismatch, readonly_without_default, formula_syntax,
formula_unknown_id, formula_type, formula_cycle, required, unknown_question.

Each problem also names its reason, a finer stable key of MESSAGES, with the params its
wording needs: the English message comes from MESSAGES, the portal words the same reason and
params in the user's language (portal/problems.py).
"""

from __future__ import annotations

import copy
import decimal
import functools
import math
import re
import string
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time

import re2

SCHEMA_VERSIONS = {1}
QUESTION_TYPES = (
    "text", "textarea", "number", "integer", "boolean", "select", "multiselect", "date", "time",
    "datetime", "photo", "signature", "document_scan", "barcode", "location", "group",
    "calculated", "info",
)  # fmt: skip
OPERATORS = (
    "eq", "neq", "gt", "gte", "lt", "lte", "in", "not_in", "contains", "empty", "not_empty",
)  # fmt: skip
QUESTION_FIELDS = (
    "id", "type", "label", "required", "default_value", "readonly", "unit", "max_files",
    "options", "validation", "visible_if", "questions", "formula",
)  # fmt: skip

MAX_QUESTIONS = 500
MAX_GROUP_DEPTH = 5
MAX_FORMULA_LENGTH = 2000
MAX_FORMULA_DEPTH = 50
MAX_ID_LENGTH = 100
MAX_TITLE_LENGTH = 200
MAX_LABEL_LENGTH = 2000
MAX_UNIT_LENGTH = 50
MAX_OPTIONS = 200
MAX_OPTION_LENGTH = 200
MAX_REGEX_LENGTH = 1000
# Steps of a compiled RE2 pattern: a postcode or plate is 10-20, \w{500} is 1,504; (.*a){300}
# is 3,304 and takes ms per long answer, (.*a){1000} is 11,004 and takes 0.4 s.
MAX_REGEX_PROGRAM = 2000
MAX_FILES = 50
MAX_TEXT_LENGTH = 10_000
MAX_CONDITION_VALUES = 200
# Integers beyond 2^53 lose precision in the builder's JavaScript and overflow orjson.
MAX_SAFE_INTEGER = 2**53 - 1

_TOP_FIELDS = ("schema_version", "questionnaire_id", "title", "activity_type", "questions")
_VALIDATION_FIELDS = ("min", "max", "minlength", "maxlength", "regex")
_CONDITION_FIELDS = ("question_id", "operator", "value")

_TEXT_TYPES = ("text", "textarea", "barcode")
_CHOICE_TYPES = ("select", "multiselect")
_FILE_TYPES = ("photo", "signature", "document_scan")
_NUMERIC_TYPES = ("number", "integer")
_TEMPORAL_TYPES = ("date", "time", "datetime")
_NO_ANSWER_TYPES = ("group", "info")
_RANGE_TYPES = ("number", "integer", "multiselect")
_FORMULA_OPERAND_TYPES = ("number", "integer", "calculated", "boolean")
_NO_DEFAULT_TYPES = ("group", "info", "calculated", *_FILE_TYPES)
_ORDERED_TYPES = (*_NUMERIC_TYPES, *_TEMPORAL_TYPES, "calculated")
_BASIC_OPERATORS = ("eq", "neq", "empty", "not_empty")
_OPERATORS_BY_TYPE = {
    **{t: (*_BASIC_OPERATORS, "in", "not_in", "gt", "gte", "lt", "lte") for t in _ORDERED_TYPES},
    **{t: (*_BASIC_OPERATORS, "in", "not_in", "contains") for t in (*_TEXT_TYPES, "multiselect")},
    "select": (*_BASIC_OPERATORS, "in", "not_in"),
    "boolean": (*_BASIC_OPERATORS, "in", "not_in"),
    **{t: _BASIC_OPERATORS for t in (*_FILE_TYPES, "location")},
}

_ID_RE = re.compile(r"[A-Za-z0-9_.-]{1,100}")
_SLUG_RE = re.compile(r"[a-z0-9_-]{1,64}")
_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIME_RE = re.compile(r"[0-9]{2}:[0-9]{2}(:[0-9]{2})?")
_DATETIME_RE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})?"
)
_UUID_RE = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


# Every problem's English wording by reason. Braced names are the problem's params; {x!r}
# shows a value short (quoted when a string), {x!t} names a JSON type with its article.
MESSAGES: dict[str, str] = {
    # formulas
    "formula_not_string": "a formula must be a string, not {type!t}",
    "formula_too_long": "formula is longer than {limit} characters",
    "formula_empty": "formula is empty",
    "formula_unclosed_brace": "unclosed '{{' at position {position}",
    "formula_single_equals": "unexpected character '=' at position {position} (use '==')",
    "formula_bad_character": "unexpected character {char!r} at position {position}",
    "formula_bad_braced_id": "invalid question id in braces at position {position}",
    "formula_expected": "expected '{expected}' at position {position}, found {token!r}",
    "formula_expected_end": "expected '{expected}' at position {position}, found end of formula",
    "formula_too_deep": "formula is nested too deeply (more than {limit} levels)",
    "formula_chained_comparison": "comparisons cannot be chained; combine them with 'and'",
    "formula_unexpected": "unexpected {token!r} at position {position}",
    "formula_unexpected_end": "unexpected end of formula at position {position}",
    "formula_unknown_function": "unknown function {name!r} at position {position}",
    "formula_arguments": "{name}() takes {min} argument(s), got {given}",
    "formula_arguments_range": "{name}() takes {min} or {max} arguments, got {given}",
    "formula_arguments_least": "{name}() takes {min} or more arguments, got {given}",
    # values (answers, default values, compared values)
    "not_a_number": "must be a number, not {type!t}",
    "not_an_integer": "must be an integer, not {type!t}",
    "not_whole": "must be a whole number",
    "not_finite": "must be a finite number",
    "number_too_large": "is too large (the limit is 2^53 - 1)",
    "not_a_boolean": "must be true or false, not {type!t}",
    "not_a_string": "must be a string, not {type!t}",
    "text_too_long": "must be at most {limit} characters",
    "not_an_option": "{value!r} is not one of the options",
    "not_an_option_list": "must be a list of options",
    "option_chosen_twice": "must not choose the same option twice",
    "date_invalid": "must be a valid date as YYYY-MM-DD",
    "time_invalid": "must be a valid time as HH:MM or HH:MM:SS",
    "datetime_invalid": (
        "must be a valid datetime as an ISO 8601 date and time (YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM])"
    ),
    "files_invalid": "must be a list of file ids (UUIDs)",
    "file_listed_twice": "must not list the same file twice",
    "too_many_files": "must hold at most {limit} file(s)",
    "location_invalid": 'must be an object {{"lat": number, "lng": number}}',
    "location_not_numbers": "lat and lng must be numbers",
    "location_out_of_range": "lat must be within -90..90 and lng within -180..180",
    "takes_no_answer": "this question takes no answer",
    "below_min": "must be at least {min!r}",
    "above_max": "must be at most {max!r}",
    "too_few_chosen": "must be at least {min!r} options chosen",
    "too_many_chosen": "must be at most {max!r} options chosen",
    "too_short": "must be at least {min!r} characters",
    "too_long": "must be at most {max!r} characters",
    "pattern_mismatch": "does not match the required pattern",
    "condition_value_not_null": "must be null for '{operator}'",
    "condition_value_needed": "is needed for '{operator}' (use 'empty' to test for none)",
    "condition_list_needed": "must be a non-empty list for '{operator}'",
    "condition_too_many_values": "may hold at most {limit} values",
    "condition_not_a_string": "must be a string",
    # definitions
    "definition_not_object": "a definition must be an object, not {type!t}",
    "field_required": "{name} is required",
    "field_empty": "{name} must not be empty",
    "field_not_string": "{name} must be a string, not {type!t}",
    "field_too_long": "{name} is longer than {limit} characters",
    "field_not_boolean": "{name} must be true or false",
    "field_not_integer": "{name} must be an integer",
    "field_not_object": "{name} must be an object",
    "field_not_list": "{name} must be a list",
    "field_negative": "{name} must not be negative",
    "field_below_one": "{name} must be at least 1",
    "field_above_limit": "{name} may be at most {limit}",
    "field_not_for_type": "{name} is only allowed for {types} questions, not {qtype}",
    "id_invalid": "{name} may only hold letters, digits, '_', '.' and '-'",
    "slug_invalid": "{name} must be a slug of a-z, 0-9, _ and -",
    "unknown_field": "unknown field {name!r}",
    "schema_version_unknown": "schema_version {version} is not supported (known: {known})",
    "question_not_object": "a question must be an object, not {type!t}",
    "type_unknown": "unknown type {qtype!r}",
    "duplicate_id": "id {id!r} is already used at {first}",
    "no_answer_flag": "a {qtype} takes no answer, so it cannot be {name}",
    "group_needs_question": "a group needs at least one question",
    "too_deep": "groups may be nested at most {limit} deep",
    "too_many_questions": "at most {limit} questions in all",
    "options_missing": "a {qtype} question needs options",
    "options_empty": "options must not be empty",
    "options_not_list": "options must be a list of strings",
    "too_many_options": "at most {limit} options",
    "option_not_string": "an option must be a string, not {type!t}",
    "option_empty": "an option must not be empty",
    "option_too_long": "an option is at most {limit} characters",
    "duplicate_option": "option {option!r} appears twice",
    "regex_not_string": "regex must be a string",
    "regex_too_long": "regex is longer than {limit} characters",
    "regex_too_complex": "regex compiles to more than {limit} steps; make it simpler",
    "regex_invalid": "regex does not compile: {error}",
    "min_gt_max": "{low} ({low_value!r}) is greater than {high} ({high_value!r})",
    "operator_unknown": "unknown operator {operator!r} (known: {known})",
    "formula_missing": "a calculated question needs a formula",
    "readonly_without_default": "a required readonly question needs a default_value",
    "default_not_allowed": "a {qtype} question has no default_value",
    "unknown_reference": "no question has id {id!r}",
    "self_reference": "a question cannot depend on itself",
    "enclosing_reference": "a question cannot depend on the group that holds it",
    "forward_reference": "visible_if may only refer to an earlier question; {id!r} is later",
    "reference_type": "{id!r} is a {qtype} question and has no answer",
    "operator_type": "operator '{operator}' does not fit a {qtype} question (use {fitting})",
    "formula_unknown_id": "no question has id {id!r}",
    "formula_type": (
        "{id!r} is a {qtype} question; a formula may only use number, integer, calculated "
        "and boolean questions"
    ),
    "formula_cycle": "formula depends on its own result through {names}",
    # answers
    "answers_not_object": "answers must be an object",
    "required": "is required",
    "not_calculated": "could not be calculated",
    "unknown_question": "unknown question {id!r}",
}
_TYPE_NAMES = {
    "null": "null", "boolean": "a boolean", "number": "a number", "string": "a string",
    "list": "a list", "object": "an object",
}  # fmt: skip


class _Wording(string.Formatter):
    def convert_field(self, value: object, conversion: str | None) -> object:
        if conversion == "r":
            return _show(value)
        if conversion == "t":
            return _TYPE_NAMES.get(str(value), f"a {value}")
        return super().convert_field(value, conversion)


_WORDING = _Wording()


def english(reason: str, params: dict) -> str:
    """A problem's English message from its reason and params."""
    return _WORDING.format(MESSAGES[reason], **params)


def _tidy(params: dict) -> dict:
    """Params fit for JSON and for a message: scalars kept (long strings cut), the rest shown."""
    tidy = {}
    for name, value in params.items():
        if isinstance(value, str):
            tidy[name] = value if len(value) <= 200 else value[:197] + "..."
        elif (
            value is None
            or isinstance(value, bool)
            or (isinstance(value, (int, float)) and _number_error(value) is None)
        ):
            tidy[name] = value
        else:
            tidy[name] = _show(value)
    return tidy


@dataclass(frozen=True)
class Problem:
    """One problem found in a definition or in answers, located for the builder and the API."""

    path: str
    question_id: str | None
    message: str
    code: str
    reason: str = ""
    params: dict = field(default_factory=dict, compare=False, hash=False)


def _problem(path: str, qid: str | None, code: str, reason: str, params: dict) -> Problem:
    params = _tidy(params)
    return Problem(path, qid, english(reason, params), code, reason, params)


class FormulaError(ValueError):
    """A formula that does not parse, or is too long or too deeply nested."""

    def __init__(self, reason: str, **params: object) -> None:
        self.reason, self.params = reason, _tidy(params)
        super().__init__(english(reason, self.params))


# ---------------------------------------------------------------------------------------- helpers


def _kind(value: object) -> str:
    """The JSON name of a value's type, for messages (a param: {type!t})."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _json_type(value: object) -> str:
    """The JSON name of a value's type with its article, for messages."""
    return _WORDING.convert_field(_kind(value), "t")


def _show(value: object) -> str:
    """A short rendering of a value for messages (never the whole of a huge or nested one)."""
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    if isinstance(value, int):
        # str() of a huge int raises ValueError (int_max_str_digits), so do not try.
        return str(value) if abs(value) < 10**15 else "a very large number"
    if isinstance(value, float):
        return repr(value)
    return _json_type(value)


def _join(path: str, key: object) -> str:
    """The path of a key inside an object."""
    name = key[:MAX_ID_LENGTH] if isinstance(key, str) else _show(key)
    return f"{path}.{name}" if path else name


def _is_int(value: object) -> bool:
    """A JSON integer (bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _number_error(value: object, *, integer: bool = False) -> str | None:
    """Why a value is not a usable JSON number (or integer), or None."""
    issue = _number_issue(value, integer=integer)
    return None if issue is None else english(issue[1], issue[2])


def _number_issue(value: object, *, integer: bool = False) -> tuple | None:
    """(code, reason, params) when a value is not a usable JSON number (or integer), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return (
            "value_type",
            "not_an_integer" if integer else "not_a_number",
            {"type": _kind(value)},
        )
    if integer and not isinstance(value, int):
        return ("value_type", "not_whole", {})
    if isinstance(value, float) and not math.isfinite(value):
        return ("value_type", "not_finite", {})
    if isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
        return ("value_type", "number_too_large", {})
    return None


def _is_empty(value: object) -> bool:
    """No answer: null, a blank string, an empty list or object."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, (list, dict)) and not value


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a builder typing a regex must not spam the server log


@functools.lru_cache(maxsize=256)
def _compile_regex(pattern: str) -> tuple[object | None, str | None]:
    """The compiled RE2 pattern, or None and the reason it does not compile."""
    try:
        return re2.compile(pattern, _RE2_OPTIONS), None
    except UnicodeError:  # lone surrogates cannot be encoded as UTF-8 for RE2
        return None, "the pattern holds characters that are not valid Unicode"
    except (re2.error, ValueError, TypeError) as exc:
        reason = exc.args[0] if exc.args else "invalid pattern"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        return None, str(reason)[:200]


def _regex_fullmatch(pattern: str, text: str) -> bool:
    """Whether the whole text matches; a pattern that does not compile matches nothing."""
    compiled, _ = _compile_regex(pattern)
    if compiled is None:
        return False
    try:
        return compiled.fullmatch(text) is not None
    except (UnicodeError, ValueError, TypeError):  # e.g. lone surrogates cannot be UTF-8
        return False


def _temporal(qtype: str, value: object) -> object | None:
    """A date, time or (UTC-aware) datetime parsed from an ISO 8601 string, or None."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    pattern = {"date": _DATE_RE, "time": _TIME_RE, "datetime": _DATETIME_RE}[qtype]
    if not pattern.fullmatch(value):
        return None
    try:
        if qtype == "date":
            return date.fromisoformat(value)
        if qtype == "time":
            return time.fromisoformat(value)
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    # Naive and aware datetimes cannot be compared; a naive one is taken as UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# --------------------------------------------------------------------------------------- formulas

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
            if not _ID_RE.fullmatch(match["braced"]):
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
        raise FormulaError("formula_not_string", type=_kind(formula))
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


def _operand(value: object) -> float | int | bool | None:
    """A question's value as a formula operand; anything but a finite number or bool is missing."""
    if isinstance(value, bool) or (_is_int(value)):
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
    if _is_int(value) and digits >= 0:
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


# ----------------------------------------------------------------------------------------- values


def _check_value(question: dict, value: object, *, rules: bool = True) -> tuple[object, list]:
    """(normalised value, [(code, reason, params)]) for one answer to a question."""
    # With rules False only the shape counts (for visible_if values), not validation or max_files.
    qtype = question.get("type")
    rule = question.get("validation") if rules else None
    rule = rule if isinstance(rule, dict) else {}
    options = question.get("options")
    options = options if isinstance(options, list) else None

    if qtype in _NUMERIC_TYPES or qtype == "calculated":
        if qtype == "calculated" and isinstance(value, bool):
            return value, []
        issue = _number_issue(value, integer=qtype == "integer")
        if issue:
            return None, [issue]
        return value, _range_problems(value, rule, counted=False)
    if qtype == "boolean":
        if not isinstance(value, bool):
            return None, [("value_type", "not_a_boolean", {"type": _kind(value)})]
        return value, []
    if qtype in _TEXT_TYPES or qtype == "select":
        if not isinstance(value, str):
            return None, [("value_type", "not_a_string", {"type": _kind(value)})]
        if len(value) > MAX_TEXT_LENGTH:
            return None, [("too_large", "text_too_long", {"limit": MAX_TEXT_LENGTH})]
        if qtype == "select":
            if options is not None and value not in options:
                return None, [("not_an_option", "not_an_option", {"value": value})]
            return value, []
        return value, _text_problems(value, rule)
    if qtype == "multiselect":
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return None, [("value_type", "not_an_option_list", {})]
        if len(set(value)) != len(value):
            return None, [("value_type", "option_chosen_twice", {})]
        unknown = [item for item in value if options is not None and item not in options]
        if unknown:
            return None, [("not_an_option", "not_an_option", {"value": unknown[0]})]
        return list(value), _range_problems(len(value), rule, counted=True)
    if qtype in _TEMPORAL_TYPES:
        if _temporal(qtype, value) is None:
            return None, [("value_type", f"{qtype}_invalid", {})]
        return value, []
    if qtype in _FILE_TYPES:
        if not isinstance(value, list) or not all(
            isinstance(item, str) and _UUID_RE.fullmatch(item) for item in value
        ):
            return None, [("value_type", "files_invalid", {})]
        files = [item.lower() for item in value]
        if len(set(files)) != len(files):
            return None, [("value_type", "file_listed_twice", {})]
        limit = question.get("max_files") if rules else None
        limit = min(limit, MAX_FILES) if _is_int(limit) else MAX_FILES
        if rules and len(files) > limit:
            return None, [("out_of_range", "too_many_files", {"limit": limit})]
        return files, []
    if qtype == "location":
        if not isinstance(value, dict) or set(value) != {"lat", "lng"}:
            return None, [("value_type", "location_invalid", {})]
        lat, lng = value["lat"], value["lng"]
        if _number_error(lat) or _number_error(lng):
            return None, [("value_type", "location_not_numbers", {})]
        if not (-90 <= lat <= 90 and -180 <= lng <= 180):
            return None, [("out_of_range", "location_out_of_range", {})]
        return {"lat": lat, "lng": lng}, []
    return None, [("value_type", "takes_no_answer", {})]


def _range_problems(amount: float | int, rule: dict, *, counted: bool) -> list:
    """min/max problems for a number (or, counted, a multiselect's number of choices)."""
    low, high = rule.get("min"), rule.get("max")
    if _number_error(low) is None and amount < low:
        return [("out_of_range", "too_few_chosen" if counted else "below_min", {"min": low})]
    if _number_error(high) is None and amount > high:
        return [("out_of_range", "too_many_chosen" if counted else "above_max", {"max": high})]
    return []


def _text_problems(text: str, rule: dict) -> list:
    """minlength/maxlength/regex problems for a string."""
    problems = []
    low, high, pattern = rule.get("minlength"), rule.get("maxlength"), rule.get("regex")
    if _is_int(low) and len(text) < low:
        problems.append(("out_of_range", "too_short", {"min": low}))
    if _is_int(high) and len(text) > high:
        problems.append(("out_of_range", "too_long", {"max": high}))
    if isinstance(pattern, str) and not _regex_fullmatch(pattern, text):
        problems.append(("pattern_mismatch", "pattern_mismatch", {}))
    return problems


def _condition_value(ref: dict, operator: str, value: object) -> tuple[object, tuple | None]:
    """(fresh normalised value, None) when a visible_if value fits, else (None, issue)."""
    rtype = ref.get("type")
    said = {"operator": operator}
    if operator in ("empty", "not_empty"):
        return None, None if value is None else ("value_type", "condition_value_not_null", said)
    if value is None:
        return None, ("value_type", "condition_value_needed", said)
    if operator in ("in", "not_in"):
        if not isinstance(value, list) or not value:
            return None, ("value_type", "condition_list_needed", said)
        if len(value) > MAX_CONDITION_VALUES:
            limit = {"limit": MAX_CONDITION_VALUES}
            return None, ("too_large", "condition_too_many_values", limit)
        items = [_compared(ref, item, scalar=True) for item in value]
        return [item for item, _ in items], next((p for _, p in items if p), None)
    if operator == "contains" and rtype != "multiselect":
        if isinstance(value, str):
            return value, None
        return None, ("value_type", "condition_not_a_string", {})
    if operator in ("gt", "gte", "lt", "lte") and rtype == "calculated":
        issue = _number_issue(value)
        return (None, issue) if issue else (value, None)
    return _compared(ref, value, scalar=operator == "contains")


def _compared(ref: dict, value: object, *, scalar: bool = False) -> tuple[object, tuple | None]:
    """A compared value normalised like an answer to the question, or its problem."""
    # A scalar compared with a multiselect is one option; an integer compares with any number.
    rtype = ref.get("type")
    if rtype == "integer" or (scalar and rtype == "multiselect"):
        ref = {**ref, "type": "number" if rtype == "integer" else "select"}
    normalised, problems = _check_value(ref, value, rules=False)
    return (None, problems[0]) if problems else (normalised, None)


def _ordered_key(qtype: str, value: object) -> object | None:
    """A comparable form of a value for gt/gte/lt/lte, or None."""
    if qtype in _TEMPORAL_TYPES:
        return _temporal(qtype, value)
    return value if _number_error(value) is None else None


def _same(qtype: str, left: object, right: object) -> bool:
    """eq semantics: dates and times by their moment, choices as sets, bool never equals 1."""
    if qtype in _TEMPORAL_TYPES:
        left_key, right_key = _temporal(qtype, left), _temporal(qtype, right)
        if left_key is not None and right_key is not None:
            return left_key == right_key
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if (
        isinstance(left, list)
        and isinstance(right, list)
        and all(isinstance(item, str) for item in (*left, *right))
    ):
        return len(left) == len(right) and set(left) == set(right)
    return left == right


def _condition_holds(condition: dict, ref_type: str, answer: object) -> bool:
    """Whether a visible_if condition holds for the referenced question's (cleaned) answer."""
    # A missing answer makes every comparison false (neq and not_in too); only `empty` holds.
    operator, target = condition.get("operator"), condition.get("value")
    if operator in ("empty", "not_empty"):
        return _is_empty(answer) == (operator == "empty")
    if _is_empty(answer):
        return False
    if operator in ("eq", "neq"):
        return _same(ref_type, answer, target) == (operator == "eq")
    if operator in ("in", "not_in"):
        if not isinstance(target, list):
            return False
        chosen = answer if isinstance(answer, list) else [answer]  # multiselect: any chosen
        hit = any(_same(ref_type, item, candidate) for item in chosen for candidate in target)
        return hit == (operator == "in")
    if operator == "contains":
        return isinstance(target, str) and isinstance(answer, (str, list)) and target in answer
    left, right = _ordered_key(ref_type, answer), _ordered_key(ref_type, target)
    if left is None or right is None:
        return False
    return {"gt": left > right, "gte": left >= right, "lt": left < right, "lte": left <= right}.get(
        operator, False
    )


# ------------------------------------------------------------------------------- dependency graph


def _components(edges: list[list[int]]) -> list[list[int]]:
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


# ------------------------------------------------------------------------------------ definitions


@dataclass
class _Entry:
    """One question met while checking a definition (or, with index -1, the definition itself)."""

    index: int
    path: str
    qid: str | None
    raw: dict
    parent: int | None = None
    ancestors: tuple[int, ...] = ()
    qtype: str | None = None
    canonical: dict = field(default_factory=lambda: dict.fromkeys(QUESTION_FIELDS))
    formula_refs: set[str] | None = None
    edges: list[int] = field(default_factory=list)


class _DefinitionChecker:
    """Collects every problem of one definition while building its canonical form."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.entries: list[_Entry] = []
        self.first_by_id: dict[str, int] = {}
        self.seen = 0

    def flag(self, at: _Entry, key: str, code: str, reason: str, /, **params: object) -> None:
        path = _join(at.path, key) if key else at.path
        self.problems.append(_problem(path, at.qid, code, reason, params))

    def flag_value(self, at: _Entry, key: str, issue: tuple, lead: str) -> None:
        """Flag a value's (code, reason, params), its English message led by the field's name."""
        code, reason, params = issue
        problem = _problem(_join(at.path, key), at.qid, code, reason, params)
        message = f"{lead} {problem.message}"
        self.problems.append(Problem(problem.path, at.qid, message, code, reason, problem.params))

    def run(self, doc: object) -> dict | None:
        top = _Entry(-1, "", None, doc if isinstance(doc, dict) else {})
        if not isinstance(doc, dict):
            self.flag(top, "", "field_type", "definition_not_object", type=_kind(doc))
            return None
        self.unknown_keys(top, "", doc, _TOP_FIELDS)
        version = doc.get("schema_version")
        if version is None:
            self.flag(
                top, "schema_version", "required_field", "field_required", name="schema_version"
            )
        elif not _is_int(version) or version not in SCHEMA_VERSIONS:
            known = ", ".join(map(str, sorted(SCHEMA_VERSIONS)))
            self.flag(
                top, "schema_version", "schema_version", "schema_version_unknown",
                version=_show(version), known=known,
            )  # fmt: skip
        slug = "slug_invalid"
        canonical = {
            "schema_version": version,
            "questionnaire_id": self.string(top, "questionnaire_id", MAX_ID_LENGTH),
            "title": self.string(top, "title", MAX_TITLE_LENGTH),
            "activity_type": self.string(top, "activity_type", 64, _SLUG_RE, slug),
            "questions": self.question_list(top),
        }
        self.check_references()
        self.check_cycles()
        return canonical

    def unknown_keys(self, at: _Entry, prefix: str, obj: dict, allowed: tuple) -> None:
        for key in obj:
            if key not in allowed:
                name = key if isinstance(key, str) else _show(key)
                self.flag(at, _join(prefix, key), "unknown_field", "unknown_field", name=name)

    def string(
        self, at: _Entry, key: str, max_length: int, pattern: re.Pattern | None = None,
        hint: str = "id_invalid", *, required: bool = True, obj: dict | None = None,
    ) -> str | None:  # fmt: skip
        name = key.rsplit(".", 1)[-1]
        value = (at.raw if obj is None else obj).get(name)
        if value is None:
            if required:
                self.flag(at, key, "required_field", "field_required", name=name)
        elif not isinstance(value, str):
            self.flag(at, key, "field_type", "field_not_string", name=name, type=_kind(value))
        elif required and not value.strip():
            self.flag(at, key, "required_field", "field_empty", name=name)
        elif len(value) > max_length:
            self.flag(at, key, "too_large", "field_too_long", name=name, limit=max_length)
        elif pattern is not None and not pattern.fullmatch(value):
            self.flag(at, key, "invalid_value", hint, name=name)
        else:
            return value
        return None

    def boolean(self, at: _Entry, key: str) -> bool:
        value = at.raw.get(key)
        if value is None or isinstance(value, bool):
            return bool(value)
        self.flag(at, key, "field_type", "field_not_boolean", name=key)
        return False

    def only_for(self, at: _Entry, key: str, types: tuple, names: str) -> bool:
        """Flag a field set on a question type it does not apply to; True when flagged."""
        if at.raw.get(key) is None or at.qtype is None or at.qtype in types:
            return False
        self.flag(
            at, key, "field_not_allowed", "field_not_for_type", name=key, types=names,
            qtype=at.qtype,
        )  # fmt: skip
        return True

    def question_list(self, at: _Entry) -> list | None:
        """The questions of the definition (at.index -1) or of a group."""
        value, in_group = at.raw.get("questions"), at.index >= 0
        if value is None or (in_group and isinstance(value, list) and not value):
            if in_group:
                self.flag(at, "questions", "required_field", "group_needs_question")
            else:
                self.flag(at, "questions", "required_field", "field_required", name="questions")
        elif not isinstance(value, list):
            self.flag(at, "questions", "field_type", "field_not_list", name="questions")
        elif len(at.ancestors) >= MAX_GROUP_DEPTH:
            self.flag(at, "questions", "too_large", "too_deep", limit=MAX_GROUP_DEPTH)
        else:
            ancestors = (*at.ancestors, at.index) if in_group else ()
            result = []
            for position, raw in enumerate(value):
                if self.seen >= MAX_QUESTIONS:
                    # Stop: the rest is not examined, which also bounds the work on huge input.
                    if self.seen == MAX_QUESTIONS:
                        limit = MAX_QUESTIONS
                        self.flag(at, "questions", "too_large", "too_many_questions", limit=limit)
                    self.seen += 1
                    break
                self.seen += 1
                path = f"{_join(at.path, 'questions')}[{position}]"
                question = self.question(raw, path, at.index if in_group else None, ancestors)
                if question is not None:
                    result.append(question)
            return result
        return [] if in_group else None

    def question(self, raw: object, path: str, parent: int | None, ancestors: tuple) -> dict | None:
        if not isinstance(raw, dict):
            at = _Entry(-1, path, None, {})
            self.flag(at, "", "field_type", "question_not_object", type=_kind(raw))
            return None
        qid = raw["id"][:MAX_ID_LENGTH] if isinstance(raw.get("id"), str) else None
        entry = _Entry(len(self.entries), path, qid, raw, parent, ancestors)
        self.entries.append(entry)
        self.unknown_keys(entry, "", raw, QUESTION_FIELDS)
        qtype = raw.get("type")
        if qtype is None:
            self.flag(entry, "type", "required_field", "field_required", name="type")
        elif not isinstance(qtype, str):
            self.flag(
                entry, "type", "field_type", "field_not_string", name="type", type=_kind(qtype)
            )
        elif qtype not in QUESTION_TYPES:
            self.flag(entry, "type", "type_unknown", "type_unknown", qtype=qtype)
        entry.qtype = qtype if isinstance(qtype, str) and qtype in QUESTION_TYPES else None
        canonical = entry.canonical
        canonical["id"] = self.string(entry, "id", MAX_ID_LENGTH, _ID_RE)
        canonical["type"] = entry.qtype
        canonical["label"] = self.string(entry, "label", MAX_LABEL_LENGTH)
        canonical["required"] = self.boolean(entry, "required")
        canonical["readonly"] = self.boolean(entry, "readonly")
        canonical["unit"] = self.string(entry, "unit", MAX_UNIT_LENGTH, required=False)
        if canonical["id"] in self.first_by_id:
            first = self.entries[self.first_by_id[canonical["id"]]].path
            self.flag(entry, "id", "duplicate_id", "duplicate_id", id=qid, first=first)
        elif canonical["id"] is not None:
            self.first_by_id[canonical["id"]] = entry.index
        for flag in ("required", "readonly"):
            if canonical[flag] and entry.qtype in _NO_ANSWER_TYPES:
                qtype = entry.qtype
                self.flag(
                    entry, flag, "field_not_allowed", "no_answer_flag", qtype=qtype, name=flag
                )
        canonical["max_files"] = self.max_files(entry)
        canonical["options"] = self.options(entry)
        canonical["validation"] = self.validation(entry)
        canonical["visible_if"] = self.condition(entry)
        canonical["formula"] = self.formula(entry)
        canonical["default_value"] = self.default_value(entry)
        if entry.qtype == "group":
            canonical["questions"] = self.question_list(entry)
        else:
            self.only_for(entry, "questions", ("group",), "group")
        return canonical

    def max_files(self, entry: _Entry) -> int | None:
        value = entry.raw.get("max_files")
        if value is None or self.only_for(entry, "max_files", _FILE_TYPES, ", ".join(_FILE_TYPES)):
            return None
        if not _is_int(value):
            self.flag(entry, "max_files", "field_type", "field_not_integer", name="max_files")
        elif value < 1:
            self.flag(entry, "max_files", "invalid_value", "field_below_one", name="max_files")
        elif value > MAX_FILES:
            limit = MAX_FILES
            self.flag(
                entry, "max_files", "too_large", "field_above_limit", name="max_files", limit=limit
            )
        else:
            return value
        return None

    def options(self, entry: _Entry) -> list | None:
        value = entry.raw.get("options")
        if value is None and entry.qtype in _CHOICE_TYPES:
            self.flag(entry, "options", "options_missing", "options_missing", qtype=entry.qtype)
        if value is None or self.only_for(entry, "options", _CHOICE_TYPES, "select, multiselect"):
            return None
        if not isinstance(value, list):
            self.flag(entry, "options", "field_type", "options_not_list")
            return None
        if not value:
            self.flag(entry, "options", "options_missing", "options_empty")
        if len(value) > MAX_OPTIONS:
            self.flag(entry, "options", "too_large", "too_many_options", limit=MAX_OPTIONS)
            return None
        seen: set[str] = set()
        for position, option in enumerate(value):
            at = f"options[{position}]"
            if not isinstance(option, str):
                self.flag(entry, at, "field_type", "option_not_string", type=_kind(option))
                continue
            if not option.strip():
                self.flag(entry, at, "invalid_value", "option_empty")
            elif len(option) > MAX_OPTION_LENGTH:
                self.flag(entry, at, "too_large", "option_too_long", limit=MAX_OPTION_LENGTH)
            elif option in seen:
                self.flag(entry, at, "duplicate_option", "duplicate_option", option=option)
            seen.add(option)
        return [option for option in value if isinstance(option, str)]

    def validation(self, entry: _Entry) -> dict | None:
        value, qtype = entry.raw.get("validation"), entry.qtype
        if value is None:
            return None
        if not isinstance(value, dict):
            self.flag(entry, "validation", "field_type", "field_not_object", name="validation")
            return None
        self.unknown_keys(entry, "validation", value, _VALIDATION_FIELDS)
        rule = dict.fromkeys(_VALIDATION_FIELDS)
        for key in _VALIDATION_FIELDS:
            item, at = value.get(key), f"validation.{key}"
            counts = key in ("minlength", "maxlength") or qtype == "multiselect"
            fits = _RANGE_TYPES if key in ("min", "max") else _TEXT_TYPES
            issue = None if key == "regex" else _number_issue(item, integer=counts)
            if item is None:
                continue
            if issue:
                code = "too_large" if issue[1] == "number_too_large" else "field_type"
                self.flag_value(entry, at, (code, *issue[1:]), key)
            elif key == "regex" and not isinstance(item, str):
                self.flag(entry, at, "field_type", "regex_not_string")
            elif qtype is not None and qtype not in fits:
                self.flag(
                    entry, at, "field_not_allowed", "field_not_for_type", name=key,
                    types=", ".join(fits), qtype=qtype,
                )  # fmt: skip
            elif key != "regex" and counts and item < 0:
                self.flag(entry, at, "invalid_value", "field_negative", name=key)
            elif key == "regex" and len(item) > MAX_REGEX_LENGTH:
                self.flag(entry, at, "too_large", "regex_too_long", limit=MAX_REGEX_LENGTH)
            elif key == "regex" and _compile_regex(item)[0] is None:
                error = _compile_regex(item)[1]
                self.flag(entry, at, "regex_invalid", "regex_invalid", error=error)
            elif key == "regex" and _compile_regex(item)[0].programsize > MAX_REGEX_PROGRAM:
                # RE2 is linear in the answer, but a huge program (e.g. (.*a){1000}) is
                # slow for each character: hundreds of ms per long answer.
                self.flag(entry, at, "too_large", "regex_too_complex", limit=MAX_REGEX_PROGRAM)
            else:
                rule[key] = item
        for low, high in (("min", "max"), ("minlength", "maxlength")):
            if rule[low] is not None and rule[high] is not None and rule[low] > rule[high]:
                self.flag(
                    entry, f"validation.{low}", "min_gt_max", "min_gt_max", low=low,
                    low_value=rule[low], high=high, high_value=rule[high],
                )  # fmt: skip
        # An all-null rule means no rule: one canonical spelling keeps check_definition idempotent.
        return rule if any(item is not None for item in rule.values()) else None

    def condition(self, entry: _Entry) -> dict | None:
        value = entry.raw.get("visible_if")
        if value is None:
            return None
        if not isinstance(value, dict):
            self.flag(entry, "visible_if", "field_type", "field_not_object", name="visible_if")
            return None
        self.unknown_keys(entry, "visible_if", value, _CONDITION_FIELDS)
        operator = value.get("operator")
        if operator is None:
            at = "visible_if.operator"
            self.flag(entry, at, "required_field", "field_required", name="operator")
        elif not isinstance(operator, str) or operator not in OPERATORS:
            self.flag(
                entry, "visible_if.operator", "operator_unknown", "operator_unknown",
                operator=operator if isinstance(operator, str) else _show(operator),
                known=", ".join(OPERATORS),
            )  # fmt: skip
            operator = None
        ref = self.string(entry, "visible_if.question_id", MAX_ID_LENGTH, obj=value)
        # The value is copied only once it is known to fit (check_condition): it may be huge.
        return {"question_id": ref, "operator": operator, "value": value.get("value")}

    def formula(self, entry: _Entry) -> str | None:
        value = entry.raw.get("formula")
        if value is None and entry.qtype == "calculated":
            self.flag(entry, "formula", "required_field", "formula_missing")
        if value is None or self.only_for(entry, "formula", ("calculated",), "calculated"):
            return None
        if not isinstance(value, str):
            self.flag(
                entry,
                "formula",
                "field_type",
                "field_not_string",
                name="formula",
                type=_kind(value),
            )
            return None
        try:
            entry.formula_refs = formula_references(value)
        except FormulaError as exc:
            self.flag(entry, "formula", "formula_syntax", exc.reason, **exc.params)
            return None
        return value

    def default_value(self, entry: _Entry) -> object:
        value, qtype, canonical = entry.raw.get("default_value"), entry.qtype, entry.canonical
        if value is None:
            answerable = qtype not in (*_NO_ANSWER_TYPES, "calculated")
            if canonical["readonly"] and canonical["required"] and answerable:
                code = "readonly_without_default"
                self.flag(entry, "default_value", code, code)
            return None
        if qtype is None:
            return None
        if qtype in _NO_DEFAULT_TYPES:
            self.flag(
                entry, "default_value", "field_not_allowed", "default_not_allowed", qtype=qtype
            )
            return None
        cleaned, problems = _check_value(canonical, value)
        for issue in problems:
            self.flag_value(entry, "default_value", issue, "default_value")
        return None if problems else copy.deepcopy(cleaned)

    def check_references(self) -> None:
        for entry in self.entries:
            if entry.parent is not None:
                entry.edges.append(entry.parent)
            if entry.canonical["visible_if"] is not None:
                self.check_condition(entry)
            for ref in sorted(entry.formula_refs or ()):
                self.check_formula_ref(entry, ref)

    def check_condition(self, entry: _Entry) -> None:
        condition = entry.canonical["visible_if"]
        ref_id, operator = condition["question_id"], condition["operator"]
        if ref_id is None:
            return
        target, at = self.first_by_id.get(ref_id), "visible_if.question_id"
        if target is None:
            self.flag(entry, at, "unknown_reference", "unknown_reference", id=ref_id)
        elif target == entry.index:
            self.flag(entry, at, "forward_reference", "self_reference")
        elif target in entry.ancestors:
            self.flag(entry, at, "enclosing_reference", "enclosing_reference")
        elif target > entry.index:
            self.flag(entry, at, "forward_reference", "forward_reference", id=ref_id)
        else:
            entry.edges.append(target)
            self.check_operator(entry, self.entries[target], operator, condition)

    def check_operator(
        self, entry: _Entry, ref: _Entry, operator: str | None, condition: dict
    ) -> None:
        if ref.qtype is None or operator is None:
            return
        if ref.qtype in _NO_ANSWER_TYPES:
            at, code = "visible_if.question_id", "reference_type"
            self.flag(entry, at, code, code, id=ref.qid, qtype=ref.qtype)
        elif operator not in _OPERATORS_BY_TYPE[ref.qtype]:
            fitting = ", ".join(_OPERATORS_BY_TYPE[ref.qtype])
            self.flag(
                entry, "visible_if.operator", "operator_type", "operator_type", operator=operator,
                qtype=ref.qtype, fitting=fitting,
            )  # fmt: skip
        else:
            value, problem = _condition_value(ref.canonical, operator, condition["value"])
            if problem is not None:
                self.flag_value(entry, "visible_if.value", problem, "value")
            condition["value"] = value

    def check_formula_ref(self, entry: _Entry, ref_id: str) -> None:
        target = self.first_by_id.get(ref_id)
        if target is None:
            self.flag(entry, "formula", "formula_unknown_id", "formula_unknown_id", id=ref_id)
        elif self.entries[target].qtype not in (*_FORMULA_OPERAND_TYPES, None):
            qtype = self.entries[target].qtype
            self.flag(entry, "formula", "formula_type", "formula_type", id=ref_id, qtype=qtype)
        else:
            entry.edges.append(target)

    def check_cycles(self) -> None:
        for component in _components([entry.edges for entry in self.entries]):
            if len(component) == 1 and component[0] not in self.entries[component[0]].edges:
                continue
            members = [self.entries[index] for index in sorted(component)]
            names = ", ".join(_show(member.qid) for member in members)
            # Only formulas can point forward, so every cycle passes through one.
            for member in members:
                if member.formula_refs:
                    self.flag(member, "formula", "formula_cycle", "formula_cycle", names=names)


def check_definition(doc: object) -> tuple[dict | None, list[Problem]]:
    """Check a QuestionnaireDefinition (any JSON value); (canonical, []) or (None, problems)."""
    checker = _DefinitionChecker()
    canonical = checker.run(doc)
    if checker.problems:
        return None, checker.problems
    return canonical, []


# ---------------------------------------------------------------------------------------- answers


@dataclass
class _State:
    """The outcome of running a definition over answers."""

    nodes: list[tuple[dict, int | None]]
    by_id: dict[str, int]
    visible: list[bool]
    values: dict[str, object]
    problems: dict[int, list]


def _flatten(definition: dict) -> list[tuple[dict, int | None]]:
    """(question, index of its group) in document order."""
    nodes: list[tuple[dict, int | None]] = []
    questions = definition.get("questions") if isinstance(definition, dict) else None
    pending = [(question, None) for question in reversed(questions or [])]
    while pending:
        question, parent = pending.pop()
        if not isinstance(question, dict):
            continue
        nodes.append((question, parent))
        children = question.get("questions")
        if question.get("type") == "group" and isinstance(children, list):
            pending.extend((child, len(nodes) - 1) for child in reversed(children))
    return nodes


def _condition_ref(question: dict) -> str | None:
    """The id a question's visible_if refers to (None when there is none or it is no string)."""
    condition = question.get("visible_if")
    ref = condition.get("question_id") if isinstance(condition, dict) else None
    return ref if isinstance(ref, str) else None


def _run(definition: dict, answers: dict) -> _State:
    """Visibility, values and per-question problems of a definition over answers."""
    # Questions are settled after what they depend on: their group, their visible_if question
    # and their formula's operands (a formula may use a later question).
    nodes = _flatten(definition)
    by_id: dict[str, int] = {}
    for index, (question, _) in enumerate(nodes):
        if isinstance(question.get("id"), str):
            by_id.setdefault(question["id"], index)
    edges: list[list[int]] = [[] for _ in nodes]
    for index, (question, parent) in enumerate(nodes):
        if parent is not None:
            edges[index].append(parent)
        ref = _condition_ref(question)
        if ref in by_id:
            edges[index].append(by_id[ref])
        if question.get("type") == "calculated":
            try:
                refs = formula_references(question.get("formula"))
            except FormulaError:
                refs = set()
            edges[index].extend(by_id[ref] for ref in sorted(refs) if ref in by_id)
    state = _State(nodes, by_id, [False] * len(nodes), {}, {})
    for component in _components(edges):
        for index in component:
            _settle(state, index, answers)
    return state


def _settle(state: _State, index: int, answers: dict) -> None:
    """Decide one question's visibility and value."""
    question, parent = state.nodes[index]
    qid, qtype = question.get("id"), question.get("type")
    if not isinstance(qid, str) or (parent is not None and not state.visible[parent]):
        return
    condition, ref = question.get("visible_if"), _condition_ref(question)
    if isinstance(condition, dict):
        target = state.by_id.get(ref)
        ref_type = state.nodes[target][0].get("type") if target is not None else None
        if target is None or not _condition_holds(condition, ref_type, state.values.get(ref)):
            return
    state.visible[index] = True
    if qtype in _NO_ANSWER_TYPES:
        return
    if qtype == "calculated":
        try:
            value = evaluate_formula(question.get("formula"), state.values)
        except FormulaError:
            value = None
    elif question.get("readonly"):
        value = copy.deepcopy(question.get("default_value"))
    else:
        raw = answers.get(qid)
        value, problems = (None, []) if _is_empty(raw) else _check_value(question, raw)
        if problems:
            state.problems[index] = problems
            value = None
    if value is not None:
        state.values[qid] = value


def visible_questions(definition: dict, answers: dict) -> set[str]:
    """Ids of questions visible given answers (by question id); one in a hidden group is hidden."""
    state = _run(definition, answers if isinstance(answers, dict) else {})
    return {state.nodes[i][0]["id"] for i, shown in enumerate(state.visible) if shown}


def validate_answers(definition: dict, answers: dict, *, final: bool) -> tuple[dict, list[Problem]]:
    """Validate answers against a canonical definition; (cleaned visible answers, problems)."""
    problems: list[Problem] = []
    if not isinstance(answers, dict):
        problems.append(_problem("answers", None, "value_type", "answers_not_object", {}))
        answers = {}
    state = _run(definition, answers)
    cleaned: dict[str, object] = {}
    for index, (question, _) in enumerate(state.nodes):
        if not state.visible[index]:
            continue
        qid, where = question["id"], f"answers.{question['id']}"
        for code, reason, params in state.problems.get(index, ()):
            problems.append(_problem(where, qid, code, reason, params))
        if qid in state.values:
            cleaned[qid] = state.values[qid]
        elif (
            final
            and question.get("required")
            and question.get("type") not in _NO_ANSWER_TYPES
            and index not in state.problems
        ):
            why = "not_calculated" if question.get("type") == "calculated" else "required"
            problems.append(_problem(where, qid, "required", why, {}))
    for key in answers:
        if key not in state.by_id:
            name = key[:MAX_ID_LENGTH] if isinstance(key, str) else _show(key)
            qid = name if isinstance(key, str) else None
            problems.append(
                _problem(
                    f"answers.{name}", qid, "unknown_question", "unknown_question", {"id": key}
                )
            )
    return cleaned, problems


# -------------------------------------------------------------------------------- builder helpers

FORMULA_OPERAND_TYPES = _FORMULA_OPERAND_TYPES
_BARE_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def operators_for(qtype: object) -> tuple[str, ...]:
    """The visible_if operators that fit a question of this type (none for group and info)."""
    return _OPERATORS_BY_TYPE.get(qtype, ()) if isinstance(qtype, str) else ()


def fields_for(qtype: object) -> tuple[str, ...]:
    """The Question fields a question of this type may carry, in QUESTION_FIELDS order."""
    if not isinstance(qtype, str) or qtype not in QUESTION_TYPES:
        return ("id", "type", "label")
    allowed = {"id", "type", "label", "unit", "visible_if"}
    if qtype not in _NO_ANSWER_TYPES:
        allowed |= {"required", "readonly"}
    if qtype not in _NO_DEFAULT_TYPES:
        allowed.add("default_value")
    if qtype in _FILE_TYPES:
        allowed.add("max_files")
    if qtype in _CHOICE_TYPES:
        allowed.add("options")
    if validation_keys_for(qtype):
        allowed.add("validation")
    if qtype == "group":
        allowed.add("questions")
    if qtype == "calculated":
        allowed.add("formula")
    return tuple(name for name in QUESTION_FIELDS if name in allowed)


def validation_keys_for(qtype: object) -> tuple[str, ...]:
    """The ValidationRule fields that apply to a question of this type."""
    keys: tuple[str, ...] = ()
    if qtype in _RANGE_TYPES:
        keys += ("min", "max")
    if qtype in _TEXT_TYPES:
        keys += ("minlength", "maxlength", "regex")
    return keys


def rename_reference(formula: object, old: str, new: str) -> object:
    """The formula with its references to question id `old` spelled as `new`.

    A formula that does not tokenize, and a `new` that is no valid id, leave it as it is.
    """
    if (
        not isinstance(formula, str)
        or len(formula) > MAX_FORMULA_LENGTH
        or not isinstance(new, str)
        or not _ID_RE.fullmatch(new)
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
