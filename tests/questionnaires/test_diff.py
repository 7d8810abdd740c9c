"""Comparing two questionnaire definitions: questions added, removed and changed by id."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from portal.questionnaires.diff import FieldChange, compare, flatten


def form(*questions: dict, **top: object) -> dict:
    doc = {
        "schema_version": 1,
        "questionnaire_id": "laden",
        "title": "Laden",
        "activity_type": "laden",
        "questions": list(questions),
    }
    doc.update(top)
    return doc


def q(qid: str, qtype: str = "text", **fields: object) -> dict:
    return {"id": qid, "type": qtype, "label": f"Label {qid}", **fields}


def group(qid: str, *children: dict, **fields: object) -> dict:
    return q(qid, "group", questions=list(children), **fields)


def test_identical_definitions_have_no_differences():
    doc = form(q("a"), group("g", q("b"), q("c")))
    result = compare(doc, copy.deepcopy(doc))
    assert result.is_empty
    assert not result.added and not result.removed and not result.changed
    assert {item.status for item in result.questions.values()} == {"same"}


def test_added_and_removed_questions_are_found_at_any_depth():
    old = form(q("a"), group("g", q("b"), q("weg")))
    new = form(q("a"), group("g", q("b"), q("nieuw")), q("ook_nieuw"))
    result = compare(old, new)
    assert [item.key for item in result.added] == ["nieuw", "ook_nieuw"]
    assert [item.key for item in result.removed] == ["weg"]
    assert result.added[0].new.parent == "g"
    assert result.removed[0].old.depth == 1
    assert not result.changed


def test_changed_fields_are_listed_one_by_one_with_old_and_new_value():
    old = form(q("gewicht", "number", unit="kg", validation={"min": 0, "max": 100}))
    new = form(
        q(
            "gewicht",
            "number",
            label="Gewicht vol",
            unit="ton",
            required=True,
            validation={"min": 0, "max": 60},
            visible_if=None,
        )
    )
    (item,) = result_changed = compare(old, new).changed
    assert result_changed
    assert item.changes == (
        FieldChange("label", "Label gewicht", "Gewicht vol"),
        FieldChange("required", False, True),
        FieldChange("unit", "kg", "ton"),
        FieldChange("validation.max", 100, 60),
    )


def test_absent_null_and_false_flags_are_the_same():
    old = form(q("a", required=False, readonly=None, unit=None))
    new = form(q("a"))
    assert compare(old, new).is_empty


def test_true_is_not_one_but_one_is_one_point_zero():
    old = form(q("a", "number", default_value=1))
    assert compare(old, form(q("a", "number", default_value=1.0))).is_empty
    changed = compare(
        form(q("a", "boolean", default_value=True)), form(q("a", "boolean", default_value=1))
    )
    assert changed.changed[0].changes == (FieldChange("default_value", True, 1),)


def test_a_question_that_moves_into_a_group_is_changed_not_removed_and_added():
    old = form(q("a"), q("b"), group("g", q("c")))
    new = form(q("a"), group("g", q("c"), q("b")))
    result = compare(old, new)
    assert not result.added and not result.removed
    (item,) = result.changed
    assert item.key == "b"
    assert item.changes == (FieldChange("group", None, "g"),)


def test_a_question_out_of_a_group_names_the_top_level():
    result = compare(form(group("g", q("c"), q("d"))), form(group("g", q("c")), q("d")))
    assert result.changed[0].changes == (FieldChange("group", "g", None),)


def test_reordering_marks_only_the_questions_that_moved():
    old = form(q("a"), q("b"), q("c"), q("d"))
    new = form(q("a"), q("c"), q("d"), q("b"))
    result = compare(old, new)
    assert [item.key for item in result.changed] == ["b"]
    assert result.changed[0].changes == (FieldChange("position", 2, 4),)


def test_an_insertion_does_not_count_as_moving_everything_after_it():
    old = form(q("a"), q("b"), q("c"))
    new = form(q("nieuw"), q("a"), q("b"), q("c"))
    result = compare(old, new)
    assert [item.key for item in result.added] == ["nieuw"]
    assert not result.changed


def test_title_and_activity_type_changes_are_listed():
    result = compare(form(q("a")), form(q("a"), title="Mest laden", activity_type="mest_laden"))
    assert set(result.top) == {
        FieldChange("title", "Laden", "Mest laden"),
        FieldChange("activity_type", "laden", "mest_laden"),
    }
    assert not result.is_empty


def test_visible_if_and_options_changes_are_per_field():
    old = form(
        q("soort", "select", options=["A", "B"]),
        q("x", visible_if={"question_id": "soort", "operator": "eq", "value": "A"}),
    )
    new = form(
        q("soort", "select", options=["A", "B", "C"]),
        q("x", visible_if={"question_id": "soort", "operator": "in", "value": ["A", "C"]}),
    )
    changes = {item.key: item.changes for item in compare(old, new).changed}
    assert changes["soort"] == (FieldChange("options", ["A", "B"], ["A", "B", "C"]),)
    assert changes["x"] == (
        FieldChange("visible_if.operator", "eq", "in"),
        FieldChange("visible_if.value", "A", ["A", "C"]),
    )


def test_a_draft_with_problems_still_compares():
    old = form(q("a"), q("a"), "not a question", {"type": "text"})
    new = {"questions": [q("a"), 5, None]}
    result = compare(old, new)
    assert result.status_of("a") == "same"
    # The second "a" and the entries without an id are keyed by their place.
    assert {item.key for item in result.removed} == {"#3"}
    assert result.status_of("#1") == "changed"
    assert compare(None, "x").is_empty


def test_flatten_gives_document_order_with_paths():
    nodes = flatten(form(q("a"), group("g", q("b"), group("h", q("c"))), q("d")))
    assert [(n.key, n.path, n.parent, n.depth) for n in nodes] == [
        ("a", (0,), None, 0),
        ("g", (1,), None, 0),
        ("b", (1, 0), "g", 1),
        ("h", (1, 1), "g", 1),
        ("c", (1, 1, 0), "h", 2),
        ("d", (2,), None, 0),
    ]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=20,
)
QUESTION = st.fixed_dictionaries(
    {"id": st.sampled_from(["a", "b", "c", "d"]), "type": st.sampled_from(["text", "group"])},
    optional={
        "label": st.text(max_size=5),
        "required": st.booleans(),
        "questions": st.lists(JSON, max_size=3),
    },
)


@settings(max_examples=150, deadline=None, database=None)
@given(st.lists(QUESTION | JSON, max_size=6), st.lists(QUESTION | JSON, max_size=6))
def test_any_two_documents_compare_without_error_and_a_document_equals_itself(old, new):
    result = compare({"questions": old}, {"questions": new})
    assert all(
        item.status in ("added", "removed", "changed", "same") for item in result.questions.values()
    )
    assert compare({"questions": new}, {"questions": copy.deepcopy(new)}).is_empty
