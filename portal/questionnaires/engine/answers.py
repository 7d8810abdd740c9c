"""Answers to a definition: which questions are visible, formulas' values, and the answer check."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from portal.questionnaires.engine.evaluation import evaluate_formula
from portal.questionnaires.engine.formula import formula_references, strong_components
from portal.questionnaires.engine.messages import FormulaError, Problem, make_problem, show
from portal.questionnaires.engine.values import check_value, condition_holds, is_empty
from portal.questionnaires.engine.vocabulary import MAX_ID_LENGTH, NO_ANSWER_TYPES


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
    for component in strong_components(edges):
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
        if target is None or not condition_holds(condition, ref_type, state.values.get(ref)):
            return
    state.visible[index] = True
    if qtype in NO_ANSWER_TYPES:
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
        value, problems = (None, []) if is_empty(raw) else check_value(question, raw)
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
        problems.append(make_problem("answers", None, "value_type", "answers_not_object", {}))
        answers = {}
    state = _run(definition, answers)
    cleaned: dict[str, object] = {}
    for index, (question, _) in enumerate(state.nodes):
        if not state.visible[index]:
            continue
        qid, where = question["id"], f"answers.{question['id']}"
        for code, reason, params in state.problems.get(index, ()):
            problems.append(make_problem(where, qid, code, reason, params))
        if qid in state.values:
            cleaned[qid] = state.values[qid]
        elif (
            final
            and question.get("required")
            and question.get("type") not in NO_ANSWER_TYPES
            and index not in state.problems
        ):
            why = "not_calculated" if question.get("type") == "calculated" else "required"
            problems.append(make_problem(where, qid, "required", why, {}))
    for key in answers:
        if key not in state.by_id:
            name = key[:MAX_ID_LENGTH] if isinstance(key, str) else show(key)
            qid = name if isinstance(key, str) else None
            problems.append(
                make_problem(
                    f"answers.{name}", qid, "unknown_question", "unknown_question", {"id": key}
                )
            )
    return cleaned, problems
