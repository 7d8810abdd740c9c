"""The questionnaire engine: definition checks, formulas, visibility and answer validation."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from portal.questionnaires.engine import (
    OPERATORS,
    QUESTION_FIELDS,
    QUESTION_TYPES,
    SCHEMA_VERSIONS,
    FormulaError,
    Problem,
    check_definition,
    evaluate_formula,
    formula_references,
    parse_formula,
    validate_answers,
    visible_questions,
)

BOUNDED = settings(max_examples=200, deadline=None, database=None)
FILE_A = "0f8fad5b-d9cb-469f-a165-70867728950e"
FILE_B = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def form(*questions: dict, **top: object) -> dict:
    doc = {
        "schema_version": 1,
        "questionnaire_id": "laden-check",
        "title": "Laadcontrole",
        "activity_type": "laden",
        "questions": list(questions),
    }
    doc.update(top)
    return doc


def q(qid: str, qtype: str = "text", **fields: object) -> dict:
    return {"id": qid, "type": qtype, "label": f"Label of {qid}", **fields}


def accepted(doc: object) -> dict:
    canonical, problems = check_definition(doc)
    assert problems == [], problems
    assert canonical is not None
    return canonical


def problems_of(doc: object) -> set[tuple[str, str]]:
    """(path, code) of every problem; the canonical form must then be None."""
    canonical, problems = check_definition(doc)
    assert canonical is None and problems
    return {(p.path, p.code) for p in problems}


def codes_of(doc: object) -> set[str]:
    return {code for _, code in problems_of(doc)}


RICH = form(
    q("kenteken", "barcode", required=True, validation={"minlength": 4, "regex": "[A-Z0-9-]+"}),
    q("soort", "select", options=["koel", "droog"], required=True, default_value="droog"),
    q("extra", "multiselect", options=["a", "b", "c"], validation={"min": 1, "max": 2}),
    q("gewicht", "number", unit="kg", validation={"min": 0, "max": 40000}),
    q("pallets", "integer", default_value=10),
    q("ok", "boolean"),
    q("totaal", "calculated", formula="gewicht * pallets"),
    q("datum", "date", visible_if={"question_id": "soort", "operator": "eq", "value": "koel"}),
    q("tijd", "time"),
    q("moment", "datetime"),
    q("foto", "photo", max_files=2),
    q("handtekening", "signature"),
    q("plek", "location"),
    q(
        "koeling",
        "group",
        visible_if={"question_id": "soort", "operator": "eq", "value": "koel"},
        questions=[
            q("temp", "number", required=True, validation={"min": -30, "max": 30}),
            q(
                "uitleg",
                "textarea",
                visible_if={"question_id": "temp", "operator": "gt", "value": 7},
            ),
        ],
    ),
    q("let_op", "info"),
    q("scan", "document_scan", max_files=1, readonly=False),
)


# ------------------------------------------------------------------------------- public constants


def test_public_constants_match_the_contract():
    assert sorted(SCHEMA_VERSIONS) == [1]
    assert len(QUESTION_TYPES) == 18 and "document_scan" in QUESTION_TYPES
    assert len(OPERATORS) == 11
    assert QUESTION_FIELDS[0] == "id" and QUESTION_FIELDS[-1] == "formula"
    assert len(QUESTION_FIELDS) == 13


# --------------------------------------------------------------------------------- canonical form


def test_a_valid_definition_is_accepted_in_canonical_form():
    canonical = accepted(form(q("naam")))
    assert list(canonical) == [
        "schema_version", "questionnaire_id", "title", "activity_type", "questions",
    ]  # fmt: skip
    question = canonical["questions"][0]
    assert tuple(question) == QUESTION_FIELDS
    assert question["required"] is False and question["readonly"] is False
    assert question["questions"] is None and question["visible_if"] is None


def test_canonical_groups_and_rules_carry_every_seed_field():
    canonical = accepted(RICH)
    group = next(x for x in canonical["questions"] if x["id"] == "koeling")
    assert isinstance(group["questions"], list)
    assert all(tuple(child) == QUESTION_FIELDS for child in group["questions"])
    assert group["questions"][0]["validation"] == {
        "min": -30, "max": 30, "minlength": None, "maxlength": None, "regex": None,
    }  # fmt: skip
    assert group["visible_if"] == {"question_id": "soort", "operator": "eq", "value": "koel"}


def test_empty_visible_if_value_is_canonicalised_to_null():
    canonical = accepted(form(q("a"), q("b", visible_if={"question_id": "a", "operator": "empty"})))
    assert canonical["questions"][1]["visible_if"]["value"] is None


def test_an_all_null_validation_is_canonicalised_to_null():
    canonical = accepted(form(q("a", validation={})))
    assert canonical["questions"][0]["validation"] is None


def test_the_canonical_form_shares_nothing_with_the_input():
    doc = form(q("m", "multiselect", options=["x", "y"], default_value=["x"]))
    canonical = accepted(doc)
    doc["questions"][0]["options"].append("z")
    doc["questions"][0]["default_value"].append("y")
    assert canonical["questions"][0]["options"] == ["x", "y"]
    assert canonical["questions"][0]["default_value"] == ["x"]


def test_the_canonical_form_is_a_fixed_point_and_survives_json():
    canonical = accepted(RICH)
    assert check_definition(canonical) == (canonical, [])
    assert check_definition(json.loads(json.dumps(canonical))) == (canonical, [])


def test_problems_are_frozen_dataclasses_with_question_ids():
    _, problems = check_definition(form(q("a", "number", validation={"min": 5, "max": 2})))
    assert problems == [
        Problem(
            "questions[0].validation.min",
            "a",
            "min (5) is greater than max (2)",
            "min_gt_max",
            "min_gt_max",
        )
    ]
    assert problems[0].params == {"low": "min", "low_value": 5, "high": "max", "high_value": 2}
    with pytest.raises(AttributeError):
        problems[0].code = "x"  # type: ignore[misc]


def test_every_problem_is_reported_not_just_the_first():
    doc = form(q("a", "number", validation={"min": 5, "max": 2}), q("a", "select"), title="")
    assert problems_of(doc) == {
        ("title", "required_field"),
        ("questions[0].validation.min", "min_gt_max"),
        ("questions[1].id", "duplicate_id"),
        ("questions[1].options", "options_missing"),
    }


# -------------------------------------------------------------------------------------- top level


@pytest.mark.parametrize("doc", [None, [], "form", 1, True, 1.5])
def test_a_definition_that_is_not_an_object_is_refused(doc):
    assert problems_of(doc) == {("", "field_type")}


@pytest.mark.parametrize("version", [2, 0, "1", True, 1.0, None])
def test_an_unknown_or_mistyped_schema_version_is_refused(version):
    codes = codes_of(form(q("a"), schema_version=version))
    assert codes == {"required_field" if version is None else "schema_version"}


@pytest.mark.parametrize("key", ["questionnaire_id", "title", "activity_type"])
@pytest.mark.parametrize(
    ("value", "code"),
    [(None, "required_field"), ("", "required_field"), ("  ", "required_field"),
     (5, "field_type"), (["x"], "field_type")],
)  # fmt: skip
def test_top_level_strings_are_required_and_non_empty(key, value, code):
    assert problems_of(form(q("a"), **{key: value})) == {(key, code)}


def test_a_too_long_questionnaire_id_is_refused():
    assert problems_of(form(q("a"), questionnaire_id="x" * 101)) == {
        ("questionnaire_id", "too_large")
    }


@pytest.mark.parametrize("slug", ["Laden", "laden vee", "laden!", "x" * 65])
def test_activity_type_must_be_a_slug(slug):
    assert codes_of(form(q("a"), activity_type=slug)) <= {"invalid_value", "too_large"}


def test_activity_type_slug_with_digits_dash_and_underscore_is_accepted():
    accepted(form(q("a"), activity_type="koel_transport-2"))


def test_questions_must_be_a_list():
    assert problems_of(form(questions={"a": 1})) == {("questions", "field_type")}
    assert problems_of({**form(), "questions": None}) == {("questions", "required_field")}


def test_an_empty_questionnaire_is_refused_it_asks_the_driver_nothing():
    assert problems_of(form()) == {("questions", "required_field")}
    assert check_definition(form())[1][0].reason == "questionnaire_needs_question"


def test_an_unknown_top_level_field_is_refused():
    assert problems_of(form(q("a"), extra=1)) == {("extra", "unknown_field")}


# -------------------------------------------------------------------------------------- questions


@pytest.mark.parametrize("item", [None, "a", 3, ["a"]])
def test_a_question_must_be_an_object(item):
    assert problems_of(form(item)) == {("questions[0]", "field_type")}


@pytest.mark.parametrize("qid", ["", "met spatie", "é", "x" * 101, "a/b"])
def test_a_question_id_outside_the_allowed_pattern_is_refused(qid):
    assert codes_of(form(q(qid))) <= {"invalid_value", "required_field", "too_large"}


@pytest.mark.parametrize("qid", ["a", "A.b-c_9", "9", "x" * 100])
def test_a_question_id_inside_the_allowed_pattern_is_accepted(qid):
    accepted(form(q(qid)))


def test_a_non_string_question_id_is_refused():
    assert problems_of(form(q(5))) == {("questions[0].id", "field_type")}  # type: ignore[arg-type]


def test_duplicate_ids_are_refused_across_nesting():
    doc = form(q("a"), q("g", "group", questions=[q("b"), q("a")]))
    assert problems_of(doc) == {("questions[1].questions[1].id", "duplicate_id")}


def test_an_unknown_question_type_is_refused():
    assert problems_of(form(q("a", "slider"))) == {("questions[0].type", "type_unknown")}
    assert problems_of(form(q("a", 3))) == {("questions[0].type", "field_type")}  # type: ignore[arg-type]


@pytest.mark.parametrize("qtype", QUESTION_TYPES)
def test_a_label_is_required_and_non_empty_for_every_type(qtype):
    assert ("questions[0].label", "required_field") in problems_of(form(q("a", qtype, label="")))


def test_an_unknown_question_field_is_refused():
    assert problems_of(form(q("a", hint="x"))) == {("questions[0].hint", "unknown_field")}


@pytest.mark.parametrize(
    ("field", "value"),
    [("required", "yes"), ("readonly", 1), ("unit", 5), ("label", ["x"]), ("validation", [])],
)
def test_fields_with_the_wrong_json_type_are_refused(field, value):
    assert problems_of(form(q("a", **{field: value}))) == {(f"questions[0].{field}", "field_type")}


def test_required_and_readonly_default_to_false_and_accept_null():
    question = accepted(form(q("a", required=None, readonly=None)))["questions"][0]
    assert question["required"] is False and question["readonly"] is False


@pytest.mark.parametrize("qtype", ["group", "info"])
def test_a_question_without_an_answer_cannot_be_required(qtype):
    extra = {"questions": [q("b")]} if qtype == "group" else {}
    assert "field_not_allowed" in codes_of(form(q("a", qtype, required=True, **extra)))


def test_a_required_readonly_question_needs_a_default_value():
    assert problems_of(form(q("a", readonly=True, required=True))) == {
        ("questions[0].default_value", "readonly_without_default")
    }
    accepted(form(q("a", readonly=True, required=True, default_value="vast")))


def test_unit_is_an_optional_string():
    assert accepted(form(q("a", "number", unit="kg")))["questions"][0]["unit"] == "kg"
    assert codes_of(form(q("a", "number", unit="k" * 51))) == {"too_large"}


# ---------------------------------------------------------------------------------------- options


@pytest.mark.parametrize("qtype", ["select", "multiselect"])
def test_choice_questions_need_options(qtype):
    assert problems_of(form(q("a", qtype))) == {("questions[0].options", "options_missing")}
    assert problems_of(form(q("a", qtype, options=[]))) == {
        ("questions[0].options", "options_missing")
    }


def test_options_must_be_unique_non_empty_strings():
    assert problems_of(form(q("a", "select", options=["x", "x", "", 3]))) == {
        ("questions[0].options[1]", "duplicate_option"),
        ("questions[0].options[2]", "invalid_value"),
        ("questions[0].options[3]", "field_type"),
    }
    assert problems_of(form(q("a", "select", options="x,y"))) == {
        ("questions[0].options", "field_type")
    }


def test_options_are_not_allowed_on_other_types():
    assert problems_of(form(q("a", "text", options=["x"]))) == {
        ("questions[0].options", "field_not_allowed")
    }
    accepted(form(q("a", "text", options=None)))


# ------------------------------------------------------------------------- groups, formula, files


def test_a_group_needs_a_non_empty_list_of_questions():
    for value in (None, []):
        assert problems_of(form(q("g", "group", questions=value))) == {
            ("questions[0].questions", "required_field")
        }
    assert problems_of(form(q("g", "group", questions="a"))) == {
        ("questions[0].questions", "field_type")
    }


def test_nested_questions_are_only_allowed_on_groups():
    assert problems_of(form(q("a", "text", questions=[q("b")]))) == {
        ("questions[0].questions", "field_not_allowed")
    }


def test_nested_question_problems_are_reported_at_their_path():
    doc = form(q("g", "group", questions=[q("b", "select")]))
    assert problems_of(doc) == {("questions[0].questions[0].options", "options_missing")}
    _, problems = check_definition(doc)
    assert problems[0].question_id == "b"


def test_a_calculated_question_needs_a_formula():
    assert problems_of(form(q("c", "calculated"))) == {("questions[0].formula", "required_field")}


def test_a_formula_is_only_allowed_on_calculated_questions():
    doc = form(q("n", "number", formula="1 + 1"))
    assert problems_of(doc) == {("questions[0].formula", "field_not_allowed")}


@pytest.mark.parametrize("qtype", ["photo", "signature", "document_scan"])
def test_max_files_is_accepted_on_file_questions(qtype):
    assert accepted(form(q("f", qtype, max_files=3)))["questions"][0]["max_files"] == 3


@pytest.mark.parametrize(
    ("qtype", "value", "code"),
    [
        ("text", 2, "field_not_allowed"),
        ("photo", 0, "invalid_value"),
        ("photo", 1.5, "field_type"),
        ("photo", True, "field_type"),
        ("photo", 51, "too_large"),
    ],
)
def test_max_files_is_refused_off_file_questions_or_below_one(qtype, value, code):
    assert problems_of(form(q("f", qtype, max_files=value))) == {("questions[0].max_files", code)}


# ------------------------------------------------------------------------------- validation rules


@pytest.mark.parametrize(
    ("qtype", "rule"),
    [
        ("number", {"min": -1.5, "max": 2.5}),
        ("integer", {"min": 1, "max": 1}),
        ("multiselect", {"min": 1, "max": 2}),
        ("text", {"minlength": 0, "maxlength": 10, "regex": "[A-Z]{2}[0-9]+"}),
        ("textarea", {"maxlength": 500}),
        ("barcode", {"regex": "[0-9]{13}"}),
    ],
)
def test_validation_rules_fitting_the_type_are_accepted(qtype, rule):
    extra = {"options": ["a", "b"]} if qtype == "multiselect" else {}
    canonical = accepted(form(q("a", qtype, validation=rule, **extra)))
    assert {
        k: v for k, v in canonical["questions"][0]["validation"].items() if v is not None
    } == rule


@pytest.mark.parametrize(
    ("qtype", "rule", "path", "code"),
    [
        ("number", {"min": 5, "max": 2}, "min", "min_gt_max"),
        ("text", {"minlength": 5, "maxlength": 2}, "minlength", "min_gt_max"),
        ("text", {"minlength": -1}, "minlength", "invalid_value"),
        ("text", {"maxlength": 2.5}, "maxlength", "field_type"),
        ("text", {"min": 1}, "min", "field_not_allowed"),
        ("number", {"regex": "[0-9]+"}, "regex", "field_not_allowed"),
        ("number", {"maxlength": 3}, "maxlength", "field_not_allowed"),
        ("date", {"min": 1}, "min", "field_not_allowed"),
        ("number", {"min": True}, "min", "field_type"),
        ("number", {"max": "10"}, "max", "field_type"),
        ("number", {"max": 2**60}, "max", "too_large"),
        ("text", {"regex": "(unclosed"}, "regex", "regex_invalid"),
        ("text", {"regex": "(a)\\1"}, "regex", "regex_invalid"),
        ("text", {"regex": "(?=look)ahead"}, "regex", "regex_invalid"),
        ("text", {"regex": 5}, "regex", "field_type"),
        ("text", {"regex": "a" * 1001}, "regex", "too_large"),
        ("text", {"regex": "(.*a){1000}"}, "regex", "too_large"),  # 11,004 steps: 0.4 s/answer
        ("text", {"pattern": "x"}, "pattern", "unknown_field"),
    ],
)
def test_validation_rules_that_do_not_fit_are_refused(qtype, rule, path, code):
    assert problems_of(form(q("a", qtype, validation=rule))) == {
        (f"questions[0].validation.{path}", code)
    }


def test_a_pattern_too_complex_to_check_quickly_is_refused_and_a_long_plain_one_is_not():
    _, problems = check_definition(form(q("a", "text", validation={"regex": "(.*a){300}"})))
    assert [(p.reason, p.params.get("limit")) for p in problems] == [("regex_too_complex", 2000)]
    assert accepted(form(q("a", "text", validation={"regex": r"\w{500}"})))


def test_a_multiselect_count_bound_must_be_a_non_negative_whole_number():
    base = {"options": ["a", "b"]}
    assert codes_of(form(q("m", "multiselect", validation={"min": 1.5}, **base))) == {"field_type"}
    assert codes_of(form(q("m", "multiselect", validation={"min": -1}, **base))) == {
        "invalid_value"
    }


def test_a_min_greater_than_max_message_names_both():
    _, problems = check_definition(form(q("a", "number", validation={"min": 5, "max": 2})))
    assert problems[0].message == "min (5) is greater than max (2)"


# ------------------------------------------------------------------------------------- visible_if


def cond(ref: str, operator: str, value: object = None) -> dict:
    return {"question_id": ref, "operator": operator, "value": value}


def test_visible_if_may_refer_to_an_earlier_question_also_inside_an_earlier_group():
    accepted(
        form(
            q("g", "group", questions=[q("a", "boolean")]),
            q("b", visible_if=cond("a", "eq", True)),
        )
    )


@pytest.mark.parametrize(
    ("doc", "code"),
    [
        (form(q("a", visible_if=cond("nope", "empty"))), "unknown_reference"),
        (form(q("a", visible_if=cond("a", "empty"))), "forward_reference"),
        (form(q("a", visible_if=cond("b", "empty")), q("b")), "forward_reference"),
        (
            form(q("g", "group", questions=[q("a", visible_if=cond("g", "empty"))])),
            "enclosing_reference",
        ),
        (
            form(q("g", "group", visible_if=cond("a", "empty"), questions=[q("a")])),
            "forward_reference",
        ),
    ],
)
def test_visible_if_may_not_refer_to_itself_later_unknown_or_enclosing_questions(doc, code):
    assert codes_of(doc) == {code}


def test_visible_if_with_an_unknown_operator_is_refused():
    doc = form(q("a"), q("b", visible_if=cond("a", "like", "x")))
    assert problems_of(doc) == {("questions[1].visible_if.operator", "operator_unknown")}


def test_visible_if_must_be_an_object_with_known_fields():
    assert codes_of(form(q("a"), q("b", visible_if="a == 1"))) == {"field_type"}
    doc = form(q("a"), q("b", visible_if={**cond("a", "empty"), "negate": True}))
    assert codes_of(doc) == {"unknown_field"}
    assert codes_of(form(q("a"), q("b", visible_if={"operator": "empty"}))) == {"required_field"}


@pytest.mark.parametrize(
    ("ref", "operator", "value"),
    [
        (q("a", "number"), "gt", 3),
        (q("a", "integer"), "lte", 2.5),
        (q("a", "date"), "gte", "2024-01-31"),
        (q("a", "time"), "lt", "12:00"),
        (q("a", "datetime"), "gt", "2024-01-31T10:00:00Z"),
        (q("a", "calculated", formula="1 + 1"), "gt", 1),
        (q("a", "calculated", formula="1 > 0"), "eq", True),
        (q("a", "text"), "contains", "abc"),
        (q("a", "barcode"), "contains", "87"),
        (q("a", "multiselect", options=["x", "y"]), "contains", "x"),
        (q("a", "multiselect", options=["x", "y"]), "eq", ["y", "x"]),
        (q("a", "select", options=["x", "y"]), "in", ["x", "y"]),
        (q("a", "select", options=["x", "y"]), "not_in", ["x"]),
        (q("a", "select", options=["x", "y"]), "eq", "x"),
        (q("a", "boolean"), "neq", False),
        (q("a", "photo"), "not_empty", None),
        (q("a", "location"), "empty", None),
    ],
)
def test_operators_fitting_the_referenced_type_are_accepted(ref, operator, value):
    accepted(form(ref, q("b", visible_if=cond("a", operator, value))))


@pytest.mark.parametrize(
    ("ref", "operator", "value", "code"),
    [
        (q("a", "text"), "gt", "x", "operator_type"),
        (q("a", "boolean"), "lt", True, "operator_type"),
        (q("a", "number"), "contains", 3, "operator_type"),
        (q("a", "select", options=["x"]), "contains", "x", "operator_type"),
        (q("a", "photo"), "in", [1], "operator_type"),
        (q("a", "number"), "in", 3, "value_type"),
        (q("a", "number"), "in", [], "value_type"),
        (q("a", "number"), "empty", 3, "value_type"),
        (q("a", "number"), "eq", None, "value_type"),
        (q("a", "number"), "eq", "3", "value_type"),
        (q("a", "number"), "gt", True, "value_type"),
        (q("a", "boolean"), "eq", 1, "value_type"),
        (q("a", "date"), "gt", "31-01-2024", "value_type"),
        (q("a", "time"), "eq", "25:00", "value_type"),
        (q("a", "text"), "contains", ["x"], "value_type"),
        (q("a", "select", options=["x", "y"]), "eq", "z", "not_an_option"),
        (q("a", "select", options=["x", "y"]), "in", ["x", "z"], "not_an_option"),
        (q("a", "multiselect", options=["x"]), "contains", "z", "not_an_option"),
        (q("a", "info"), "empty", None, "reference_type"),
        (q("a", "group", questions=[q("c")]), "empty", None, "reference_type"),
    ],
)
def test_operators_or_values_not_fitting_the_referenced_type_are_refused(
    ref, operator, value, code
):
    assert codes_of(form(ref, q("b", visible_if=cond("a", operator, value)))) == {code}


# ------------------------------------------------------------------------ formulas in definitions


def test_a_formula_over_numeric_and_boolean_questions_is_accepted():
    accepted(
        form(
            q("n", "number"),
            q("i", "integer"),
            q("b", "boolean"),
            q("c", "calculated", formula="if(b, n * i, round(n / 3, 2))"),
        )
    )


def test_a_formula_that_does_not_parse_is_refused():
    doc = form(q("n", "number"), q("c", "calculated", formula="n +"))
    assert problems_of(doc) == {("questions[1].formula", "formula_syntax")}


def test_a_formula_referring_to_an_unknown_id_is_refused():
    doc = form(q("c", "calculated", formula="ghost * 2"))
    assert problems_of(doc) == {("questions[0].formula", "formula_unknown_id")}


@pytest.mark.parametrize("qtype", ["text", "date", "select", "group", "info"])
def test_a_formula_referring_to_a_non_numeric_question_is_refused(qtype):
    extra = {"options": ["x"]} if qtype == "select" else {}
    extra = {"questions": [q("x")]} if qtype == "group" else extra
    doc = form(q("t", qtype, **extra), q("c", "calculated", formula="t + 1"))
    assert codes_of(doc) == {"formula_type"}


def test_a_calculated_question_may_use_a_later_one_without_a_cycle():
    accepted(form(q("c1", "calculated", formula="c2 * 2"), q("c2", "calculated", formula="1 + 1")))


def test_formula_cycles_are_refused():
    doc = form(
        q("c1", "calculated", formula="c2 + 1"),
        q("c2", "calculated", formula="c3 + 1"),
        q("c3", "calculated", formula="c1 + 1"),
    )
    assert problems_of(doc) == {(f"questions[{i}].formula", "formula_cycle") for i in range(3)}
    assert codes_of(form(q("c", "calculated", formula="c + 1"))) == {"formula_cycle"}


def test_a_cycle_through_a_formula_and_visibility_is_refused():
    doc = form(
        q("c", "calculated", formula="n * 2"),
        q("x", visible_if=cond("c", "gt", 1)),
        q("n", "number", visible_if=cond("x", "not_empty")),
    )
    assert problems_of(doc) == {("questions[0].formula", "formula_cycle")}


# ------------------------------------------------------------------------------------ size bounds


def test_more_than_500_questions_is_too_large():
    assert problems_of(form(*(q(f"q{i}") for i in range(501)))) == {("questions", "too_large")}
    accepted(form(*(q(f"q{i}") for i in range(500))))


def nested_groups(levels: int) -> dict:
    inner = q("leaf")
    for level in range(levels):
        inner = q(f"g{level}", "group", questions=[inner])
    return form(inner)


def test_groups_nested_five_deep_are_accepted_and_six_are_too_large():
    accepted(nested_groups(5))
    assert codes_of(nested_groups(6)) == {"too_large"}


def test_pathological_nesting_and_huge_strings_do_not_crash():
    deep: object = "x"
    for _ in range(5000):
        deep = [deep]
    doc = form(q("a", default_value=deep, label="l" * 1_000_000), q("b" * 10_000), deep=deep)
    assert codes_of(doc) >= {"unknown_field", "too_large", "value_type"}
    assert check_definition({"questions": deep})[0] is None


# --------------------------------------------------------------------------------- default values


@pytest.mark.parametrize(
    ("question", "value"),
    [
        (q("a", "number"), 2.5),
        (q("a", "number"), 3),
        (q("a", "integer"), -4),
        (q("a", "boolean"), False),
        (q("a", "text"), "hallo"),
        (q("a", "barcode"), "8712345678906"),
        (q("a", "select", options=["x", "y"]), "y"),
        (q("a", "multiselect", options=["x", "y"]), ["y", "x"]),
        (q("a", "date"), "2024-02-29"),
        (q("a", "time"), "07:30"),
        (q("a", "time"), "07:30:15"),
        (q("a", "datetime"), "2024-02-29T07:30:00+01:00"),
        (q("a", "location"), {"lat": 52.1, "lng": 5.1}),
    ],
)
def test_a_default_value_fitting_the_type_is_accepted(question, value):
    assert (
        accepted(form({**question, "default_value": value}))["questions"][0]["default_value"]
        == value
    )


@pytest.mark.parametrize(
    ("question", "value", "code"),
    [
        (q("a", "number"), "3", "value_type"),
        (q("a", "number"), True, "value_type"),
        (q("a", "integer"), 2.5, "value_type"),
        (q("a", "boolean"), "true", "value_type"),
        (q("a", "text"), 5, "value_type"),
        (q("a", "select", options=["x"]), "z", "not_an_option"),
        (q("a", "multiselect", options=["x"]), "x", "value_type"),
        (q("a", "multiselect", options=["x"]), ["z"], "not_an_option"),
        (q("a", "date"), "2024-02-30", "value_type"),
        (q("a", "date"), "29-02-2024", "value_type"),
        (q("a", "time"), "7:30", "value_type"),
        (q("a", "datetime"), "2024-02-29", "value_type"),
        (q("a", "location"), {"lat": 91, "lng": 0}, "out_of_range"),
        (q("a", "number", validation={"max": 10}), 11, "out_of_range"),
        (q("a", "text", validation={"regex": "[0-9]+"}), "12a", "pattern_mismatch"),
        (q("a", "photo"), [FILE_A], "field_not_allowed"),
        (q("a", "calculated", formula="1"), 1, "field_not_allowed"),
        (q("a", "info"), "x", "field_not_allowed"),
    ],
)
def test_a_default_value_not_fitting_the_type_is_refused(question, value, code):
    assert problems_of(form({**question, "default_value": value})) == {
        ("questions[0].default_value", code)
    }


# ------------------------------------------------------------------------------- formula language


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("2 * 3 % 4", 2),
        ("-2 * 3", -6),
        ("- -2", 2),
        ("7 / 2", 3.5),
        ("7 % 3", 1),
        ("1 + 1 == 2", True),
        ("1 + 1 != 2", False),
        ("2 >= 2 and 1 < 2", True),
        ("1 > 2 or 2 <= 1", False),
        ("not 1 > 2", True),
        ("not false and false", False),
        ("true or false and false", True),
        ("round(2.5)", 3),
        ("round(-2.5)", -3),
        ("round(2.675, 2)", 2.68),
        ("round(1234, -2)", 1200),
        ("min(3, 1, 2)", 1),
        ("max(3, 1, 2)", 3),
        ("abs(-4.5)", 4.5),
        ("if(1 < 2, 10, 20)", 10),
        ("if(0, 10, 20)", 20),
        ("true * 3", 3),
    ],
)
def test_formula_precedence_and_functions(formula, expected):
    result = evaluate_formula(formula, {})
    assert result == expected and type(result) is type(expected)


def test_formulas_read_question_values_including_braced_ids():
    values = {"gewicht": 120.0, "weight-kg": 4, "2nd": 3, "ok": True}
    assert evaluate_formula("gewicht / {weight-kg} + {2nd}", values) == 33.0
    assert evaluate_formula("if(ok, gewicht, 0)", values) == 120.0
    assert formula_references("gewicht / {weight-kg} + {2nd} * min(ok, x)") == {
        "gewicht", "weight-kg", "2nd", "ok", "x",
    }  # fmt: skip


def test_a_question_named_like_a_function_is_an_operand_without_parentheses():
    assert evaluate_formula("max + 1", {"max": 2}) == 3


@pytest.mark.parametrize("formula", ["1 / 0", "5 % 0", "1 / (2 - 2)", "round(1 / 0)"])
def test_division_by_zero_yields_none(formula):
    assert evaluate_formula(formula, {}) is None


@pytest.mark.parametrize("value", [None, "12", [1], {"a": 1}, float("nan")])
def test_a_missing_or_unusable_operand_yields_none(value):
    assert evaluate_formula("x + 1", {"x": value}) is None
    assert evaluate_formula("x + 1", {}) is None


def test_missing_operands_only_matter_where_they_are_needed():
    assert evaluate_formula("if(1 > 0, 5, missing)", {}) == 5
    assert evaluate_formula("if(missing, 5, 6)", {}) is None
    assert evaluate_formula("false and missing", {}) is False
    assert evaluate_formula("true or missing", {}) is True
    assert evaluate_formula("true and missing", {}) is None


def test_huge_numbers_yield_none_or_a_float_never_an_error():
    assert evaluate_formula("9" * 1000 + " * 10", {}) is None
    assert evaluate_formula("x * x", {"x": 2**52}) == float(2**104)
    assert evaluate_formula("round(x)", {"x": 1e300}) == 1e300


@pytest.mark.parametrize(
    "formula",
    [
        "",
        "   ",
        "1 +",
        "(1 + 2",
        "1 + 2)",
        "a = 1",
        "1 < 2 < 3",
        "foo(1)",
        "round()",
        "round(1, 2, 3)",
        "abs(1, 2)",
        "if(1, 2)",
        "min()",
        "__import__('os')",
        "a.b(1)",
        "{bad id}",
        "{unclosed",
        "1 ** 2",
        "1 2",
        "and",
        "x" * 2001,
        "(" * 60 + "1" + ")" * 60,
        "-" * 60 + "1",
    ],
)
def test_malformed_formulas_raise_formula_error(formula):
    with pytest.raises(FormulaError):
        parse_formula(formula)


def test_a_long_flat_formula_within_the_length_bound_parses_and_evaluates():
    formula = "+".join(["x"] * 900)
    assert len(formula) < 2000
    assert evaluate_formula(formula, {"x": 1}) == 900


def test_nesting_up_to_the_bound_is_accepted():
    assert evaluate_formula("(" * 49 + "1" + ")" * 49, {}) == 1


def test_formula_error_is_a_value_error():
    assert issubclass(FormulaError, ValueError)
    with pytest.raises(FormulaError):
        evaluate_formula("1 +", {})
    with pytest.raises(FormulaError):
        formula_references(None)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------- visibility


VISIBILITY = accepted(
    form(
        q("soort", "select", options=["koel", "droog"]),
        q(
            "koel",
            "group",
            visible_if=cond("soort", "eq", "koel"),
            questions=[
                q("temp", "number"),
                q(
                    "alarm",
                    "group",
                    visible_if=cond("temp", "gt", 7),
                    questions=[q("reden", "textarea"), q("actie", "text")],
                ),
            ],
        ),
        q("na_alarm", visible_if=cond("reden", "not_empty")),
        q("info", "info"),
    )
)


def test_questions_without_conditions_are_visible():
    assert visible_questions(VISIBILITY, {}) == {"soort", "info"}


def test_a_hidden_group_hides_its_nested_questions_at_every_level():
    answers = {"soort": "droog", "temp": 9, "reden": "kapot"}
    assert visible_questions(VISIBILITY, answers) == {"soort", "info"}


def test_nested_groups_show_when_each_level_holds():
    answers = {"soort": "koel", "temp": 9, "reden": "kapot"}
    assert visible_questions(VISIBILITY, answers) == {
        "soort", "koel", "temp", "alarm", "reden", "actie", "na_alarm", "info",
    }  # fmt: skip
    assert "alarm" not in visible_questions(VISIBILITY, {"soort": "koel", "temp": 7})


def test_an_answer_to_a_hidden_question_does_not_make_others_visible():
    # reden is answered but its group is hidden, so na_alarm (which depends on it) stays hidden.
    assert "na_alarm" not in visible_questions(VISIBILITY, {"soort": "koel", "reden": "x"})


def test_an_invalid_answer_counts_as_missing_for_visibility():
    assert "alarm" not in visible_questions(VISIBILITY, {"soort": "koel", "temp": "9"})


def visible_with(ref: dict, condition: dict, answer: object) -> bool:
    definition = accepted(form(ref, q("b", visible_if=condition)))
    return "b" in visible_questions(definition, {"a": answer} if answer is not None else {})


@pytest.mark.parametrize(
    ("ref", "condition", "answer", "shown"),
    [
        (q("a", "number"), cond("a", "eq", 3), 3.0, True),
        (q("a", "number"), cond("a", "neq", 3), 4, True),
        (q("a", "number"), cond("a", "neq", 3), None, False),
        (q("a", "number"), cond("a", "gte", 3), 3, True),
        (q("a", "number"), cond("a", "lt", 3), 3, False),
        (q("a", "number"), cond("a", "in", [1, 2]), 2, True),
        (q("a", "number"), cond("a", "not_in", [1, 2]), 3, True),
        (q("a", "boolean"), cond("a", "eq", True), True, True),
        (q("a", "boolean"), cond("a", "eq", True), False, False),
        (q("a", "text"), cond("a", "contains", "kap"), "kapot", True),
        (q("a", "text"), cond("a", "empty"), None, True),
        (q("a", "text"), cond("a", "empty"), "  ", True),
        (q("a", "text"), cond("a", "not_empty"), "x", True),
        (q("a", "date"), cond("a", "gt", "2024-01-31"), "2024-02-01", True),
        (q("a", "date"), cond("a", "gt", "2024-01-31"), "2024-01-31", False),
        (q("a", "time"), cond("a", "eq", "08:00"), "08:00:00", True),
        (
            q("a", "datetime"),
            cond("a", "lt", "2024-01-01T12:00:00Z"),
            "2024-01-01T12:30+01:00",
            True,
        ),
        (q("a", "multiselect", options=["x", "y"]), cond("a", "contains", "y"), ["x", "y"], True),
        (q("a", "multiselect", options=["x", "y"]), cond("a", "in", ["y"]), ["x"], False),
        (q("a", "multiselect", options=["x", "y"]), cond("a", "eq", ["y", "x"]), ["x", "y"], True),
        (q("a", "photo"), cond("a", "not_empty"), [FILE_A], True),
    ],
)
def test_visibility_operators(ref, condition, answer, shown):
    assert visible_with(ref, condition, answer) is shown


def test_compared_values_are_normalised_like_answers():
    upper = [FILE_A.upper()]
    definition = accepted(form(q("a", "photo"), q("b", visible_if=cond("a", "eq", upper))))
    assert definition["questions"][1]["visible_if"]["value"] == [FILE_A]
    assert "b" in visible_questions(definition, {"a": upper})


def test_visible_if_value_messages_read_as_sentences():
    _, problems = check_definition(form(q("a"), q("b", visible_if=cond("a", "empty", "x"))))
    assert [p.message for p in problems] == ["value must be null for 'empty'"]


def test_visibility_can_depend_on_a_calculated_question():
    definition = accepted(
        form(
            q("n", "number"),
            q("dubbel", "calculated", formula="n * 2"),
            q("veel", visible_if=cond("dubbel", "gt", 10)),
        )
    )
    assert "veel" in visible_questions(definition, {"n": 6, "dubbel": 0})
    assert "veel" not in visible_questions(definition, {"n": 5, "dubbel": 100})


# ---------------------------------------------------------------------------------------- answers


def test_only_visible_answers_are_kept_and_hidden_ones_are_dropped_silently():
    answers = {"soort": "droog", "temp": 9, "reden": "kapot"}
    cleaned, problems = validate_answers(VISIBILITY, answers, final=True)
    assert cleaned == {"soort": "droog"} and problems == []


def test_required_visible_questions_need_an_answer_on_final_only():
    definition = accepted(form(q("a", required=True), q("b", "boolean", required=True)))
    for empty in ({}, {"a": "", "b": None}, {"a": "   "}):
        _, problems = validate_answers(definition, empty, final=True)
        assert {(p.path, p.code, p.question_id) for p in problems} == {
            ("answers.a", "required", "a"),
            ("answers.b", "required", "b"),
        }
        assert validate_answers(definition, empty, final=False) == ({}, [])
    assert validate_answers(definition, {"a": "x", "b": False}, final=True) == (
        {"a": "x", "b": False},
        [],
    )


def test_a_hidden_required_question_is_not_required():
    definition = accepted(
        form(q("a", "boolean"), q("b", required=True, visible_if=cond("a", "eq", True)))
    )
    assert validate_answers(definition, {"a": False}, final=True) == ({"a": False}, [])
    _, problems = validate_answers(definition, {"a": True}, final=True)
    assert [p.code for p in problems] == ["required"]


def test_a_partial_save_still_checks_present_values():
    definition = accepted(form(q("n", "number", required=True)))
    cleaned, problems = validate_answers(definition, {"n": "veel"}, final=False)
    assert cleaned == {} and [(p.path, p.code) for p in problems] == [("answers.n", "value_type")]


def answer_problems(question: dict, value: object) -> list[str]:
    definition = accepted(form(question))
    cleaned, problems = validate_answers(definition, {question["id"]: value}, final=True)
    assert (question["id"] in cleaned) is not problems
    return [p.code for p in problems]


@pytest.mark.parametrize(
    ("question", "value"),
    [
        (q("a", "number", validation={"min": 0, "max": 10}), 10),
        (q("a", "number"), -2.5),
        (q("a", "integer", validation={"min": 1}), 1),
        (q("a", "boolean"), False),
        (q("a", "select", options=["x", "y"]), "y"),
        (q("a", "multiselect", options=["x", "y"], validation={"min": 1, "max": 2}), ["y"]),
        (q("a", "date"), "2024-02-29"),
        (q("a", "time"), "23:59"),
        (q("a", "time"), "23:59:59"),
        (q("a", "datetime"), "2024-02-29T23:59:59Z"),
        (q("a", "datetime"), "2024-02-29T23:59"),
        (q("a", "text", validation={"minlength": 2, "maxlength": 3}), "abc"),
        (q("a", "text", validation={"regex": "[A-Z]{2}[0-9]{2}"}), "AB12"),
        (q("a", "textarea"), "regel 1\nregel 2"),
        (q("a", "barcode", validation={"regex": "[0-9]+"}), "8712345678906"),
        (q("a", "photo", max_files=2), [FILE_A, FILE_B]),
        (q("a", "signature"), [FILE_A]),
        (q("a", "document_scan", max_files=1), [FILE_A.upper()]),
        (q("a", "location"), {"lat": -90, "lng": 180}),
    ],
)
def test_answers_fitting_their_question_are_accepted(question, value):
    assert answer_problems(question, value) == []


@pytest.mark.parametrize(
    ("question", "value", "code"),
    [
        (q("a", "number", validation={"max": 10}), 10.5, "out_of_range"),
        (q("a", "number", validation={"min": 0}), -1, "out_of_range"),
        (q("a", "number"), True, "value_type"),
        (q("a", "number"), "5", "value_type"),
        (q("a", "number"), 2**60, "value_type"),
        (q("a", "integer"), 2.0, "value_type"),
        (q("a", "boolean"), 1, "value_type"),
        (q("a", "select", options=["x"]), "z", "not_an_option"),
        (q("a", "multiselect", options=["x", "y"]), ["x", "x"], "value_type"),
        (q("a", "multiselect", options=["x", "y"]), ["z"], "not_an_option"),
        (q("a", "multiselect", options=["x", "y"]), "x", "value_type"),
        (
            q("a", "multiselect", options=["x", "y", "z"], validation={"max": 2}),
            ["x", "y", "z"],
            "out_of_range",
        ),
        (
            q("a", "multiselect", options=["x", "y", "z"], validation={"min": 2}),
            ["x"],
            "out_of_range",
        ),
        (q("a", "date"), "2024-13-01", "value_type"),
        (q("a", "date"), "20240101", "value_type"),
        (q("a", "time"), "24:00", "value_type"),
        (q("a", "time"), "8:00", "value_type"),
        (q("a", "datetime"), "2024-01-01 10:00", "value_type"),
        (q("a", "text", validation={"minlength": 2}), "a", "out_of_range"),
        (q("a", "text", validation={"maxlength": 2}), "abc", "out_of_range"),
        (q("a", "text", validation={"regex": "[a-z]+"}), "abc1", "pattern_mismatch"),
        (q("a", "text", validation={"regex": "[a-z]+"}), "1abc", "pattern_mismatch"),
        (q("a", "text"), 5, "value_type"),
        (q("a", "text"), "x" * 10_001, "too_large"),
        (q("a", "barcode"), 8712345678906, "value_type"),
        (q("a", "photo", max_files=1), [FILE_A, FILE_B], "out_of_range"),
        (q("a", "photo"), ["not-a-uuid"], "value_type"),
        (q("a", "photo"), FILE_A, "value_type"),
        (q("a", "photo"), [FILE_A, FILE_A.upper()], "value_type"),
        (q("a", "location"), {"lat": 91, "lng": 0}, "out_of_range"),
        (q("a", "location"), {"lat": 0, "lng": -181}, "out_of_range"),
        (q("a", "location"), {"lat": "52", "lng": 5}, "value_type"),
        (q("a", "location"), {"lat": 52, "lng": 5, "alt": 3}, "value_type"),
        (q("a", "location"), [52, 5], "value_type"),
    ],
)
def test_answers_not_fitting_their_question_are_refused(question, value, code):
    assert answer_problems(question, value) == [code]


def test_file_ids_are_stored_in_lower_case():
    definition = accepted(form(q("f", "photo")))
    cleaned, _ = validate_answers(definition, {"f": [FILE_A.upper()]}, final=True)
    assert cleaned == {"f": [FILE_A]}


def test_readonly_answers_are_reset_to_the_default_value():
    definition = accepted(form(q("a", readonly=True, default_value="vast"), q("b", readonly=True)))
    cleaned, problems = validate_answers(definition, {"a": "anders", "b": "x"}, final=True)
    assert cleaned == {"a": "vast"} and problems == []


def test_calculated_answers_are_recomputed_by_the_server():
    definition = accepted(
        form(
            q("prijs", "number"),
            q("aantal", "integer"),
            q("totaal", "calculated", formula="prijs * aantal", required=True),
        )
    )
    cleaned, problems = validate_answers(
        definition, {"prijs": 2.5, "aantal": 4, "totaal": 999}, final=True
    )
    assert cleaned == {"prijs": 2.5, "aantal": 4, "totaal": 10.0} and problems == []
    _, problems = validate_answers(definition, {"prijs": 2.5}, final=True)
    assert [(p.path, p.code) for p in problems] == [("answers.totaal", "required")]


def test_a_calculated_question_uses_a_later_calculated_one():
    definition = accepted(
        form(
            q("c1", "calculated", formula="c2 + 1"),
            q("n", "number"),
            q("c2", "calculated", formula="n * 2"),
        )
    )
    assert validate_answers(definition, {"n": 3}, final=True)[0] == {"c1": 7, "n": 3, "c2": 6}


def test_a_hidden_operand_makes_a_formula_missing():
    definition = accepted(
        form(
            q("b", "boolean"),
            q("n", "number", visible_if=cond("b", "eq", True)),
            q("c", "calculated", formula="n + 1"),
        )
    )
    assert validate_answers(definition, {"b": False, "n": 4}, final=True)[0] == {"b": False}


def test_answers_to_info_and_group_questions_are_ignored():
    definition = accepted(form(q("i", "info"), q("g", "group", questions=[q("t")])))
    assert validate_answers(definition, {"i": "x", "g": [1], "t": "y"}, final=True) == (
        {"t": "y"},
        [],
    )


def test_unknown_question_ids_in_answers_are_refused():
    definition = accepted(form(q("a")))
    cleaned, problems = validate_answers(definition, {"a": "x", "ghost": 1}, final=False)
    assert cleaned == {"a": "x"}
    assert [(p.path, p.question_id, p.code) for p in problems] == [
        ("answers.ghost", "ghost", "unknown_question")
    ]


def test_answers_that_are_not_an_object_are_refused():
    definition = accepted(form(q("a")))
    _, problems = validate_answers(definition, ["a"], final=False)  # type: ignore[arg-type]
    assert [(p.path, p.code) for p in problems] == [("answers", "value_type")]


def test_examples_shipped_with_the_project_are_valid():
    import pathlib

    folder = pathlib.Path(__file__).resolve().parents[2] / "examples" / "questionnaires"
    for path in sorted(folder.glob("*.json")):
        accepted(json.loads(path.read_text(encoding="utf-8")))


# ------------------------------------------------------------------------------------- properties

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=30,
)
KEYS = st.sampled_from([*QUESTION_FIELDS, *RICH, "min", "max", "regex", "operator", "value", "x"])
INTERESTING = st.sampled_from(
    [*QUESTION_TYPES, *OPERATORS, "soort", "gewicht", "koeling", "temp", "[", 1, 0, -1, 2**60,
     True, [], {}, ["koel"], "koel", "gewicht +", "2024-01-01"]
)  # fmt: skip
SHAPED = st.recursive(
    JSON, lambda children: st.dictionaries(KEYS, children | INTERESTING, max_size=8), max_leaves=40
)


def assert_well_formed(result: tuple) -> None:
    canonical, problems = result
    assert isinstance(problems, list)
    if canonical is None:
        assert problems and all(isinstance(p, Problem) for p in problems)
        assert all(isinstance(p.path, str) and p.message and p.code for p in problems)
    else:
        assert isinstance(canonical, dict) and problems == []
        assert check_definition(canonical) == (canonical, [])
        assert check_definition(json.loads(json.dumps(canonical))) == (canonical, [])


@st.composite
def mutated_definitions(draw: st.DrawFn) -> dict:
    doc = copy.deepcopy(RICH)
    for _ in range(draw(st.integers(1, 3))):
        targets: list[dict] = [doc]
        pending = list(doc["questions"]) if isinstance(doc.get("questions"), list) else []
        while pending:
            item = pending.pop()
            if isinstance(item, dict):
                targets.append(item)
                for key in ("validation", "visible_if"):
                    if isinstance(item.get(key), dict):
                        targets.append(item[key])
                if isinstance(item.get("questions"), list):
                    pending.extend(item["questions"])
        target = draw(st.sampled_from(targets))
        key = draw(st.sampled_from(sorted(target)) | KEYS if target else KEYS)
        if draw(st.booleans()) and key in target:
            del target[key]
        else:
            target[key] = draw(INTERESTING | JSON)
    return doc


@BOUNDED
@given(JSON)
def test_check_definition_never_raises_on_arbitrary_json(doc):
    assert_well_formed(check_definition(doc))


@BOUNDED
@given(SHAPED)
def test_check_definition_never_raises_on_json_shaped_like_a_definition(doc):
    assert_well_formed(check_definition(form(doc, q("y"), doc)))
    assert_well_formed(check_definition(doc))


@BOUNDED
@given(mutated_definitions())
def test_check_definition_never_raises_on_mutated_definitions_and_is_idempotent(doc):
    result = check_definition(doc)
    assert_well_formed(result)
    if result[0] is not None:
        validate_answers(result[0], {"gewicht": 1, "soort": "koel"}, final=True)


@BOUNDED
@given(st.text())
def test_parse_formula_on_random_text_returns_or_raises_formula_error(text):
    try:
        tree = parse_formula(text)
    except FormulaError as exc:
        assert str(exc)  # a message the builder can show
    else:
        assert tree is not None


FORMULA_TEXT = st.lists(
    st.sampled_from(
        ["x", "y", "{z-1}", "1", "0", "2.5", "+", "-", "*", "/", "%", "(", ")", ",", "==", "<",
         ">=", "and", "or", "not", "true", "round", "min", "max", "abs", "if", "=", "!"]
    ),
    max_size=30,
).map(" ".join)  # fmt: skip


@BOUNDED
@given(FORMULA_TEXT, st.dictionaries(st.sampled_from(["x", "y", "z-1"]), JSON))
def test_evaluating_token_soup_returns_a_value_or_raises_formula_error(formula, values):
    try:
        result = evaluate_formula(formula, values)
    except FormulaError:
        return
    assert result is None or isinstance(result, (bool, int, float))
    # A function name without parentheses is a question id, like any other bare name.
    assert formula_references(formula) <= {"x", "y", "z-1", "round", "min", "max", "abs", "if"}


RICH_IDS = [
    "kenteken", "soort", "extra", "gewicht", "pallets", "ok", "totaal", "datum", "tijd", "moment",
    "foto", "handtekening", "plek", "temp", "uitleg", "scan", "ghost",
]  # fmt: skip


@BOUNDED
@given(st.dictionaries(st.sampled_from(RICH_IDS), JSON | INTERESTING), st.booleans())
def test_validate_answers_never_raises_and_keeps_only_visible_answers(answers, final):
    definition = accepted(RICH)
    cleaned, problems = validate_answers(definition, answers, final=final)
    assert set(cleaned) <= visible_questions(definition, answers)
    assert all(p.path.startswith("answers.") for p in problems)
