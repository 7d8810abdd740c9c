"""What proof's pages share: the blueprint `proof`, the answer headers of the public pages,
and a bundle as a printable page, a PDF or one part.

Public routes (`/bewijs/<token>…`) find the link through the owner's look-up and act in its
carrier's scope from then on (service.open_link). An unknown token is 404; an expired or
revoked one 410 with the portal's error page, which says nothing more. Their answers are
never cached, never indexed and send no referrer.
"""

from __future__ import annotations

import base64
from zoneinfo import ZoneInfo

from flask import Blueprint, Response, render_template, request
from flask_babel import get_locale

from portal.errors import NotFound
from portal.proof import wording
from portal.proof.bundle import Bundle

bp = Blueprint("proof", __name__)

TOKEN = "<string(length=43):token>"
PUBLIC = {"proof.shared", "proof.shared_pdf", "proof.shared_part", "proof.shared_manifest"}
PART_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-.")


@bp.after_request
def _public_headers(response: Response) -> Response:
    if request.endpoint in PUBLIC:
        response.headers["Cache-Control"] = "private, no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Robots-Tag"] = "noindex, nofollow"
    return response


# --- shared by both kinds of page --------------------------------------------------------


def document(built: Bundle, *, part_url, pdf_url: str, planner_task_id=None):
    """The printable page of a bundle: the same rows the PDF shows."""
    zone = ZoneInfo(built.facts.get("tijdzone") or "Europe/Amsterdam")
    locale = str(get_locale() or "nl")

    def moment(iso):
        return wording.when(iso, zone, locale)

    def shown(part):
        encoded = base64.b64encode(part.data).decode()
        return f"data:{part.content_type};base64,{encoded}"

    return render_template(
        "proof/document.html",
        bundle=built,
        facts=built.facts,
        completed=moment(built.facts["taak"]["afgerond_op"]),
        task_rows=wording.task_rows(built.facts, moment),
        status_rows=wording.status_rows(built.facts, moment),
        completion_rows=wording.completion_rows(built.facts),
        sessions=[
            (wording.session_title(s, moment), wording.answer_rows(s))
            for s in built.facts["vragenlijsten"]
        ],
        signer_caption=wording.signer_caption,
        scan_label=lambda name, n: wording.scan_caption(name, n, built.facts),
        shown=shown,
        part_url=part_url,
        pdf_url=pdf_url,
        planner_task_id=planner_task_id,
    )


def pdf_response(built: Bundle, data: bytes, *, inline: bool = False) -> Response:
    response = Response(data, mimetype="application/pdf")
    name = f"bewijs-{built.facts['taak']['id'][:8]}.pdf"
    disposition = "inline" if inline else "attachment"
    response.headers["Content-Disposition"] = f'{disposition}; filename="{name}"'
    response.headers["X-Bundle-SHA256"] = built.sha256
    response.headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return response


def part_response(built: Bundle, name: str) -> Response:
    part = built.part(name) if set(name) <= PART_CHARS else None
    if part is None:
        raise NotFound("part not found")
    response = Response(part.data, mimetype=part.content_type)
    image = part.content_type in ("image/jpeg", "image/png")
    disposition = "inline" if image else "attachment"
    response.headers["Content-Disposition"] = f'{disposition}; filename="{part.name}"'
    response.headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
