"""The questionnaire builder as an author uses it: the list, the draft editor with its live
preview, import and export, publishing with its impact, and the history of revisions."""

from __future__ import annotations

import io
import json
import re

import orjson
import pytest
from factories import (
    create_carrier,
    create_task,
    create_user,
    csrf_from,
    in_carrier,
    login,
    publish_questionnaire,
    questionnaire_doc,
)
from werkzeug.datastructures import MultiDict

HX = {"HX-Request": "true"}


# --- helpers ---------------------------------------------------------------------------------


@pytest.fixture
def author(app, carrier):
    return create_user(app, carrier, "author")


@pytest.fixture
def browser(client, author):
    login(client, author)
    return client


def draft_of(app, carrier, qid: str) -> dict | None:
    """The stored draft: its definition and versie (None when there is none)."""
    from portal.questionnaires import service

    return in_carrier(
        app,
        carrier.id,
        lambda: service.get_draft(carrier_id=carrier.id, questionnaire_id=qid),
        lambda d: {"doc": orjson.loads(d.definition), "versie": d.versie} if d else None,
    )


def revisions_of(app, carrier, qid: str) -> list[dict]:
    from portal.questionnaires import service

    return in_carrier(
        app,
        carrier.id,
        lambda: service.list_revisions(carrier_id=carrier.id, questionnaire_id=qid)[0],
        lambda rows: [
            {
                "id": r.id,
                "revisie": r.revisie,
                "is_active": r.is_active,
                "doc": orjson.loads(r.definition),
            }
            for r in rows
        ],
    )


def make_draft(app, carrier, author, doc: dict) -> None:
    from portal.audit.service import Actor
    from portal.questionnaires import service

    in_carrier(
        app,
        carrier.id,
        lambda: service.create_draft(
            carrier_id=carrier.id, doc=doc, user_id=author.id, actor=Actor("user", author.id, "A")
        ),
    )


class Builder:
    """An author's browser on one questionnaire's draft."""

    def __init__(self, app, client, carrier, qid: str):
        self.app, self.client, self.carrier, self.qid = app, client, carrier, qid
        self.base = f"/vragenlijsten/{qid}"
        page = client.get(f"{self.base}/concept")
        assert page.status_code == 200, page.status_code
        self.token = csrf_from(page.get_data(as_text=True))

    @property
    def draft(self) -> dict:
        return draft_of(self.app, self.carrier, self.qid)

    @property
    def doc(self) -> dict:
        return self.draft["doc"]

    def post(self, action: str, data: dict | list, *, versie: int | None = None, htmx: bool = True):
        pairs = list(data.items()) if isinstance(data, dict) else list(data)
        pairs += [("csrf_token", self.token), ("versie", str(versie or self.draft["versie"]))]
        return self.client.post(
            f"{self.base}/concept/{action}", data=MultiDict(pairs), headers=HX if htmx else {}
        )

    def add(self, qtype: str, parent: str = ""):
        return self.post("vraag/toevoegen", {"type": qtype, "in": parent})

    def save(self, path: str, **fields):
        pairs = [("pad", path), ("velden", ",".join(k.split(".")[0] for k in fields))]
        for key, value in fields.items():
            for item in value if isinstance(value, list) else [value]:
                pairs.append((key, item))
        return self.post("vraag", pairs)

    def full(self, path: str, **fields):
        return self.save(path, volledig="1", **fields)

    def move(self, path: str, richting: str):
        return self.post("vraag/verplaatsen", {"pad": path, "richting": richting})

    def question(self, *path: int) -> dict:
        holder = self.doc
        for index in path:
            holder = holder["questions"][index]
        return holder

    def ids(self) -> list:
        def walk(items):
            return [
                [item["id"], walk(item.get("questions", []))]
                if item.get("type") == "group"
                else item["id"]
                for item in items
            ]

        return walk(self.doc["questions"])

    def editor(self) -> str:
        return self.client.get(f"{self.base}/concept").get_data(as_text=True)


def card(html: str, dom: str) -> str:
    """The HTML of one question's card (up to the next card of the same or a higher level)."""
    start = html.index(f'id="{dom}"')
    end = html.find('<li class="q-item', start + 10)
    return html[start : end if end > 0 else len(html)]


def options_of(html: str, select_id: str) -> list[str]:
    match = re.search(rf'<select[^>]*id="{re.escape(select_id)}"[^>]*>(.*?)</select>', html, re.S)
    assert match, select_id
    return re.findall(r'<option value="([^"]*)"', match.group(1))


@pytest.fixture
def builder(app, browser, carrier, author):
    doc = questionnaire_doc("kuikens_laden", "kuikens", "Kuikens laden")
    doc["questions"] = []
    make_draft(app, carrier, author, doc)
    return Builder(app, browser, carrier, "kuikens")


def upload(builder: Builder, raw: bytes):
    """POST a file to the draft's import as a browser does. The multipart body is built here:
    the test client would spool a large one to a temporary file it never closes."""
    boundary = "rijplan-grens"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n'
            f"{builder.token}\r\n--{boundary}\r\n"
            'Content-Disposition: form-data; name="bestand"; filename="vragen.json"\r\n'
            "Content-Type: application/json\r\n\r\n"
        ).encode()
        + raw
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return builder.client.post(
        f"{builder.base}/concept/importeren",
        data=body,
        content_type=f"multipart/form-data; boundary={boundary}",
    )


# --- the list ---------------------------------------------------------------------------------


def test_the_list_groups_by_questionnaire_with_active_revision_draft_and_count(
    app, browser, carrier, author, count_queries
):
    publish_questionnaire(app, carrier)  # mest-laden, revision 1
    publish_questionnaire(app, carrier)  # revision 2 (active)
    publish_questionnaire(app, carrier, questionnaire_doc("voer_leveren", title="Voer"))
    make_draft(app, carrier, author, {**questionnaire_doc("vee_transport", "vee"), "title": "Vee"})
    with count_queries() as counted:
        page = browser.get("/vragenlijsten")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    rows = re.findall(r'<tr id="vl-([^"]+)"', html)
    assert rows == ["mest-laden", "vee", "voer-leveren"]  # by activity type
    mest = html[html.index('id="vl-mest-laden"') : html.index('id="vl-vee"')]
    assert "Revisie 2" in mest and "Mest laden" in mest and ">2<" in mest.replace(" ", "")
    vee = html[html.index('id="vl-vee"') : html.index('id="vl-voer-leveren"')]
    assert "Nog niet gepubliceerd" in vee and "Concept bewerken" in vee
    assert "Veetransport" in vee  # the activity by its name
    # A fixed number of queries whatever the number of questionnaires.
    publish_questionnaire(app, carrier, questionnaire_doc("koel_transport", title="Koel"))
    with count_queries() as more:
        browser.get("/vragenlijsten")
    assert more.count == counted.count


def test_an_empty_list_offers_a_new_questionnaire(browser):
    html = browser.get("/vragenlijsten").get_data(as_text=True)
    assert "Nog geen vragenlijsten." in html
    assert 'href="/vragenlijsten/nieuw"' in html


def test_a_new_questionnaire_gets_its_id_from_the_title_and_opens_as_a_draft(app, browser, carrier):
    page = browser.get("/vragenlijsten/nieuw?activiteit=mest_laden")
    html = page.get_data(as_text=True)
    assert 'value="mest_laden"' in html and 'list="activity-types"' in html
    token = csrf_from(html)
    created = browser.post(
        "/vragenlijsten/nieuw",
        data={"csrf_token": token, "title": "Kuikens laden (NL)", "activity_type": "kuikens_laden"},
    )
    assert created.status_code == 303
    assert created.headers["Location"].endswith("/vragenlijsten/kuikens-laden-nl/concept")
    draft = draft_of(app, carrier, "kuikens-laden-nl")
    assert draft["doc"]["title"] == "Kuikens laden (NL)"
    assert draft["doc"]["activity_type"] == "kuikens_laden"
    again = browser.post(
        "/vragenlijsten/nieuw",
        data={"csrf_token": token, "title": "Kuikens laden (NL)", "activity_type": "kuikens_laden"},
    )
    assert again.status_code == 422
    assert "Er is al een vragenlijst met id" in again.get_data(as_text=True)
    bad = browser.post(
        "/vragenlijsten/nieuw",
        data={
            "csrf_token": token,
            "title": "X",
            "activity_type": "Mest Laden!",
            "questionnaire_id": "a b",
        },
    )
    html = bad.get_data(as_text=True)
    assert bad.status_code == 422
    assert "Kleine letters, cijfers" in html and "Alleen letters, cijfers" in html


# --- roles and carriers -------------------------------------------------------------------------


def test_planners_read_the_list_and_revisions_but_do_not_edit(app, client, carrier, author):
    publish_questionnaire(app, carrier)
    make_draft(app, carrier, author, questionnaire_doc("vee_transport", "vee"))
    planner = create_user(app, carrier, "planner")
    login(client, planner)
    html = client.get("/vragenlijsten").get_data(as_text=True)
    assert client.get("/vragenlijsten").status_code == 200
    assert "Nieuwe vragenlijst" not in html and "Bewerken" not in html
    assert client.get("/vragenlijsten/mest-laden/revisies").status_code == 200
    assert client.get("/vragenlijsten/mest-laden/revisies/1").status_code == 200
    assert client.get("/vragenlijsten/mest-laden/revisies/1/export").status_code == 200
    for url in (
        "/vragenlijsten/nieuw",
        "/vragenlijsten/vee/concept",
        "/vragenlijsten/vee/concept/voorbeeld",
        "/vragenlijsten/vee/publiceren",
        "/vragenlijsten/mest-laden/revisies/1/herstellen",
    ):
        assert client.get(url).status_code == 403, url
    token = csrf_from(html)
    refused = client.post(
        "/vragenlijsten/vee/concept/vraag/toevoegen",
        data={"csrf_token": token, "type": "text", "versie": "1"},
    )
    assert refused.status_code == 403
    assert len(draft_of(app, carrier, "vee")["doc"]["questions"]) == 2


def test_another_carriers_questionnaire_is_not_found(app, browser, carrier):
    other = create_carrier(app, "Ander BV")
    publish_questionnaire(app, other, questionnaire_doc(questionnaire_id="van-een-ander"))
    for url in (
        "/vragenlijsten/van-een-ander",
        "/vragenlijsten/van-een-ander/concept",
        "/vragenlijsten/van-een-ander/revisies",
        "/vragenlijsten/van-een-ander/revisies/1",
        "/vragenlijsten/van-een-ander/vergelijken",
    ):
        assert browser.get(url).status_code == 404, url
    assert browser.post("/vragenlijsten/van-een-ander/concept/starten").status_code == 404


# --- editing -----------------------------------------------------------------------------------


def test_every_type_can_be_added_with_a_fresh_id(builder):
    from portal.questionnaires.engine import QUESTION_TYPES

    for qtype in QUESTION_TYPES:
        response = builder.add(qtype)
        assert response.status_code == 200, response.get_data(as_text=True)
        assert "builderFocus" in response.headers["HX-Trigger-After-Settle"]
    types = [question["type"] for question in builder.doc["questions"]]
    assert types == list(QUESTION_TYPES)
    ids = [question["id"] for question in builder.doc["questions"]]
    assert len(set(ids)) == len(ids)
    html = builder.editor()
    # Each card offers the fields of its type only.
    select = card(html, "q-5")  # select
    assert (
        'name="options"' in select
        and 'name="max_files"' not in select
        and "validation." not in select
    )
    photo = card(html, "q-10")
    assert (
        'name="max_files"' in photo
        and 'name="options"' not in photo
        and 'name="default_value"' not in photo
    )
    number = card(html, "q-2")
    assert 'name="validation.min"' in number and 'name="validation.regex"' not in number
    assert 'name="unit"' in number
    text = card(html, "q-0")
    assert 'name="validation.regex"' in text and 'name="validation.min"' not in text
    calculated = card(html, "q-16")
    assert 'name="formula"' in calculated and 'name="default_value"' not in calculated
    multi = card(html, "q-6")
    assert "Minimaal aantal keuzes" in multi


def test_a_question_is_added_into_a_group(builder):
    builder.add("group")
    builder.add("number", parent="0")
    assert builder.ids() == [["groep_1", ["getal_1"]]]
    refused = builder.add("text", parent="5")
    assert refused.status_code == 422
    assert refused.headers["HX-Retarget"] == "#builder-alert"


def test_typing_in_a_field_saves_the_draft_and_answers_out_of_band(builder):
    builder.add("text")
    response = builder.save("0", label="Kenteken trekker", id="kenteken", required="1")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'class="q-form"' not in html  # the inputs being typed in are left alone
    assert 'id="draft-versie"' in html and 'hx-swap-oob="true"' in html
    assert 'id="title-q-0"' in html and "Kenteken trekker" in html
    assert builder.question(0) == {
        "id": "kenteken",
        "type": "text",
        "label": "Kenteken trekker",
        "required": True,
    }
    assert "draftChanged" in response.headers["HX-Trigger"]


def test_every_field_that_fits_is_edited_and_others_are_not_stored(builder):
    builder.add("number")
    builder.save(
        "0",
        label="Gewicht",
        unit="kg",
        default_value="12,5",
        readonly="1",
        **{"validation.min": "0", "validation.max": "60000"},
    )
    builder.save("0", max_files="3", formula="1 + 1", options="A")
    assert builder.question(0) == {
        "id": "getal_1",
        "type": "number",
        "label": "Gewicht",
        "unit": "kg",
        "default_value": 12.5,
        "readonly": True,
        "validation": {"min": 0, "max": 60000},
    }
    builder.add("photo")
    builder.save("1", max_files="2", required="1")
    assert builder.question(1)["max_files"] == 2


def test_changing_the_type_reshapes_the_card(builder):
    builder.add("select")
    response = builder.full("0", type="textarea", label="Opmerking")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'id="editor"' in html and 'name="options"' not in card(html, "q-0")
    assert builder.question(0) == {"id": "keuze_1", "type": "textarea", "label": "Opmerking"}


def test_options_are_added_removed_and_reordered(builder):
    builder.add("select")
    response = builder.post("vraag/opties", {"pad": "0", "actie": "toevoegen"})
    assert builder.question(0)["options"] == ["Optie 1", "Optie 2", ""]
    # The new option's field is empty and says what goes in it: typing is not appended.
    assert re.search(
        r'<input type="text" name="options" id="q-0-opt-2" value="" maxlength="200"\s+'
        r'placeholder="Keuze 3"',
        response.get_data(as_text=True),
    )
    builder.full("0", options=["Leghennen", "Vleeskuikens", "Eenden"], default_value="Eenden")
    builder.post("vraag/opties", {"pad": "0", "actie": "op", "index": "2"})
    assert builder.question(0)["options"] == ["Leghennen", "Eenden", "Vleeskuikens"]
    builder.post("vraag/opties", {"pad": "0", "actie": "neer", "index": "0"})
    assert builder.question(0)["options"] == ["Eenden", "Leghennen", "Vleeskuikens"]
    response = builder.post("vraag/opties", {"pad": "0", "actie": "verwijderen", "index": "0"})
    assert response.status_code == 200
    assert builder.question(0)["options"] == ["Leghennen", "Vleeskuikens"]
    assert "default_value" not in builder.question(0)  # the removed option was the default
    assert (
        builder.post("vraag/opties", {"pad": "0", "actie": "op", "index": "0"}).status_code == 422
    )


def test_problems_show_at_their_question_and_in_the_summary(builder):
    builder.add("number")
    builder.add("text")
    builder.save("0", **{"validation.min": "10", "validation.max": "5"})
    builder.save("1", id="getal_1", **{"validation.regex": "(unclosed"})
    html = builder.editor()
    first, second = card(html, "q-0"), card(html, "q-1")
    assert "Het minimum is groter dan het maximum." in first
    assert 'id="q-0-v-min"' in first and 'aria-invalid="true"' in first
    assert "Deze id wordt al gebruikt door een eerdere vraag." in second
    assert "geen geldige reguliere expressie" in second
    summary = html[html.index('id="problem-summary"') : html.index('id="qb-general"')]
    assert (
        "3 problemen" in summary and 'data-goto="q-0"' in summary and 'data-goto="q-1"' in summary
    )
    # The out-of-band answer to a typed change carries the same problems.
    response = builder.save("0", **{"validation.min": "1", "validation.max": "5"})
    oob = response.get_data(as_text=True)
    assert "2 problemen" in oob and "Het minimum is groter" not in oob


def test_visible_if_offers_earlier_questions_only_and_operators_that_fit(builder):
    builder.add("select")  # keuze_1
    builder.add("number")  # getal_1
    builder.add("group")  # groep_1
    builder.add("text", parent="2")  # tekst_1 inside the group
    builder.add("photo")  # foto_1
    builder.add("text")  # tekst_2, last (top-level position 4)
    response = builder.full("4", **{"visible_if.mode": "als"})
    html = response.get_data(as_text=True)
    last = card(html, "q-4")
    # Earlier questions with an answer: not the group, not itself; the nearest is chosen.
    assert options_of(last, "q-4-cond-q") == ["keuze_1", "getal_1", "tekst_1", "foto_1"]
    assert builder.question(4)["visible_if"] == {
        "question_id": "foto_1",
        "operator": "not_empty",
        "value": None,
    }
    assert options_of(last, "q-4-cond-op") == ["not_empty", "empty"]
    html = builder.full(
        "4",
        **{
            "visible_if.mode": "als",
            "visible_if.question_id": "keuze_1",
            "visible_if.operator": "not_empty",
        },
    ).get_data(as_text=True)
    last = card(html, "q-4")
    assert options_of(last, "q-4-cond-op") == ["eq", "neq", "empty", "not_empty", "in", "not_in"]
    assert options_of(last, "q-4-cond-value") == ["", "Optie 1", "Optie 2"]  # the select's options
    html = builder.full(
        "4",
        **{
            "visible_if.mode": "als",
            "visible_if.question_id": "getal_1",
            "visible_if.operator": "eq",
        },
    ).get_data(as_text=True)
    last = card(html, "q-4")
    assert "gt" in options_of(last, "q-4-cond-op") and "contains" not in options_of(
        last, "q-4-cond-op"
    )
    assert re.search(r'<input type="number" name="visible_if.value" id="q-4-cond-value"', last)
    builder.save(
        "4",
        **{
            "visible_if.mode": "als",
            "visible_if.question_id": "getal_1",
            "visible_if.operator": "gt",
            "visible_if.has_value": "1",
            "visible_if.value": "100",
        },
    )
    assert builder.question(4)["visible_if"] == {
        "question_id": "getal_1",
        "operator": "gt",
        "value": 100,
    }
    # The first question has nothing earlier to depend on.
    assert "die is er nog niet" in card(builder.editor(), "q-0")


def test_the_formula_is_checked_as_it_is_typed(builder):
    builder.add("number")
    builder.add("boolean")
    builder.add("text")
    builder.add("calculated")

    def check(formula: str) -> str:
        response = builder.post("formule", {"pad": "3", "formula": formula})
        assert response.status_code == 200
        return response.get_data(as_text=True)

    assert "✓" in check("round(getal_1 * 2, 1)") and "<code>getal_1</code>" in check("getal_1 * 2")
    assert "Klopt nog niet" in check("getal_1 +")
    assert "houdt onverwacht op bij teken 10" in check("getal_1 +")  # Dutch, counted from 1
    assert "Onbekende vraag-id" in check("gewicht * 2")
    assert "Hiermee kan niet gerekend worden: tekst_1" in check("tekst_1 + 1")
    assert "Typ een formule" in check("")
    deep = check("(" * 60 + "1" + ")" * 60)
    assert "te diep genest" in deep


def test_a_new_id_is_followed_by_conditions_and_formulas(builder):
    builder.add("number")
    builder.add("calculated")
    builder.add("text")
    builder.save("1", formula="getal_1 * 2")
    builder.full(
        "2",
        **{"visible_if.mode": "als", "visible_if.question_id": "getal_1"},
    )
    builder.save("0", id="gewicht")
    assert builder.question(1)["formula"] == "gewicht * 2"
    assert builder.question(2)["visible_if"]["question_id"] == "gewicht"


def test_questions_move_up_down_into_and_out_of_groups(builder):
    for qtype in ("text", "number", "group", "boolean"):
        builder.add(qtype)
    assert builder.ids() == ["tekst_1", "getal_1", ["groep_1", []], "janee_1"]
    response = builder.move("1", "op")
    assert response.status_code == 200
    assert json.loads(response.headers["HX-Trigger-After-Settle"])["builderFocus"] == {
        "kind": "move",
        "id": "q-0",
        "action": "op",
    }
    assert builder.ids() == ["getal_1", "tekst_1", ["groep_1", []], "janee_1"]
    builder.move("0", "neer")
    assert builder.ids() == ["tekst_1", "getal_1", ["groep_1", []], "janee_1"]
    builder.move("3", "in")
    assert builder.ids() == ["tekst_1", "getal_1", ["groep_1", ["janee_1"]]]
    builder.move("2.0", "uit")
    assert builder.ids() == ["tekst_1", "getal_1", ["groep_1", []], "janee_1"]
    refused = builder.move("0", "op")
    assert refused.status_code == 422
    assert "kan niet verder" in refused.get_data(as_text=True)
    # A drop: to any place, never into itself.
    dropped = builder.post("vraag/verplaatsen", {"pad": "0", "naar_ouder": "2", "naar_index": "0"})
    assert dropped.status_code == 200
    assert builder.ids() == ["getal_1", ["groep_1", ["tekst_1"]], "janee_1"]
    into_itself = builder.post(
        "vraag/verplaatsen", {"pad": "1", "naar_ouder": "1", "naar_index": "0"}
    )
    assert into_itself.status_code == 422 and "niet in zichzelf" in into_itself.get_data(
        as_text=True
    )


def test_moving_without_javascript_redirects_back_to_the_card(builder):
    builder.add("text")
    builder.add("text")
    response = builder.post("vraag/verplaatsen", {"pad": "1", "richting": "op"}, htmx=False)
    assert response.status_code == 303
    assert response.headers["Location"].endswith("/vragenlijsten/kuikens/concept#q-0")
    assert builder.ids() == ["tekst_2", "tekst_1"]


def test_a_question_is_removed_after_a_confirmation(builder):
    builder.add("group")
    builder.add("text", parent="0")
    builder.add("text", parent="0")
    builder.add("number")
    confirm = builder.client.get(f"{builder.base}/concept/vraag/verwijderen?pad=0", headers=HX)
    html = confirm.get_data(as_text=True)
    assert confirm.status_code == 200
    assert "De groep en de 2 vragen erin" in html and 'name="pad" value="0"' in html
    assert builder.ids() == [["groep_1", ["tekst_1", "tekst_2"]], "getal_1"]  # nothing yet
    response = builder.post("vraag/verwijderen", {"pad": "0"})
    assert response.status_code == 200
    assert builder.ids() == ["getal_1"]
    assert builder.client.get(f"{builder.base}/concept/vraag/verwijderen?pad=x").status_code == 404


def test_an_edit_at_a_path_that_is_no_path_changes_no_question(builder):
    """Regression: an unreadable path became (-1,), which Python read as the last question,
    so a save, move, removal or clean-up aimed at nothing changed the last question."""
    builder.add("group")
    builder.add("text")
    builder.add("number")
    before = builder.draft
    for junk in ("x", "-1", ".".join(["0"] * 5000)):
        for action, fields in (
            ("vraag", {"pad": junk, "velden": "label", "label": "Gekaapt"}),
            ("vraag/verwijderen", {"pad": junk}),
            ("vraag/verplaatsen", {"pad": junk, "richting": "neer"}),
            ("vraag/verplaatsen", {"pad": junk, "naar_ouder": "0", "naar_index": "0"}),
            ("vraag/opties", {"pad": junk, "actie": "toevoegen"}),
            ("vraag/opschonen", {"pad": junk}),
            ("vraag/toevoegen", {"in": junk, "type": "text"}),
        ):
            response = builder.post(action, fields)
            assert response.status_code == 422, (junk, action, response.status_code)
            assert "Deze vraag bestaat niet (meer)" in response.get_data(as_text=True)
    assert builder.draft == before


def test_a_stale_versie_is_refused_with_a_reload_and_never_overwrites(builder):
    builder.add("text")
    versie = builder.draft["versie"]
    builder.save("0", label="Uit het eerste tabblad")
    # A second tab still holds the old versie.
    response = builder.post(
        "vraag", [("pad", "0"), ("velden", "label"), ("label", "Oud")], versie=versie
    )
    assert response.status_code == 409
    html = response.get_data(as_text=True)
    assert "data-stale" in html and "Concept opnieuw laden" in html
    assert "intussen gewijzigd" in html
    assert response.headers["HX-Retarget"] == "#builder-alert"
    assert builder.question(0)["label"] == "Uit het eerste tabblad"
    assert builder.draft["versie"] == versie + 1


def test_unknown_fields_from_an_import_can_be_cleaned_away(builder):
    doc = builder.doc
    doc["questions"] = [{"id": "a", "type": "text", "label": "A", "max_files": 2, "kleur": "rood"}]
    doc["extra"] = 1
    from portal.audit.service import SYSTEM
    from portal.questionnaires import service

    in_carrier(
        builder.app,
        builder.carrier.id,
        lambda: service.replace_draft(
            carrier_id=builder.carrier.id,
            questionnaire_id="kuikens",
            doc=doc,
            user_id=None,
            actor=SYSTEM,
            action="imported",
        ),
    )
    html = builder.editor()
    assert "Onbekend veld “kleur”" in html and "Velden die hier niet horen weghalen" in html
    builder.post("vraag/opschonen", {"pad": "0"})
    builder.post("vraag/opschonen", {"pad": ""})
    assert builder.question(0) == {"id": "a", "type": "text", "label": "A"}
    assert "extra" not in builder.doc


def test_the_title_and_activity_type_are_edited(builder):
    response = builder.post("algemeen", {"title": "Kuikens laden 2", "activity_type": "Fout Type"})
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert 'id="qb-title" hx-swap-oob="true">Kuikens laden 2' in html
    assert "Een activiteit bestaat uit kleine letters" in html
    assert builder.doc["title"] == "Kuikens laden 2"


# --- import and export -------------------------------------------------------------------------


def test_export_and_import_round_trip(app, builder, carrier):
    builder.add("select")
    builder.add("group")
    builder.add("number", parent="1")
    exported = builder.client.get(f"{builder.base}/concept/export")
    assert exported.status_code == 200
    assert exported.headers["Content-Disposition"] == 'attachment; filename="kuikens-concept.json"'
    doc = json.loads(exported.data)
    assert doc == builder.doc
    builder.post("vraag/verwijderen", {"pad": "0"})
    page = builder.client.get(f"{builder.base}/concept/importeren")
    assert page.status_code == 200
    response = builder.client.post(
        f"{builder.base}/concept/importeren",
        data={"csrf_token": builder.token, "bestand": (io.BytesIO(exported.data), "kuikens.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303
    assert builder.doc == doc
    # Pasting works too, and another questionnaire_id in the file is replaced by this one.
    pasted = builder.client.post(
        f"{builder.base}/concept/importeren",
        data={
            "csrf_token": builder.token,
            "json": json.dumps({**doc, "questionnaire_id": "anders"}),
        },
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert "vervangen door “kuikens”" in pasted.get_data(as_text=True)
    assert builder.doc["questionnaire_id"] == "kuikens"


def test_an_import_with_problems_is_kept_and_shows_them(builder):
    doc = {**builder.doc, "questions": [{"id": "x", "type": "select", "label": "Soort"}]}
    response = builder.client.post(
        f"{builder.base}/concept/importeren",
        data={"csrf_token": builder.token, "json": json.dumps(doc)},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    html = response.get_data(as_text=True)
    assert "De controle vond 1 probleem/problemen" in html
    assert "Geef minstens één keuze." in html
    assert builder.question(0)["id"] == "x"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "Dit is geen geldige JSON (regel 1, kolom 2)"),
        (b"[1, 2]", "Een vragenlijst is één JSON-object"),
        (b"\xff\xfe", "Dit is geen geldige JSON"),
        (b"[" * 2000 + b"]" * 2000, "te diep genest"),  # past the parser's own limit
        (b'{"a":' * 100 + b"1" + b"}" * 100, "te diep genest"),
        (b"", "Het bestand is leeg."),
    ],
)
def test_a_file_that_is_no_questionnaire_is_refused_with_a_reason(builder, body, message):
    before = builder.doc
    response = builder.client.post(
        f"{builder.base}/concept/importeren",
        data={"csrf_token": builder.token, "bestand": (io.BytesIO(body), "x.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert builder.doc == before


def test_an_import_over_one_megabyte_is_refused_before_it_is_read(builder):
    before = builder.doc
    big = b'{"title": "' + b"x" * (10 * 1024 * 1024) + b'"}'
    response = upload(builder, big)
    assert response.status_code == 413
    html = response.get_data(as_text=True)
    assert (
        "groter dan 1 MB" in html and 'name="bestand"' in html
    )  # the import form, not a bare error
    assert builder.doc == before
    # Just over the limit of the JSON itself, within the request limit: refused as well.
    response = upload(builder, b" " * 1_000_001)
    assert response.status_code == 422 and "groter dan 1 MB" in response.get_data(as_text=True)
    # The server still answers.
    assert builder.client.get(f"{builder.base}/concept").status_code == 200


def test_a_hostile_formula_and_a_catastrophic_regex_give_problems_quickly(builder):
    doc = {
        **builder.doc,
        "questions": [
            {"id": "n", "type": "number", "label": "N"},
            {
                "id": "diep",
                "type": "calculated",
                "label": "Diep",
                "formula": "(" * 10_000 + "n" + ")" * 10_000,
            },
            {
                "id": "nest",
                "type": "calculated",
                "label": "Nest",
                "formula": "(" * 900 + "n" + ")" * 900,
            },
            {"id": "t", "type": "text", "label": "T", "validation": {"regex": "(a+)+$"}},
        ],
    }
    response = builder.client.post(
        f"{builder.base}/concept/importeren",
        data={
            "csrf_token": builder.token,
            "bestand": (io.BytesIO(json.dumps(doc).encode()), "x.json"),
        },
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "De formule is langer dan 2000 tekens." in card(html, "q-1")
    assert "te diep genest" in card(html, "q-2")
    assert "probleem" not in card(html, "q-3").split("q-body")[0]  # RE2: the regex is fine
    # The regex runs in linear time on a hostile answer in the preview as well.
    builder.post("vraag/verwijderen", {"pad": "1"})
    builder.post("vraag/verwijderen", {"pad": "1"})
    preview = builder.client.post(
        f"{builder.base}/concept/voorbeeld",
        data={
            "csrf_token": builder.token,
            "getoond": "n,t",
            "a-t": "a" * 5000 + "!",
            "controleer": "1",
        },
        headers=HX,
    )
    assert "Dit heeft niet de gevraagde vorm." in preview.get_data(as_text=True)


def test_a_new_questionnaire_is_imported_from_the_list(app, browser, carrier):
    page = browser.get("/vragenlijsten/importeren")
    token = csrf_from(page.get_data(as_text=True))
    doc = questionnaire_doc("koel_transport", "koel", "Koel")
    response = browser.post(
        "/vragenlijsten/importeren",
        data={"csrf_token": token, "bestand": (io.BytesIO(json.dumps(doc).encode()), "koel.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303
    assert draft_of(app, carrier, "koel")["doc"]["questions"] == doc["questions"]
    again = browser.post(
        "/vragenlijsten/importeren",
        data={"csrf_token": token, "bestand": (io.BytesIO(json.dumps(doc).encode()), "koel.json")},
        content_type="multipart/form-data",
    )
    assert again.status_code == 409 and "bestaat al" in again.get_data(as_text=True)
    nameless = browser.post(
        "/vragenlijsten/importeren",
        data={"csrf_token": token, "json": json.dumps({**doc, "questionnaire_id": "met spatie"})},
        content_type="multipart/form-data",
    )
    assert nameless.status_code == 422 and "questionnaire_id" in nameless.get_data(as_text=True)


# --- the preview --------------------------------------------------------------------------------


def preview_doc() -> dict:
    doc = questionnaire_doc("kuikens_laden", "kuikens", "Kuikens laden")
    doc["questions"] = [
        {
            "id": "soort",
            "type": "select",
            "label": "Soort",
            "options": ["Vleeskuikens", "Leghennen"],
        },
        {
            "id": "toelichting",
            "type": "text",
            "label": "Toelichting",
            "required": True,
            "visible_if": {"question_id": "soort", "operator": "eq", "value": "Leghennen"},
        },
        {
            "id": "aantal",
            "type": "integer",
            "label": "Aantal",
            "validation": {"min": 1, "max": 30000},
        },
        {
            "id": "kratten",
            "type": "calculated",
            "label": "Kratten",
            "formula": "aantal / 20",
            "unit": "st",
        },
        {"id": "foto", "type": "photo", "label": "Foto", "max_files": 2},
        {
            "id": "chauffeur",
            "type": "text",
            "label": "Chauffeur",
            "readonly": True,
            "default_value": "Jan",
        },
    ]
    return doc


@pytest.fixture
def previewing(app, browser, carrier, author):
    make_draft(app, carrier, author, preview_doc())
    return Builder(app, browser, carrier, "kuikens")


def test_the_preview_shows_the_form_as_the_driver_sees_it(previewing):
    html = previewing.editor()
    preview = html[html.index('id="preview"') :]
    assert 'id="pv-soort"' in preview and 'id="pv-toelichting"' not in preview  # hidden for now
    assert '<input type="file" id="pv-foto" disabled' in preview and "max 2 bestanden" in preview
    assert (
        'value="Jan"' in preview
        and "disabled" in preview[preview.index('id="pv-chauffeur"') :][:300]
    )
    assert "nog niet te berekenen" in preview


def test_the_preview_shows_hides_validates_and_computes_with_the_engine(previewing):
    def fill(controleer: str = "", **answers) -> str:
        data = {"csrf_token": previewing.token, "getoond": "soort,toelichting,aantal,chauffeur"}
        data.update({f"a-{key}": value for key, value in answers.items()})
        if controleer:
            data["controleer"] = controleer
        response = previewing.client.post(
            f"{previewing.base}/concept/voorbeeld", data=data, headers=HX
        )
        assert response.status_code == 200
        return response.get_data(as_text=True)

    html = fill(soort="Leghennen", aantal="40000")
    assert 'id="pv-toelichting"' in html  # appears
    assert "Hoogstens 30000." in html  # validated while typing
    assert "Dit is verplicht." not in html  # required only on "Controleer"
    html = fill(soort="Vleeskuikens", aantal="200", toelichting="weg")
    assert 'id="pv-toelichting"' not in html  # disappears again
    assert re.search(r'id="pv-kratten"[^>]*>10,00 st', html)  # computed, a Dutch number
    assert '"toelichting"' not in html.split("Wat de server zou opslaan")[1]  # hidden: not stored
    final = fill(soort="Leghennen", aantal="0", controleer="1")
    assert "Dit is verplicht." in final and "Minstens 1." in final
    assert "2 antwoorden moeten nog worden verbeterd." in final
    ok = fill(soort="Leghennen", aantal="20", toelichting="ok", controleer="1")
    assert "Alles in orde" in ok
    assert "Vul een geheel getal in." in fill(aantal="12,5x")
    # Once checked, the preview stays checked while answers are corrected, until it starts over.
    assert 'name="gecontroleerd" value="1"' in ok
    data = {"csrf_token": previewing.token, "getoond": "soort,toelichting,aantal,chauffeur"}
    again = previewing.client.post(
        f"{previewing.base}/concept/voorbeeld",
        data={**data, "a-soort": "Leghennen", "a-aantal": "0", "gecontroleerd": "1"},
        headers=HX,
    ).get_data(as_text=True)
    assert "2 antwoorden moeten nog worden verbeterd." in again
    fresh = previewing.client.post(
        f"{previewing.base}/concept/voorbeeld",
        data={**data, "gecontroleerd": "1", "leegmaken": "1"},
        headers=HX,
    ).get_data(as_text=True)
    assert "moeten nog worden verbeterd" not in fresh and 'name="gecontroleerd"' not in fresh


def test_the_preview_waits_until_the_draft_has_no_problems(previewing):
    previewing.save("2", **{"validation.min": "5", "validation.max": "1"})
    html = previewing.client.get(f"{previewing.base}/concept/voorbeeld", headers=HX).get_data(
        as_text=True
    )
    assert "Het voorbeeld werkt zodra het concept geen problemen meer heeft." in html
    assert "Nog 1 probleem op te lossen." in html
    assert 'id="preview-form"' not in html


# --- publishing -----------------------------------------------------------------------------------


def test_publishing_shows_the_impact_and_the_changes_then_publishes(
    app, client, carrier, author, driver
):
    revision = publish_questionnaire(app, carrier)  # mest-laden rev 1, active
    create_task(app, carrier, driver)
    create_task(app, carrier, driver)
    create_task(app, carrier, driver, status="afgerond")  # not open: not counted
    login(client, author)
    client.post(
        "/vragenlijsten/mest-laden/concept/starten",
        data={"csrf_token": csrf_from(client.get("/vragenlijsten").get_data(as_text=True))},
    )
    b = Builder(app, client, carrier, "mest-laden")
    b.save("0", label="Gewicht vol")
    b.add("boolean")
    page = client.get("/vragenlijsten/mest-laden/publiceren")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "2 open taken dragen nu revisie 1." in html
    assert "Open taken houden de revisie die ze hebben" in html
    assert "Verschil met revisie 1" in html
    assert "1 toegevoegd" in html and "1 gewijzigd" in html
    assert "<del>Gewicht</del> → <ins>Gewicht vol</ins>" in html
    assert "Ja, publiceer revisie 2" in html
    token = csrf_from(html)
    done = client.post(
        "/vragenlijsten/mest-laden/publiceren",
        data={"csrf_token": token, "versie": b.draft["versie"]},
    )
    assert done.status_code == 303
    assert done.headers["Location"].endswith("/vragenlijsten/mest-laden/revisies")
    assert draft_of(app, carrier, "mest-laden") is None
    rows = revisions_of(app, carrier, "mest-laden")
    assert [(r["revisie"], r["is_active"]) for r in rows] == [(2, True), (1, False)]
    assert rows[0]["doc"]["questions"][0]["label"] == "Gewicht vol"
    # Open tasks keep revision 1.
    from portal.tasks import service as tasks

    pinned = in_carrier(
        app,
        carrier.id,
        lambda: tasks.count_open_pinned(carrier_id=carrier.id, revision_id=revision.id),
    )
    assert pinned == 2
    # The audit trail has it.
    from portal.audit import service as audit

    entries = in_carrier(
        app,
        carrier.id,
        lambda: audit.entries_for(
            carrier_id=carrier.id, entity="questionnaire", entity_id=rows[0]["id"]
        ),
        lambda items: [(e.action, json.loads(e.changes)) for e in items],
    )
    assert entries[0][0] == "published" and entries[0][1]["revisie"] == 2


def test_publishing_is_refused_while_the_draft_has_problems(builder):
    builder.add("select")
    builder.post("vraag/opties", {"pad": "0", "actie": "verwijderen", "index": "0"})
    builder.post("vraag/opties", {"pad": "0", "actie": "verwijderen", "index": "0"})
    page = builder.client.get(f"{builder.base}/publiceren").get_data(as_text=True)
    assert "Eerst 1 probleem oplossen" in page and "disabled" in page
    response = builder.client.post(
        f"{builder.base}/publiceren",
        data={"csrf_token": builder.token, "versie": builder.draft["versie"]},
    )
    assert response.status_code == 422
    assert "Niet gepubliceerd: het concept heeft 1 probleem" in response.get_data(as_text=True)
    assert builder.draft is not None
    assert revisions_of(builder.app, builder.carrier, "kuikens") == []


def test_an_empty_questionnaire_is_not_publishable_and_the_checker_says_why(builder):
    editor = builder.client.get(f"{builder.base}/concept").get_data(as_text=True)
    assert "Een vragenlijst heeft minstens één vraag nodig." in editor
    page = builder.client.get(f"{builder.base}/publiceren").get_data(as_text=True)
    assert "Een vragenlijst heeft minstens één vraag nodig." in page
    assert "Eerst 1 probleem oplossen" in page
    response = builder.client.post(
        f"{builder.base}/publiceren",
        data={"csrf_token": builder.token, "versie": builder.draft["versie"]},
    )
    assert response.status_code == 422
    assert revisions_of(builder.app, builder.carrier, "kuikens") == []
    builder.add("text")
    page = builder.client.get(f"{builder.base}/publiceren").get_data(as_text=True)
    assert "minstens één vraag" not in page


def test_the_publish_message_names_the_title(builder):
    builder.add("text")
    done = builder.client.post(
        f"{builder.base}/publiceren",
        data={"csrf_token": builder.token, "versie": builder.draft["versie"]},
        follow_redirects=True,
    )
    html = done.get_data(as_text=True)
    assert "Revisie 1 van “Kuikens laden” is gepubliceerd" in html
    assert "“kuikens”" not in html


def test_publishing_a_draft_that_changed_meanwhile_asks_to_look_again(builder):
    builder.add("text")
    versie = builder.draft["versie"]
    builder.save("0", label="Nog even anders")
    response = builder.client.post(
        f"{builder.base}/publiceren", data={"csrf_token": builder.token, "versie": versie}
    )
    assert response.status_code == 409
    assert "gewijzigd sinds je deze pagina opende" in response.get_data(as_text=True)
    assert revisions_of(builder.app, builder.carrier, "kuikens") == []


def test_a_published_questionnaire_reaches_the_api_and_new_tasks(
    app, builder, carrier, driver, api_key
):
    builder.add("number")
    builder.client.post(
        f"{builder.base}/publiceren",
        data={"csrf_token": builder.token, "versie": builder.draft["versie"]},
    )
    listed = builder.client.get(
        "/api/v1/activity_questionnaires?activity_type=kuikens_laden",
        headers={"Authorization": f"Bearer {api_key.key}"},
    ).get_json()
    assert [(q["questionnaire_id"], q["is_active"]) for q in listed] == [("kuikens", True)]
    task = create_task(app, carrier, driver, type="kuikens_laden")
    from portal.tasks import service as tasks

    pinned = in_carrier(
        app,
        carrier.id,
        lambda: tasks.get_task(carrier_id=carrier.id, task_id=task.id).activity_questionnaire_id,
    )
    assert pinned == listed[0]["id"] or str(pinned) == listed[0]["id"]


# --- revisions ------------------------------------------------------------------------------------


def test_revisions_are_listed_viewed_compared_and_restored(app, browser, carrier, author):
    first = questionnaire_doc()
    second = questionnaire_doc()
    second["questions"][0]["label"] = "Gewicht vol"
    second["questions"].append({"id": "opmerking", "type": "textarea", "label": "Opmerking"})
    del second["questions"][1]
    publish_questionnaire(app, carrier, first)
    publish_questionnaire(app, carrier, second)

    listing = browser.get("/vragenlijsten/mest-laden/revisies").get_data(as_text=True)
    assert "Revisie 2" in listing and "Revisie 1" in listing and "actief" in listing
    assert re.search(r'<td class="num">2</td>', listing)  # question count

    shown = browser.get("/vragenlijsten/mest-laden/revisies/1").get_data(as_text=True)
    assert "alleen lezen" in shown and "Gewicht" in shown and 'name="label"' not in shown
    assert browser.get("/vragenlijsten/mest-laden/revisies/9").status_code == 404

    compared = browser.get("/vragenlijsten/mest-laden/vergelijken?van=1&naar=2")
    html = compared.get_data(as_text=True)
    assert compared.status_code == 200
    assert "1 toegevoegd" in html and "1 verwijderd" in html and "1 gewijzigd" in html
    assert 'class="ro-item ro-removed" id="oud-q-1"' in html
    assert 'class="ro-item ro-added" id="nieuw-q-1"' in html
    assert 'class="ro-item ro-changed" id="nieuw-q-0"' in html
    assert "<del>Gewicht</del> → <ins>Gewicht vol</ins>" in html
    assert browser.get("/vragenlijsten/mest-laden/vergelijken?van=1&naar=7").status_code == 404

    export = browser.get("/vragenlijsten/mest-laden/revisies/1/export")
    assert (
        export.headers["Content-Disposition"] == 'attachment; filename="mest-laden-revisie-1.json"'
    )
    assert json.loads(export.data)["questions"][0]["label"] == "Gewicht"

    # Restoring while a draft exists asks first, and says the draft is replaced.
    token = csrf_from(listing)
    browser.post("/vragenlijsten/mest-laden/concept/starten", data={"csrf_token": token})
    confirm = browser.get("/vragenlijsten/mest-laden/revisies/1/herstellen").get_data(as_text=True)
    assert "Er is al een concept" in confirm and "wordt vervangen" in confirm
    restored = browser.post(
        "/vragenlijsten/mest-laden/revisies/1/herstellen", data={"csrf_token": token}
    )
    assert restored.status_code == 303
    draft = draft_of(app, carrier, "mest-laden")["doc"]
    assert [q["id"] for q in draft["questions"]] == ["gewicht", "foto"]
    assert draft["questions"][1] == {"id": "foto", "type": "photo", "label": "Foto", "max_files": 2}
    # The draft compares with a revision too.
    with_draft = browser.get("/vragenlijsten/mest-laden/vergelijken?van=2&naar=concept")
    assert with_draft.status_code == 200 and "Concept" in with_draft.get_data(as_text=True)


def test_a_draft_is_discarded_after_a_confirmation(app, browser, carrier, author, builder):
    confirm = browser.get("/vragenlijsten/kuikens/concept/verwijderen").get_data(as_text=True)
    assert "nooit gepubliceerd" in confirm
    response = browser.post(
        "/vragenlijsten/kuikens/concept/verwijderen", data={"csrf_token": builder.token}
    )
    assert response.status_code == 303 and response.headers["Location"].endswith("/vragenlijsten")
    assert draft_of(app, carrier, "kuikens") is None
    assert browser.get("/vragenlijsten/kuikens/concept").status_code == 404


def test_without_a_draft_the_editor_offers_to_start_one(app, browser, carrier):
    publish_questionnaire(app, carrier)
    html = browser.get("/vragenlijsten/mest-laden/concept").get_data(as_text=True)
    assert "Er is geen concept." in html and "Concept starten" in html
    assert browser.get("/vragenlijsten/mest-laden").headers["Location"].endswith("/revisies")
    browser.post("/vragenlijsten/mest-laden/concept/starten", data={"csrf_token": csrf_from(html)})
    assert draft_of(app, carrier, "mest-laden")["doc"]["questions"][0]["id"] == "gewicht"
    assert browser.get("/vragenlijsten/mest-laden").headers["Location"].endswith("/concept")


def test_a_request_body_over_the_limit_on_an_edit_is_a_friendly_message(builder):
    response = builder.client.post(
        f"{builder.base}/concept/vraag",
        data={"csrf_token": builder.token, "label": "x" * (2 * 1024 * 1024)},
        headers=HX,
    )
    assert response.status_code == 413
    assert "groter dan 1 MB" in response.get_data(as_text=True)
