"""A planner completes a task on a paper delivery note: the button on the task page, the form
with the reason and the scan, the history, the proof of delivery, the API."""

from __future__ import annotations

import html
import io
import re

import pytest
from factories import (
    bearer,
    create_api_key,
    create_task,
    create_user,
    csrf_from,
    driver_token,
    in_carrier,
    login,
    publish_questionnaire,
    questionnaire_doc,
    upload_file,
)

from portal.tasks import service

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
HEIC = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64


def text_of(response) -> str:
    body = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return " ".join(html.unescape(body).split())


def field_error(response, field: str) -> str:
    """The error the page shows at a field (its <small id="<field>-error">)."""
    found = re.search(rf'id="{field}-error"[^>]*>([^<]+)<', response.get_data(as_text=True))
    return html.unescape(found.group(1)) if found else ""


def state(app, carrier, task):
    return in_carrier(
        app,
        carrier.id,
        lambda: service.get_task(carrier_id=carrier.id, task_id=task.id),
        lambda t: (t.status, t.papieren_bon_id, t.papieren_bon_reden),
    )


@pytest.fixture
def open_task(app, carrier, driver):
    """A started task whose questionnaire, signature and photos the driver never gave."""
    publish_questionnaire(app, carrier, questionnaire_doc(activity_type="mest_laden"))
    return create_task(
        app,
        carrier,
        driver,
        naam="Mest laden Enter",
        require_signature=True,
        require_photos=True,
        status="gestart",
    )


def post_form(client, task, page, **fields):
    data = {"csrf_token": csrf_from(page.get_data(as_text=True)), "reden": "", **fields}
    return client.post(
        f"/taken/{task.id}/papieren-bon", data=data, content_type="multipart/form-data"
    )


def test_the_planner_completes_a_task_on_the_paper_note(app, client, carrier, planner, open_task):
    login(client, planner)
    detail = client.get(f"/taken/{open_task.id}")
    assert f'href="/taken/{open_task.id}/papieren-bon"' in detail.get_data(as_text=True)
    assert "Afronden op papieren bon" in text_of(detail)

    form = client.get(f"/taken/{open_task.id}/papieren-bon")
    assert form.status_code == 200
    page = text_of(form)
    assert "Waarom op papier?" in page and "Scan of foto van de afleverbon" in page
    assert "De bon staat in voor wat in de app ontbreekt:" in page

    done = post_form(
        client,
        open_task,
        form,
        reden="Telefoon van de chauffeur leeg",
        bon=(io.BytesIO(PDF), "bon 1234.pdf"),
    )
    assert done.status_code == 303 and done.headers["Location"] == f"/taken/{open_task.id}"
    status, scan_id, reason = state(app, carrier, open_task)
    assert status == "afgerond" and scan_id and reason == "Telefoon van de chauffeur leeg"

    after = client.get(f"/taken/{open_task.id}")
    text = text_of(after)
    assert "is afgerond op de papieren afleverbon" in text  # the confirmation
    assert "Afgerond op de papieren afleverbon. Reden: Telefoon van de chauffeur leeg" in text
    # The history: what, who, why and the scan (a link to it).
    history = text.split("Geschiedenis", 1)[1]
    assert "Afgerond op papieren afleverbon door planner" in history
    assert "Reden: Telefoon van de chauffeur leeg" in history
    assert "Scan van de bon: bon 1234.pdf" in history
    assert re.search(r'<a href="/bestanden/[^"]+">bon 1234\.pdf</a>', after.get_data(as_text=True))
    assert "Afronden op papieren bon" not in text  # a completed task has no such button

    proof = text_of(client.get(f"/taken/{open_task.id}/bewijs"))
    assert "Afgerond op papier" in proof and "Papieren afleverbon: scan-01.pdf" in proof


def test_the_reason_and_the_scan_are_required_at_their_fields(
    client, planner, open_task, app, carrier
):
    login(client, planner)
    form = client.get(f"/taken/{open_task.id}/papieren-bon")
    refused = post_form(client, open_task, form, reden="  ")
    assert refused.status_code == 422
    assert field_error(refused, "reden") == "Vul de reden in."
    assert field_error(refused, "bon") == "Kies de scan van de papieren afleverbon."
    # A wrong file is told at once, beside the other fields' problems.
    both = post_form(client, open_task, form, bon=(io.BytesIO(b"GIF89a....."), "bon.gif"))
    assert field_error(both, "reden") == "Vul de reden in."
    assert field_error(both, "bon").startswith("Dit is geen PDF, JPEG of PNG.")
    assert state(app, carrier, open_task)[0] == "gestart"


@pytest.mark.parametrize(
    ("content", "name"),
    [(b"<html><script>alert(1)</script></html>", "bon.pdf"), (HEIC, "bon.heic"), (b"", "leeg.pdf")],
)
def test_a_bad_file_is_refused_at_the_scan(client, planner, open_task, app, carrier, content, name):
    login(client, planner)
    form = client.get(f"/taken/{open_task.id}/papieren-bon")
    refused = post_form(
        client, open_task, form, reden="Geen bereik", bon=(io.BytesIO(content), name)
    )
    assert refused.status_code == 422
    message = field_error(refused, "bon")
    assert message in (
        "Dit is geen PDF, JPEG of PNG. Scan of fotografeer de bon als PDF, JPEG of PNG.",
        "Het bestand is leeg.",
    ) or (not content and message == "Kies de scan van de papieren afleverbon.")
    assert 'value="Geen bereik"' in refused.get_data(as_text=True) or "Geen bereik" in text_of(
        refused
    )
    assert state(app, carrier, open_task) == ("gestart", None, None)


def test_the_temperature_on_the_note_is_asked_when_the_task_requires_it(
    app, client, carrier, planner, driver
):
    task = create_task(app, carrier, driver, required_temperatuur=4.0, status="gepland")
    login(client, planner)
    form = client.get(f"/taken/{task.id}/papieren-bon")
    assert "Gemeten temperatuur op de bon (°C)" in text_of(form)
    refused = post_form(client, task, form, reden="Geen bereik", bon=(io.BytesIO(PDF), "b.pdf"))
    assert field_error(refused, "temperatuur") == "Neem de gemeten temperatuur van de bon over."
    done = post_form(
        client, task, form, reden="Geen bereik", temperatuur="3,5", bon=(io.BytesIO(PDF), "b.pdf")
    )
    assert done.status_code == 303
    assert state(app, carrier, task)[0] == "afgerond"  # from gepland, through gestart


def test_another_carriers_planner_cannot_reach_it(app, client, other_carrier, open_task):
    login(client, create_user(app, other_carrier, "planner"))
    assert client.get(f"/taken/{open_task.id}/papieren-bon").status_code == 404
    posted = client.post(
        f"/taken/{open_task.id}/papieren-bon",
        data={"reden": "x", "bon": (io.BytesIO(PDF), "b.pdf")},
        content_type="multipart/form-data",
    )
    assert posted.status_code == 404


def test_integrations_complete_on_paper_through_the_api(
    app, client, carrier, other_carrier, driver, open_task
):
    key = create_api_key(app, carrier)
    token = driver_token(client, driver)
    scan = client.post(
        "/api/v1/bestanden",
        data={"soort": "document_scan", "file": (io.BytesIO(PDF), "bon.pdf")},
        headers=bearer(key.key),
        content_type="multipart/form-data",
    ).get_json()["id"]
    path = f"/api/v1/taken/{open_task.id}/papieren-afronding"
    body = {"reden": "Telefoon leeg", "scan": scan}
    assert client.post(path, json=body, headers=bearer(token)).status_code == 403  # a driver
    photo = upload_file(client, token, "photo")
    wrong = client.post(path, json={**body, "scan": photo}, headers=bearer(key.key))
    assert wrong.status_code == 422
    assert [e["field"] for e in wrong.get_json()["errors"]] == ["scan"]

    done = client.post(path, json=body, headers=bearer(key.key))
    assert done.status_code == 200, done.get_json()
    assert done.get_json()["status"] == "afgerond"
    again = client.post(path, json=body, headers=bearer(key.key))
    assert again.status_code == 409
    other = create_api_key(app, other_carrier)
    assert client.post(path, json=body, headers=bearer(other.key)).status_code == 404
