"""Sign-in, sign-out and the language switch."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_user, logout_user

from portal.accounts import service
from portal.accounts.forms import LanguageForm, LoginForm, LogoutForm
from portal.errors import DomainError
from portal.extensions import db

bp = Blueprint("accounts", __name__)


def _safe_next(target: str | None) -> str:
    """Only a local path: an open redirect would help phishing."""
    if target and target.startswith("/") and not target.startswith("//"):
        parts = urlsplit(target)
        if not parts.scheme and not parts.netloc:
            return target
    return url_for("tasks.index")


@bp.route("/login", methods=["GET", "POST"])
def login():
    if current_user.is_authenticated:
        return redirect(url_for("tasks.index"))
    form = LoginForm(next=request.args.get("next", ""))
    status = 200
    if form.validate_on_submit():
        try:
            user = service.authenticate_user(
                email=form.email.data, password=form.password.data, ip=request.remote_addr
            )
        except service.TooManyAttempts as error:
            db.session.commit()
            form.password.errors = [
                _(
                    "Te veel mislukte pogingen. Probeer het over %(minutes)s minuten opnieuw.",
                    minutes=error.extra.get("retry_after_minutes", 15),
                )
            ]
            status = 429
        except service.InvalidCredentials:
            db.session.commit()  # the failed attempt counts
            form.password.errors = [_("E-mailadres of wachtwoord klopt niet.")]
            status = 401
        else:
            db.session.commit()
            session.clear()  # no fixation: a fresh session for the signed-in user
            if user.taal:
                session["taal"] = user.taal
            login_user(user)
            return redirect(_safe_next(form.next.data), code=303)
    elif request.method == "POST":
        status = 422
    return render_template("accounts/login.html", form=form), status


@bp.route("/logout", methods=["POST"])
def logout():
    form = LogoutForm()
    if form.validate_on_submit() and current_user.is_authenticated:
        service.end_sessions(carrier_id=current_user.transporteur_id, user_id=current_user.id)
        db.session.commit()
        logout_user()
    session.clear()
    flash(_("Je bent afgemeld."), "info")
    return redirect(url_for("accounts.login"), code=303)


@bp.route("/taal", methods=["POST"])
def language():
    form = LanguageForm()
    if form.validate_on_submit():
        session["taal"] = form.taal.data
        if current_user.is_authenticated:
            try:
                service.set_language(
                    carrier_id=current_user.transporteur_id,
                    user_id=current_user.id,
                    taal=form.taal.data,
                )
                db.session.commit()
            except DomainError:
                db.session.rollback()
    return redirect(_safe_next(form.next.data), code=303)
