"""A carrier's pay rule sets as a planner keeps them (/uren/regels): the CAO preset until the
first own set, sets dated from a Monday, amounts typed the Dutch way, problems told at the
field, approved weeks kept as computed, and the payable week computed with the stored set."""

from __future__ import annotations

import dataclasses
import re
from datetime import date
from decimal import Decimal as D
from html.parser import HTMLParser

import pytest
from factories import create_user, in_carrier, login
from werkzeug.datastructures import MultiDict

from hours.support import approve, at, record_day
from portal.audit.service import SYSTEM
from portal.hours import cao
from portal.hours.payroll import rulesets

BASE = "/uren/regels"
# A carrier's own irregular-hours table (the CAO has none for drivers).
WINDOWS = (
    cao.Window("nacht", (1, 2, 3, 4, 5), "00:00", "06:00", 130),
    cao.Window("dag", (1, 2, 3, 4, 5), "06:00", "19:00", 100),
    cao.Window("avond", (1, 2, 3, 4, 5), "19:00", "24:00", 120),
)


@pytest.fixture
def as_planner(app, client, carrier):
    login(client, create_user(app, carrier, "planner"))
    return client


def add(app, carrier, day: date = date(2026, 11, 2), **changes) -> object:
    rules = dataclasses.replace(cao.cao_preset(day), **changes)
    return in_carrier(
        app,
        carrier.id,
        lambda: rulesets.create_rule_set(carrier_id=carrier.id, rules=rules, actor=SYSTEM),
        lambda row: row.id,
    )


def stored(app, carrier) -> list[cao.PayRules]:
    """The carrier's own rule sets, oldest first (without the preset before them)."""
    return in_carrier(
        app,
        carrier.id,
        lambda: [rulesets.as_rules(row) for row in rulesets.stored(carrier_id=carrier.id)],
    )


class Fields(HTMLParser):
    """The values a browser would send for each form of a page (forms: one list each)."""

    def __init__(self):
        super().__init__()
        self.forms: list[list[tuple[str, str]]] = []
        self._textarea = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append([])
        if not self.forms or "name" not in a:
            return
        if tag == "input":
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            self.forms[-1].append((a["name"], a.get("value") or ""))
        elif tag == "textarea":
            self._textarea = True
            self.forms[-1].append((a["name"], ""))

    def handle_data(self, data):
        if self._textarea:
            name, value = self.forms[-1][-1]
            self.forms[-1][-1] = (name, value + data)

    def handle_endtag(self, tag):
        if tag == "textarea":
            self._textarea = False


def form_of(client, path: str) -> list[tuple[str, str]]:
    parser = Fields()
    parser.feed(client.get(path).get_data(as_text=True))
    biggest = max(parser.forms, key=len)  # the rule set's form, not the menu's
    return [(n, v.strip("\n")) for n, v in biggest]


def submit(client, path: str, form_path: str | None = None, drop=(), **changes):
    """Post the form as the page shows it, with fields changed (name=value) or dropped
    (names; a checkbox as (name, value))."""
    pairs = [
        (n, v)
        for n, v in form_of(client, form_path or path)
        if n not in drop and (n, v) not in drop
    ]
    pairs = [(n, changes.pop(n)) if n in changes else (n, v) for n, v in pairs]
    pairs += list(changes.items())
    return client.post(path, data=MultiDict(pairs))


def text(response) -> str:
    return re.sub(r"\s+", " ", response.get_data(as_text=True))


def window(client, path, name) -> int:
    """The index of the window row named name in the form."""
    for n, v in form_of(client, path):
        match = re.fullmatch(r"vensters-(\d+)-naam", n)
        if match and v == name:
            return int(match.group(1))
    raise AssertionError(f"no window {name}")


# --- the list ---------------------------------------------------------------------------


def test_without_a_set_the_list_says_the_cao_preset_holds_and_offers_to_start_from_it(
    as_planner,
):
    page = text(as_planner.get(BASE))
    assert "Nog geen eigen regelset: de standaardregels van de CAO gelden." in page
    assert "overuren 130%" in page
    assert f'href="{BASE}/nieuw?basis=preset"' in page


def test_the_hours_overview_links_to_the_rule_sets(as_planner):
    assert f'href="{BASE}"' in as_planner.get("/uren").get_data(as_text=True)


def test_the_list_marks_the_set_that_holds_today(app, as_planner, carrier):
    add(app, carrier, date(2020, 1, 6), naam="Oud")
    add(app, carrier, date(2021, 1, 4), naam="Huidig", overuren_procent=140)
    add(app, carrier, date(2099, 1, 5), naam="Toekomst")
    page = text(as_planner.get(BASE))
    rows = re.findall(r'<tr id="regelset-[^"]+">(.*?)</tr>', page)
    assert [("Geldt nu" in row, "Komt nog" in row) for row in rows] == [
        (False, True),
        (True, False),
        (False, False),
    ]
    assert "Huidig" in rows[1] and "140%" in rows[1] and "t/m 3 jan 2021" in page


# --- creating and changing ----------------------------------------------------------------


def test_a_planner_creates_the_first_set_from_the_preset(app, as_planner, carrier):
    path = f"{BASE}/nieuw?basis=preset"
    fields = form_of(as_planner, path)
    assert ("contracturen", "40") in fields
    assert ("betaalde_soorten", "rijden") in fields
    assert ("betaalde_soorten", "pauze") not in fields  # a break is not paid by default
    # Where overtime meets an irregular-hours surcharge, the surcharge alone; overtime
    # where the CAO of the week puts it; the one-day night-trip surcharge of 19%.
    assert ("samenloop", "onregelmatig") in fields
    assert ("overuren_grens", "cao") in fields
    assert ("dubbele_bemanning", "y") not in fields
    assert {
        ("nachtrit_procent", "19"),
        ("nachtrit_van", "21:00"),
        ("nachtrit_tot", "05:00"),
    } <= set(fields)
    monday = date.fromisoformat(dict(fields)["geldig_vanaf"])
    assert monday.isoweekday() == 1 and monday > date.today()
    page = text(as_planner.get(path))
    assert "Voorinstelling volgens de CAO Beroepsgoederenvervoer" in page  # amounts: where to look

    response = submit(
        as_planner,
        f"{BASE}/nieuw",
        path,
        geldig_vanaf="2026-11-02",
        naam="CAO 2026",
        overuren_procent="140",
        contracturen="38,5",
    )
    assert response.status_code == 303, text(response)
    (saved,) = stored(app, carrier)
    assert (saved.geldig_vanaf, saved.naam, saved.overuren_procent) == (
        date(2026, 11, 2),
        "CAO 2026",
        140,
    )
    assert saved.contracturen == D("38.5") and "pauze" not in saved.betaalde_soorten
    assert saved.vensters == ()  # the CAO has no irregular-hours table for drivers
    assert (saved.samenloop, saved.overuren_grens, saved.nachtrit_procent) == (
        "onregelmatig",
        "cao",
        19,
    )
    listed = text(as_planner.get(BASE))
    assert "De regelset vanaf maandag 2 november 2026 is opgeslagen." in listed
    assert "CAO 2026" in listed and "38,5 uur" in listed


def test_a_new_set_starts_from_the_newest_one(app, as_planner, carrier):
    add(app, carrier, date(2026, 1, 5), naam="CAO 2026", zaterdag_procent=160)
    fields = dict(form_of(as_planner, f"{BASE}/nieuw"))
    assert (fields["naam"], fields["zaterdag_procent"]) == ("CAO 2026", "160")


def test_the_amounts_of_the_verblijfkosten_are_edited_and_their_structure_kept(
    app, as_planner, carrier
):
    set_id = add(app, carrier)
    path = f"{BASE}/{set_id}"
    page = text(as_planner.get(path))
    assert "Eendaagse rit" in page and "Meerdaagse rit, tussendag" in page
    assert "avond bij vertrek voor 14:00" in page
    assert "extra bij vertrek na 14:00 en 12 uur afwezig" in page
    # The amounts in amounts' order: eendaags per hour first, the tussendag's day amount 6th.
    response = submit(as_planner, path, **{"bedragen-0": "0,87", "bedragen-5": "48,33"})
    assert response.status_code == 303, text(response)
    (saved,) = stored(app, carrier)
    kosten = saved.verblijfkosten
    assert kosten.eendaags.uurtarieven[0].bedrag_per_uur == D("0.87")
    assert kosten.tussendag.vaste_bedragen[0].bedrag == D("48.33")
    assert kosten.eendaags.uurtarieven[1].vertrek_voor == "14:00"  # the structure stays
    assert 'value="48,33"' in as_planner.get(path).get_data(as_text=True)


def test_a_negative_amount_is_refused_at_the_amount(app, as_planner, carrier):
    set_id = add(app, carrier)
    response = submit(as_planner, f"{BASE}/{set_id}", **{"bedragen-1": "-2,50"})
    assert response.status_code == 422
    page = text(response)
    assert re.search(r'id="bedragen-1-error"[^>]*>Een bedrag kan niet negatief zijn\.<', page)
    assert 'value="-2,50"' in page


def test_a_gap_in_the_windows_is_told_at_the_table_naming_the_day_and_time(
    app, as_planner, carrier
):
    set_id = add(app, carrier, vensters=WINDOWS)
    path = f"{BASE}/{set_id}"
    row = window(as_planner, path, "nacht")
    response = submit(as_planner, path, **{f"vensters-{row}-tot": "05:00"})
    assert response.status_code == 422
    page = text(response)
    assert re.search(
        r'id="vensters-error"[^>]*>Op maandag, dinsdag, woensdag, donderdag en vrijdag valt '
        r"05:00 tot 06:00 buiten elke rij\.",
        page,
    )
    assert re.search(f'name="vensters-{row}-tot"[^>]*value="05:00"', page)  # kept as typed
    assert stored(app, carrier)[0].vensters[0].tot == "06:00"


def test_overlapping_windows_are_told_at_the_table(app, as_planner, carrier):
    set_id = add(app, carrier, vensters=WINDOWS)
    path = f"{BASE}/{set_id}"
    row = window(as_planner, path, "nacht")
    response = submit(as_planner, path, **{f"vensters-{row}-tot": "07:00"})
    assert response.status_code == 422
    assert "Op maandag, dinsdag, woensdag, donderdag en vrijdag overlappen “nacht” en “dag”" in (
        text(response)
    )


def test_a_new_window_row_covers_the_weekend_and_empty_rows_are_ignored(app, as_planner, carrier):
    set_id = add(app, carrier, vensters=WINDOWS)
    path = f"{BASE}/{set_id}"
    fields = form_of(as_planner, path)
    empty = max(
        int(m.group(1)) for n, _v in fields if (m := re.fullmatch(r"vensters-(\d+)-naam", n))
    )
    response = submit(
        as_planner,
        path,
        **{
            f"vensters-{empty - 1}-naam": "weekend",
            f"vensters-{empty - 1}-van": "00:00",
            f"vensters-{empty - 1}-tot": "24:00",
            f"vensters-{empty - 1}-procent": "100",
        },
        drop=(),
    )
    # No weekday chosen yet: refused at the row.
    assert response.status_code == 422
    assert "Kies minstens één dag." in text(response)
    pairs = [(f"vensters-{empty - 1}-dagen", "6"), (f"vensters-{empty - 1}-dagen", "7")]
    base = [
        (n, v) for n, v in form_of(as_planner, path) if not n.startswith(f"vensters-{empty - 1}-")
    ]
    response = as_planner.post(
        path,
        data=MultiDict(
            base
            + pairs
            + [
                (f"vensters-{empty - 1}-naam", "weekend"),
                (f"vensters-{empty - 1}-van", "00:00"),
                (f"vensters-{empty - 1}-tot", "24:00"),
                (f"vensters-{empty - 1}-procent", "100"),
            ]
        ),
    )
    assert response.status_code == 303, text(response)
    assert [v.naam for v in stored(app, carrier)[0].vensters] == [
        "nacht",
        "dag",
        "avond",
        "weekend",
    ]


def test_the_add_row_button_adds_an_empty_row_and_saves_nothing(app, as_planner, carrier):
    set_id = add(app, carrier)
    path = f"{BASE}/{set_id}"
    rows = {n for n, _v in form_of(as_planner, path) if n.endswith("-naam")}
    response = submit(as_planner, path, actie="rij", naam="Nog niet opslaan")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert len(set(re.findall(r'name="(vensters-\d+-naam)"', page))) == len(rows) + 1
    assert 'value="Nog niet opslaan"' in page
    assert stored(app, carrier)[0].naam == cao.cao_preset(date(2026, 11, 2)).naam


def test_a_date_that_is_not_a_monday_is_refused_at_the_date(as_planner):
    path = f"{BASE}/nieuw?basis=preset"
    response = submit(as_planner, f"{BASE}/nieuw", path, geldig_vanaf="2026-11-04")
    assert response.status_code == 422
    assert re.search(
        r'id="geldig_vanaf-error"[^>]*>Kies een maandag: woensdag 4 november 2026 is geen '
        r"maandag\.",
        text(response),
    )
    assert 'value="2026-11-04"' in response.get_data(as_text=True)


def test_two_sets_on_one_date_are_refused(app, as_planner, carrier):
    add(app, carrier)
    response = submit(as_planner, f"{BASE}/nieuw", geldig_vanaf="2026-11-02")
    assert response.status_code == 422
    assert "Er is al een regelset vanaf maandag 2 november 2026." in text(response)
    assert len(stored(app, carrier)) == 1


def test_bad_percentages_and_hours_are_told_at_their_field(app, as_planner, carrier):
    set_id = add(app, carrier)
    response = submit(
        as_planner,
        f"{BASE}/{set_id}",
        overuren_procent="90",
        zondag_procent="veel",
        contracturen="61",
    )
    assert response.status_code == 422
    page = text(response)
    # The form's own check first: "veel" is not a number; the others wait for it.
    assert re.search(r'id="zondag_procent-error"[^>]*>Vul een heel percentage in', page)
    response = submit(as_planner, f"{BASE}/{set_id}", overuren_procent="90", contracturen="61")
    page = text(response)
    assert re.search(r'id="overuren_procent-error"[^>]*>Minstens 100%', page)
    assert re.search(r'id="contracturen-error"[^>]*>Tussen 0 en 60 uur', page)


def test_the_overtime_rule_and_the_night_trip_are_saved_from_the_form(app, as_planner, carrier):
    set_id = add(app, carrier)
    response = submit(
        as_planner,
        f"{BASE}/{set_id}",
        overuren_grens="dag_8",
        dubbele_bemanning="y",
        nachtrit_procent="21",
        nachtrit_van="22:00",
        nachtrit_tot="06:00",
        samenloop="hoogste",
    )
    assert response.status_code == 303, text(response)
    (saved,) = stored(app, carrier)
    assert (saved.overuren_grens, saved.dubbele_bemanning, saved.samenloop) == (
        "dag_8",
        True,
        "hoogste",
    )
    assert (saved.nachtrit_procent, saved.nachtrit_van, saved.nachtrit_tot) == (
        21,
        "22:00",
        "06:00",
    )
    fields = form_of(as_planner, f"{BASE}/{set_id}")
    assert ("dubbele_bemanning", "y") in fields and ("overuren_grens", "dag_8") in fields
    # Unticked, double manning goes off again.
    response = submit(as_planner, f"{BASE}/{set_id}", drop=("dubbele_bemanning",))
    assert response.status_code == 303, text(response)
    assert stored(app, carrier)[0].dubbele_bemanning is False


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"nachtrit_procent": "120"}, "nachtrit_procent", "Tussen 0% en 100% (0 is geen toeslag)."),
        ({"nachtrit_procent": "19,5"}, "nachtrit_procent", "Vul een heel percentage in"),
        ({"nachtrit_procent": ""}, "nachtrit_procent", "Vul een heel percentage in"),
        ({"nachtrit_van": "25:00"}, "nachtrit_van", "Vul een tijd in zoals 19:00"),
        ({"nachtrit_tot": "21:00"}, "nachtrit_tot", "Het einde (21:00) moet na het begin"),
        ({"overuren_grens": "boven_38"}, "overuren_grens", "Kies een van de regels voor overuren."),
    ],
    ids=["percent-high", "percent-fraction", "percent-empty", "time", "empty", "rule"],
)
def test_bad_overtime_and_night_trip_values_are_told_at_their_field(
    app, as_planner, carrier, changes, field, message
):
    set_id = add(app, carrier)
    response = submit(as_planner, f"{BASE}/{set_id}", **changes)
    assert response.status_code == 422
    page = text(response)
    assert re.search(f'id="{field}-error"[^>]*>{re.escape(message)}', page), page[:2000]
    assert "De regelset is niet opgeslagen." in page
    assert stored(app, carrier)[0] == dataclasses.replace(
        cao.cao_preset(date(2026, 11, 2)), geldig_vanaf=date(2026, 11, 2)
    )


def in_force(page: str) -> dict[str, str]:
    return {
        key: re.sub(r"<[^>]+>", "", value).strip()
        for key, value in re.findall(r'<dd id="nu-(\w+)">(.*?)</dd>', page)
    }


def test_the_list_says_which_samenloop_rule_is_in_force(app, as_planner, carrier):
    shown = in_force(text(as_planner.get(BASE)))
    assert shown["regels"] == "De standaardregels van de CAO"
    assert shown["samenloop"].startswith("Alleen de onregelmatigheidstoeslag")
    assert "Deze regels hebben geen onregelmatige uren." in shown["samenloop"]
    assert shown["overuren"] == "Volgens de CAO van die week: boven de contracturen"
    assert shown["nachtrit"] == "19% van 21:00 tot 05:00"
    add(app, carrier, date(2021, 1, 4), samenloop="hoogste", vensters=WINDOWS,
        overuren_grens="week_40", dubbele_bemanning=True)  # fmt: skip
    page = text(as_planner.get(BASE))
    shown = in_force(page)
    assert shown["regels"] == "CAO Beroepsgoederenvervoer over de weg, vanaf 4 januari 2021"
    assert shown["samenloop"].startswith("Het hoogste van beide")
    assert shown["overuren"] == "Boven 40 uur per week · dubbel bemand: tot zaterdag 07:00"


def test_a_set_saved_before_the_new_fields_keeps_its_samenloop(app, as_planner, carrier, driver):
    """A stored set written before the overtime rule, double manning and the night trip
    existed: it loads with the CAO's overtime rule for each week and the CAO's night-trip
    surcharge, keeps its own samenloop, and the page says so."""
    from portal.extensions import db
    from portal.hours.pay_models import RuleSet

    old = cao.pay_rules_to_json(
        dataclasses.replace(
            cao.cao_preset(date(2026, 11, 2)), samenloop="hoogste", vensters=WINDOWS
        )
    )
    for name in ("overuren_grens", "dubbele_bemanning", "nachtrit_procent", "nachtrit_van",
                 "nachtrit_tot"):  # fmt: skip
        del old[name]

    def put():
        db.session.add(RuleSet(transporteur_id=carrier.id, geldig_vanaf=date(2026, 11, 2),
                               regels=old, gemaakt_door="oud"))  # fmt: skip
        db.session.commit()

    in_carrier(app, carrier.id, put)
    shown = in_force(text(as_planner.get(BASE)))
    assert shown["samenloop"].startswith("Het hoogste van beide")
    assert shown["overuren"] == "Volgens de CAO van die week: boven de contracturen"
    (loaded,) = stored(app, carrier)
    assert (loaded.samenloop, loaded.overuren_grens, loaded.nachtrit_procent) == (
        "hoogste",
        "cao",
        19,
    )
    record_week(app, carrier, driver)
    week = payable_total(app, carrier, driver)
    # The 2026 CAO: overtime beyond the 40 contract hours, its evening window beside it.
    assert (week["overuren_grens"], week["samenloop"]) == ("contract", "hoogste")
    assert week["totaal"]["overuren_130_min"] == 7 * 60 + 30


# --- approved weeks ------------------------------------------------------------------------


@pytest.fixture
def approved_w47(app, carrier, driver, monday):
    """A set from 2 November 2026 (Saturdays at 160%), then week 2026-W47 (16 November)
    approved."""
    set_id = add(app, carrier, zaterdag_procent=160)
    approve(app, carrier, driver, "2026-W47")
    return set_id


def test_a_set_with_an_approved_week_in_its_period_cannot_change(
    app, as_planner, carrier, approved_w47
):
    response = submit(as_planner, f"{BASE}/{approved_w47}", overuren_procent="140")
    assert response.status_code == 422
    page = text(response)
    assert "week 2026-W47 is goedgekeurd" in page
    assert "Voeg een nieuwe regelset toe vanaf maandag 23 november 2026 of later." in page
    assert stored(app, carrier)[0].overuren_procent == 130
    # A new name changes no figure: that is allowed.
    renamed = submit(as_planner, f"{BASE}/{approved_w47}", naam="CAO 2026 (najaar)")
    assert renamed.status_code == 303, text(renamed)
    # A set from the Monday after the approved week is the way to new rules.
    response = submit(
        as_planner, f"{BASE}/nieuw", geldig_vanaf="2026-11-23", overuren_procent="140"
    )
    assert response.status_code == 303, text(response)
    assert [r.overuren_procent for r in stored(app, carrier)] == [130, 140]


def test_a_new_set_that_would_recompute_an_approved_week_is_refused(app, carrier, approved_w47):
    from portal.errors import Conflict

    with pytest.raises(Conflict) as refused:
        add(app, carrier, date(2026, 11, 9), overuren_procent=150)
    assert refused.value.params["week"].label == "2026-W47"
    assert refused.value.params["vanaf"] == date(2026, 11, 23)


def test_a_set_with_an_approved_week_cannot_be_deleted(app, as_planner, carrier, approved_w47):
    path = f"{BASE}/{approved_w47}/verwijderen"
    page = text(as_planner.get(path))
    assert "Deze regelset kan niet weg: week 2026-W47 is goedgekeurd" in page
    token = re.search(
        r'name="csrf_token" value="([^"]+)"', as_planner.get(BASE + "/nieuw").get_data(as_text=True)
    )
    response = as_planner.post(path, data={"csrf_token": token.group(1)})
    assert response.status_code == 409
    assert len(stored(app, carrier)) == 1


# --- deleting ----------------------------------------------------------------------------


def test_delete_after_confirmation_and_the_preset_holds_again(app, as_planner, carrier):
    set_id = add(app, carrier, overuren_procent=140)
    path = f"{BASE}/{set_id}/verwijderen"
    page = text(as_planner.get(path))
    assert "Regelset vanaf maandag 2 november 2026 verwijderen?" in page
    assert "Dit is de laatste regelset: daarna gelden de standaardregels van de CAO" in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    response = as_planner.post(path, data={"csrf_token": token})
    assert response.status_code == 303
    assert stored(app, carrier) == []
    preset_only = in_carrier(app, carrier.id, lambda: rulesets.rule_sets(carrier_id=carrier.id))
    assert preset_only == [cao.cao_preset(rulesets.PRESET_FROM)]
    assert "De regelset vanaf maandag 2 november 2026 is verwijderd." in text(as_planner.get(BASE))


def test_every_change_is_in_the_audit_trail(app, as_planner, carrier):
    from portal.audit.service import entries_for

    set_id = add(app, carrier)
    submit(as_planner, f"{BASE}/{set_id}", zaterdag_procent="155")
    actions = in_carrier(
        app,
        carrier.id,
        lambda: [
            (e.action, e.changes)
            for e in entries_for(carrier_id=carrier.id, entity="regelset", entity_id=set_id)
        ],
    )
    assert [a for a, _c in actions] == ["created", "updated"]
    assert '"zaterdag_procent":[150,155]' in actions[1][1]


# --- the payable week -----------------------------------------------------------------------


def record_week(app, carrier, driver):
    """Monday to Friday 07:00-17:00 with a 30-minute break: 47.5 paid hours."""
    for day in ("2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20"):
        record_day(
            app,
            carrier,
            driver,
            at(day, "07:00"),
            at(day, "17:00"),
            [
                ("rijden", at(day, "07:00"), at(day, "12:00")),
                ("pauze", at(day, "12:00"), at(day, "12:30")),
                ("laden", at(day, "12:30"), at(day, "17:00")),
            ],
        )


def payable_total(app, carrier, driver) -> dict:
    from portal.hours.payroll.payable import payable_week
    from portal.hours.totals import IsoWeek

    return in_carrier(
        app,
        carrier.id,
        lambda: payable_week(
            carrier_id=carrier.id, driver_id=driver.id, week=IsoWeek.parse("2026-W47")
        ).to_json(),
    )


def test_a_stored_set_changes_the_payable_week(app, as_planner, carrier, driver):
    record_week(app, carrier, driver)
    before = payable_total(app, carrier, driver)
    assert before["contract_min"] == 40 * 60
    assert before["totaal"]["overuren_130_min"] == 7 * 60 + 30
    response = submit(
        as_planner,
        f"{BASE}/nieuw",
        f"{BASE}/nieuw?basis=preset",
        geldig_vanaf="2026-11-02",
        contracturen="32",
    )
    assert response.status_code == 303, text(response)
    after = payable_total(app, carrier, driver)
    assert after["contract_min"] == 32 * 60
    assert after["regelset_geldig_vanaf"] == "2026-11-02"
    # The CAO 2026: overtime beyond the 32 contract hours.
    assert after["totaal"]["overuren_130_min"] == 15 * 60 + 30
    assert after["totaal"]["meeruren_min"] == 0
    # The rule of the CAO up to 2025, chosen in the form: 8 meeruren up to 40 hours.
    (row_id,) = in_carrier(
        app, carrier.id, lambda: [row.id for row in rulesets.stored(carrier_id=carrier.id)]
    )
    response = submit(as_planner, f"{BASE}/{row_id}", overuren_grens="week_40")
    assert response.status_code == 303, text(response)
    after = payable_total(app, carrier, driver)
    assert (after["totaal"]["meeruren_min"], after["totaal"]["overuren_130_min"]) == (
        8 * 60,
        7 * 60 + 30,
    )


# --- another carrier ------------------------------------------------------------------------


def test_another_carriers_set_is_404(app, as_planner, other_carrier):
    foreign = add(app, other_carrier)
    assert as_planner.get(f"{BASE}/{foreign}").status_code == 404
    assert as_planner.get(f"{BASE}/{foreign}/verwijderen").status_code == 404
    assert as_planner.post(f"{BASE}/{foreign}/verwijderen").status_code == 404
    assert as_planner.post(f"{BASE}/{foreign}").status_code == 404
    assert len(stored(app, other_carrier)) == 1 and "Nog geen eigen regelset" in text(
        as_planner.get(BASE)
    )


def test_weeks_before_the_first_own_rule_set_keep_the_preset(app, carrier, driver):
    """A carrier's first rule set from some Monday on leaves the weeks before it computed
    under the CAO preset, not without rules."""
    from portal.audit.service import SYSTEM
    from portal.hours import cao
    from portal.hours.payroll import payable, rulesets
    from portal.hours.totals import IsoWeek

    def run():
        rulesets.create_rule_set(
            carrier_id=carrier.id,
            rules=cao.cao_preset(date(2026, 11, 23)),
            actor=SYSTEM,
        )
        before = payable.payable_week(
            carrier_id=carrier.id, driver_id=driver.id, week=IsoWeek.parse("2026-W47")
        )
        return before.result.regelset_geldig_vanaf

    assert in_carrier(app, carrier.id, run) == date(2000, 1, 3)
