"""Where EU 561/2006 applies: driving in a vehicle whose maximum authorised speed is 40 km/h
or less (Art. 3(b)) counts as other work (Art. 6(5)), still working time, never driving; a
finding over such time is exempt, never an infringement; an activity type under a national
exemption (Art. 13(1)) takes a task out of the planner's EU 561 budget."""

from __future__ import annotations

from datetime import timedelta

import pytest
from factories import create_driver, in_carrier
from tacho.scenario import START, at, card_segments

from portal.audit.service import SYSTEM
from portal.errors import ValidationFailed
from portal.fleet.kenteken import compact
from portal.tacho import rules
from portal.tacho.ddd.build import card_file, changes_from_timeline
from portal.tacho.ddd.model import VehicleUse
from portal.tacho.segments import RIJDEN, RUST, WERK, totals

TRACTOR, TRUCK = "VX-123-B", "12-BDB-3"
CARD = "NL00000000042A00"


def long_day():
    """Monday: 11 h of driving from 06:00 without a break, then rest."""
    return [("R", "6:00"), ("D", "11:00"), ("R", "31:00")]


def regels(findings, soort=rules.OVERTREDING):
    return {f.regel for f in findings if f.soort == soort}


# --- the pure rules --------------------------------------------------------------------


def test_driving_in_a_vehicle_out_of_scope_is_other_work_and_no_infringement():
    segments = card_segments(long_day())
    assert {rules.DAGELIJKSE_RIJTIJD, rules.ONDERBREKING} <= regels(rules.check(segments))

    uses = [rules.VehicleUse(at("5:50"), at("17:10"), "vx123b")]
    periods = rules.exempt_periods(uses, {compact(TRACTOR): rules.ART_3_B}, compact)
    assert [(p.begin, p.eind, p.grond) for p in periods] == [(at("5:50"), at("17:10"), "3(b)")]
    converted = rules.as_other_work(segments, periods)
    assert totals(converted)[RIJDEN] == 0
    assert totals(converted)[WERK] == 11 * 60  # still working time
    assert regels(rules.check(converted)) == set()


def test_only_the_time_in_the_slow_vehicle_is_taken_out():
    # 4 h 30 in the truck, 2 h on the tractor, 1 h in the truck again, no break at all.
    rows = [("R", "6:00"), ("D", "7:30"), ("R", "40:00")]
    segments = card_segments(rows)
    uses = [
        rules.VehicleUse(at("6:00"), at("10:30"), TRUCK),
        rules.VehicleUse(at("10:30"), at("12:30"), TRACTOR),
        rules.VehicleUse(at("12:30"), at("13:30"), TRUCK),
    ]
    periods = rules.exempt_periods(uses, {compact(TRACTOR): "3(b)"}, compact)
    converted = rules.as_other_work(segments, periods)
    assert [(s.begin, s.eind, s.activiteit) for s in converted if s.activiteit != RUST] == [
        (at("6:00"), at("10:30"), RIJDEN),
        (at("10:30"), at("12:30"), WERK),
        (at("12:30"), at("13:30"), RIJDEN),
    ]
    # 5 h 30 in scope without a 45-minute break: the break rule still bites (work is no break).
    assert rules.ONDERBREKING in regels(rules.check(converted))


def test_a_record_in_a_vehicle_in_scope_wins_over_an_overlapping_slow_one():
    uses = [
        rules.VehicleUse(at("6:00"), at("12:00"), TRACTOR),
        rules.VehicleUse(at("8:00"), at("9:00"), TRUCK),
    ]
    periods = rules.exempt_periods(uses, {compact(TRACTOR): "3(b)"}, compact)
    assert [(p.begin, p.eind) for p in periods] == [
        (at("6:00"), at("8:00")),
        (at("9:00"), at("12:00")),
    ]


def test_a_finding_over_exempt_time_without_driving_in_scope_is_exempt():
    # Tractor work all week long: no weekly rest, but none of it is in scope.
    rows = [[("D", "12:00"), ("R", "10:00")] for _ in range(8)]
    segments = card_segments(rows)
    periods = [rules.ExemptPeriod(START, START + timedelta(days=8), "3(b)")]
    converted = rules.as_other_work(segments, periods)
    found = rules.mark_exempt(rules.check(converted), converted, periods)
    assert found, "the walk still sees the missing weekly rest"
    assert {f.soort for f in found} == {rules.VRIJGESTELD}
    assert {f.vrijstelling for f in found} == {"3(b)"}
    assert all(f.ernst is None for f in found)


def test_a_finding_that_only_touches_exempt_time_stays_what_it_is():
    from dataclasses import replace

    found = rules.check(card_segments(long_day()))
    daily = next(f for f in found if f.regel == rules.DAGELIJKSE_RIJTIJD)
    before = [rules.ExemptPeriod(daily.begin - timedelta(hours=2), daily.begin, "3(b)")]
    assert rules.mark_exempt([daily], [], before) == [daily]
    inside = [rules.ExemptPeriod(daily.begin, daily.begin + timedelta(minutes=1), "3(b)")]
    assert rules.mark_exempt([daily], [], inside)[0].soort == rules.VRIJGESTELD
    point = replace(daily, eind=daily.begin)
    assert rules.mark_exempt([point], [], inside)[0].soort == rules.VRIJGESTELD


# --- stored cards and the carrier's vehicles ---------------------------------------------


def _vehicle(app, carrier, plate, speed):
    from portal.fleet import service as fleet

    in_carrier(
        app,
        carrier.id,
        lambda: fleet.create_vehicle(
            carrier_id=carrier.id, kenteken=plate, soort="landbouwtrekker", max_snelheid_kmh=speed
        ),
    )


def _card_with_a_long_tractor_day(app, carrier, store_tacho):
    driver = create_driver(app, carrier, "Gert Trekker")
    monday = START
    downloaded = monday + timedelta(days=2, hours=8)
    days = changes_from_timeline(
        [(monday + timedelta(hours=6), RIJDEN), (monday + timedelta(hours=17), RUST)],
        until=downloaded,
    )
    use = VehicleUse(
        monday + timedelta(hours=5, minutes=55),
        monday + timedelta(hours=17, minutes=5),
        1000,
        1300,
        "VX123B",
        "NL",
    )
    data = card_file(
        kaartnummer=CARD,
        achternaam="Trekker",
        voornamen="Gert",
        dagen=days,
        download_time=downloaded,
        vehicles=[use],
    )
    store_tacho(carrier, data, "C_trekker.DDD", driver_id=driver.id)
    return driver, downloaded


def _findings(app, carrier, driver, now):
    from portal.tacho import driving

    return in_carrier(
        app,
        carrier.id,
        lambda: driving.findings(
            carrier_id=carrier.id,
            van=START,
            tot=START + timedelta(days=2),
            driver_id=driver.id,
            now=now,
        ),
        lambda found: [f.finding for f in found],
    )


def test_a_stored_card_in_a_40_kmh_tractor_shows_no_infringement(app, carrier, store_tacho):
    _vehicle(app, carrier, TRACTOR, 40)
    driver, downloaded = _card_with_a_long_tractor_day(app, carrier, store_tacho)
    found = _findings(app, carrier, driver, downloaded)
    assert regels(found) == set()


def test_the_same_day_in_a_fast_tractor_is_an_infringement(app, carrier, store_tacho):
    _vehicle(app, carrier, TRACTOR, 50)
    driver, downloaded = _card_with_a_long_tractor_day(app, carrier, store_tacho)
    found = _findings(app, carrier, driver, downloaded)
    assert rules.DAGELIJKSE_RIJTIJD in regels(found)


def test_the_tractor_uses_no_driving_budget(app, carrier, store_tacho):
    from portal.tacho import driving

    _vehicle(app, carrier, TRACTOR, 25)
    driver, downloaded = _card_with_a_long_tractor_day(app, carrier, store_tacho)
    line = in_carrier(
        app,
        carrier.id,
        lambda: driving.timeline(
            carrier_id=carrier.id,
            driver_id=driver.id,
            start=START,
            end=downloaded,
            now=downloaded,
        ),
    )
    assert totals(line.segments)[RIJDEN] == 0
    assert totals(line.segments)[WERK] == 11 * 60
    assert [p.grond for p in line.vrijgesteld] == ["3(b)"]


def test_the_day_page_says_the_tractor_is_out_of_scope(app, signed_in, carrier, store_tacho):
    _vehicle(app, carrier, TRACTOR, 40)
    driver, _downloaded = _card_with_a_long_tractor_day(app, carrier, store_tacho)
    response = signed_in.get(f"/rijtijden/chauffeurs/{driver.id}/dagen/{START.date()}")
    assert response.status_code == 200
    assert "buiten EU 561/2006 (art. 3(b)): rijden telt als andere arbeid" in response.get_data(
        as_text=True
    )


# --- the planner's question --------------------------------------------------------------


def test_in_scope_by_vehicle_speed_and_by_the_activitys_exemption(app, carrier):
    from portal.fleet import service as fleet
    from portal.tacho import scope

    def setup():
        slow = fleet.create_vehicle(
            carrier_id=carrier.id, kenteken=TRACTOR, soort="landbouwtrekker", max_snelheid_kmh=40
        )
        fast = fleet.create_vehicle(carrier_id=carrier.id, kenteken=TRUCK, max_snelheid_kmh=89)
        scope.set_exemption(
            carrier_id=carrier.id, activiteit="mest_uitrijden", artikel="13(1)(c)", actor=SYSTEM
        )
        rules_now = scope.rules_of(carrier_id=carrier.id)
        return [
            rules_now.of(activity_type="mest_laden", vehicle_ids=[slow.id]),
            rules_now.of(activity_type="mest_laden", vehicle_ids=[fast.id]),
            rules_now.of(activity_type="mest_uitrijden", vehicle_ids=[fast.id]),
            rules_now.of(activity_type=None, vehicle_ids=[fast.id, slow.id]),
            scope.in_scope(carrier_id=carrier.id, activity_type="mest_laden", vehicle_ids=[None]),
        ]

    answers = in_carrier(app, carrier.id, setup)
    assert answers == [
        scope.Scope(False, "3(b)"),
        scope.IN_SCOPE,
        scope.Scope(False, "13(1)(c)"),
        scope.Scope(False, "3(b)"),
        scope.IN_SCOPE,
    ]


def test_an_exemption_names_an_article_of_13_1(app, carrier):
    from portal.tacho import scope

    with pytest.raises(ValidationFailed) as caught:
        in_carrier(
            app,
            carrier.id,
            lambda: scope.set_exemption(
                carrier_id=carrier.id, activiteit="mest", artikel="13(1)(z)", actor=SYSTEM
            ),
        )
    assert caught.value.errors[0]["code"] == "choice"


def test_an_exemption_lifted_puts_the_activity_in_scope_again(app, carrier):
    from portal.tacho import scope

    def setup():
        scope.set_exemption(
            carrier_id=carrier.id, activiteit="vee_transport", artikel="13(1)(p)", actor=SYSTEM
        )
        before = scope.exemptions(carrier_id=carrier.id)
        scope.set_exemption(
            carrier_id=carrier.id, activiteit="vee_transport", artikel=None, actor=SYSTEM
        )
        return before, scope.exemptions(carrier_id=carrier.id)

    before, after = in_carrier(app, carrier.id, setup)
    assert before == {"vee_transport": "13(1)(p)"}
    assert after == {}


def test_an_other_carriers_exemption_does_not_count(app, carrier, other_carrier):
    from portal.tacho import scope

    in_carrier(
        app,
        other_carrier.id,
        lambda: scope.set_exemption(
            carrier_id=other_carrier.id, activiteit="mest", artikel="13(1)(b)", actor=SYSTEM
        ),
    )
    assert in_carrier(app, carrier.id, lambda: scope.exemptions(carrier_id=carrier.id)) == {}


# --- the page --------------------------------------------------------------------------------


@pytest.fixture
def signed_in(client, planner):
    from factories import login

    login(client, planner)
    return client


def _page(client, headers=None):
    import re

    response = client.get("/rijtijden/vrijstellingen", headers=headers)
    assert response.status_code == 200
    return response, re.sub(r"\s+", " ", response.get_data(as_text=True))


def test_a_planner_marks_an_activity_as_exempt_and_lifts_it(app, signed_in, carrier):
    from factories import csrf_from

    from portal.tacho import scope

    _vehicle(app, carrier, TRACTOR, 40)
    _, page = _page(signed_in)
    assert "VX-123-B" in page and "40 km/u" in page
    assert "Nog geen vrijgestelde activiteiten" in page
    response = signed_in.post(
        "/rijtijden/vrijstellingen",
        data={"csrf_token": csrf_from(page), "activiteit": "mest_uitrijden", "artikel": "13(1)(c)"},
    )
    assert response.status_code == 303
    _, page = _page(signed_in)
    assert "Mest uitrijden" in page and "Art. 13(1)(c)" in page
    assert in_carrier(app, carrier.id, lambda: scope.exemptions(carrier_id=carrier.id)) == {
        "mest_uitrijden": "13(1)(c)"
    }
    response = signed_in.post(
        "/rijtijden/vrijstellingen/opheffen",
        data={"csrf_token": csrf_from(page), "activiteit": "mest_uitrijden"},
    )
    assert response.status_code == 303
    assert in_carrier(app, carrier.id, lambda: scope.exemptions(carrier_id=carrier.id)) == {}


def test_an_activity_type_that_is_no_slug_is_refused_at_the_field(signed_in):
    import re

    from factories import csrf_from

    _, page = _page(signed_in)
    response = signed_in.post(
        "/rijtijden/vrijstellingen",
        data={
            "csrf_token": csrf_from(page),
            "activiteit": "Mest uitrijden!",
            "artikel": "13(1)(c)",
        },
    )
    assert response.status_code == 422
    assert re.search(r'id="activiteit-error"[^>]*>Kleine letters', response.get_data(as_text=True))
    english = signed_in.post(
        "/rijtijden/vrijstellingen",
        data={"csrf_token": csrf_from(page), "activiteit": "", "artikel": "13(1)(c)"},
        headers={"Accept-Language": "en"},
    )
    assert english.status_code == 422
    assert "Fill in the activity type." in english.get_data(as_text=True)


def _tractor_fortnight_card(app, carrier, store_tacho):
    """Eight days of 12 h on a tractor and 10 h of rest: no weekly rest at all."""
    driver = create_driver(app, carrier, "Wim Loonwerk")
    timeline, t = [], START
    for _ in range(8):
        timeline += [(t, RIJDEN), (t + timedelta(hours=12), RUST)]
        t += timedelta(hours=22)
    downloaded = t + timedelta(hours=2)
    use = VehicleUse(START, t, 1000, 9000, "VX123B", "NL")
    data = card_file(
        kaartnummer="NL00000000077B00",
        achternaam="Loonwerk",
        voornamen="Wim",
        dagen=changes_from_timeline(timeline, until=downloaded),
        download_time=downloaded,
        vehicles=[use],
    )
    store_tacho(carrier, data, "C_loonwerk.DDD", driver_id=driver.id)
    return driver, downloaded


def test_exempt_findings_are_listed_as_such_in_the_api_and_the_page(
    app, client, signed_in, carrier, api_key, store_tacho
):
    from factories import bearer

    _vehicle(app, carrier, TRACTOR, 40)
    driver, _downloaded = _tractor_fortnight_card(app, carrier, store_tacho)
    url = f"/api/v1/transporteurs/{carrier.id}/overtredingen?van=2026-11-02&tot=2026-11-10"
    found = client.get(url, headers=bearer(api_key.key)).get_json()
    mine = [f for f in found if f["chauffeur"] == driver.user_token]
    assert mine, "the missing weekly rest is found"
    assert {(f["soort"], f["vrijstelling"], f["ernst"]) for f in mine} == {
        ("vrijgesteld", "3(b)", None)
    }
    listed = signed_in.get("/rijtijden/overtredingen?van=2026-11-02&tot=2026-11-10")
    text = listed.get_data(as_text=True)
    assert "vrijgesteld, buiten Verordening 561/2006 (art. 3(b)); telt als andere arbeid" in text
