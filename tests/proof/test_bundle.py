"""The proof-of-delivery bundle: what it holds, that it is the same bytes when built again,
and that its manifest shows a later change."""

from __future__ import annotations

import io

import pytest
from factories import create_task, in_carrier

from portal.extensions import db
from portal.proof import service
from portal.proof.bundle import MAX_SIDE, TaskNotCompleted, distance_m, verify

from .helpers import COMPLETED_AT, PDF_SCAN, completed_task


def build(app, carrier, task):
    return in_carrier(
        app, carrier.id, lambda: service.build_bundle(carrier_id=carrier.id, task_id=task.id)
    )


def build_pdf(app, carrier, task, locale="nl"):
    from flask_babel import force_locale

    def run():
        with force_locale(locale):
            return service.build_pdf(carrier_id=carrier.id, task_id=task.id)

    return in_carrier(app, carrier.id, run)


def test_bundle_of_a_completed_task_holds_every_kind_of_evidence(app, carrier, driver):
    from PIL import Image

    task = completed_task(app, carrier, driver)
    bundle = build(app, carrier, task)

    names = [p.name for p in bundle.parts]
    assert names == sorted(names)
    assert names == ["bewijs.json", "foto-01.jpg", "handtekening-01.png", "scan-01.pdf"]
    photo = bundle.part("foto-01.jpg")
    with Image.open(io.BytesIO(photo.data)) as image:
        assert max(image.size) == MAX_SIDE and image.format == "JPEG"
    assert bundle.part("scan-01.pdf").data == PDF_SCAN and not bundle.part("scan-01.pdf").shown
    assert bundle.part("handtekening-01.png").signer == "Henk de Vries"

    facts = bundle.facts
    assert facts["taak"]["afgerond_op"] == COMPLETED_AT.isoformat()
    assert facts["taak"]["kenteken"] == "BX-12-KL"
    assert facts["taak"]["chauffeur"]
    assert [s["status"] for s in facts["statussen"]] == ["gepland", "gestart", "afgerond"]
    assert facts["statussen"][-1]["op"] == COMPLETED_AT.isoformat()
    done = facts["afronding"]
    assert done["locatie"] == [52.2660, 6.7940]
    assert done["afstand_m"] == distance_m(52.2660, 6.7940, 52.2650, 6.7930)
    assert 120 < done["afstand_m"] < 140
    assert done["temperatuur_gemeten"] == 5.5 and done["desinfectie_bevestigd"] is True
    assert done["ondertekenaar"] == "Henk de Vries"
    [session] = facts["vragenlijsten"]
    assert session["titel"] == "Voer leveren" and session["revisie"] == 1
    answers = {a["vraag"]: a for a in session["antwoorden"]}
    assert answers["Geleverd"]["tekst"] == "12,5" and answers["Geleverd"]["eenheid"] == "ton"
    assert answers["Handtekening ontvanger"]["delen"] == ["handtekening-01.png"]

    manifest = bundle.manifest()
    assert [e["naam"] for e in manifest["delen"]] == names
    assert manifest["bundel_sha256"] == bundle.sha256


def test_built_twice_the_bundle_and_pdf_are_the_same_bytes(app, carrier, driver):
    task = completed_task(app, carrier, driver)
    first, first_pdf = build_pdf(app, carrier, task)
    second, second_pdf = build_pdf(app, carrier, task)

    assert first.sha256 == second.sha256
    assert [p.data for p in first.parts] == [p.data for p in second.parts]
    assert first_pdf == second_pdf
    assert first_pdf.startswith(b"%PDF-")
    assert b"/CreationDate (D:20261120143000Z" in first_pdf
    # Another language is another document, the same one each time.
    english = build_pdf(app, carrier, task, "en")[1]
    assert english != first_pdf and english == build_pdf(app, carrier, task, "en")[1]


def test_the_manifest_shows_a_later_change(app, carrier, driver):
    from portal.tasks import service as tasks

    task = completed_task(app, carrier, driver)
    before = build(app, carrier, task)
    parts = {p.name: p.data for p in before.parts}
    assert verify(before.manifest(), parts) == []

    # A part changed after the fact, or the manifest's own hash edited, is found.
    tampered = {**parts, "foto-01.jpg": parts["foto-01.jpg"] + b"\0"}
    assert verify(before.manifest(), tampered) == ["foto-01.jpg"]
    edited = {**before.manifest(), "bundel_sha256": "0" * 64}
    assert verify(edited, parts) == ["bundel_sha256"]

    # A change to the stored task gives another facts part, and another bundle hash.
    def change():
        row = tasks.get_task(carrier_id=carrier.id, task_id=task.id)
        row.gemeten_temperatuur = 9.0
        db.session.flush()

    in_carrier(app, carrier.id, change)
    after = build(app, carrier, task)
    assert after.sha256 != before.sha256
    assert verify(before.manifest(), {p.name: p.data for p in after.parts}) == ["bewijs.json"]


def test_a_task_without_evidence_says_what_is_absent(app, carrier, driver):
    task = completed_task(app, carrier, driver, evidence=False)
    bundle, pdf = build_pdf(app, carrier, task)

    assert [p.name for p in bundle.parts] == ["bewijs.json"]
    assert bundle.facts["vragenlijsten"] == []
    assert bundle.facts["afronding"]["locatie"] is None
    text = pdf_text(pdf)
    for absent in ("Geen foto's.", "Geen handtekening.", "Geen scans.", "Geen antwoorden."):
        assert absent in text
    assert "Geen locatie vastgelegd" in text


def test_a_task_that_is_not_completed_has_no_bundle(app, carrier, driver):
    task = create_task(app, carrier, driver, status="gestart")
    with pytest.raises(TaskNotCompleted) as refused:
        build(app, carrier, task)
    assert refused.value.status == 409 and refused.value.extra["code"] == "task_not_completed"


def test_the_pdf_shows_the_signer_and_the_distance(app, carrier, driver):
    task = completed_task(app, carrier, driver)
    text = pdf_text(build_pdf(app, carrier, task)[1])
    assert "Bewijs van aflevering" in text
    assert "Getekend door Henk de Vries" in text
    assert "m van het adres van de taak" in text
    assert "Voer leveren, revisie 1" in text
    assert "BX-12-KL" in text


def pdf_text(data: bytes) -> str:
    """The text a PDF of fpdf2's draws (its content streams, inflated)."""
    import re
    import zlib

    out = []
    # Each stream inflated from where it starts up to the end of its zlib data, so a
    # compressed stream that happens to end in a CR or LF byte is read whole.
    for start in re.finditer(rb"(?<!end)stream\r?\n", data):
        try:
            body = zlib.decompressobj().decompress(data[start.end() :])
        except zlib.error:
            continue
        out += [m.decode("latin-1") for m in re.findall(rb"\(((?:\\.|[^\\)])*)\) ?Tj", body)]
    return " ".join(s.replace("\\(", "(").replace("\\)", ")").replace("\\\\", "\\") for s in out)
