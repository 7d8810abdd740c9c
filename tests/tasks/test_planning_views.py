"""Planning warnings where a planner meets them: the board's cards, the task form (while
editing and after saving), the CSV import preview; the expected duration in the form; and
moving a task with a vehicle to another driver, which asks whether the vehicle goes along."""

from __future__ import annotations

import html as html_module
import io
import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import create_driver, create_task, create_vehicle, csrf_from, in_carrier, login

AMS = ZoneInfo("Europe/Amsterdam")


def today() -> date:
    return datetime.now(AMS).date()


def at(clock: str, day: date | None = None) -> datetime:
    moment = datetime.combine(day or today(), time.fromisoformat(clock), tzinfo=AMS)
    return moment.astimezone(UTC)


def text(response_or_html) -> str:
    """What a reader sees: the text without tags, entities resolved, spaces collapsed."""
    body = response_or_html
    if not isinstance(body, str):
        body = body.get_data(as_text=True)
    return " ".join(html_module.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def card(html: str, task_id) -> str:
    match = re.search(rf'<article class="card[^"]*" id="task-{task_id}".*?</article>', html, re.S)
    assert match, f"no card of {task_id}"
    return match.group(0)


def load(app, carrier, task_id) -> dict:
    from portal.tasks import service

    return in_carrier(
        app,
        carrier.id,
        lambda: service.get_task(carrier_id=carrier.id, task_id=task_id),
        lambda t: {"chauffeur_id": t.chauffeur_id, "vehicle_id": t.vehicle_id,
                   "duur_min": t.duur_min, "versie": t.versie},
    )  # fmt: skip


@pytest.fixture
def signed_in(client, planner):
    login(client, planner)
    return client


@pytest.fixture(autouse=True)
def manure_needs_nothing(app, carrier):
    """The double bookings and VDM numbers alone: this carrier's manure runs need no tank
    (tests/tasks/test_capability_warnings.py has what a combination lacks)."""
    from portal.audit.service import SYSTEM
    from portal.fleet import catalogue

    for kind in ("mest_laden", "mest_lossen"):
        in_carrier(
            app,
            carrier.id,
            lambda kind=kind: catalogue.set_needs(
                carrier_id=carrier.id, activity_type=kind, kenmerken=(), actor=SYSTEM
            ),
        )


@pytest.fixture
def english(signed_in):
    with signed_in.session_transaction() as session:
        session["taal"] = "en"
    return signed_in


# --- the board ----------------------------------------------------------------------------


def test_a_double_booked_vehicle_shows_a_warning_on_each_card_naming_the_other(
    app, signed_in, carrier, driver
):
    bram = create_driver(app, carrier, "Bram de Boer")
    truck = create_vehicle(app, carrier, "BX-12-AB")
    mine = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at("08:00"),
                       vehicle_id=truck.id)  # fmt: skip
    his = create_task(app, carrier, bram, naam="Mest Goor", gepland_op=at("08:30"),
                      vehicle_id=truck.id)  # fmt: skip
    calm = create_task(app, carrier, bram, naam="Voer Epe", gepland_op=at("14:00"))

    html = signed_in.get("/taken").get_data(as_text=True)

    assert "1 waarschuwing" in text(card(html, mine.id))
    # The other task's time without its day: it is on the same day as this one.
    assert "Voertuig BX-12-AB dubbel geboekt: ook “Mest Goor” om 08:30 bij Bram de Boer." in text(
        card(html, mine.id)
    )
    assert "ook “Mest Enter” om 08:00 bij Jan Chauffeur." in text(card(html, his.id))
    assert 'class="warn-badge" title="Voertuig BX-12-AB dubbel geboekt' in card(html, mine.id)
    assert "waarschuwing" not in text(card(html, calm.id))


def test_the_board_words_warnings_in_english(app, english, carrier, driver):
    create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at("08:00"))
    create_task(app, carrier, driver, naam="Mest Goor", gepland_op=at("08:15"),
                vdm_nummer="VDM-0042")  # fmt: skip

    page = text(english.get("/taken"))

    assert "Driver double-booked: also “Mest Goor” at" in page
    assert "2 warnings" in page
    assert (
        "VDM number VDM-0042 does not have the expected format: 10 digits (the loading date as "
        "yymmdd and a sequence number), such as 2611240001." in page
    )


def test_a_closed_card_shows_no_warning(app, signed_in, carrier, driver):
    create_task(app, carrier, driver, naam="Open", gepland_op=at("08:00"), vdm_nummer="fout")
    done = create_task(app, carrier, driver, naam="Klaar", gepland_op=at("08:00"),
                       vdm_nummer="fout", status="afgerond")  # fmt: skip

    html = signed_in.get("/taken").get_data(as_text=True)

    assert "niet de verwachte vorm" in html
    assert "waarschuwing" not in text(card(html, done.id))


def test_the_board_with_conflicts_runs_a_fixed_number_of_queries(
    app, signed_in, carrier, count_queries
):
    drivers = [create_driver(app, carrier, f"Chauffeur {n}") for n in range(3)]
    trucks = [create_vehicle(app, carrier) for _ in range(2)]

    def add(n):
        # Everyone at 07:00 on two trucks, with a VDM number repeated: warnings everywhere.
        create_task(app, carrier, drivers[n % 3], naam=f"Taak {n}", gepland_op=at("07:00"),
                    vehicle_id=trucks[n % 2].id, vdm_nummer=f"VDM-{n % 2}")  # fmt: skip

    add(0)
    add(1)
    signed_in.get("/taken")  # warm up
    with count_queries() as few:
        assert "waarschuwing" in signed_in.get("/taken").get_data(as_text=True)
    for n in range(2, 20):
        add(n)
    with count_queries() as many:
        html = signed_in.get("/taken").get_data(as_text=True)
    assert html.count('class="warn-badge"') == 20
    assert many.count == few.count, "\n".join([*few.statements, "-----", *many.statements])


def test_a_status_change_returns_the_card_with_its_warnings(app, signed_in, carrier, driver):
    create_task(app, carrier, driver, naam="Eerste", gepland_op=at("08:00"))
    second = create_task(app, carrier, driver, naam="Tweede", gepland_op=at("08:20"))
    csrf = csrf_from(signed_in.get("/taken").get_data(as_text=True))

    response = signed_in.post(
        f"/taken/{second.id}/status",
        data={"status": "ontvangen"},
        headers={"HX-Request": "true", "X-CSRFToken": csrf},
    )

    assert response.status_code == 200
    assert "Chauffeur dubbel geboekt: ook “Eerste”" in text(response)


# --- the task form ------------------------------------------------------------------------


def form_data(signed_in, **values) -> dict:
    page = signed_in.get("/taken/nieuw").get_data(as_text=True)
    return {"csrf_token": csrf_from(page), "type": "mest_laden", "naam": "Nieuwe taak",
            "land": "NL", **values}  # fmt: skip


def test_the_form_warns_while_editing_without_saving(app, signed_in, carrier, driver):
    create_task(app, carrier, driver, naam="Al gepland", gepland_op=at("09:00", date(2031, 3, 14)))
    data = form_data(signed_in, gepland_datum="2031-03-14", gepland_tijd="09:30",
                     chauffeur_id=str(driver.id), vdm_nummer="VDM-1")  # fmt: skip

    response = signed_in.post("/taken/nieuw/controle", data=data, headers={"HX-Request": "true"})

    assert response.status_code == 200
    shown = text(response)
    assert "Chauffeur dubbel geboekt: ook “Al gepland” om" in shown
    assert "VDM-nummer VDM-1 heeft niet de verwachte vorm" in shown and "2611240001" in shown
    assert "Je kunt de taak toch opslaan." in shown
    assert in_carrier(app, carrier.id, lambda: _count_tasks(carrier)) == 1  # nothing saved


def _count_tasks(carrier) -> int:
    from portal.tasks import service

    return service.list_tasks(carrier_id=carrier.id, filters=service.TaskFilters()).total


def test_the_form_asks_the_server_again_when_a_field_changes(signed_in):
    html = signed_in.get("/taken/nieuw").get_data(as_text=True)
    region = re.search(r'<div id="task-warnings"[^>]*>', html).group(0)
    assert 'hx-post="/taken/nieuw/controle"' in region
    assert 'hx-trigger="change from:#task-form' in region


def test_saving_with_warnings_saves_and_says_what_to_check(app, signed_in, carrier, driver):
    create_task(app, carrier, driver, naam="Al gepland", gepland_op=at("09:00", date(2031, 3, 14)))
    data = form_data(signed_in, gepland_datum="2031-03-14", gepland_tijd="09:30",
                     chauffeur_id=str(driver.id), duur_min="45")  # fmt: skip

    response = signed_in.post("/taken/nieuw", data=data, follow_redirects=True)

    assert response.status_code == 200
    shown = text(response)
    assert "Taak “Nieuwe taak” is aangemaakt." in shown
    assert "Let op: Chauffeur dubbel geboekt: ook “Al gepland” om" in shown


def test_editing_shows_the_warnings_of_the_saved_task(app, signed_in, carrier, driver):
    create_task(app, carrier, driver, naam="Laden 1", vdm_nummer="3103140001")
    second = create_task(app, carrier, driver, naam="Laden 2", vdm_nummer="3103140001")

    shown = text(signed_in.get(f"/taken/{second.id}/bewerken"))

    assert "VDM-nummer 3103140001 staat ook op “Laden 1”." in shown


def test_the_form_keeps_the_expected_duration(app, signed_in, carrier, driver):
    data = form_data(signed_in, gepland_datum="2031-03-14", gepland_tijd="09:30",
                     duur_min="150")  # fmt: skip
    signed_in.post("/taken/nieuw", data=data)
    from portal.tasks import service

    task = in_carrier(
        app, carrier.id,
        lambda: service.list_tasks(carrier_id=carrier.id, filters=service.TaskFilters()).tasks[0],
        lambda t: {"id": t.id, "duur_min": t.duur_min},
    )  # fmt: skip
    assert task["duur_min"] == 150
    page = signed_in.get(f"/taken/{task['id']}/bewerken").get_data(as_text=True)
    assert re.search(r'name="duur_min"[^>]*value="150"', page)
    assert "Verwachte duur (minuten)" in page
    assert 'aria-describedby="duur_min-help"' in page  # "Leeg: de gebruikelijke duur …"


@pytest.mark.parametrize("value", ["0", "-5", "1441", "anderhalf uur"])
def test_a_bad_expected_duration_is_an_error_at_the_field(signed_in, value):
    data = form_data(signed_in, duur_min=value)

    response = signed_in.post("/taken/nieuw", data=data)

    assert response.status_code == 422
    error = re.search(r'id="duur_min-error"[^>]*>([^<]+)<', response.get_data(as_text=True))
    assert error, "no error at the duration field"
    assert value not in ("0", "-5", "1441") or "Tussen 1 en 1440 minuten" in error.group(1)


# --- moving to another driver -------------------------------------------------------------


def test_a_drop_on_another_driver_asks_whether_the_vehicle_goes_along(
    app, signed_in, carrier, driver
):
    bram = create_driver(app, carrier, "Bram de Boer")
    truck = create_vehicle(app, carrier, "BX-12-AB")
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at("08:00"),
                       vehicle_id=truck.id)  # fmt: skip

    response = signed_in.get(
        f"/taken/{task.id}/verplaats?chauffeur_id={bram.id}",
        headers={"HX-Request": "true", "HX-Target": "dialog-body"},
    )

    shown = text(response)
    assert "“Mest Enter” naar Bram de Boer" in shown
    assert "Gaat voertuig BX-12-AB mee naar Bram de Boer?" in shown
    assert "Ja, voertuig gaat mee" in shown and "Nee, zonder voertuig" in shown
    assert load(app, carrier, task.id)["chauffeur_id"] == driver.id  # nothing moved yet


@pytest.mark.parametrize(("answer", "keeps"), [("mee", True), ("los", False)])
def test_the_answer_decides_whether_the_vehicle_goes_along(
    app, signed_in, carrier, driver, answer, keeps
):
    bram = create_driver(app, carrier, "Bram de Boer")
    truck = create_vehicle(app, carrier, "BX-12-AB")
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at("08:00"),
                       vehicle_id=truck.id)  # fmt: skip
    csrf = csrf_from(signed_in.get("/taken").get_data(as_text=True))

    response = signed_in.post(
        f"/taken/{task.id}/verplaats",
        data={"chauffeur_id": str(bram.id), "versie": 1, "voertuig": answer},
        headers={"HX-Request": "true", "HX-Target": "dialog-body", "X-CSRFToken": csrf},
    )

    assert response.status_code == 200
    after = load(app, carrier, task.id)
    assert after["chauffeur_id"] == bram.id
    assert after["vehicle_id"] == (truck.id if keeps else None)


def test_the_vehicle_answer_only_counts_when_the_driver_changes(app, signed_in, carrier, driver):
    truck = create_vehicle(app, carrier, "BX-12-AB")
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at("08:00"),
                       vehicle_id=truck.id)  # fmt: skip
    csrf = csrf_from(signed_in.get("/taken").get_data(as_text=True))

    signed_in.post(
        f"/taken/{task.id}/verplaats",
        data={"chauffeur_id": str(driver.id), "tijd": "10:00", "versie": 1, "voertuig": "los"},
        headers={"HX-Request": "true", "HX-Target": "dialog-body", "X-CSRFToken": csrf},
    )

    assert load(app, carrier, task.id)["vehicle_id"] == truck.id


def test_the_keyboard_move_dialog_asks_about_the_vehicle(app, signed_in, carrier, driver):
    truck = create_vehicle(app, carrier, "BX-12-AB")
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at("08:00"),
                       vehicle_id=truck.id)  # fmt: skip
    plain = create_task(app, carrier, driver, naam="Zonder wagen", gepland_op=at("12:00"))
    headers = {"HX-Request": "true", "HX-Target": "dialog-body"}

    page = signed_in.get(f"/taken/{task.id}/verplaats", headers=headers).get_data(as_text=True)

    assert "Gaat voertuig BX-12-AB mee als de chauffeur verandert?" in text(page)
    assert re.search(r'<input[^>]*checked[^>]*value="mee"|value="mee"[^>]*checked', page)
    assert f'data-focus-after="task-{task.id}"' in page  # focus goes back to the card after
    other = signed_in.get(f"/taken/{plain.id}/verplaats", headers=headers)
    assert "Gaat voertuig" not in text(other)


def test_a_drop_of_a_task_without_vehicle_asks_nothing(app, signed_in, carrier, driver):
    bram = create_driver(app, carrier, "Bram de Boer")
    task = create_task(app, carrier, driver, naam="Zonder wagen", gepland_op=at("08:00"))

    response = signed_in.get(
        f"/taken/{task.id}/verplaats?chauffeur_id={bram.id}",
        headers={"HX-Request": "true", "HX-Target": "dialog-body"},
    )

    assert "Gaat voertuig" not in text(response)
    assert 'data-vehicle=""' in signed_in.get("/taken").get_data(as_text=True)


def test_moving_to_another_day_is_checked_too(app, signed_in, carrier, driver):
    """The warning follows the task: moved onto a busy hour, its card warns there."""
    tomorrow = today() + timedelta(days=1)
    create_task(app, carrier, driver, naam="Morgen vroeg", gepland_op=at("08:00", tomorrow))
    task = create_task(app, carrier, driver, naam="Schuift op", gepland_op=at("08:00"))
    csrf = csrf_from(signed_in.get("/taken").get_data(as_text=True))

    signed_in.post(
        f"/taken/{task.id}/verplaats",
        data={"datum": tomorrow.isoformat(), "versie": 1},
        headers={"HX-Request": "true", "HX-Target": "board-message", "X-CSRFToken": csrf},
    )

    html = signed_in.get(f"/taken?datum={tomorrow.isoformat()}").get_data(as_text=True)
    assert "Chauffeur dubbel geboekt: ook “Morgen vroeg”" in text(card(html, task.id))


# --- the CSV import preview ---------------------------------------------------------------


def _upload(client, body: str) -> str:
    """Upload body as the import form does; the token of its preview."""
    page = client.get("/taken/import").get_data(as_text=True)
    response = client.post(
        "/taken/import",
        data={"csrf_token": csrf_from(page), "bestand": (io.BytesIO(body.encode()), "t.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303, response.get_data(as_text=True)
    return response.headers["Location"].rsplit("/", 1)[1]


def _run_import(client, token: str) -> None:
    page = client.get(f"/taken/import/{token}").get_data(as_text=True)
    client.post(f"/taken/import/{token}", data={"csrf_token": csrf_from(page)})


IMPORT_HEADER = "naam;type;gepland_op;chauffeur;kenteken;vdm_nummer;duur_min"


def test_the_import_preview_warns_without_refusing_rows(app, signed_in, carrier, driver):
    truck = create_vehicle(app, carrier, "BX-12-AB")
    create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at("07:30", date(2031, 3, 14)),
                vehicle_id=truck.id, vdm_nummer="3103140001")  # fmt: skip
    body = "\n".join([
        IMPORT_HEADER,
        # The same task as on the board: an import run twice.
        "Mest Enter;mest_laden;2031-03-14 07:30;Jan Chauffeur;BX-12-AB;3103140001;",
        # The same truck at the same hour with nobody's knowledge, and a VDM number misshapen.
        "Mest Goor;mest_laden;2031-03-14 08:00;;BX-12-AB;VDM-12;",
        "Voer Epe;voer_leveren;2031-03-14 13:00;Jan Chauffeur;;;30",
        "Voer Epe;voer_leveren;2031-03-14 13:00;Jan Chauffeur;;;30",
    ])  # fmt: skip
    token = _upload(signed_in, body)

    page = signed_in.get(f"/taken/import/{token}").get_data(as_text=True)
    shown = text(page)

    assert "4 rijen" in shown and "4 goed" in shown and "0 met fouten" in shown
    assert "3 met waarschuwingen" in shown
    assert "Deze taak bestaat al: “Mest Enter” om" in shown
    assert "Voertuig BX-12-AB dubbel geboekt: ook “Mest Enter” om" in shown
    assert "bij Jan Chauffeur" in shown
    assert "VDM-nummer VDM-12 heeft niet de verwachte vorm" in shown
    assert "Deze rij staat ook op regel 4 van het bestand." in shown
    assert "4 taken importeren" in shown  # warnings never block


def test_the_import_preview_warns_in_english(app, english, carrier, driver):
    body = "\n".join([
        IMPORT_HEADER,
        "Voer Epe;voer_leveren;2031-03-14 13:00;Jan Chauffeur;;;",
        "Voer Epe;voer_leveren;2031-03-14 13:00;Jan Chauffeur;;;",
    ])  # fmt: skip
    token = _upload(english, body)

    shown = text(english.get(f"/taken/import/{token}"))

    assert "This row is also on line 2 of the file." in shown
    assert "1 with warnings" in shown


def test_an_imported_file_is_not_compared_with_its_own_tasks(app, signed_in, carrier, driver):
    body = "\n".join([IMPORT_HEADER, "Voer Epe;voer_leveren;2031-03-14 13:00;Jan Chauffeur;;;"])
    token = _upload(signed_in, body)
    assert "waarschuwing" not in text(signed_in.get(f"/taken/import/{token}"))
    _run_import(signed_in, token)

    shown = text(signed_in.get(f"/taken/import/{token}"))
    assert "1 taak geïmporteerd" in shown and "bestaat al" not in shown

    again = _upload(signed_in, body)  # the same file once more
    assert "Deze taak bestaat al: “Voer Epe”" in text(signed_in.get(f"/taken/import/{again}"))


def test_the_import_reads_the_expected_duration(app, signed_in, carrier, driver):
    body = "\n".join([
        IMPORT_HEADER,
        "Voer Epe;voer_leveren;2031-03-14 13:00;;;;45",
        "Voer Goor;voer_leveren;2031-03-14 15:00;;;;0",
    ])  # fmt: skip
    token = _upload(signed_in, body)
    shown = text(signed_in.get(f"/taken/import/{token}"))
    assert "1 met fouten" in shown and "Moet minstens" in shown
    _run_import(signed_in, token)
    from portal.tasks import service

    durations = in_carrier(
        app, carrier.id,
        lambda: service.list_tasks(carrier_id=carrier.id, filters=service.TaskFilters()).tasks,
        lambda tasks: {t.naam: t.duur_min for t in tasks},
    )  # fmt: skip
    assert durations == {"Voer Epe": 45}
