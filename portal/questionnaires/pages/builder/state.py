"""What the editor shows of a draft (EditorState), the fields it offers per type, a formula's
outcome under its field, and the preview's context: the form run through the engine."""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson

from portal.errors import NotFound
from portal.problems import say as say_problem
from portal.question_labels import NEW_LABELS
from portal.questionnaires import diff as differ
from portal.questionnaires import editing, engine, service
from portal.questionnaires.pages.kit import activity_suggestions, labels_context, user_names
from portal.questionnaires.wording import answer_problem_text, input_text, problem_text
from portal.web.kit import current_carrier_id


@dataclass
class EditorState:
    """Everything the editor shows of a draft."""

    questionnaire_id: str
    draft: object
    doc: dict
    items: list
    flat: list
    canonical: dict | None
    located: editing.Located
    earlier: dict = field(default_factory=dict)
    pool: list = field(default_factory=list)
    refs: dict = field(default_factory=dict)
    operands: list = field(default_factory=list)
    editor_name: str = ""
    basis: int | None = None

    def text(self, key: str) -> str:
        value = self.doc.get(key)
        return value if isinstance(value, str) else ""

    def candidates(self, item) -> list:
        return self.pool[: self.earlier.get(item.path, 0)]

    def ref_of(self, item) -> dict | None:
        condition = item.question.get("visible_if")
        ref = condition.get("question_id") if isinstance(condition, dict) else None
        return self.refs.get(ref) if isinstance(ref, str) else None

    def problems_at(self, item) -> list[tuple[str, str]]:
        return [(name, problem_text(name, p)) for name, p in self.located.at(item.path)]

    def invalid(self, item, *names: str) -> bool:
        found = self.located.fields_at(item.path)
        return any(name in found or any(f.startswith(name + ".") for f in found) for name in names)

    def fixable(self, item) -> bool:
        codes = {p.code for _n, p in self.located.at(item.path)}
        return bool(codes & {"unknown_field", "field_not_allowed"})

    def general_problems(self) -> list[tuple[str, str]]:
        return [(name, problem_text(name, p)) for name, p in self.located.general]

    def summary(self) -> list[tuple[object, str, str]]:
        """(item or None, field, text) of every problem, in document order."""
        result = [(None, name, text) for name, text in self.general_problems()]
        for item in self.flat:
            result += [(item, name, text) for name, text in self.problems_at(item)]
        return result


def load_state(questionnaire_id: str, draft) -> EditorState:
    doc = service.draft_document(draft)
    canonical, problems = engine.check_definition(doc)
    items = editing.tree(doc)
    flat = editing.walk(items)
    state = EditorState(
        questionnaire_id=questionnaire_id,
        draft=draft,
        doc=doc,
        items=items,
        flat=flat,
        canonical=canonical,
        located=editing.locate(problems),
    )
    seen: set[str] = set()
    for item in flat:
        state.earlier[item.path] = len(state.pool)
        if item.qid and item.qid not in seen and item.qtype not in (None, *engine.NO_ANSWER_TYPES):
            state.pool.append(item)
        if item.qid and item.qid not in seen:
            state.refs[item.qid] = item.question
            if item.qtype in engine.FORMULA_OPERAND_TYPES:
                state.operands.append(item.qid)
        if item.qid:
            seen.add(item.qid)
    state.editor_name = user_names(draft.gewijzigd_door).get(draft.gewijzigd_door, "")
    if draft.basis_revisie_id:
        try:
            basis = service.get_revision(
                carrier_id=current_carrier_id(), revision_id=draft.basis_revisie_id
            )
            state.basis = basis.revisie
        except NotFound:
            state.basis = None
    return state


def editor_context(state: EditorState, **extra) -> dict:
    return {
        "s": state,
        "questionnaire_id": state.questionnaire_id,
        "suggestions": activity_suggestions(),
        "new_labels": NEW_LABELS,
        "path_text": editing.path_text,
        "dom_id": editing.dom_id,
        "fields_for": engine.fields_for,
        "validation_keys_for": engine.validation_keys_for,
        "operators_for": ui_operators,
        "shown_fields": shown_fields,
        "formula_outcome": formula_outcome,
        **labels_context(),
        **extra,
    }


def shown_fields(qtype: str | None) -> set[str]:
    """The fields the editor offers for a question of this type (a subset of what fits)."""
    shown = {"id", "type", "label", "visible_if"}
    if qtype is None:
        return shown
    if qtype not in engine.NO_ANSWER_TYPES:
        shown.add("required")
    if qtype not in engine.NO_DEFAULT_TYPES:
        shown |= {"readonly", "default_value"}
    if qtype in (*engine.NUMERIC_TYPES, "calculated"):
        shown.add("unit")
    by_type = {"max_files", "options", "validation", "formula"}
    return shown | (set(engine.fields_for(qtype)) & by_type)


def formula_outcome(formula: object, refs: dict) -> dict:
    """What the formula field says under it: the parser's error, or the ids it uses."""
    outcome = {"error": None, "uses": [], "unknown": [], "unfit": [], "empty": False}
    if not isinstance(formula, str) or not formula.strip():
        outcome["empty"] = True
        return outcome
    try:
        used = sorted(engine.formula_references(formula))
    except engine.FormulaError as exc:
        outcome["error"] = say_problem(exc.reason, exc.params, str(exc))
        return outcome
    outcome["uses"] = used
    outcome["unknown"] = [ref for ref in used if ref not in refs]
    outcome["unfit"] = [
        ref
        for ref in used
        if ref in refs and refs[ref].get("type") not in engine.FORMULA_OPERAND_TYPES
    ]
    return outcome


def ui_operators(ref: dict | None, current: str | None = None) -> list[str]:
    """The comparisons the visible_if editor offers for a referenced question."""
    rtype = ref.get("type") if ref else None
    operators = list(engine.operators_for(rtype))
    if rtype in (*engine.FILE_TYPES, "location"):
        # Comparing file ids or coordinates by value means nothing to an author.
        operators = ["not_empty", "empty"]
    if current and current not in operators:
        operators.append(current)
    return operators


def display_value(question: dict, value: object) -> object:
    """A JSON answer as what its input shows."""
    qtype = question.get("type")
    if value is None:
        return [] if qtype == "multiselect" else ""
    if qtype == "multiselect":
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
    if qtype == "location" and isinstance(value, dict):
        return {"lat": input_text(value.get("lat")), "lng": input_text(value.get("lng"))}
    return input_text(value)


def preview_context(state: EditorState, form) -> dict:
    """The form as the driver sees it, run through the same engine as the server's check."""
    definition = state.canonical
    if definition is None:
        return {"preview": None}
    nodes = differ.flatten(definition)
    answers, raw = preview_answers(nodes, form)
    # Once checked, the preview stays checked while the author corrects answers (each change
    # shows the verdict again), until "Opnieuw beginnen".
    final = (
        form is not None
        and not form.get("leegmaken")
        and "1"
        in (
            form.get("controleer"),
            form.get("gecontroleerd"),
        )
    )
    cleaned, problems = engine.validate_answers(definition, answers, final=final)
    visible = engine.visible_questions(definition, answers)
    by_question: dict[str, list[str]] = {}
    questions = {node.question.get("id"): node.question for node in nodes}
    for problem in problems:
        if problem.question_id in questions:
            text = answer_problem_text(questions[problem.question_id], problem)
            by_question.setdefault(problem.question_id, []).append(text)
    return {
        "preview": {
            "items": editing.tree(definition),
            "visible": visible,
            "raw": raw,
            "cleaned": cleaned,
            "problems": by_question,
            "final": final,
            "problem_count": sum(len(v) for v in by_question.values()),
            "shown": ",".join(
                node.question["id"] for node in nodes if node.question.get("id") in visible
            ),
            "cleaned_json": orjson.dumps(cleaned, option=orjson.OPT_INDENT_2).decode(),
        }
    }


def preview_answers(nodes, form) -> tuple[dict, dict]:
    """The preview's answers (JSON values) and what its inputs show: what the author typed
    into the questions shown, else (and after "Opnieuw beginnen") the default values."""
    shown = set(form.get("getoond", "").split(",")) if form is not None else set()
    answers: dict = {}
    raw: dict = {}
    for node in nodes:
        question = node.question
        qid, qtype = question.get("id"), question.get("type")
        if qtype in engine.NO_DEFAULT_TYPES:  # no input: nothing to answer
            continue
        if question.get("readonly"):
            raw[qid] = display_value(question, question.get("default_value"))
            continue
        name = "a-" + qid
        if form is not None and qid in shown and not form.get("leegmaken"):
            value = editing.answer_value(question, form, name)
            raw[qid] = typed_input(qtype, form, name)
        else:
            value = question.get("default_value")
            raw[qid] = display_value(question, value)
        if value is not None:
            answers[qid] = value
    return answers, raw


def typed_input(qtype: str | None, form, name: str) -> object:
    """What the author typed into a preview's input, as its input shows it again."""
    if qtype == "multiselect":
        return form.getlist(name)
    if qtype == "location":
        return {"lat": form.get(name + ".lat", ""), "lng": form.get(name + ".lng", "")}
    return form.get(name, "")
