"""Proof of delivery in the portal: the planner's bundle page, PDF and share links, and the
shipper's pages behind a share link (no account: the link is the permission).

Public routes (`/bewijs/<token>…`) find the link through the owner's look-up and act in its
carrier's scope from then on (service.open_link). An unknown token is 404; an expired or
revoked one 410 with the portal's error page, which says nothing more. Their answers are
never cached, never indexed and send no referrer.
"""

from __future__ import annotations

import base64
import uuid
from urllib.parse import urljoin
from zoneinfo import ZoneInfo

import orjson
from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _

from portal.accounts.permissions import object_route
from portal.errors import NotFound
from portal.proof import service, wording
from portal.proof.bundle import Bundle
from portal.proof.pages.forms import ShareForm
from portal.tasks import service as tasks
from portal.web.kit import current_actor, current_carrier_id

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


def _document(built: Bundle, *, part_url, pdf_url: str, planner_task_id=None):
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


def _pdf_response(built: Bundle, data: bytes, *, inline: bool = False) -> Response:
    response = Response(data, mimetype="application/pdf")
    name = f"bewijs-{built.facts['taak']['id'][:8]}.pdf"
    disposition = "inline" if inline else "attachment"
    response.headers["Content-Disposition"] = f'{disposition}; filename="{name}"'
    response.headers["X-Bundle-SHA256"] = built.sha256
    response.headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return response


def _part_response(built: Bundle, name: str) -> Response:
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


# --- the planner's pages -----------------------------------------------------------------


def _load(task_id: uuid.UUID):
    return tasks.get_task(carrier_id=current_carrier_id(), task_id=task_id, archived=True)


def _task_route(rule: str, methods=("GET",)):
    return object_route(bp, rule, _load, methods=methods, roles=("planner",))


def _load_link(task_id: uuid.UUID, link_id: uuid.UUID):
    task = _load(task_id)
    link = service.get_link(carrier_id=current_carrier_id(), task_id=task.id, link_id=link_id)
    return task, link


@_task_route("/taken/<uuid:task_id>/bewijs")
def bundle_page(task):
    """The bundle as a printable page."""
    built = service.build_bundle(carrier_id=current_carrier_id(), task_id=task.id)
    return _document(
        built,
        part_url=lambda name: url_for("proof.bundle_part", task_id=task.id, name=name),
        pdf_url=url_for("proof.bundle_pdf", task_id=task.id),
        planner_task_id=task.id,
    )


@_task_route("/taken/<uuid:task_id>/bewijs.pdf")
def bundle_pdf(task):
    """The bundle's PDF, to download."""
    built, data = service.build_pdf(carrier_id=current_carrier_id(), task_id=task.id)
    return _pdf_response(built, data)


@object_route(
    bp,
    "/taken/<uuid:task_id>/bewijs/deel/<name>",
    lambda task_id, name: (_load(task_id), name),
    roles=("planner",),
)
def bundle_part(task, name: str):
    """One part of the bundle (a scan, a photo as stored in the bundle, the facts)."""
    built = service.build_bundle(carrier_id=current_carrier_id(), task_id=task.id)
    return _part_response(built, name)


@_task_route("/taken/<uuid:task_id>/bewijs/links", methods=("POST",))
def share(task):
    """Make a share link; its address is shown once, on the answer to this request."""
    form = ShareForm(request.form)
    if not form.validate():
        return render_template("proof/shared.html", task=task, form=form, url=None), 422
    token = service.create_link(
        carrier_id=current_carrier_id(),
        task_id=task.id,
        actor=current_actor(),
        days=form.dagen.data,
    )
    url = urljoin(request.host_url, url_for("proof.shared", token=token))
    links = service.links_for(carrier_id=current_carrier_id(), task_id=task.id)
    return render_template("proof/shared.html", task=task, form=form, url=url, link=links[0])


def _load_link_route(rule: str, methods=("GET",)):
    return object_route(bp, rule, _load_link, methods=methods, roles=("planner",))


@_load_link_route(
    "/taken/<uuid:task_id>/bewijs/links/<uuid:link_id>/intrekken", methods=("GET", "POST")
)
def revoke(task, link):
    """Ask, then revoke a share link: it answers 410 from then on."""
    if request.method == "POST":
        service.revoke_link(
            carrier_id=current_carrier_id(),
            task_id=task.id,
            link_id=link.id,
            actor=current_actor(),
        )
        flash(_("De link is ingetrokken: wie hem opent, krijgt niets meer te zien."))
        return redirect(url_for("task_detail.show", task_id=task.id) + "#bewijs", code=303)
    return render_template("proof/revoke.html", task=task, link=link)


# --- the shipper's pages (a share link, no account) --------------------------------------


@bp.get(f"/bewijs/{TOKEN}")
def shared(token: str):
    """The bundle behind a share link, as a printable page."""
    found = service.open_link(token)
    built = service.build_bundle(carrier_id=found.carrier_id, task_id=found.task_id)
    return _document(
        built,
        part_url=lambda name: url_for("proof.shared_part", token=token, name=name),
        pdf_url=url_for("proof.shared_pdf", token=token),
    )


@bp.get(f"/bewijs/{TOKEN}.pdf")
def shared_pdf(token: str):
    found = service.open_link(token)
    built, data = service.build_pdf(carrier_id=found.carrier_id, task_id=found.task_id)
    return _pdf_response(built, data)


@bp.get(f"/bewijs/{TOKEN}/bestand/<name>")
def shared_part(token: str, name: str):
    found = service.open_link(token)
    built = service.build_bundle(carrier_id=found.carrier_id, task_id=found.task_id)
    return _part_response(built, name)


@bp.get(f"/bewijs/{TOKEN}/manifest.json")
def shared_manifest(token: str):
    found = service.open_link(token)
    built = service.build_bundle(carrier_id=found.carrier_id, task_id=found.task_id)
    return Response(
        orjson.dumps(built.manifest(), option=orjson.OPT_INDENT_2), mimetype="application/json"
    )
