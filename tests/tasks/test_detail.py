"""The task page: fields, history, evidence through signed links, answers, blockers."""

from __future__ import annotations

import html
import io
import re
import uuid
from datetime import UTC, datetime

from factories import (
    create_carrier,
    create_driver,
    create_task,
    create_user,
    create_vehicle,
    in_carrier,
    login,
    publish_questionnaire,
    questionnaire_doc,
)

from portal.audit.service import Actor
from portal.extensions import db

# A valid 1x1 PNG, the smallest picture the file service accepts.
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00\x00\x00"
    b":~\x9bU\x00\x00\x00\nIDATx\x9cc`\x00\x00\x00\x02\x00\x01H\xaf\xa4q\x00\x00\x00\x00IEND"
    b"\xaeB`\x82"
)
PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
OFFICE = Actor("user", None, "Petra Planner")
SUBMITTED = datetime(2026, 11, 23, 8, 15, tzinfo=UTC)


def text_of(response) -> str:
    """The page as text: tags dropped, whitespace folded, entities decoded."""
    body = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return " ".join(html.unescape(body).split())


def store(app, carrier, soort: str, data: bytes = PNG, name: str = "foto.png") -> uuid.UUID:
    from portal.files.service import store_file

    return in_carrier(
        app,
        carrier.id,
        lambda: store_file(
            carrier_id=carrier.id,
            stream=io.BytesIO(data),
            filename=name,
            soort=soort,
            actor=OFFICE,
        ),
        lambda row: row.id,
    )


def attach(app, carrier, task, **evidence) -> None:
    from portal.tasks import lifecycle, service

    def run():
        row = service.get_task(carrier_id=carrier.id, task_id=task.id)
        lifecycle.add_evidence(
            carrier_id=carrier.id, task=row, evidence=lifecycle.Evidence(**evidence), actor=OFFICE
        )

    in_carrier(app, carrier.id, run)


def move(app, carrier, task, to: str, **evidence) -> None:
    from portal.tasks import lifecycle

    in_carrier(
        app,
        carrier.id,
        lambda: lifecycle.move_task(
            carrier_id=carrier.id,
            task_id=task.id,
            to=to,
            actor=OFFICE,
            office=True,
            evidence=lifecycle.Evidence(**evidence) if evidence else None,
        ),
    )


def answer(app, carrier, task, revision, driver, values: dict, status="ingediend") -> None:
    import orjson

    from portal.questionnaires.models import Answer, AnswerSession

    def run():
        session = AnswerSession(
            transporteur_id=carrier.id,
            activity_questionnaire_id=revision.id,
            activity_type="mest_laden",
            taak_id=task.id,
            chauffeur_id=driver.id,
            status=status,
            ingediend_op=SUBMITTED if status == "ingediend" else None,
        )
        db.session.add(session)
        db.session.flush()
        for question_id, value in values.items():
            db.session.add(
                Answer(
                    transporteur_id=carrier.id,
                    answer_session_id=session.id,
                    question_id=question_id,
                    waarde=orjson.dumps(value).decode(),
                )
            )

    in_carrier(app, carrier.id, run)


def test_the_page_shows_every_field_in_its_group(app, client, carrier, planner, driver):
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    task = create_task(
        app,
        carrier,
        driver,
        naam="Mest laden Enter",
        vehicle_id=vehicle.id,
        omschrijving="Drijfmest uit de kelder",
        artikel="Drijfmest",
        hoeveelheid=32.5,
        eenheid="ton",
        adres="Dorpsstraat 12",
        postcode="7468 AB",
        stad="Enter",
        land="NL",
        contactpersoon="Henk Bakker",
        telefoon="0547 123456",
        gepland_op=datetime(2026, 11, 23, 6, 30, tzinfo=UTC),
        require_photos=True,
        min_fotos=2,
        max_fotos=4,
        photo_label="Volle tank",
        vdm_nummer="VDM-77",
        agr_verplicht=True,
        kooiaap=True,
        locatie_lat=52.293,
        locatie_lng=6.5731,
    )
    login(client, planner)

    response = client.get(f"/taken/{task.id}")

    assert response.status_code == 200
    page = text_of(response)
    for heading in ("Wat", "Waar", "Wanneer en wie", "Eisen"):
        assert f" {heading} " in page
    for value in (
        "Drijfmest uit de kelder", "32,5 ton", "Dorpsstraat 12", "7468 AB Enter", "Henk Bakker",
        "0547 123456", "VDM-77", "Jan Chauffeur", "BX-12-AB", "2 tot 4", "“Volle tank”",
    ):  # fmt: skip
        assert value in page, value
    # 06:30 UTC is 07:30 in the carrier's time zone (Europe/Amsterdam, winter time).
    assert "23 nov 2026 07:30" in page
    assert '<span class="status status-gepland">Gepland</span>' in response.get_data(as_text=True)
    assert (
        "https://www.openstreetmap.org/?mlat=52.293000&amp;mlon=6.573100#map=16/52.293000/6.573100"
        in response.get_data(as_text=True)
    )
    assert "Bewerken" in page
    assert 'href="/taken"' in response.get_data(as_text=True)


def test_the_history_shows_who_moved_the_status_and_when(app, client, carrier, planner, driver):
    task = create_task(app, carrier, driver)
    move(app, carrier, task, "gestart")
    login(client, planner)

    page = text_of(client.get(f"/taken/{task.id}"))

    assert "Status gewijzigd door Petra Planner (portaal)" in page
    assert "Status: Gepland → Gestart" in page
    assert "Aangemaakt door het systeem" in page
    assert "Chauffeur: Jan Chauffeur" in page


def test_field_changes_show_old_and_new(app, client, carrier, planner, driver):
    from portal.tasks import service

    task = create_task(app, carrier, driver, stad="Enter")
    other = create_driver(app, carrier, "Piet Smit")
    in_carrier(
        app,
        carrier.id,
        lambda: service.update_task(
            carrier_id=carrier.id,
            task_id=task.id,
            data={"stad": "Hengelo", "chauffeur_id": other.id},
            actor=OFFICE,
        ),
    )
    login(client, planner)

    page = text_of(client.get(f"/taken/{task.id}"))

    assert "Plaats: Enter → Hengelo" in page
    assert "Chauffeur: Jan Chauffeur → Piet Smit" in page


def test_evidence_shows_thumbnails_through_signed_links(app, client, carrier, planner, driver):
    task = create_task(
        app, carrier, driver, require_photos=True, required_temperatuur=4.0,
        required_desinfectie=True,
    )  # fmt: skip
    photos = [store(app, carrier, "photo", name=f"laadbak-{n}.png") for n in range(2)]
    signature = store(app, carrier, "signature", name="handtekening.png")
    scan = store(app, carrier, "document_scan", PDF, "vrachtbrief.pdf")
    attach(
        app, carrier, task, fotos=photos, handtekeningen=[signature], scans=[scan],
        locatie_lat=52.2215, locatie_lng=6.8937, temperatuur=3.5, desinfectie_bevestigd=True,
    )  # fmt: skip
    login(client, planner)

    response = client.get(f"/taken/{task.id}")
    body = response.get_data(as_text=True)
    page = text_of(response)

    for file_id in [*photos, signature]:
        match = re.search(
            rf'<img src="(/bestanden/{carrier.id}/{file_id}\?exp=\d+&amp;sig=[^"]+)"', body
        )
        assert match, file_id
        url = html.unescape(match.group(1))
        # The thumbnail opens full size: the same signed link around it.
        assert f'<a href="{match.group(1)}" target="_blank"' in body
        with client.get(url) as download:
            assert download.status_code == 200
            assert download.mimetype == "image/png"
    scan_link = re.search(
        rf'href="(/bestanden/{carrier.id}/{scan}\?[^"]+)"[^>]*>vrachtbrief.pdf', body
    )
    assert scan_link
    with client.get(html.unescape(scan_link.group(1))) as download:
        assert download.mimetype == "application/pdf"
    assert "Foto's (2)" in page
    assert "52.221500, 6.893700" in page
    assert "mlat=52.221500&amp;mlon=6.893700#map=16/52.221500/6.893700" in body
    assert "gemeten 3,5 °C · vereist 4 °C" in page
    assert "Desinfectie bevestigd" in page
    assert "Bewijs toegevoegd door Petra Planner (portaal)" in page
    assert "Bestanden: 2 foto's, 1 handtekening, 1 scan" in page
    # Nothing loads from elsewhere: every picture comes from the portal itself.
    assert not re.search(r'<img src="https?://', body)


def test_the_blockers_panel_lists_what_is_missing(app, client, carrier, planner, driver):
    task = create_task(
        app, carrier, driver, require_photos=True, min_fotos=2, require_signature=True,
        required_temperatuur=4.0, agr_verplicht=True,
    )  # fmt: skip
    attach(app, carrier, task, fotos=[store(app, carrier, "photo")])
    login(client, planner)

    page = text_of(client.get(f"/taken/{task.id}"))

    assert "Wat houdt afronding tegen" in page
    assert "Foto's: 1 van minstens 2" in page
    assert "Handtekening ontbreekt" in page
    assert "Gemeten temperatuur ontbreekt (vereist 4 °C)" in page
    assert "Locatie van de chauffeur ontbreekt (nodig voor de AGR-GPS-registratie)" in page
    assert "Klaar om af te ronden" not in page


def test_the_blockers_panel_says_ready_or_completed(app, client, carrier, planner, driver):
    ready = create_task(app, carrier, driver, naam="Zonder eisen")
    done = create_task(app, carrier, driver, naam="Klaar")
    move(app, carrier, done, "gestart")
    move(app, carrier, done, "afgerond")
    login(client, planner)

    assert "Klaar om af te ronden" in text_of(client.get(f"/taken/{ready.id}"))
    finished = text_of(client.get(f"/taken/{done.id}"))
    assert "Afgerond op " in finished
    assert "Klaar om af te ronden" not in finished
    assert "Status: Gestart → Afgerond" in finished


def test_an_archived_task_shows_a_notice_and_no_edit_link(app, client, carrier, planner, driver):
    from portal.tasks import service

    task = create_task(app, carrier, driver)
    move(app, carrier, task, "gestart")
    move(app, carrier, task, "afgerond")
    in_carrier(
        app,
        carrier.id,
        lambda: service.delete_task(carrier_id=carrier.id, task_id=task.id, actor=OFFICE),
    )
    login(client, planner)

    response = client.get(f"/taken/{task.id}")

    assert response.status_code == 200
    page = text_of(response)
    assert "Gearchiveerd op" in page
    assert "Bewerken" not in page
    assert "Gearchiveerd door Petra Planner" in page


def test_answers_show_against_the_revision_they_answered(app, client, carrier, planner, driver):
    first = publish_questionnaire(app, carrier)
    task = create_task(app, carrier, driver)
    photo = store(app, carrier, "photo", name="mest.png")
    answer(app, carrier, task, first, driver, {"gewicht": 1250.5, "foto": [str(photo)]})
    # A newer revision renames the question: the old answers keep their own label.
    doc = questionnaire_doc()
    doc["questions"][0]["label"] = "Netto gewicht"
    publish_questionnaire(app, carrier, doc)
    login(client, planner)

    response = client.get(f"/taken/{task.id}")
    page = text_of(response)

    assert "Antwoorden" in page and "Mest laden revisie 1 ingediend 23 nov 2026 09:15" in page
    assert "Gewicht 1.250,5 kg" in page
    assert "Netto gewicht" not in page
    body = response.get_data(as_text=True)
    assert re.search(rf'<img src="/bestanden/{carrier.id}/{photo}\?exp=', body)


def test_without_answers_the_page_says_so(app, client, carrier, planner, driver):
    task = create_task(app, carrier, driver)
    login(client, planner)
    assert "Antwoorden Nog geen antwoorden" in text_of(client.get(f"/taken/{task.id}"))


def test_task_of_other_carrier_is_404(app, client, carrier, planner):
    other = create_carrier(app, "Ander")
    foreign = create_task(app, other, create_driver(app, other), naam="Geheime rit")
    login(client, planner)

    assert client.get(f"/taken/{foreign.id}").status_code == 404
    assert client.get(f"/taken/{uuid.uuid4()}").status_code == 404


def test_the_page_is_for_planners(app, client, carrier, driver):
    task = create_task(app, carrier, driver)
    assert client.get(f"/taken/{task.id}").status_code == 302  # to sign-in
    login(client, create_user(app, carrier, "author"))
    assert client.get(f"/taken/{task.id}").status_code == 403


def test_an_htmx_request_gets_the_page_body_only(app, client, carrier, planner, driver):
    task = create_task(app, carrier, driver)
    login(client, planner)
    response = client.get(f"/taken/{task.id}", headers={"HX-Request": "true"})
    assert response.get_data(as_text=True).lstrip().startswith(f'<div id="task-detail-{task.id}"')
    assert "HX-Request" in response.headers["Vary"]


def test_the_page_runs_a_fixed_number_of_queries(
    app, client, carrier, planner, driver, count_queries
):
    revision = publish_questionnaire(app, carrier)
    task = create_task(app, carrier, driver, vehicle_id=create_vehicle(app, carrier).id)
    attach(app, carrier, task, fotos=[store(app, carrier, "photo")])
    answer(app, carrier, task, revision, driver, {"gewicht": 10})
    login(client, planner)
    with count_queries() as few:
        assert client.get(f"/taken/{task.id}").status_code == 200

    for _ in range(5):
        attach(app, carrier, task, fotos=[store(app, carrier, "photo")])
    attach(app, carrier, task, handtekeningen=[store(app, carrier, "signature")])
    attach(app, carrier, task, scans=[store(app, carrier, "document_scan", PDF, "a.pdf")])
    for n in range(3):
        # One session per task and revision: later revisions give more sessions.
        later = publish_questionnaire(app, carrier)
        answer(app, carrier, task, later, driver, {"gewicht": n, "foto": [
            str(store(app, carrier, "photo"))]})  # fmt: skip
    move(app, carrier, task, "gestart")
    with count_queries() as many:
        assert client.get(f"/taken/{task.id}").status_code == 200

    assert many.count == few.count, many.statements


def test_a_finished_task_heads_its_completion_box_plainly(app, client, carrier, planner, driver):
    done = create_task(app, carrier, driver, status="afgerond", afgerond_op=SUBMITTED)
    open_task = create_task(app, carrier, driver)
    login(client, planner)

    finished = text_of(client.get(f"/taken/{done.id}"))
    running = text_of(client.get(f"/taken/{open_task.id}"))

    assert "Afronding Afgerond op" in finished and "Wat houdt afronding tegen" not in finished
    assert "Wat houdt afronding tegen" in running


def test_the_page_shows_the_expected_duration_or_the_activitys_default(
    app, client, carrier, planner, driver
):
    own = create_task(app, carrier, driver, naam="Eigen duur", type="mest_laden", duur_min=45)
    default = create_task(app, carrier, driver, naam="Standaard", type="vee_transport")
    login(client, planner)

    page = text_of(client.get(f"/taken/{own.id}"))
    assert "Verwachte duur 45 min" in page and "standaard voor deze soort" not in page
    page = text_of(client.get(f"/taken/{default.id}"))
    assert "Verwachte duur 180 min (standaard voor deze soort)" in page
