"""The admin pages of API keys: the list, creating one (the key shown once, on the response
to the POST that made it; only its hash is stored) and revoking one.
"""

from __future__ import annotations

import uuid

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from wtforms import SelectChoice

from portal.accounts import management
from portal.accounts.models import ApiKey
from portal.accounts.pages.forms import ApiKeyForm
from portal.accounts.pages.kit import (
    ROLES,
    admin_bp,
    apply_errors,
    page_context,
    scope_groups,
    scope_label,
)
from portal.accounts.permissions import object_route, role_required
from portal.errors import ValidationFailed
from portal.unit_of_work import portal_write
from portal.web.kit import current_actor, current_carrier_id


@admin_bp.get("/api-sleutels")
@role_required(*ROLES)
def api_keys():
    """The carrier's API keys: prefix, scopes, created, last used, revoked."""
    keys = management.list_api_keys(carrier_id=current_carrier_id())
    return render_template("admin/api_keys.html", **page_context(keys=keys))


def _scope_choices() -> list[SelectChoice]:
    return [SelectChoice(scope, scope_label(scope)) for scope in management.known_scopes()]


@admin_bp.route("/api-sleutels/nieuw", methods=["GET", "POST"])
@role_required(*ROLES)
@portal_write
def new_api_key():
    """Create a key with the scopes chosen; the key is shown once, on the response."""
    form = ApiKeyForm()
    form.scopes.choices = _scope_choices()
    status = 200
    general: list[str] = []
    if request.method == "POST":
        if form.validate():
            try:
                key, plain = management.issue_api_key(
                    carrier_id=current_carrier_id(),
                    naam=form.naam.data,
                    scopes=form.scopes.data,
                    actor=current_actor(),
                )
            except ValidationFailed as error:
                general = apply_errors(form, error)
                status = 422
            else:
                html = render_template(
                    "admin/api_key_created.html", **page_context(key=key, plain=plain)
                )
                response = make_response(html, 201)
                response.headers["Cache-Control"] = "no-store"
                return response
        else:
            status = 422
    html = render_template(
        "admin/api_key_form.html",
        **page_context(form=form, groups=scope_groups(), general=general),
    )
    return make_response(html, status)


def key_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    def load(key_id: uuid.UUID):
        return management.get_api_key(carrier_id=current_carrier_id(), key_id=key_id)

    return object_route(admin_bp, rule, load, methods=methods, roles=ROLES)


@key_route("/api-sleutels/<uuid:key_id>/intrekken", methods=("GET", "POST"))
def revoke_api_key(key: ApiKey):
    """Revoke a key, after confirmation: integrations using it stop working at once."""
    if request.method == "GET":
        html = render_template(
            "admin/confirm.html",
            title=_("API-sleutel “%(naam)s” intrekken?", naam=key.naam),
            text=_(
                "Koppelingen die deze sleutel (%(prefix)s…) gebruiken, krijgen meteen geen "
                "toegang meer. Dit kan niet ongedaan worden gemaakt; je kunt wel een nieuwe "
                "sleutel maken.",
                prefix=key.prefix,
            ),
            button=_("Ja, intrekken"),
            danger=True,
            action=url_for("admin.revoke_api_key", key_id=key.id),
            back=url_for("admin.api_keys"),
            problem=None,
        )
        return html
    naam = key.naam
    management.revoke_api_key(carrier_id=current_carrier_id(), key_id=key.id, actor=current_actor())
    flash(_("API-sleutel “%(naam)s” is ingetrokken.", naam=naam))
    return redirect(url_for("admin.api_keys"), code=303)
