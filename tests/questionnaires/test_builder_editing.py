"""The builder's pure edits of a draft, and the engine helpers it relies on."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from portal.questionnaires import editing, engine
from portal.questionnaires.editing import EditError


def form(*questions: dict) -> dict:
    return {
        "schema_version": 1,
        "questionnaire_id": "laden",
        "title": "Laden",
        "activity_type": "laden",
        "questions": list(questions),
    }


def q(qid: str, qtype: str = "text", **fields: object) -> dict:
    return {"id": qid, "type": qtype, "label": f"Label {qid}", **fields}


def group(qid: str, *children: dict) -> dict:
    return q(qid, "group", questions=list(children))


def ids(doc: dict) -> list:
    """The tree's ids as nested lists: ["a", ["g", ["b"]]]."""

    def walk(items):
        return [
            [item["id"], walk(item["questions"])] if item.get("type") == "group" else item["id"]
            for item in items
        ]

    return walk(doc["questions"])


# --- engine helpers -------------------------------------------------------------------------


def test_operators_for_follow_the_checker():
    assert engine.operators_for("select") == ("eq", "neq", "empty", "not_empty", "in", "not_in")
    assert "gt" in engine.operators_for("number") and "contains" not in engine.operators_for(
        "number"
    )
    assert "contains" in engine.operators_for("multiselect")
    assert engine.operators_for("group") == engine.operators_for("info") == ()
    assert engine.operators_for("nonsense") == engine.operators_for(None) == ()


@pytest.mark.parametrize("qtype", engine.QUESTION_TYPES)
def test_every_field_fields_for_allows_passes_the_checker_and_others_do_not(qtype):
    allowed = engine.fields_for(qtype)
    samples = {
        "max_files": 2,
        "options": ["A", "B"],
        "formula": "1 + 1",
        "questions": [q("kind")],
        "validation": {
            key: 1 if key != "regex" else "x+" for key in engine.validation_keys_for(qtype)
        }
        or {"min": 1},
    }
    for name, value in samples.items():
        question = q(
            "x", qtype, **({} if qtype not in ("select", "multiselect") else {"options": ["A"]})
        )
        if qtype == "group":
            question["questions"] = [q("kind")]
        if qtype == "calculated":
            question["formula"] = "1"
        question[name] = value
        _canonical, problems = engine.check_definition(form(question))
        not_allowed = [p for p in problems if p.code == "field_not_allowed"]
        assert bool(not_allowed) == (name not in allowed), (qtype, name, problems)


def test_rename_reference_rewrites_only_that_id():
    assert engine.rename_reference("a + {a} * round(a, 1) - ab + a.b", "a", "b") == (
        "b + b * round(b, 1) - ab + a.b"
    )
    assert engine.rename_reference("gewicht - tarra", "gewicht", "gewicht-kg") == (
        "{gewicht-kg} - tarra"
    )
    assert engine.rename_reference("round(round)", "round", "r") == "round(r)"
    assert engine.rename_reference("a + 1", "a", "not") == "{not} + 1"
    assert engine.rename_reference("a + ?", "a", "b") == "a + ?"  # does not tokenize: untouched
    assert engine.rename_reference("a", "a", "no spaces") == "a"  # not an id: untouched
    assert engine.rename_reference(None, "a", "b") is None


@settings(max_examples=200, deadline=None, database=None)
@given(st.text(alphabet="ab {}()+-*/ ,.1", max_size=30))
def test_a_renamed_formula_refers_to_the_same_ids_but_one(formula):
    try:
        before = engine.formula_references(formula)
    except engine.FormulaError:
        return
    after = engine.formula_references(engine.rename_reference(formula, "a", "c"))
    assert after == {"c" if ref == "a" else ref for ref in before}


# --- paths and moves --------------------------------------------------------------------------


def test_paths_parse_and_refuse_junk():
    assert editing.parse_path("0.2.1") == (0, 2, 1)
    assert editing.parse_path("") == ()
    for junk in ("a", "1..2", "-1", "1.2.3.4.5.6.7", "99999", None, 3):
        with pytest.raises(EditError):
            editing.parse_path(junk)


def test_add_every_type_with_a_fresh_id():
    doc = form(q("tekst_1"))
    for qtype in engine.QUESTION_TYPES:
        path = editing.add_question(doc, (), qtype, "Nieuw")
        assert editing.question_at(doc, path)["type"] == qtype
    used = editing.ids_in_use(doc)
    assert len(used) == len(set(used)) == len(engine.QUESTION_TYPES) + 1
    assert "tekst_2" in used
    added = {question["type"]: question for question in doc["questions"]}
    assert added["select"]["options"] and added["group"]["questions"] == []


def test_add_into_a_group_and_not_into_a_plain_question():
    doc = form(group("g"), q("a"))
    assert editing.add_question(doc, (0,), "number", "N") == (0, 0)
    with pytest.raises(EditError, match="not_a_group"):
        editing.add_question(doc, (1,), "number", "N")


def test_step_moves():
    doc = form(q("a"), q("b"), group("g", q("c")), q("d"))
    assert editing.move(doc, (1,), "op") == (0,)
    assert ids(doc) == ["b", "a", ["g", ["c"]], "d"]
    assert editing.move(doc, (0,), "neer") == (1,)
    assert ids(doc) == ["a", "b", ["g", ["c"]], "d"]
    assert editing.move(doc, (3,), "in") == (2, 1)
    assert ids(doc) == ["a", "b", ["g", ["c", "d"]]]
    assert editing.move(doc, (2, 0), "uit") == (3,)
    assert ids(doc) == ["a", "b", ["g", ["d"]], "c"]
    for path, direction in (((0,), "op"), ((3,), "neer"), ((0,), "in"), ((1,), "uit")):
        with pytest.raises(EditError, match="cannot_move"):
            editing.move(doc, path, direction)


def test_move_to_any_place_and_never_into_itself():
    doc = form(q("a"), group("g", q("b")), group("h"))
    assert editing.move_to(doc, (0,), (1,), 1) == (0, 1)  # the group's path shifts up
    assert ids(doc) == [["g", ["b", "a"]], ["h", []]]
    assert editing.move_to(doc, (0,), (1,), 0) == (0, 0)
    assert ids(doc) == [["h", [["g", ["b", "a"]]]]]
    with pytest.raises(EditError, match="into_itself"):
        editing.move_to(doc, (0,), (0, 0), 0)
    with pytest.raises(EditError):
        editing.move_to(doc, (0,), (), 5)


def test_groups_nest_at_most_as_deep_as_the_checker_allows():
    doc = form(group("g1"))
    path = (0,)
    for level in range(2, engine.MAX_GROUP_DEPTH + 1):
        path = editing.add_question(doc, path, "group", f"G{level}")
    with pytest.raises(EditError, match="too_deep"):
        editing.add_question(doc, path, "group", "one too many")
    editing.add_question(doc, path, "text", "deepest")
    canonical, problems = engine.check_definition(doc)
    assert problems == [] and canonical


def test_remove_takes_a_group_with_its_questions_and_broken_entries_too():
    doc = form(q("a"), group("g", q("b")), "rommel")
    editing.remove_question(doc, (1,))
    editing.remove_question(doc, (1,))
    assert ids(doc) == ["a"]
    with pytest.raises(EditError):
        editing.remove_question(doc, (5,))


def test_a_negative_index_is_no_question_and_never_the_last_one():
    # The builder's views pass (-1,) for a path they could not read.
    doc = form(q("a"), group("g", q("b")), q("c"))
    before = ids(doc)
    for path in ((-1,), (1, -1), (-3,)):
        with pytest.raises(EditError, match="path"):
            editing.question_at(doc, path)
        with pytest.raises(EditError, match="path"):
            editing.remove_question(doc, path)
        with pytest.raises(EditError, match="path"):
            editing.move(doc, path, "op")
        with pytest.raises(EditError, match="path"):
            editing.move_to(doc, path, (), 0)
        with pytest.raises(EditError, match="path"):
            editing.apply_fields(doc, path, MultiDict({"velden": "label", "label": "X"}))
    with pytest.raises(EditError, match="path"):
        editing.add_question(doc, (-2,), "text", "in de groep?")
    assert ids(doc) == before


# --- fields ---------------------------------------------------------------------------------


def fields(**values) -> MultiDict:
    data = MultiDict()
    for key, value in values.items():
        key = key.replace("__", ".")
        for item in value if isinstance(value, list) else [value]:
            data.add(key, item)
    return data


def test_only_listed_fields_that_fit_the_type_are_set():
    doc = form(q("a"))
    editing.apply_fields(
        doc,
        (0,),
        fields(
            velden="label,required,unit,max_files,validation,formula",
            label="Kenteken",
            unit="kg",
            max_files="3",
            validation__regex="[A-Z]+",
            validation__maxlength="8",
            formula="1+1",
        ),
    )
    assert doc["questions"][0] == {
        "id": "a",
        "type": "text",
        "label": "Kenteken",
        "unit": "kg",
        "validation": {"regex": "[A-Z]+", "maxlength": 8},
    }


def test_an_unchecked_flag_listed_in_the_form_is_cleared():
    doc = form(q("a", required=True, readonly=True, default_value="x"))
    editing.apply_fields(doc, (0,), fields(velden="required,readonly", readonly="1"))
    assert "required" not in doc["questions"][0] and doc["questions"][0]["readonly"] is True


@pytest.mark.parametrize(
    ("qtype", "posted", "stored"),
    [
        ("number", {"default_value": "2,5"}, 2.5),
        ("integer", {"default_value": "7"}, 7),
        ("number", {"default_value": "1e999"}, "1e999"),  # not finite: the checker says so
        ("boolean", {"default_value": "ja"}, True),
        ("multiselect", {"default_value": ["A", "B"]}, ["A", "B"]),
        (
            "location",
            {"default_value.lat": "52.1", "default_value.lng": "5"},
            {"lat": 52.1, "lng": 5},
        ),
        ("text", {"default_value": ""}, None),
    ],
)
def test_default_values_are_read_by_type(qtype, posted, stored):
    extra = {"options": ["A", "B"]} if qtype == "multiselect" else {}
    doc = form(q("a", qtype, **extra))
    data = fields(velden="default_value")
    for key, value in posted.items():
        for item in value if isinstance(value, list) else [value]:
            data.add(key, item)
    editing.apply_fields(doc, (0,), data)
    assert doc["questions"][0].get("default_value") == stored


def test_changing_the_type_drops_what_does_not_fit_and_ignores_the_old_form():
    doc = form(q("a", "select", options=["A"], default_value="A", required=True))
    editing.apply_fields(
        doc,
        (0,),
        fields(
            velden="type,options,default_value,required", type="number", options="B", required="1"
        ),
    )
    assert doc["questions"][0] == {
        "id": "a",
        "type": "number",
        "label": "Label a",
        "required": True,
    }
    doc = form(group("g", q("b")))
    with pytest.raises(EditError, match="group_not_empty"):
        editing.apply_fields(doc, (0,), fields(velden="type", type="text"))


def test_visible_if_starts_on_the_nearest_earlier_question_with_a_likely_comparison():
    doc = form(q("soort", "select", options=["Leghennen", "Vleeskuikens"]), q("x"))
    editing.apply_fields(doc, (1,), fields(velden="visible_if", **{"visible_if.mode": "als"}))
    assert doc["questions"][1]["visible_if"] == {
        "question_id": "soort",
        "operator": "eq",
        "value": "Leghennen",
    }
    editing.apply_fields(
        doc,
        (1,),
        fields(
            velden="visible_if",
            **{
                "visible_if.mode": "als",
                "visible_if.question_id": "soort",
                "visible_if.operator": "in",
            },
        ),
    )
    assert doc["questions"][1]["visible_if"]["operator"] == "in"
    assert doc["questions"][1]["visible_if"]["value"] is None  # a scalar does not fit "in"
    editing.apply_fields(
        doc,
        (1,),
        fields(
            velden="visible_if",
            **{
                "visible_if.mode": "als",
                "visible_if.question_id": "soort",
                "visible_if.operator": "in",
                "visible_if.has_value": "1",
                "visible_if.value": ["Leghennen", "Vleeskuikens"],
            },
        ),
    )
    assert doc["questions"][1]["visible_if"]["value"] == ["Leghennen", "Vleeskuikens"]
    assert engine.check_definition(doc)[1] == []
    editing.apply_fields(doc, (1,), fields(velden="visible_if", **{"visible_if.mode": "altijd"}))
    assert "visible_if" not in doc["questions"][1]


def test_visible_if_values_take_the_shape_of_the_question_they_test():
    doc = form(
        q("n", "number"), q("b", "boolean"), q("m", "multiselect", options=["A", "B"]), q("x")
    )

    def condition(ref, operator, value):
        editing.apply_fields(
            doc,
            (3,),
            fields(
                velden="visible_if",
                **{
                    "visible_if.mode": "als",
                    "visible_if.question_id": ref,
                    "visible_if.operator": operator,
                },
            ),
        )
        data = fields(
            velden="visible_if",
            **{
                "visible_if.mode": "als",
                "visible_if.question_id": ref,
                "visible_if.operator": operator,
            },
        )
        data.add("visible_if.has_value", "1")
        for item in value if isinstance(value, list) else [value]:
            data.add("visible_if.value", item)
        editing.apply_fields(doc, (3,), data)
        return doc["questions"][3]["visible_if"]["value"]

    assert condition("n", "gt", "12,5") == 12.5
    assert condition("n", "in", "1; 2") == [1, 2]
    assert condition("b", "eq", "nee") is False
    assert condition("m", "contains", "B") == "B"
    assert condition("m", "eq", ["A", "B"]) == ["A", "B"]
    assert engine.check_definition(doc)[1] == []


def test_a_new_id_is_followed_by_conditions_and_formulas():
    doc = form(
        q("gewicht", "number"),
        q("toon", visible_if={"question_id": "gewicht", "operator": "gt", "value": 1}),
        q("netto", "calculated", formula="gewicht * 2"),
    )
    changed = editing.apply_fields(doc, (0,), fields(velden="id", id="gewicht-kg"))
    editing.follow_changes(doc, (0,), changed)
    assert doc["questions"][1]["visible_if"]["question_id"] == "gewicht-kg"
    assert doc["questions"][2]["formula"] == "{gewicht-kg} * 2"
    # Renaming onto an id in use changes no reference.
    changed = editing.apply_fields(doc, (0,), fields(velden="id", id="toon"))
    editing.follow_changes(doc, (0,), changed)
    assert doc["questions"][2]["formula"] == "{gewicht-kg} * 2"


def test_a_renamed_option_is_followed_by_the_default_and_conditions():
    doc = form(
        q("soort", "select", options=["Leghen", "Kuiken"], default_value="Leghen"),
        q("x", visible_if={"question_id": "soort", "operator": "in", "value": ["Leghen"]}),
    )
    changed = editing.apply_fields(
        doc, (0,), fields(velden="options", options=["Leghennen", "Kuiken"])
    )
    editing.follow_changes(doc, (0,), changed)
    assert doc["questions"][0]["default_value"] == "Leghennen"
    assert doc["questions"][1]["visible_if"]["value"] == ["Leghennen"]


def test_option_edits():
    question = q("s", "select", options=["A", "B"])
    assert editing.option_edit(question, "toevoegen", -1) == 2
    assert question["options"] == ["A", "B", ""]  # empty: the author types the option
    assert editing.option_edit(question, "toevoegen", -1) == 2  # the empty one, not another
    assert question["options"] == ["A", "B", ""]
    assert editing.option_edit(question, "op", 2) == 1
    assert question["options"] == ["A", "", "B"]
    assert editing.option_edit(question, "neer", 0) == 1
    assert question["options"] == ["", "A", "B"]
    assert editing.option_edit(question, "verwijderen", 2) == 1
    assert question["options"] == ["", "A"]
    with pytest.raises(EditError):
        editing.option_edit(question, "op", 0)


def test_problems_are_located_at_their_question_and_field():
    doc = form(q("a"), group("g", q("b", "number", validation={"min": 5, "max": 1}), q("b")))
    doc["title"] = ""
    _canonical, problems = engine.check_definition(doc)
    located = editing.locate(problems)
    assert ("title", "required_field") in {(name, p.code) for name, p in located.general}
    assert {name for name, _ in located.at((1, 0))} == {"validation.min"}
    assert [p.code for _, p in located.at((1, 1))] == ["duplicate_id"]
    assert located.count() == len(problems)


def test_tidy_keeps_the_meaning():
    canonical, _ = engine.check_definition(form(q("a", "number", validation={"min": 1}), q("b")))
    tidy = editing.tidy(canonical)
    assert tidy["questions"][1] == {"id": "b", "type": "text", "label": "Label b"}
    assert engine.check_definition(tidy)[0] == canonical


def test_counting_and_depth_are_iterative():
    nested: object = []
    for _ in range(5000):
        nested = [nested]
    assert editing.json_depth(nested) == 5001
    assert editing.count_questions(form(*(q(f"q{i}") for i in range(600)))) > editing.MAX_NODES
