"""The shipper's proof pages behind a share link (no account: the link is the permission):
the bundle as a page, its PDF, a part and the manifest."""

from __future__ import annotations

import orjson
from flask import Response, url_for

from portal.proof import service
from portal.proof.pages.kit import TOKEN, bp, document, part_response, pdf_response


@bp.get(f"/bewijs/{TOKEN}")
def shared(token: str):
    """The bundle behind a share link, as a printable page."""
    found = service.open_link(token)
    built = service.build_bundle(carrier_id=found.carrier_id, task_id=found.task_id)
    return document(
        built,
        part_url=lambda name: url_for("proof.shared_part", token=token, name=name),
        pdf_url=url_for("proof.shared_pdf", token=token),
    )


@bp.get(f"/bewijs/{TOKEN}.pdf")
def shared_pdf(token: str):
    found = service.open_link(token)
    built, data = service.build_pdf(carrier_id=found.carrier_id, task_id=found.task_id)
    return pdf_response(built, data)


@bp.get(f"/bewijs/{TOKEN}/bestand/<name>")
def shared_part(token: str, name: str):
    found = service.open_link(token)
    built = service.build_bundle(carrier_id=found.carrier_id, task_id=found.task_id)
    return part_response(built, name)


@bp.get(f"/bewijs/{TOKEN}/manifest.json")
def shared_manifest(token: str):
    found = service.open_link(token)
    built = service.build_bundle(carrier_id=found.carrier_id, task_id=found.task_id)
    return Response(
        orjson.dumps(built.manifest(), option=orjson.OPT_INDENT_2), mimetype="application/json"
    )
