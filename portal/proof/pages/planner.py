"""The planner's proof pages: a completed task's bundle as a page, a PDF and its parts, and
the share links (made, shown once, revoked)."""

from __future__ import annotations

import uuid
from urllib.parse import urljoin

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from portal.accounts.permissions import object_route
from portal.proof import service
from portal.proof.pages.forms import ShareForm
from portal.proof.pages.kit import bp, document, part_response, pdf_response
from portal.tasks import service as tasks
from portal.web.kit import current_actor, current_carrier_id


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
    return document(
        built,
        part_url=lambda name: url_for("proof.bundle_part", task_id=task.id, name=name),
        pdf_url=url_for("proof.bundle_pdf", task_id=task.id),
        planner_task_id=task.id,
    )


@_task_route("/taken/<uuid:task_id>/bewijs.pdf")
def bundle_pdf(task):
    """The bundle's PDF, to download."""
    built, data = service.build_pdf(carrier_id=current_carrier_id(), task_id=task.id)
    return pdf_response(built, data)


@object_route(
    bp,
    "/taken/<uuid:task_id>/bewijs/deel/<name>",
    lambda task_id, name: (_load(task_id), name),
    roles=("planner",),
)
def bundle_part(task, name: str):
    """One part of the bundle (a scan, a photo as stored in the bundle, the facts)."""
    built = service.build_bundle(carrier_id=current_carrier_id(), task_id=task.id)
    return part_response(built, name)


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
