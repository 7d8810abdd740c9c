"""One question's fields while a definition is checked: the entry each question makes, and
the checks of its strings, options, validation rule, visible_if, formula and default value.
`checker` walks the definition and its references with these."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from portal.questionnaires.engine.formula import formula_references
from portal.questionnaires.engine.messages import (
    FormulaError,
    Problem,
    join_path,
    make_problem,
    number_issue,
    show,
)
from portal.questionnaires.engine.values import check_value, compile_regex
from portal.questionnaires.engine.vocabulary import (
    CHOICE_TYPES,
    CONDITION_FIELDS,
    FILE_TYPES,
    MAX_FILES,
    MAX_ID_LENGTH,
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_REGEX_LENGTH,
    MAX_REGEX_PROGRAM,
    NO_ANSWER_TYPES,
    NO_DEFAULT_TYPES,
    OPERATORS,
    QUESTION_FIELDS,
    RANGE_TYPES,
    TEXT_TYPES,
    VALIDATION_FIELDS,
    is_int,
    json_kind,
)


@dataclass
class Entry:
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


class FieldChecks:
    """The checks of one question's fields; each problem is added to `self.problems`."""

    problems: list[Problem]

    def flag(self, at: Entry, key: str, code: str, reason: str, /, **params: object) -> None:
        path = join_path(at.path, key) if key else at.path
        self.problems.append(make_problem(path, at.qid, code, reason, params))

    def flag_value(self, at: Entry, key: str, issue: tuple, lead: str) -> None:
        """Flag a value's (code, reason, params), its English message led by the field's name."""
        code, reason, params = issue
        problem = make_problem(join_path(at.path, key), at.qid, code, reason, params)
        message = f"{lead} {problem.message}"
        self.problems.append(Problem(problem.path, at.qid, message, code, reason, problem.params))

    def unknown_keys(self, at: Entry, prefix: str, obj: dict, allowed: tuple) -> None:
        for key in obj:
            if key not in allowed:
                name = key if isinstance(key, str) else show(key)
                self.flag(at, join_path(prefix, key), "unknown_field", "unknown_field", name=name)

    def string(
        self, at: Entry, key: str, max_length: int, pattern: re.Pattern | None = None,
        hint: str = "id_invalid", *, required: bool = True, obj: dict | None = None,
    ) -> str | None:  # fmt: skip
        name = key.rsplit(".", 1)[-1]
        value = (at.raw if obj is None else obj).get(name)
        if value is None:
            if required:
                self.flag(at, key, "required_field", "field_required", name=name)
        elif not isinstance(value, str):
            self.flag(at, key, "field_type", "field_not_string", name=name, type=json_kind(value))
        elif required and not value.strip():
            self.flag(at, key, "required_field", "field_empty", name=name)
        elif len(value) > max_length:
            self.flag(at, key, "too_large", "field_too_long", name=name, limit=max_length)
        elif pattern is not None and not pattern.fullmatch(value):
            self.flag(at, key, "invalid_value", hint, name=name)
        else:
            return value
        return None

    def boolean(self, at: Entry, key: str) -> bool:
        value = at.raw.get(key)
        if value is None or isinstance(value, bool):
            return bool(value)
        self.flag(at, key, "field_type", "field_not_boolean", name=key)
        return False

    def only_for(self, at: Entry, key: str, types: tuple, names: str) -> bool:
        """Flag a field set on a question type it does not apply to; True when flagged."""
        if at.raw.get(key) is None or at.qtype is None or at.qtype in types:
            return False
        self.flag(
            at, key, "field_not_allowed", "field_not_for_type", name=key, types=names,
            qtype=at.qtype,
        )  # fmt: skip
        return True

    def max_files(self, entry: Entry) -> int | None:
        value = entry.raw.get("max_files")
        if value is None or self.only_for(entry, "max_files", FILE_TYPES, ", ".join(FILE_TYPES)):
            return None
        if not is_int(value):
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

    def options(self, entry: Entry) -> list | None:
        value = entry.raw.get("options")
        if value is None and entry.qtype in CHOICE_TYPES:
            self.flag(entry, "options", "options_missing", "options_missing", qtype=entry.qtype)
        if value is None or self.only_for(entry, "options", CHOICE_TYPES, "select, multiselect"):
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
                self.flag(entry, at, "field_type", "option_not_string", type=json_kind(option))
                continue
            if not option.strip():
                self.flag(entry, at, "invalid_value", "option_empty")
            elif len(option) > MAX_OPTION_LENGTH:
                self.flag(entry, at, "too_large", "option_too_long", limit=MAX_OPTION_LENGTH)
            elif option in seen:
                self.flag(entry, at, "duplicate_option", "duplicate_option", option=option)
            seen.add(option)
        return [option for option in value if isinstance(option, str)]

    def validation(self, entry: Entry) -> dict | None:
        value, qtype = entry.raw.get("validation"), entry.qtype
        if value is None:
            return None
        if not isinstance(value, dict):
            self.flag(entry, "validation", "field_type", "field_not_object", name="validation")
            return None
        self.unknown_keys(entry, "validation", value, VALIDATION_FIELDS)
        rule = dict.fromkeys(VALIDATION_FIELDS)
        for key in VALIDATION_FIELDS:
            item, at = value.get(key), f"validation.{key}"
            counts = key in ("minlength", "maxlength") or qtype == "multiselect"
            fits = RANGE_TYPES if key in ("min", "max") else TEXT_TYPES
            issue = None if key == "regex" else number_issue(item, integer=counts)
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
            elif key == "regex" and compile_regex(item)[0] is None:
                error = compile_regex(item)[1]
                self.flag(entry, at, "regex_invalid", "regex_invalid", error=error)
            elif key == "regex" and compile_regex(item)[0].programsize > MAX_REGEX_PROGRAM:
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

    def condition(self, entry: Entry) -> dict | None:
        value = entry.raw.get("visible_if")
        if value is None:
            return None
        if not isinstance(value, dict):
            self.flag(entry, "visible_if", "field_type", "field_not_object", name="visible_if")
            return None
        self.unknown_keys(entry, "visible_if", value, CONDITION_FIELDS)
        operator = value.get("operator")
        if operator is None:
            at = "visible_if.operator"
            self.flag(entry, at, "required_field", "field_required", name="operator")
        elif not isinstance(operator, str) or operator not in OPERATORS:
            self.flag(
                entry, "visible_if.operator", "operator_unknown", "operator_unknown",
                operator=operator if isinstance(operator, str) else show(operator),
                known=", ".join(OPERATORS),
            )  # fmt: skip
            operator = None
        ref = self.string(entry, "visible_if.question_id", MAX_ID_LENGTH, obj=value)
        # The value is copied only once it is known to fit (check_condition): it may be huge.
        return {"question_id": ref, "operator": operator, "value": value.get("value")}

    def formula(self, entry: Entry) -> str | None:
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
                type=json_kind(value),
            )
            return None
        try:
            entry.formula_refs = formula_references(value)
        except FormulaError as exc:
            self.flag(entry, "formula", "formula_syntax", exc.reason, **exc.params)
            return None
        return value

    def default_value(self, entry: Entry) -> object:
        value, qtype, canonical = entry.raw.get("default_value"), entry.qtype, entry.canonical
        if value is None:
            answerable = qtype not in (*NO_ANSWER_TYPES, "calculated")
            if canonical["readonly"] and canonical["required"] and answerable:
                code = "readonly_without_default"
                self.flag(entry, "default_value", code, code)
            return None
        if qtype is None:
            return None
        if qtype in NO_DEFAULT_TYPES:
            self.flag(
                entry, "default_value", "field_not_allowed", "default_not_allowed", qtype=qtype
            )
            return None
        cleaned, problems = check_value(canonical, value)
        for issue in problems:
            self.flag_value(entry, "default_value", issue, "default_value")
        return None if problems else copy.deepcopy(cleaned)
