"""The task form (create, edit), duplicate, cancel and delete from the board."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from factories import (
    create_driver,
    create_task,
    create_vehicle,
    csrf_from,
    in_carrier,
    login,
    publish_questionnaire,
    questionnaire_doc,
)

AMS = ZoneInfo("Europe/Amsterdam")


def at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime.combine(day, time(hour, minute), tzinfo=AMS).astimezone(UTC)


def today() -> date:
    return datetime.now(AMS).date()


def task_state(app, carrier, task_id) -> dict | None:
    """Every column of the task as a dict, or None when it is gone; archived ones included."""
    from portal.errors import NotFound
    from portal.tasks import service
    from portal.tasks.models import Task

    def fetch():
        try:
            return service.get_task(carrier_id=carrier.id, task_id=task_id, archived=True)
        except NotFound:
            return None

    return in_carrier(
        app,
        carrier.id,
        fetch,
        lambda t: {c.key: getattr(t, c.key) for c in Task.__table__.columns} if t else None,
    )


def tasks_named(app, carrier, naam) -> list[dict]:
    from portal.tasks import service

    return in_carrier(
        app,
        carrier.id,
        lambda: service.list_tasks(carrier_id=carrier.id, filters=service.TaskFilters(search=naam)),
        lambda page: [{"id": t.id, "naam": t.naam} for t in page.tasks if t.naam == naam],
    )


def audit_actions(app, carrier, task_id) -> list[str]:
    from portal.tasks import service

    return in_carrier(
        app,
        carrier.id,
        lambda: service.history(carrier_id=carrier.id, task_id=task_id),
        lambda rows: [r.action for r in rows],
    )


@pytest.fixture
def signed_in(client, planner):
    login(client, planner)
    return client


FULL = {
    "type": "vee_transport",
    "naam": "Biggen naar Deurne",
    "omschrijving": "Twee compartimenten",
    "artikel": "Biggen",
    "hoeveelheid": "120,5",
    "eenheid": "stuks",
    "opmerkingen": "Bel bij aankomst",
    "vdm_nummer": "VDM-77",
    "adres": "Kerkstraat 1",
    "postcode": "5751 AB",
    "stad": "Deurne",
    "land": "nl",
    "contactpersoon": "Els",
    "telefoon": "0493-123456",
    "telefoon_mobiel": "06-12345678",
    "locatie_lat": "51,46",
    "locatie_lng": "5.79",
    "gepland_tijd": "07:45",
    "require_photos": "y",
    "min_fotos": "1",
    "max_fotos": "3",
    "photo_label": "Laadruimte",
    "require_signature": "y",
    "require_document_scan": "y",
    "require_location": "y",
    "agr_verplicht": "y",
    "required_desinfectie": "y",
    "required_temperatuur": "-2,5",
    "kooiaap": "y",
}


def test_the_form_has_every_task_field_in_five_groups(signed_in):
    html = signed_in.get("/taken/nieuw?datum=2031-03-14").get_data(as_text=True)
    legends = re.findall(r"<legend>(.*?)</legend>", html)
    assert legends == ["Wat", "Waar", "Klant en route", "Wanneer en wie", "Eisen"]
    for name in (*FULL, "gepland_datum", "chauffeur_id", "vehicle_id"):
        assert f'name="{name}"' in html, name
    assert 'value="2031-03-14"' in html  # the board's day
    assert 'value="NL"' in html


def test_create_with_every_field(app, signed_in, carrier, driver):
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    page = signed_in.get("/taken/nieuw").get_data(as_text=True)
    day = today() + timedelta(days=2)
    data = {
        **FULL,
        "gepland_datum": day.isoformat(),
        "chauffeur_id": str(driver.id),
        "vehicle_id": str(vehicle.id),
        "csrf_token": csrf_from(page),
    }

    response = signed_in.post("/taken/nieuw", data=data)

    assert response.status_code == 303
    assert response.headers["Location"] == f"/taken?datum={day.isoformat()}"
    [created] = tasks_named(app, carrier, "Biggen naar Deurne")
    task = task_state(app, carrier, created["id"])
    assert task["chauffeur_id"] == driver.id and task["vehicle_id"] == vehicle.id
    assert task["gepland_op"] == at(day, 7, 45)
    assert task["hoeveelheid"] == 120.5 and task["required_temperatuur"] == -2.5
    assert task["locatie_lat"] == 51.46 and task["locatie_lng"] == 5.79
    assert task["land"] == "NL" and task["type"] == "vee_transport"
    assert task["min_fotos"] == 1 and task["max_fotos"] == 3
    flags = ("require_photos", "require_signature", "require_document_scan",
             "require_location", "agr_verplicht", "required_desinfectie", "kooiaap")  # fmt: skip
    for flag in flags:
        assert task[flag] is True, flag
    assert task["status"] == "gepland"
    assert audit_actions(app, carrier, created["id"]) == ["created"]
    board = signed_in.get(response.headers["Location"]).get_data(as_text=True)
    assert "Taak “Biggen naar Deurne” is aangemaakt." in board


def test_create_with_errors_answers_422_with_each_error_at_its_field(app, signed_in, carrier):
    page = signed_in.get("/taken/nieuw").get_data(as_text=True)
    data = {
        "type": "mest_laden",
        "naam": "",
        "omschrijving": "Mijn lange tekst blijft staan",
        "hoeveelheid": "veel",
        "land": "Nederland",
        "locatie_lat": "52.1",
        "gepland_datum": "2031-02-30",
        "gepland_tijd": "08:00",
        "min_fotos": "5",
        "max_fotos": "2",
        "required_temperatuur": "nan",
        "chauffeur_id": "c0ffee00-0000-4000-8000-000000000000",
        "csrf_token": csrf_from(page),
    }

    response = signed_in.post("/taken/nieuw", data=data, headers={"HX-Request": "true"})

    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert html.lstrip().startswith('<form method="post" action="/taken/nieuw" id="task-form"')
    for name in ("naam", "hoeveelheid", "land", "locatie_lng", "gepland_datum", "max_fotos",
                 "required_temperatuur", "chauffeur_id"):  # fmt: skip
        assert f'id="{name}-error"' in html, name
        tag = re.search(rf'<(?:input|select|textarea)[^>]*\bid="{name}"[^>]*>', html).group(0)
        assert 'aria-invalid="true"' in tag, name
    assert "Mijn lange tekst blijft staan" in html and 'value="NEDERLAND"' in html
    assert "Geef de taak een naam." in html
    assert tasks_named(app, carrier, "") == []
    full = signed_in.post("/taken/nieuw", data=data)
    assert full.status_code == 422 and "<html" in full.get_data(as_text=True)


def test_a_time_without_a_date_and_a_date_without_a_time_are_errors(signed_in):
    token = csrf_from(signed_in.get("/taken/nieuw").get_data(as_text=True))
    base = {"type": "mest_laden", "naam": "X", "csrf_token": token}
    no_date = signed_in.post("/taken/nieuw", data={**base, "gepland_tijd": "08:00"})
    assert no_date.status_code == 422 and "Kies ook een datum." in no_date.get_data(as_text=True)
    no_time = signed_in.post("/taken/nieuw", data={**base, "gepland_datum": "2031-01-01"})
    assert no_time.status_code == 422 and "Kies ook een tijd." in no_time.get_data(as_text=True)


def test_htmx_create_redirects_the_browser_to_the_tasks_day(app, signed_in, carrier):
    token = csrf_from(signed_in.get("/taken/nieuw").get_data(as_text=True))
    response = signed_in.post(
        "/taken/nieuw",
        data={"type": "mest_laden", "naam": "Via htmx", "gepland_datum": "2031-05-01",
              "gepland_tijd": "06:00", "csrf_token": token},
        headers={"HX-Request": "true"},
    )  # fmt: skip
    assert response.status_code == 200
    assert response.headers["HX-Redirect"] == "/taken?datum=2031-05-01"
    assert len(tasks_named(app, carrier, "Via htmx")) == 1


def test_the_type_list_offers_the_carriers_questionnaire_types(app, signed_in, carrier):
    publish_questionnaire(app, carrier, questionnaire_doc("kalveren_halen", title="Kalveren"))
    html = signed_in.get("/taken/nieuw").get_data(as_text=True)
    assert 'value="kalveren_halen"' in html and 'value="mest_laden"' in html
    token = csrf_from(html)
    bad = signed_in.post("/taken/nieuw", data={"type": "zomaar", "naam": "X", "csrf_token": token})
    assert bad.status_code == 422 and 'id="type-error"' in bad.get_data(as_text=True)


def test_edit_changes_fields_and_writes_the_audit_trail(app, signed_in, carrier, driver):
    other = create_driver(app, carrier, "Piet Bakker")
    task = create_task(app, carrier, driver, naam="Mest Enter", stad="Enter",
                       gepland_op=at(date(2031, 3, 14), 9), vdm_nummer="V1")  # fmt: skip
    page = signed_in.get(f"/taken/{task.id}/bewerken?terug=/taken?datum%3D2031-03-14")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert 'value="Mest Enter"' in html and 'value="09:00"' in html and 'value="2031-03-14"' in html
    assert 'name="versie" type="hidden" value="1"' in html

    form = dict(re.findall(r'name="(\w+)" type="(?:text|hidden|date|time)" value="([^"]*)"', html))
    form.update({"naam": "Mest Enter (2 vrachten)", "chauffeur_id": str(other.id),
                 "gepland_tijd": "13:15", "type": "mest_laden"})  # fmt: skip
    response = signed_in.post(f"/taken/{task.id}/bewerken", data=form)

    assert response.status_code == 303
    assert response.headers["Location"] == "/taken?datum=2031-03-14"
    after = task_state(app, carrier, task.id)
    assert after["naam"] == "Mest Enter (2 vrachten)" and after["chauffeur_id"] == other.id
    assert after["gepland_op"] == at(date(2031, 3, 14), 13, 15)
    assert after["stad"] == "Enter" and after["vdm_nummer"] == "V1"  # untouched fields stay
    assert after["versie"] == 2
    assert audit_actions(app, carrier, task.id)[-1] == "updated"


def test_edit_with_a_stale_version_keeps_the_input_and_offers_a_reload(
    app, signed_in, carrier, driver
):
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(today(), 9))
    html = signed_in.get(f"/taken/{task.id}/bewerken").get_data(as_text=True)
    form = dict(re.findall(r'name="(\w+)" type="(?:text|hidden|date|time)" value="([^"]*)"', html))
    form.update({"naam": "Mijn versie", "type": "mest_laden", "versie": "1"})
    # Someone else changes the task meanwhile.
    signed_in.post(f"/taken/{task.id}/status", data={"status": "ontvangen",
                   "csrf_token": form["csrf_token"]})  # fmt: skip

    response = signed_in.post(
        f"/taken/{task.id}/bewerken", data=form, headers={"HX-Request": "true"}
    )

    html = response.get_data(as_text=True)
    assert response.status_code == 412
    assert "Deze taak is intussen gewijzigd door iemand anders." in html
    assert 'value="Mijn versie"' in html
    assert f'href="/taken/{task.id}/bewerken?terug=/taken"' in html
    assert task_state(app, carrier, task.id)["naam"] == "Mest Enter"
    # Saving again, knowingly, overwrites with the planner's input.
    current = re.search(r'name="versie" type="hidden" value="(\d+)"', html).group(1)
    again = signed_in.post(f"/taken/{task.id}/bewerken", data={**form, "versie": current})
    assert again.status_code == 303
    assert task_state(app, carrier, task.id)["naam"] == "Mijn versie"


def test_a_completed_task_cannot_be_edited(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, naam="Klaar", gepland_op=at(today(), 9),
                       status="afgerond")  # fmt: skip
    html = signed_in.get(f"/taken/{task.id}/bewerken").get_data(as_text=True)
    assert "kan niet meer worden gewijzigd" in html
    assert '<fieldset class="form-groups" disabled' in html
    token = csrf_from(html)
    versie = task_state(app, carrier, task.id)["versie"]
    response = signed_in.post(
        f"/taken/{task.id}/bewerken",
        data={"type": "mest_laden", "naam": "Anders", "versie": versie, "csrf_token": token},
    )
    assert response.status_code == 409
    assert task_state(app, carrier, task.id)["naam"] == "Klaar"


def test_duplicate_copies_the_task_and_opens_the_copys_form(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, naam="Voer Epe", stad="Epe", kooiaap=True,
                       gepland_op=at(today(), 9), status="afgerond")  # fmt: skip
    token = csrf_from(signed_in.get("/taken").get_data(as_text=True))

    response = signed_in.post(f"/taken/{task.id}/dupliceer",
                              data={"csrf_token": token, "terug": "/taken?q=epe"})  # fmt: skip

    assert response.status_code == 303
    location = response.headers["Location"]
    match = re.fullmatch(r"/taken/([0-9a-f-]{36})/bewerken\?terug=(.*)", location)
    assert match and match.group(1) != str(task.id)
    copy = task_state(app, carrier, uuid.UUID(match.group(1)))
    assert copy["naam"] == "Voer Epe" and copy["stad"] == "Epe" and copy["kooiaap"] is True
    assert copy["status"] == "gepland" and copy["chauffeur_id"] == driver.id
    form = signed_in.get(response.headers["Location"]).get_data(as_text=True)
    assert "Kopie gemaakt van “Voer Epe”" in form and 'value="Voer Epe"' in form


def test_cancel_asks_first_then_cancels(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, naam="Mest Enter", gepland_op=at(today(), 9))
    confirm = signed_in.get(f"/taken/{task.id}/annuleren?terug=/taken?q=mest")
    html = confirm.get_data(as_text=True)
    assert confirm.status_code == 200 and "Taak “Mest Enter” annuleren?" in html
    assert task_state(app, carrier, task.id)["status"] == "gepland"  # a GET changes nothing
    dialog = signed_in.get(f"/taken/{task.id}/annuleren", headers={"HX-Request": "true"})
    assert "<html" not in dialog.get_data(as_text=True)
    assert "data-close-dialog" in dialog.get_data(as_text=True)

    token = csrf_from(html)
    response = signed_in.post(
        f"/taken/{task.id}/annuleren", data={"csrf_token": token, "terug": "/taken?q=mest"}
    )

    assert response.status_code == 303 and response.headers["Location"] == "/taken?q=mest"
    assert task_state(app, carrier, task.id)["status"] == "geannuleerd"
    assert "Taak “Mest Enter” is geannuleerd." in signed_in.get("/taken").get_data(as_text=True)
    again = signed_in.post(f"/taken/{task.id}/annuleren", data={"csrf_token": csrf_from(html)},
                           headers={"HX-Request": "true", "HX-Target": "dialog-body"})  # fmt: skip
    assert again.status_code == 409
    assert "kan niet meer worden geannuleerd" in again.get_data(as_text=True)
    assert again.headers["HX-Retarget"] == "#board-message"


def test_delete_removes_a_fresh_task_and_archives_a_completed_one(app, signed_in, carrier, driver):
    fresh = create_task(app, carrier, driver, naam="Vergissing", gepland_op=at(today(), 9))
    done = create_task(app, carrier, driver, naam="Gefactureerd", gepland_op=at(today(), 10),
                       status="afgerond")  # fmt: skip
    html = signed_in.get(f"/taken/{fresh.id}/verwijderen").get_data(as_text=True)
    assert "Taak “Vergissing” verwijderen?" in html and "gearchiveerd" in html
    token = csrf_from(html)

    deleted = signed_in.post(
        f"/taken/{fresh.id}/verwijderen",
        data={"csrf_token": token},
        headers={"HX-Request": "true", "HX-Target": "dialog-body"},
    )
    archived = signed_in.post(f"/taken/{done.id}/verwijderen", data={"csrf_token": token})

    assert deleted.status_code == 200
    assert "Taak “Vergissing” is verwijderd." in deleted.get_data(as_text=True)
    assert "tasksChanged" in deleted.headers["HX-Trigger"]
    assert task_state(app, carrier, fresh.id) is None
    assert archived.status_code == 303
    board = signed_in.get("/taken").get_data(as_text=True)
    assert "Taak “Gefactureerd” is gearchiveerd, niet verwijderd" in board
    assert task_state(app, carrier, done.id)["gearchiveerd_op"] is not None
    assert signed_in.get(f"/taken/{done.id}/verwijderen").status_code == 404


def test_the_return_address_cannot_leave_the_board(app, signed_in, carrier, driver):
    task = create_task(app, carrier, driver, naam="Mest", gepland_op=at(today(), 9))
    token = csrf_from(signed_in.get("/taken").get_data(as_text=True))
    for evil in ("https://evil.example/taken", "//evil.example/taken", "/login", "/taken/../x",
                 "/\\evil.example", "/taken?q=a\r\nSet-Cookie: x=1", "javascript:alert(1)",
                 " /taken", "/taken\t"):  # fmt: skip
        response = signed_in.post(f"/taken/{task.id}/annuleren",
                                  data={"csrf_token": token, "terug": evil})  # fmt: skip
        assert response.status_code == 303, (evil, response.status_code)
        assert response.headers["Location"] == "/taken", evil


def test_empty_optional_fields_are_no_errors(app, signed_in, carrier):
    html = signed_in.get("/taken/nieuw").get_data(as_text=True)
    data = {name: "" for name in re.findall(r'name="(\w+)"', html)}
    data.update({"type": "mest_laden", "naam": "Alleen een naam", "csrf_token": csrf_from(html)})
    data.update({"gepland_datum": "", "gepland_tijd": ""})
    for flag in ("require_photos", "require_signature", "kooiaap"):
        data.pop(flag)  # an unchecked box is not sent

    response = signed_in.post("/taken/nieuw", data=data)

    assert response.status_code == 303, re.findall(
        r'class="field-error"[^>]*>([^<]*)<', response.get_data(as_text=True)
    )
    [created] = tasks_named(app, carrier, "Alleen een naam")
    task = task_state(app, carrier, created["id"])
    assert task["gepland_op"] is None and task["min_fotos"] is None and task["land"] is None
    assert task["hoeveelheid"] is None and task["chauffeur_id"] is None
