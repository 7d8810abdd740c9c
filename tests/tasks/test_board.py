"""The planning board at /taken: lanes, filters, days, moving, status buttons, live refresh."""

from __future__ import annotations

import html as html_module
import json
import re
import uuid
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import (
    create_carrier,
    create_driver,
    create_task,
    create_vehicle,
    csrf_from,
    in_carrier,
    login,
)

AMS = ZoneInfo("Europe/Amsterdam")


def today() -> date:
    return datetime.now(AMS).date()


def at(day: date, clock: str) -> datetime:
    """A wall-clock time in Amsterdam as a UTC instant."""
    return datetime.combine(day, time(*map(int, clock.split(":"))), tzinfo=AMS).astimezone(UTC)


def lane(html: str, title: str) -> str:
    """The HTML of the lane (or status column) whose heading is title."""
    parts = re.split(r'(?=<section class="lane)', html)
    for part in parts:
        heading = re.search(r"<h3[^>]*>(.*?)</h3>", part, re.S)
        if heading and title in heading.group(1):
            return part
    raise AssertionError(f"no lane {title!r}")


def card(html: str, task_id) -> str:
    match = re.search(rf'<article class="card[^"]*" id="task-{task_id}".*?</article>', html, re.S)
    assert match, f"no card of {task_id}"
    return html_module.unescape(match.group(0))


def load(app, carrier, task_id):
    from portal.tasks import service

    return in_carrier(
        app,
        carrier.id,
        lambda: service.get_task(carrier_id=carrier.id, task_id=task_id, archived=True),
        lambda t: {
            "chauffeur_id": t.chauffeur_id,
            "gepland_op": t.gepland_op,
            "status": t.status,
            "versie": t.versie,
            "naam": t.naam,
            "vehicle_id": t.vehicle_id,
            "gearchiveerd_op": t.gearchiveerd_op,
            "type": t.type,
        },
    )


def history(app, carrier, task_id) -> list[tuple[str, dict]]:
    from portal.tasks import service

    return in_carrier(
        app,
        carrier.id,
        lambda: service.history(carrier_id=carrier.id, task_id=task_id),
        lambda rows: [(r.action, json.loads(r.changes), r.actor_type) for r in rows],
    )


@pytest.fixture
def signed_in(client, planner):
    login(client, planner)
    return client


def token(client) -> str:
    return csrf_from(client.get("/taken").get_data(as_text=True))


# --- the day view ---------------------------------------------------------------------


def test_the_day_has_a_lane_per_active_driver_and_one_for_unassigned(
    app, signed_in, carrier, driver
):
    other = create_driver(app, carrier, "Piet Bakker")
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    mine = create_task(
        app, carrier, driver, naam="Mest Enter", gepland_op=at(today(), "09:00"),
        vehicle_id=vehicle.id, stad="Enter",
    )  # fmt: skip
    early = create_task(app, carrier, driver, naam="Vroeg Epe", gepland_op=at(today(), "06:15"))
    loose = create_task(app, carrier, None, naam="Nog niemand", gepland_op=at(today(), "12:00"))
    tomorrow = at(today() + timedelta(1), "8:00")
    create_task(app, carrier, other, naam="Morgen pas", gepland_op=tomorrow)
    foreign = create_carrier(app, "Ander")
    create_task(app, foreign, create_driver(app, foreign), naam="Geheim",
                gepland_op=at(today(), "10:00"))  # fmt: skip

    html = signed_in.get("/taken").get_data(as_text=True)

    jan = lane(html, "Jan Chauffeur")
    assert "Mest Enter" in jan and "Vroeg Epe" in jan and "Nog niemand" not in jan
    assert jan.index("Vroeg Epe") < jan.index("Mest Enter")  # ordered by gepland_op
    assert "06:15" in card(html, early.id) and "09:00" in card(html, mine.id)
    assert "BX-12-AB" in card(html, mine.id) and "Enter" in card(html, mine.id)
    assert "Mest laden" in card(html, mine.id)  # the type, translated
    assert "Nog niemand" in lane(html, "Niet toegewezen")
    assert str(loose.id) in lane(html, "Niet toegewezen")
    assert "Geen taken" in lane(html, "Piet Bakker")
    assert "Morgen pas" not in html and "Geheim" not in html
    assert "3 taken" in html


def test_cards_show_status_demands_and_vdm(app, signed_in, carrier, driver):
    task = create_task(
        app, carrier, driver, naam="Veetransport Deurne", gepland_op=at(today(), "10:00"),
        require_photos=True, min_fotos=2, max_fotos=4, require_signature=True,
        require_document_scan=True, agr_verplicht=True, required_temperatuur=4.5,
        required_desinfectie=True, kooiaap=True, vdm_nummer="VDM-0042", status="gestart",
    )  # fmt: skip

    html = card(signed_in.get("/taken").get_data(as_text=True), task.id)

    assert 'class="status status-gestart">Gestart<' in html
    for text in ("Foto's 2\u20134", "Handtekening", "Scan", "AGR", "4.5 °C", "Desinfectie",
                 "Kooiaap", "VDM VDM-0042"):  # fmt: skip
        assert text in html, text


def test_day_navigation_and_today(app, signed_in, carrier, driver):
    day = date(2031, 3, 14)
    create_task(app, carrier, driver, naam="Pi-dag", gepland_op=at(day, "15:00"))

    html = signed_in.get("/taken?datum=2031-03-14").get_data(as_text=True)

    assert "Pi-dag" in html
    assert 'href="/taken?datum=2031-03-13"' in html and 'data-drop-date="2031-03-13"' in html
    assert 'href="/taken?datum=2031-03-15"' in html and 'data-drop-date="2031-03-15"' in html
    assert "Naar vandaag" in html and 'href="/taken"' in html
    assert "Pi-dag" not in signed_in.get("/taken?datum=2031-03-15").get_data(as_text=True)
    assert "Vandaag" in signed_in.get("/taken").get_data(as_text=True)


def test_filters_stay_in_the_url_and_narrow_the_board(app, signed_in, carrier, driver):
    other = create_driver(app, carrier, "Piet Bakker")
    vehicle = create_vehicle(app, carrier, "VV-01-VV")
    day = at(today(), "08:00")
    create_task(app, carrier, driver, naam="Mest Enter", gepland_op=day, vehicle_id=vehicle.id)
    create_task(app, carrier, other, naam="Voer Epe", type="voer_leveren", gepland_op=day,
                stad="Epe")  # fmt: skip
    create_task(app, carrier, None, naam="Los Lochem", gepland_op=day, status="gestart")

    def names(query: str) -> set[str]:
        html = signed_in.get(f"/taken?{query}").get_data(as_text=True)
        return {n for n in ("Mest Enter", "Voer Epe", "Los Lochem") if n in html}

    assert names(f"chauffeur={other.id}") == {"Voer Epe"}
    assert names("chauffeur=geen") == {"Los Lochem"}
    assert names(f"voertuig={vehicle.id}") == {"Mest Enter"}
    assert names("type=voer_leveren") == {"Voer Epe"}
    assert names("status=gestart") == {"Los Lochem"}
    assert names("q=epe") == {"Voer Epe"}
    html = signed_in.get(f"/taken?chauffeur={other.id}&q=epe").get_data(as_text=True)
    # The filters are kept in the poll URL, the day links and the cards' return address.
    assert f'hx-get="/taken?chauffeur={other.id}&amp;q=epe"' in html
    assert f"/taken?datum={(today() + timedelta(1)).isoformat()}&amp;chauffeur={other.id}" in html
    assert "Geen taken gevonden met deze filters." in signed_in.get(
        "/taken?q=niets-hiervan"
    ).get_data(as_text=True)


def test_bad_filter_values_are_ignored_with_a_message_not_a_500(signed_in):
    for query in (
        "datum=2024-02-30", "datum=gisteren", "datum=0001-01-01", "datum=9999-12-31",
        f"chauffeur={uuid.uuid4()}", "chauffeur=x", "voertuig=abc", "status=klaar",
        "type=../../etc", "weergave=maand", "q=" + "x" * 500, "weergave=status&van=2024-13-01",
        "weergave=status&van=2030-01-10&tot=2030-01-01", "q=%25_%25",
    ):  # fmt: skip
        response = signed_in.get(f"/taken?{query}")
        assert response.status_code == 200, query
    html = signed_in.get("/taken?datum=gisteren").get_data(as_text=True)
    assert "Een filter klopt niet" in html


def test_the_status_view_has_a_column_per_status_over_a_range(app, signed_in, carrier, driver):
    monday = date(2031, 3, 10)
    create_task(app, carrier, driver, naam="Maandag", gepland_op=at(monday, "08:00"))
    create_task(app, carrier, driver, naam="Woensdag", gepland_op=at(monday + timedelta(2), "9:00"),
                status="gestart")  # fmt: skip
    later = at(monday + timedelta(8), "9:00")
    create_task(app, carrier, driver, naam="Volgende week", gepland_op=later)

    html = signed_in.get("/taken?weergave=status&datum=2031-03-10").get_data(as_text=True)

    assert "Maandag" in lane(html, "Gepland") and "Woensdag" in lane(html, "Gestart")
    assert "Geen taken" in lane(html, "Afgerond")
    assert "Volgende week" not in html  # a week from the chosen day by default
    ranged = signed_in.get("/taken?weergave=status&van=2031-03-10&tot=2031-03-31")
    assert "Volgende week" in ranged.get_data(as_text=True)
    create_task(app, carrier, None, naam="Zonder datum")
    everything = signed_in.get("/taken?weergave=status&van=&tot=").get_data(as_text=True)
    assert "Alle datums" in everything
    assert all(n in everything for n in ("Maandag", "Volgende week", "Zonder datum"))
    assert 'hx-get="/taken?weergave=status&amp;van=&amp;tot="' in everything  # polls the same
    only = signed_in.get("/taken?weergave=status&van=2031-03-10&tot=2031-03-31&status=gestart")
    html = only.get_data(as_text=True)
    assert "Woensdag" in html and "Maandag" not in html and 'id="col-gepland"' not in html


def test_empty_board_says_what_to_do(signed_in):
    html = signed_in.get("/taken").get_data(as_text=True)
    assert "Er staan geen taken op deze dag." in html
    assert "Niet toegewezen" in html and "Plan een taak" in html
    assert "Nieuwe taak" in html and "/taken/import" in html


def test_htmx_gets_only_the_board_and_every_answer_varies_on_hx_request(signed_in):
    response = signed_in.get("/taken?q=x", headers={"HX-Request": "true"})
    html = response.get_data(as_text=True)
    assert html.lstrip().startswith('<section id="board"')
    assert "<html" not in html and 'id="board-filters"' not in html
    assert "HX-Request" in response.headers["Vary"]
    assert 'hx-trigger="every 20s, tasksChanged from:body"' in html
    assert "HX-Push-Url" not in response.headers  # a poll does not change the address
    filtered = signed_in.get(
        "/taken?datum=&chauffeur=&q=mest",
        headers={"HX-Request": "true", "HX-Trigger": "board-filters"},
    )
    assert filtered.headers["HX-Push-Url"] == "/taken?q=mest"
    full = signed_in.get("/taken")
    assert "HX-Request" in full.headers["Vary"]
    assert "<html" in full.get_data(as_text=True)


def test_the_board_runs_a_fixed_number_of_queries(app, client, carrier, planner, count_queries):
    drivers = [create_driver(app, carrier, f"Chauffeur {n}") for n in range(3)]
    login(client, planner)
    moment = at(today(), "07:00")

    def add(n):
        vehicle = create_vehicle(app, carrier)
        status = ("gepland", "gestart", "afgerond")[n % 3]
        create_task(app, carrier, drivers[n % 3], vehicle_id=vehicle.id, gepland_op=moment,
                    require_photos=True, status=status)  # fmt: skip

    add(0)
    client.get("/taken")  # warm up: the first request after sign-in may do one-time work
    with count_queries() as few:
        assert client.get("/taken").status_code == 200
    for n in range(1, 25):
        add(n)
    with count_queries() as many:
        html = client.get("/taken").get_data(as_text=True)
    assert html.count('class="card ') == 25
    assert many.count == few.count, "\n".join([*few.statements, "-----", *many.statements])
    with count_queries() as status_view:
        client.get("/taken?weergave=status")
    # The same, less the lanes' driving times (three queries for every driver at once).
    assert status_view.count == few.count - 3


# --- moving ---------------------------------------------------------------------------


def test_dropping_a_card_on_another_lane_reassigns_it(app, signed_in, carrier, driver):
    other = create_driver(app, carrier, "Piet Bakker")
    planned = at(today(), "10:30")
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=planned)
    versie = load(app, carrier, task.id)["versie"]

    response = signed_in.post(
        f"/taken/{task.id}/verplaats",
        data={"chauffeur_id": str(other.id), "versie": versie},
        headers={"HX-Request": "true", "HX-Target": "board-message",
                 "X-CSRFToken": token(signed_in)},
    )  # fmt: skip

    assert response.status_code == 200
    assert "Piet Bakker" in response.get_data(as_text=True)
    assert json.loads(response.headers["HX-Trigger"]) == {"tasksChanged": True}
    assert "HX-Retarget" not in response.headers
    after = load(app, carrier, task.id)
    assert after["chauffeur_id"] == other.id and after["gepland_op"] == planned
    assert after["versie"] == versie + 1
    action, changes, actor = history(app, carrier, task.id)[-1]
    assert action == "updated" and actor == "user"
    assert changes["chauffeur_id"] == [str(driver.id), str(other.id)]
    assert "Mest Enter" in lane(signed_in.get("/taken").get_data(as_text=True), "Piet Bakker")


def test_dropping_on_the_unassigned_lane_and_on_the_next_day(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(today(), "10:30"))
    headers = {"HX-Request": "true", "HX-Target": "board-message", "X-CSRFToken": token(signed_in)}

    signed_in.post(f"/taken/{task.id}/verplaats", data={"chauffeur_id": "", "versie": 1},
                   headers=headers)  # fmt: skip
    assert load(app, carrier, task.id)["chauffeur_id"] is None
    tomorrow = today() + timedelta(days=1)
    response = signed_in.post(
        f"/taken/{task.id}/verplaats", data={"datum": tomorrow.isoformat(), "versie": 2},
        headers=headers,
    )  # fmt: skip
    assert response.status_code == 200
    after = load(app, carrier, task.id)
    assert after["gepland_op"] == at(tomorrow, "10:30")  # the time of day stays
    assert after["chauffeur_id"] is None


def test_a_stale_version_is_refused_and_the_board_refreshes(app, signed_in, carrier, driver):
    other = create_driver(app, carrier, "Piet Bakker")
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(today(), "10:30"))
    csrf = token(signed_in)

    response = signed_in.post(
        f"/taken/{task.id}/verplaats",
        data={"chauffeur_id": str(other.id), "versie": 7},
        headers={"HX-Request": "true", "HX-Target": "board-message", "X-CSRFToken": csrf},
    )

    assert response.status_code == 412
    assert "Deze taak is intussen gewijzigd" in response.get_data(as_text=True)
    assert "tasksChanged" in response.headers["HX-Trigger"]
    assert load(app, carrier, task.id)["chauffeur_id"] == driver.id
    # Without JavaScript: back to the board, same filters, with the message.
    plain = signed_in.post(
        f"/taken/{task.id}/verplaats",
        data={"chauffeur_id": str(other.id), "versie": 7, "csrf_token": csrf,
              "terug": "/taken?q=mest"},
    )  # fmt: skip
    assert plain.status_code == 303 and plain.headers["Location"] == "/taken?q=mest"
    assert "Deze taak is intussen gewijzigd" in signed_in.get("/taken").get_data(as_text=True)


def test_a_completed_or_cancelled_task_cannot_be_moved(app, signed_in, carrier, driver):
    other = create_driver(app, carrier, "Piet Bakker")
    done = create_task(app, carrier, driver, naam="Klaar", gepland_op=at(today(), "8:00"),
                       status="afgerond")  # fmt: skip
    response = signed_in.post(
        f"/taken/{done.id}/verplaats",
        data={"chauffeur_id": str(other.id), "versie": load(app, carrier, done.id)["versie"]},
        headers={"HX-Request": "true", "HX-Target": "board-message",
                 "X-CSRFToken": token(signed_in)},
    )  # fmt: skip
    assert response.status_code == 409
    assert "kan niet meer worden verplaatst" in response.get_data(as_text=True)
    assert load(app, carrier, done.id)["chauffeur_id"] == driver.id
    html = card(signed_in.get("/taken").get_data(as_text=True), done.id)
    assert 'draggable="true"' not in html and "Verplaats" not in html


def test_moving_with_the_keyboard_form_without_javascript(app, signed_in, carrier, driver):
    other = create_driver(app, carrier, "Piet Bakker")
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(today(), "10:30"))
    back = f"/taken?chauffeur={driver.id}"

    page = signed_in.get(f"/taken/{task.id}/verplaats?terug={back}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "<html" in html
    assert 'name="chauffeur_id"' in html and 'type="date"' in html and 'type="time"' in html
    assert 'value="10:30"' in html and f'value="{back}"' in html

    later = today() + timedelta(days=3)
    response = signed_in.post(
        f"/taken/{task.id}/verplaats",
        data={"chauffeur_id": str(other.id), "datum": later.isoformat(), "tijd": "14:45",
              "versie": "1", "terug": back, "csrf_token": csrf_from(html)},
    )  # fmt: skip
    assert response.status_code == 303 and response.headers["Location"] == back
    after = load(app, carrier, task.id)
    assert after["chauffeur_id"] == other.id and after["gepland_op"] == at(later, "14:45")


def test_the_move_dialog_answers_a_fragment_and_keeps_errors_at_the_field(
    app, signed_in, carrier, driver
):
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(today(), "10:30"))
    fragment = signed_in.get(
        f"/taken/{task.id}/verplaats", headers={"HX-Request": "true", "HX-Target": "dialog-body"}
    ).get_data(as_text=True)
    assert "<html" not in fragment and 'id="dialog-title"' in fragment

    headers = {"HX-Request": "true", "HX-Target": "dialog-body", "X-CSRFToken": token(signed_in)}
    bad = signed_in.post(
        f"/taken/{task.id}/verplaats",
        data={"chauffeur_id": str(uuid.uuid4()), "datum": "2031-02-30", "tijd": "25:00",
              "versie": "1"},
        headers=headers,
    )  # fmt: skip
    html = bad.get_data(as_text=True)
    assert bad.status_code == 422
    assert 'id="move-chauffeur-error"' in html and 'id="move-datum-error"' in html
    assert 'id="move-tijd-error"' in html and "<html" not in html
    ok = signed_in.post(
        f"/taken/{task.id}/verplaats",
        data={"chauffeur_id": "", "datum": today().isoformat(), "tijd": "11:00", "versie": "1"},
        headers=headers,
    )
    # From the dialog, the message goes to the board's message region; the dialog closes.
    assert ok.status_code == 200
    assert ok.headers["HX-Retarget"] == "#board-message"
    assert "tasksChanged" in ok.headers["HX-Trigger"]


@pytest.mark.parametrize("versie", ["", "abc", "-1", "1.5", "99999999999999999999999"])
def test_bad_versions_and_values_are_not_a_500(app, signed_in, carrier, driver, versie):
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(today(), "10:30"))
    response = signed_in.post(
        f"/taken/{task.id}/verplaats",
        data={"chauffeur_id": "not-a-uuid", "versie": versie},
        headers={"HX-Request": "true", "HX-Target": "board-message",
                 "X-CSRFToken": token(signed_in)},
    )  # fmt: skip
    assert response.status_code in (412, 422)
    assert load(app, carrier, task.id)["chauffeur_id"] == driver.id


def test_moving_to_another_carriers_driver_is_refused(app, signed_in, carrier, driver):
    foreign = create_carrier(app, "Ander")
    stranger = create_driver(app, foreign, "Vreemde")
    task = create_task(app, carrier, driver, gepland_op=at(today(), "10:30"))
    response = signed_in.post(
        f"/taken/{task.id}/verplaats",
        data={"chauffeur_id": str(stranger.id), "versie": 1},
        headers={"HX-Request": "true", "HX-Target": "board-message",
                 "X-CSRFToken": token(signed_in)},
    )  # fmt: skip
    assert response.status_code == 422
    assert load(app, carrier, task.id)["chauffeur_id"] == driver.id


# --- status buttons -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "moves"),
    [
        ("gepland", {"ontvangen", "gestart", "geannuleerd"}),
        ("ontvangen", {"gestart", "geannuleerd"}),
        ("gestart", {"afgerond", "geannuleerd"}),
        ("afgerond", {"gestart"}),
        ("geannuleerd", set()),
    ],
)
def test_status_buttons_follow_the_state_machine(app, signed_in, carrier, driver, status, moves):
    task = create_task(app, carrier, driver, gepland_op=at(today(), "9:00"), status=status)
    html = card(signed_in.get("/taken").get_data(as_text=True), task.id)
    assert set(re.findall(r'data-move="(\w+)"', html)) == moves
    if status == "afgerond":
        # Reopening takes billed work back: it asks first, in the dialog.
        assert ">Heropenen</a>" in html and f'hx-get="/taken/{task.id}/heropenen' in html


def test_a_status_button_moves_the_task_and_returns_the_card(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(today(), "9:00"))
    response = signed_in.post(
        f"/taken/{task.id}/status",
        data={"status": "gestart", "terug": "/taken"},
        headers={"HX-Request": "true", "X-CSRFToken": token(signed_in)},
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert html.startswith(f'<article class="card card-gestart" id="task-{task.id}"')
    assert set(re.findall(r'data-move="(\w+)"', html)) == {"afgerond", "geannuleerd"}
    assert json.loads(response.headers["HX-Trigger"]) == {"tasksChanged": True}
    assert load(app, carrier, task.id)["status"] == "gestart"
    assert history(app, carrier, task.id)[-1][:2] == ("status", {"status": ["gepland", "gestart"]})


def test_completion_refused_lists_what_is_missing(app, signed_in, carrier, driver):
    task = create_task(
        app, carrier, driver, naam="Veetransport", gepland_op=at(today(), "9:00"),
        status="gestart", require_signature=True, required_temperatuur=4.0,
    )  # fmt: skip
    response = signed_in.post(
        f"/taken/{task.id}/status",
        data={"status": "afgerond"},
        headers={"HX-Request": "true", "X-CSRFToken": token(signed_in)},
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "kan nog niet worden afgerond" in html
    # Each demand in the planner's language (the API's English stays in the API).
    assert "Handtekening ontbreekt" in html
    assert "Gemeten temperatuur ontbreekt (vereist 4 °C)" in html
    assert "a signature is needed" not in html
    assert load(app, carrier, task.id)["status"] == "gestart"


def test_an_illegal_move_names_the_allowed_ones(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, gepland_op=at(today(), "9:00"), status="ontvangen")
    response = signed_in.post(
        f"/taken/{task.id}/status",
        data={"status": "afgerond"},
        headers={"HX-Request": "true", "X-CSRFToken": token(signed_in)},
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "Mogelijk: Gestart, Geannuleerd" in html
    plain = signed_in.post(
        f"/taken/{task.id}/status", data={"status": "afgerond", "csrf_token": token(signed_in)}
    )
    assert plain.status_code == 303
    assert "Mogelijk: Gestart, Geannuleerd" in signed_in.get("/taken").get_data(as_text=True)
    unknown = signed_in.post(
        f"/taken/{task.id}/status",
        data={"status": "verdampt"},
        headers={"HX-Request": "true", "X-CSRFToken": token(signed_in)},
    )
    assert unknown.status_code == 422


def test_reopening_a_completed_task_is_allowed_to_the_office(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, gepland_op=at(today(), "9:00"), status="afgerond")
    response = signed_in.post(
        f"/taken/{task.id}/status",
        data={"status": "gestart", "csrf_token": token(signed_in), "terug": "/taken"},
    )
    assert response.status_code == 303
    assert load(app, carrier, task.id)["status"] == "gestart"
    assert history(app, carrier, task.id)[-1][0] == "reopened"


def test_reopening_on_the_board_asks_first_and_says_what_happens_to_billing(
    app, signed_in, carrier, driver
):
    task = create_task(app, carrier, driver, naam="Voer Epe", gepland_op=at(today(), "9:00"),
                       status="afgerond")  # fmt: skip
    question = signed_in.get(f"/taken/{task.id}/heropenen", headers={"HX-Request": "true"})
    body = html_module.unescape(question.get_data(as_text=True))
    assert "Taak “Voer Epe” heropenen?" in body
    assert "telt pas weer mee als de taak opnieuw is afgerond" in body
    assert load(app, carrier, task.id)["status"] == "afgerond"  # asking changes nothing

    done = signed_in.post(
        f"/taken/{task.id}/heropenen",
        data={"csrf_token": token(signed_in), "terug": "/taken"},
        headers={"HX-Request": "true"},
    )
    assert done.status_code == 200
    assert "is heropend" in html_module.unescape(done.get_data(as_text=True))
    assert load(app, carrier, task.id)["status"] == "gestart"
    assert history(app, carrier, task.id)[-1][0] == "reopened"

    again = signed_in.post(
        f"/taken/{task.id}/heropenen",
        data={"csrf_token": token(signed_in), "terug": "/taken"},
        headers={"HX-Request": "true"},
    )
    assert again.status_code == 409
    assert "niet afgerond" in html_module.unescape(again.get_data(as_text=True))
    assert load(app, carrier, task.id)["status"] == "gestart"


# --- security -------------------------------------------------------------------------


def test_posts_need_the_csrf_token(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, gepland_op=at(today(), "9:00"))
    for path, data in (
        (f"/taken/{task.id}/verplaats", {"chauffeur_id": "", "versie": 1}),
        (f"/taken/{task.id}/status", {"status": "gestart"}),
        (f"/taken/{task.id}/annuleren", {}),
        (f"/taken/{task.id}/heropenen", {}),
        (f"/taken/{task.id}/verwijderen", {}),
        (f"/taken/{task.id}/dupliceer", {}),
        (f"/taken/{task.id}/bewerken", {"naam": "x", "type": "mest_laden", "versie": 1}),
        ("/taken/nieuw", {"naam": "x", "type": "mest_laden"}),
    ):
        assert signed_in.post(path, data=data).status_code == 400, path
        assert signed_in.post(path, data=data, headers={"X-CSRFToken": "forged"}).status_code == 400
    after = load(app, carrier, task.id)
    assert after["status"] == "gepland" and after["versie"] == 1


def test_another_carriers_task_is_404_on_every_route(app, signed_in):
    foreign = create_carrier(app, "Ander")
    task = create_task(app, foreign, create_driver(app, foreign), naam="Geheim")
    csrf = token(signed_in)
    for suffix, methods in (
        ("verplaats", ("GET", "POST")), ("status", ("POST",)), ("annuleren", ("GET", "POST")),
        ("heropenen", ("GET", "POST")),
        ("verwijderen", ("GET", "POST")), ("dupliceer", ("POST",)),
        ("bewerken", ("GET", "POST")),
    ):  # fmt: skip
        for method in methods:
            for headers in ({}, {"X-CSRFToken": csrf}, {"HX-Request": "true", "X-CSRFToken": csrf}):
                response = signed_in.open(
                    f"/taken/{task.id}/{suffix}", method=method, headers=headers,
                    data={"status": "gestart", "versie": 1, "chauffeur_id": ""},
                )  # fmt: skip
                assert response.status_code == 404, (suffix, method, headers)
    assert load(app, foreign, task.id)["status"] == "gepland"


def test_the_board_needs_the_planner_role(app, client, carrier):
    from factories import create_user

    author = create_user(app, carrier, "author")
    login(client, author)
    assert client.get("/taken").status_code == 403
    assert client.get("/taken/nieuw").status_code == 403


def test_an_archived_task_is_not_on_the_board(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, naam="Oud werk", gepland_op=at(today(), "9:00"))

    def archive():
        from portal.tasks import service
        from portal.types import utcnow

        service.get_task(carrier_id=carrier.id, task_id=task.id).gearchiveerd_op = utcnow()

    in_carrier(app, carrier.id, archive)
    assert "Oud werk" not in signed_in.get("/taken").get_data(as_text=True)
    assert signed_in.get(f"/taken/{task.id}/bewerken").status_code == 404


# --- cards kept between loads ---------------------------------------------------------


def test_a_board_loaded_again_shows_every_change_and_each_planners_own_token(
    app, client, carrier, driver, planner
):
    from factories import create_user

    from portal.audit.service import SYSTEM
    from portal.drivers import service as drivers
    from portal.tasks import service
    from portal.tasks.pages import KEPT_CARDS

    first = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(today(), "9:00"))
    second = create_task(app, carrier, driver, naam="Voer Delden", gepland_op=at(today(), "13:00"))
    login(client, planner)
    url = "/taken?weergave=status"
    before = client.get(url).get_data(as_text=True)
    assert len(KEPT_CARDS) == 2

    # Another planner of the carrier gets the same cards, with the token of their session.
    colleague = app.test_client()
    login(colleague, create_user(app, carrier, "planner"))
    page = colleague.get(url).get_data(as_text=True)
    own = csrf_from(page)
    tokens = set(re.findall(r'name="csrf_token" value="([^"]+)"', card(page, first.id)))
    assert tokens == {own}
    assert own not in before
    strip = re.compile(r'name="csrf_token" value="[^"]+"')
    assert strip.sub("", card(page, first.id)) == strip.sub("", card(before, first.id))
    action = re.findall(r'<form method="post" action="([^"]+)">', card(page, first.id))[-1]
    duplicated = colleague.post(action, data={"csrf_token": own, "terug": url})
    assert duplicated.status_code == 303  # the kept card's form, with this session's token

    # A renamed task, a renamed driver and a new conflict all show on the next load.
    in_carrier(
        app,
        carrier.id,
        lambda: service.update_task(
            carrier_id=carrier.id, task_id=first.id, data={"naam": "Mest Hengelo"}, actor=SYSTEM
        ),
    )
    in_carrier(
        app,
        carrier.id,
        lambda: drivers.update_driver(
            carrier_id=carrier.id,
            driver_id=driver.id,
            naam="Jan de Boer",
            email=None,
            telefoon=None,
            taal=None,
            actor=SYSTEM,
        ),
    )
    create_task(app, carrier, driver, naam="Dubbel", gepland_op=at(today(), "13:15"))
    after = client.get(url).get_data(as_text=True)

    title = re.compile(r'<h4 class="card-title"[^>]*><a [^>]*>([^<]*)</a>')
    assert title.findall(card(before, first.id)) == ["Mest Enter"]
    assert title.findall(card(after, first.id)) == ["Mest Hengelo"]
    assert "Jan de Boer" in card(after, second.id)
    assert "dubbel geboekt" in card(after, second.id)
    assert "dubbel geboekt" not in card(before, second.id)
