"""The definition checker: every problem of a QuestionnaireDefinition, and its canonical form."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from portal.questionnaires.engine.formula import formula_references, strong_components
from portal.questionnaires.engine.messages import (
    FormulaError,
    Problem,
    join_path,
    make_problem,
    number_issue,
    show,
)
from portal.questionnaires.engine.values import check_value, compile_regex, condition_value
from portal.questionnaires.engine.vocabulary import (
    CHOICE_TYPES,
    CONDITION_FIELDS,
    FILE_TYPES,
    FORMULA_OPERAND_TYPES,
    ID_RE,
    MAX_FILES,
    MAX_GROUP_DEPTH,
    MAX_ID_LENGTH,
    MAX_LABEL_LENGTH,
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_QUESTIONS,
    MAX_REGEX_LENGTH,
    MAX_REGEX_PROGRAM,
    MAX_TITLE_LENGTH,
    MAX_UNIT_LENGTH,
    NO_ANSWER_TYPES,
    NO_DEFAULT_TYPES,
    OPERATORS,
    OPERATORS_BY_TYPE,
    QUESTION_FIELDS,
    QUESTION_TYPES,
    RANGE_TYPES,
    SCHEMA_VERSIONS,
    SLUG_RE,
    TEXT_TYPES,
    TOP_FIELDS,
    VALIDATION_FIELDS,
    is_int,
    json_kind,
)


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
        path = join_path(at.path, key) if key else at.path
        self.problems.append(make_problem(path, at.qid, code, reason, params))

    def flag_value(self, at: _Entry, key: str, issue: tuple, lead: str) -> None:
        """Flag a value's (code, reason, params), its English message led by the field's name."""
        code, reason, params = issue
        problem = make_problem(join_path(at.path, key), at.qid, code, reason, params)
        message = f"{lead} {problem.message}"
        self.problems.append(Problem(problem.path, at.qid, message, code, reason, problem.params))

    def run(self, doc: object) -> dict | None:
        top = _Entry(-1, "", None, doc if isinstance(doc, dict) else {})
        if not isinstance(doc, dict):
            self.flag(top, "", "field_type", "definition_not_object", type=json_kind(doc))
            return None
        self.unknown_keys(top, "", doc, TOP_FIELDS)
        version = doc.get("schema_version")
        if version is None:
            self.flag(
                top, "schema_version", "required_field", "field_required", name="schema_version"
            )
        elif not is_int(version) or version not in SCHEMA_VERSIONS:
            known = ", ".join(map(str, sorted(SCHEMA_VERSIONS)))
            self.flag(
                top, "schema_version", "schema_version", "schema_version_unknown",
                version=show(version), known=known,
            )  # fmt: skip
        slug = "slug_invalid"
        canonical = {
            "schema_version": version,
            "questionnaire_id": self.string(top, "questionnaire_id", MAX_ID_LENGTH),
            "title": self.string(top, "title", MAX_TITLE_LENGTH),
            "activity_type": self.string(top, "activity_type", 64, SLUG_RE, slug),
            "questions": self.question_list(top),
        }
        self.check_references()
        self.check_cycles()
        return canonical

    def unknown_keys(self, at: _Entry, prefix: str, obj: dict, allowed: tuple) -> None:
        for key in obj:
            if key not in allowed:
                name = key if isinstance(key, str) else show(key)
                self.flag(at, join_path(prefix, key), "unknown_field", "unknown_field", name=name)

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
        elif not value:
            # A questionnaire without a question asks the driver nothing: not publishable.
            self.flag(at, "questions", "required_field", "questionnaire_needs_question")
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
                path = f"{join_path(at.path, 'questions')}[{position}]"
                question = self.question(raw, path, at.index if in_group else None, ancestors)
                if question is not None:
                    result.append(question)
            return result
        return [] if in_group else None

    def question(self, raw: object, path: str, parent: int | None, ancestors: tuple) -> dict | None:
        if not isinstance(raw, dict):
            at = _Entry(-1, path, None, {})
            self.flag(at, "", "field_type", "question_not_object", type=json_kind(raw))
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
                entry, "type", "field_type", "field_not_string", name="type", type=json_kind(qtype)
            )
        elif qtype not in QUESTION_TYPES:
            self.flag(entry, "type", "type_unknown", "type_unknown", qtype=qtype)
        entry.qtype = qtype if isinstance(qtype, str) and qtype in QUESTION_TYPES else None
        canonical = entry.canonical
        canonical["id"] = self.string(entry, "id", MAX_ID_LENGTH, ID_RE)
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
            if canonical[flag] and entry.qtype in NO_ANSWER_TYPES:
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

    def options(self, entry: _Entry) -> list | None:
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

    def validation(self, entry: _Entry) -> dict | None:
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

    def condition(self, entry: _Entry) -> dict | None:
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
                type=json_kind(value),
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
        if ref.qtype in NO_ANSWER_TYPES:
            at, code = "visible_if.question_id", "reference_type"
            self.flag(entry, at, code, code, id=ref.qid, qtype=ref.qtype)
        elif operator not in OPERATORS_BY_TYPE[ref.qtype]:
            fitting = ", ".join(OPERATORS_BY_TYPE[ref.qtype])
            self.flag(
                entry, "visible_if.operator", "operator_type", "operator_type", operator=operator,
                qtype=ref.qtype, fitting=fitting,
            )  # fmt: skip
        else:
            value, problem = condition_value(ref.canonical, operator, condition["value"])
            if problem is not None:
                self.flag_value(entry, "visible_if.value", problem, "value")
            condition["value"] = value

    def check_formula_ref(self, entry: _Entry, ref_id: str) -> None:
        target = self.first_by_id.get(ref_id)
        if target is None:
            self.flag(entry, "formula", "formula_unknown_id", "formula_unknown_id", id=ref_id)
        elif self.entries[target].qtype not in (*FORMULA_OPERAND_TYPES, None):
            qtype = self.entries[target].qtype
            self.flag(entry, "formula", "formula_type", "formula_type", id=ref_id, qtype=qtype)
        else:
            entry.edges.append(target)

    def check_cycles(self) -> None:
        for component in strong_components([entry.edges for entry in self.entries]):
            if len(component) == 1 and component[0] not in self.entries[component[0]].edges:
                continue
            members = [self.entries[index] for index in sorted(component)]
            names = ", ".join(show(member.qid) for member in members)
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
