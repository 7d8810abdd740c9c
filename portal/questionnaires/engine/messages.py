"""Problems and their wording: every reason's English message, the Problem record, the
error of a formula that does not parse, and the short rendering of values inside messages."""

from __future__ import annotations

import math
import string
from dataclasses import dataclass, field

from portal.questionnaires.engine.vocabulary import MAX_ID_LENGTH, MAX_SAFE_INTEGER, json_kind

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
    "questionnaire_needs_question": "a questionnaire needs at least one question",
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
            return show(value)
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
            or (isinstance(value, (int, float)) and number_error(value) is None)
        ):
            tidy[name] = value
        else:
            tidy[name] = show(value)
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


def make_problem(path: str, qid: str | None, code: str, reason: str, params: dict) -> Problem:
    params = _tidy(params)
    return Problem(path, qid, english(reason, params), code, reason, params)


class FormulaError(ValueError):
    """A formula that does not parse, or is too long or too deeply nested."""

    def __init__(self, reason: str, **params: object) -> None:
        self.reason, self.params = reason, _tidy(params)
        super().__init__(english(reason, self.params))


def _json_type(value: object) -> str:
    """The JSON name of a value's type with its article, for messages."""
    return _WORDING.convert_field(json_kind(value), "t")


def show(value: object) -> str:
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


def join_path(path: str, key: object) -> str:
    """The path of a key inside an object."""
    name = key[:MAX_ID_LENGTH] if isinstance(key, str) else show(key)
    return f"{path}.{name}" if path else name


def number_error(value: object, *, integer: bool = False) -> str | None:
    """Why a value is not a usable JSON number (or integer), or None."""
    issue = number_issue(value, integer=integer)
    return None if issue is None else english(issue[1], issue[2])


def number_issue(value: object, *, integer: bool = False) -> tuple | None:
    """(code, reason, params) when a value is not a usable JSON number (or integer), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return (
            "value_type",
            "not_an_integer" if integer else "not_a_number",
            {"type": json_kind(value)},
        )
    if integer and not isinstance(value, int):
        return ("value_type", "not_whole", {})
    if isinstance(value, float) and not math.isfinite(value):
        return ("value_type", "not_finite", {})
    if isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
        return ("value_type", "number_too_large", {})
    return None
