"""The definition checker: every problem of a QuestionnaireDefinition, and its canonical form.
It walks the questions (each question's fields are `field_checks`'), then checks the
references between them and the order of their formulas."""

from __future__ import annotations

from portal.questionnaires.engine.field_checks import Entry, FieldChecks
from portal.questionnaires.engine.formula import strong_components
from portal.questionnaires.engine.messages import (
    Problem,
    join_path,
    show,
)
from portal.questionnaires.engine.values import condition_value
from portal.questionnaires.engine.vocabulary import (
    FORMULA_OPERAND_TYPES,
    ID_RE,
    MAX_GROUP_DEPTH,
    MAX_ID_LENGTH,
    MAX_LABEL_LENGTH,
    MAX_QUESTIONS,
    MAX_TITLE_LENGTH,
    MAX_UNIT_LENGTH,
    NO_ANSWER_TYPES,
    OPERATORS_BY_TYPE,
    QUESTION_FIELDS,
    QUESTION_TYPES,
    SCHEMA_VERSIONS,
    SLUG_RE,
    TOP_FIELDS,
    is_int,
    json_kind,
)


class _DefinitionChecker(FieldChecks):
    """Collects every problem of one definition while building its canonical form."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.entries: list[Entry] = []
        self.first_by_id: dict[str, int] = {}
        self.seen = 0

    def run(self, doc: object) -> dict | None:
        top = Entry(-1, "", None, doc if isinstance(doc, dict) else {})
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

    def question_list(self, at: Entry) -> list | None:
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
            at = Entry(-1, path, None, {})
            self.flag(at, "", "field_type", "question_not_object", type=json_kind(raw))
            return None
        qid = raw["id"][:MAX_ID_LENGTH] if isinstance(raw.get("id"), str) else None
        entry = Entry(len(self.entries), path, qid, raw, parent, ancestors)
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

    def check_references(self) -> None:
        for entry in self.entries:
            if entry.parent is not None:
                entry.edges.append(entry.parent)
            if entry.canonical["visible_if"] is not None:
                self.check_condition(entry)
            for ref in sorted(entry.formula_refs or ()):
                self.check_formula_ref(entry, ref)

    def check_condition(self, entry: Entry) -> None:
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
        self, entry: Entry, ref: Entry, operator: str | None, condition: dict
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

    def check_formula_ref(self, entry: Entry, ref_id: str) -> None:
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
