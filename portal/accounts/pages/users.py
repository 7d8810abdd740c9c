"""The admin pages of users: the list, inviting one, a user's page (name, role, history) and
their access: a new password link, signing out everywhere, deactivating and reactivating.
Secrets (a password link) are shown once, in the response to the POST that made them.
"""

from __future__ import annotations

import uuid

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, logout_user

from portal.accounts import management
from portal.accounts.models import User
from portal.accounts.pages.forms import InviteForm, UserForm
from portal.accounts.pages.kit import ROLES, admin_bp, apply_errors, history_of, page_context
from portal.accounts.permissions import landing_url, object_route, role_required
from portal.errors import ValidationFailed
from portal.unit_of_work import portal_write
from portal.web.kit import current_actor, current_carrier_id


@admin_bp.get("")
@role_required(*ROLES)
def users():
    """The carrier's users, their role and state; invite a new one."""
    people = management.list_users(carrier_id=current_carrier_id())
    admins = sum(1 for u in people if u.rol == "admin" and u.actief)
    return render_template("admin/users.html", **page_context(users=people, active_admins=admins))


def _render_invite(form: InviteForm, status: int = 200, general=()):
    html = render_template("admin/invite.html", **page_context(form=form, general=list(general)))
    return make_response(html, status)


@admin_bp.route("/gebruikers/nieuw", methods=["GET", "POST"])
@role_required(*ROLES)
@portal_write
def invite():
    """Invite a user: they get a one-time link (shown here once) to choose a password."""
    form = InviteForm()
    if request.method == "GET":
        return _render_invite(form)
    if not form.validate():
        return _render_invite(form, 422)
    try:
        user, token = management.invite_user(
            carrier_id=current_carrier_id(),
            email=form.email.data,
            naam=form.naam.data,
            rol=form.rol.data,
            actor=current_actor(),
        )
    except ValidationFailed as error:
        return _render_invite(form, 422, apply_errors(form, error))
    return _show_link(user, token, invitation=True)


def _show_link(user: User, token: str, *, invitation: bool):
    """The page that shows a password link once; never cached, never shown again."""
    link = url_for("accounts.password_link", token=token, _external=True)
    html = render_template(
        "admin/link.html",
        **page_context(user=user, link=link, invitation=invitation, expires=user.link_verloopt_op),
    )
    response = make_response(html, 201 if invitation else 200)
    response.headers["Cache-Control"] = "no-store"
    return response


def user_route(rule: str, methods: tuple[str, ...] = ("GET",)):
    """An admin's route of one user (another carrier's id: 404 whatever the method)."""

    def load(user_id: uuid.UUID):
        return management.get_user(carrier_id=current_carrier_id(), user_id=user_id)

    return object_route(admin_bp, rule, load, methods=methods, roles=ROLES)


def _render_user(user: User, form: UserForm, status: int = 200, problem: str | None = None):
    html = render_template(
        "admin/user.html",
        **page_context(
            user=user,
            form=form,
            problem=problem,
            history=history_of("user", user.id),
            is_self=user.id == current_user.id,
        ),
    )
    return make_response(html, status)


LAST_ADMIN = _l(
    "Dit is de laatste actieve beheerder van de transporteur. Maak eerst iemand anders "
    "beheerder; anders kan niemand meer gebruikers, API-sleutels en instellingen beheren."
)


@user_route("/gebruikers/<uuid:user_id>", methods=("GET", "POST"))
def user(user: User):
    """A user's page: name and role, access (link, sign out, deactivate) and history."""
    if request.method == "GET":
        return _render_user(user, UserForm(obj=user))
    form = UserForm()
    if not form.validate():
        return _render_user(user, form, 422)
    user_id, was_self = user.id, user.id == current_user.id
    try:
        management.update_user(
            carrier_id=current_carrier_id(),
            user_id=user_id,
            naam=form.naam.data,
            rol=form.rol.data,
            actor=current_actor(),
        )
    except management.LastAdmin:
        user = management.get_user(carrier_id=current_carrier_id(), user_id=user_id)
        form.rol.errors = [str(LAST_ADMIN)]
        return _render_user(user, form, 409)
    except ValidationFailed as error:
        user = management.get_user(carrier_id=current_carrier_id(), user_id=user_id)
        apply_errors(form, error)
        return _render_user(user, form, 422)
    flash(_("De gegevens zijn opgeslagen."))
    if was_self and not current_user.has_role("admin"):
        # An admin who gave up the role can no longer open /beheer.
        return redirect(landing_url(current_user), code=303)
    return redirect(url_for("admin.user", user_id=user_id), code=303)


CONFIRMATIONS = {
    "deactivate": {
        "title": _l("“%(naam)s” deactiveren?"),
        "text": _l(
            "Deze gebruiker wordt overal afgemeld en kan niet meer inloggen. Wat de gebruiker "
            "deed blijft bewaard. Je kunt de gebruiker later weer actief maken."
        ),
        "button": _l("Ja, deactiveren"),
        "danger": True,
    },
    "password": {
        "title": _l("Link voor een nieuw wachtwoord maken voor “%(naam)s”?"),
        "text": _l(
            "Je krijgt een eenmalige link om aan de gebruiker te geven. Een eerdere link "
            "werkt dan niet meer. Het huidige wachtwoord blijft werken tot er een nieuw is "
            "gekozen."
        ),
        "button": _l("Link maken"),
        "danger": False,
    },
    "invite_again": {
        "title": _l("Nieuwe uitnodigingslink maken voor “%(naam)s”?"),
        "text": _l("De vorige uitnodigingslink werkt dan niet meer."),
        "button": _l("Nieuwe link maken"),
        "danger": False,
    },
    "sign_out": {
        "title": _l("“%(naam)s” overal afmelden?"),
        "text": _l(
            "Alle sessies van deze gebruiker eindigen, op elke computer en telefoon. "
            "Inloggen met het wachtwoord kan daarna gewoon weer."
        ),
        "button": _l("Ja, overal afmelden"),
        "danger": True,
    },
}


def _confirm(user: User, kind: str, endpoint: str, status: int = 200, problem=None):
    spec = CONFIRMATIONS[kind]
    html = render_template(
        "admin/confirm.html",
        title=str(spec["title"]) % {"naam": user.naam or user.email},
        text=spec["text"],
        button=spec["button"],
        danger=spec["danger"],
        action=url_for(endpoint, user_id=user.id),
        back=url_for("admin.user", user_id=user.id),
        problem=problem,
    )
    return make_response(html, status)


def _deactivation_problem(user: User) -> str | None:
    if user.id == current_user.id:
        return _("Je kunt jezelf niet deactiveren. Een andere beheerder kan dat.")
    if user.rol == "admin" and user.actief:
        people = management.list_users(carrier_id=current_carrier_id())
        if not any(u.rol == "admin" and u.actief and u.id != user.id for u in people):
            return str(LAST_ADMIN)
    return None


@user_route("/gebruikers/<uuid:user_id>/deactiveren", methods=("GET", "POST"))
def deactivate(user: User):
    """Deactivate a user, after confirmation; never yourself, never the last admin."""
    if request.method == "GET":
        return _confirm(user, "deactivate", "admin.deactivate", problem=_deactivation_problem(user))
    user_id, naam = user.id, user.naam
    try:
        management.deactivate_user(
            carrier_id=current_carrier_id(), user_id=user_id, actor=current_actor()
        )
    except (management.LastAdmin, management.SelfChange):
        user = management.get_user(carrier_id=current_carrier_id(), user_id=user_id)
        return _confirm(
            user, "deactivate", "admin.deactivate", 409, problem=_deactivation_problem(user)
        )
    flash(_("“%(naam)s” is gedeactiveerd en overal afgemeld.", naam=naam))
    return redirect(url_for("admin.user", user_id=user_id), code=303)


@user_route("/gebruikers/<uuid:user_id>/activeren", methods=("POST",))
def reactivate(user: User):
    """Make a deactivated user active again."""
    user_id, naam = user.id, user.naam
    management.reactivate_user(
        carrier_id=current_carrier_id(), user_id=user_id, actor=current_actor()
    )
    flash(_("“%(naam)s” is weer actief.", naam=naam))
    return redirect(url_for("admin.user", user_id=user_id), code=303)


@user_route("/gebruikers/<uuid:user_id>/wachtwoordlink", methods=("GET", "POST"))
def password_link(user: User):
    """A new one-time link (an invitation again, or a password reset), shown once."""
    kind = "invite_again" if user.invited else "password"
    if not user.actief:
        problem = _("Deze gebruiker is gedeactiveerd. Maak de gebruiker eerst weer actief.")
        status = 409 if request.method == "POST" else 200
        return _confirm(user, kind, "admin.password_link", status, problem=problem)
    if request.method == "GET":
        return _confirm(user, kind, "admin.password_link")
    invitation = user.invited
    token = management.new_password_link(
        carrier_id=current_carrier_id(), user_id=user.id, actor=current_actor()
    )
    return _show_link(user, token, invitation=invitation)


@user_route("/gebruikers/<uuid:user_id>/afmelden", methods=("GET", "POST"))
def sign_out(user: User):
    """End every session of a user, after confirmation (yourself included)."""
    if request.method == "GET":
        return _confirm(user, "sign_out", "admin.sign_out")
    user_id, naam, is_self = user.id, user.naam, user.id == current_user.id
    management.end_user_sessions(
        carrier_id=current_carrier_id(), user_id=user_id, actor=current_actor()
    )
    if is_self:
        logout_user()
        return redirect(url_for("accounts.login"), code=303)
    flash(_("“%(naam)s” is overal afgemeld.", naam=naam))
    return redirect(url_for("admin.user", user_id=user_id), code=303)
