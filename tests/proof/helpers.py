"""A completed task with every kind of evidence, made through the services as a driver's
phone would leave it."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from factories import create_task, create_vehicle, in_carrier, publish_questionnaire

from portal.extensions import db

COMPLETED_AT = datetime(2026, 11, 20, 14, 30, tzinfo=UTC)
PDF_SCAN = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def questionnaire(activity_type: str = "voer_leveren") -> dict:
    return {
        "schema_version": 1,
        "questionnaire_id": "voer-leveren",
        "title": "Voer leveren",
        "activity_type": activity_type,
        "questions": [
            {"id": "geleverd", "type": "number", "label": "Geleverd", "unit": "ton"},
            {"id": "silo_schoon", "type": "boolean", "label": "Silo leeg en schoon bevonden"},
            {"id": "naam_ontvanger", "type": "text", "label": "Naam ontvanger"},
            {"id": "handtekening", "type": "signature", "label": "Handtekening ontvanger"},
        ],
    }


def jpeg(width: int, height: int) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    image = Image.new("RGB", (width, height), (40, 120, 60))
    for x in range(0, width, 50):  # some detail, so the JPEG is not trivial
        for y in range(0, height, 50):
            image.putpixel((x, y), (250, 250, 250))
    image.save(out, "JPEG", quality=90)
    return out.getvalue()


def png(width: int = 300, height: int = 120) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (width, height), (255, 255, 255, 0))
    ImageDraw.Draw(image).line([(10, 100), (80, 20), (150, 90), (290, 15)], fill="black", width=4)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def completed_task(app, carrier, driver, *, evidence: bool = True, **fields):
    """A task of `driver`, completed at COMPLETED_AT; with evidence, a photo of 2400x1800,
    a scan (PDF), a signature in the answers with the signer's name, a location 120 m or
    so from the task's address, a temperature and a confirmed disinfection."""
    from portal.audit.service import Actor
    from portal.files import service as files
    from portal.questionnaires import answering
    from portal.tasks import lifecycle
    from portal.tasks import service as tasks
    from portal.types import replay

    revision = publish_questionnaire(app, carrier, questionnaire()) if evidence else None
    vehicle = create_vehicle(app, carrier, "BX-12-KL")
    with replay(datetime(2026, 11, 19, 9, 0, tzinfo=UTC)):
        task = _create(app, carrier, driver, vehicle, {**fields, "_evidence": evidence})
    actor = Actor("driver", driver.id, "Jan Jansen")

    def run():
        with replay(datetime(2026, 11, 20, 13, 0, tzinfo=UTC)):
            lifecycle.move_task(
                carrier_id=carrier.id, task_id=task.id, to="gestart", actor=actor, office=False
            )
            db.session.flush()  # column defaults (the audit's moment) are taken at flush
        kept = lifecycle.Evidence()
        if evidence:
            with replay(datetime(2026, 11, 20, 14, 0, tzinfo=UTC)):
                photo = files.store_file(
                    carrier_id=carrier.id,
                    stream=io.BytesIO(jpeg(2400, 1800)),
                    filename="lading.jpg",
                    soort="photo",
                    actor=actor,
                )
                scan = files.store_file(
                    carrier_id=carrier.id,
                    stream=io.BytesIO(PDF_SCAN),
                    filename="cmr.pdf",
                    soort="document_scan",
                    actor=actor,
                )
                signature = files.store_file(
                    carrier_id=carrier.id,
                    stream=io.BytesIO(png()),
                    filename="handtekening.png",
                    soort="signature",
                    actor=actor,
                )
                current = tasks.get_task(carrier_id=carrier.id, task_id=task.id)
                answering.save(
                    carrier_id=carrier.id,
                    driver_id=driver.id,
                    revision_id=revision.id,
                    answers={
                        "geleverd": 12.5,
                        "silo_schoon": True,
                        "naam_ontvanger": "Henk de Vries",
                        "handtekening": [str(signature.id)],
                    },
                    submit=True,
                    task=answering.TaskRef(current.id, current.activity_questionnaire_id),
                    actor=actor,
                )
                db.session.flush()
            kept = lifecycle.Evidence(
                fotos=[photo.id],
                scans=[scan.id],
                locatie_lat=52.2660,
                locatie_lng=6.7940,
                temperatuur=5.5,
                desinfectie_bevestigd=True,
            )
        with replay(COMPLETED_AT):
            lifecycle.move_task(
                carrier_id=carrier.id,
                task_id=task.id,
                to="afgerond",
                actor=actor,
                office=False,
                evidence=kept,
            )
            db.session.flush()

    in_carrier(app, carrier.id, run)
    return task


def _create(app, carrier, driver, vehicle, fields):
    evidence = fields.pop("_evidence")
    return create_task(
        app,
        carrier,
        driver,
        type="voer_leveren",
        naam="Voer leveren Hengelo",
        adres="Boerderijweg 4",
        postcode="7550 AA",
        stad="Hengelo",
        locatie_lat=52.2650,
        locatie_lng=6.7930,
        required_temperatuur=7.0 if evidence else None,
        required_desinfectie=evidence,
        vehicle_id=vehicle.id,
        gepland_op=datetime(2026, 11, 20, 8, 0, tzinfo=UTC),
        **fields,
    )
