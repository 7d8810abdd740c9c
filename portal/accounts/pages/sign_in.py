"""Sign-in, sign-out, the language switch and one-time password links."""

from __future__ import annotations

from contextlib import suppress

from flask import (
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user, login_user, logout_user

from portal.accounts import credentials, management, service
from portal.accounts.pages.forms import LanguageForm, LoginForm, LogoutForm, SetPasswordForm
from portal.accounts.pages.kit import bp
from portal.accounts.permissions import landing_url
from portal.errors import DomainError, ValidationFailed
from portal.extensions import csrf
from portal.unit_of_work import kept, portal_write
from portal.web.kit import current_carrier_id, safe_back


def _safe_next(target: str | None, user=None) -> str:
    """Only a local path (safe_back: no "//host", no backslash a browser reads as "/", no
    tab or newline it drops): an open redirect would help phishing. Without one: the user's
    landing section (the first one their role may open)."""
    if user is not None and getattr(user, "is_authenticated", False):
        fallback = landing_url(user)
    else:
        fallback = url_for("accounts.login")
    if target and target.startswith("//"):  # "///host" too: a browser reads it as a host
        return fallback
    return safe_back(target, within="/", fallback=fallback)


KNOWN_DEVICE_COOKIE = "rijplan_apparaat"
KNOWN_DEVICE_AGE = 365 * 24 * 3600


@bp.route("/login", methods=["GET", "POST"])
@portal_write
def login():
    if current_user.is_authenticated:
        return redirect(landing_url(current_user))
    form = LoginForm(next=request.args.get("next", ""), email=request.args.get("email", ""))
    status = 200
    if form.validate_on_submit():
        device = credentials.known_device(request.cookies.get(KNOWN_DEVICE_COOKIE), form.email.data)
        try:
            user = service.authenticate_user(
                email=form.email.data,
                password=form.password.data,
                ip=request.remote_addr,
                device=device,
            )
        except credentials.TooManyAttempts as error:
            form.password.errors = [
                _(
                    "Te veel mislukte pogingen. Probeer het over %(minutes)s minuten opnieuw.",
                    minutes=error.extra.get("retry_after_minutes", 15),
                )
            ]
            status = 429
        except service.InvalidCredentials:
            form.password.errors = [_("E-mailadres of wachtwoord klopt niet.")]
            status = 401
        else:
            chosen = session.get("taal")  # picked on this page before signing in
            session.clear()  # no fixation: a fresh session for the signed-in user
            if user.taal or chosen:
                session["taal"] = user.taal or chosen
            login_user(user)
            response = redirect(_safe_next(form.next.data, user), code=303)
            if device is None:
                # This browser is known from now on: failures elsewhere do not hold it.
                response.set_cookie(
                    KNOWN_DEVICE_COOKIE,
                    credentials.known_device_token(user.email),
                    max_age=KNOWN_DEVICE_AGE,
                    secure=current_app.config["SESSION_COOKIE_SECURE"],
                    httponly=True,
                    samesite="Lax",
                )
            return response
    elif request.method == "POST":
        status = 422
    page = make_response(render_template("accounts/login.html", form=form), status)
    # A refused sign-in still counts towards the lock-out: it is kept, not rolled back.
    return kept(page) if status in (401, 429) else page


@bp.route("/logout", methods=["POST"])
@portal_write
def logout():
    form = LogoutForm()
    if form.validate_on_submit() and current_user.is_authenticated:
        service.end_sessions(carrier_id=current_carrier_id(), user_id=current_user.id)
        logout_user()
    session.clear()
    flash(_("Je bent afgemeld."), "info")
    return redirect(url_for("accounts.login"), code=303)


@bp.route("/taal", methods=["POST"])
@portal_write
def language():
    form = LanguageForm()
    if form.validate_on_submit():
        session["taal"] = form.taal.data
        if current_user.is_authenticated:
            with suppress(DomainError):  # the session's choice holds; the profile may follow
                service.set_language(
                    carrier_id=current_carrier_id(),
                    user_id=current_user.id,
                    taal=form.taal.data,
                )
    return redirect(_safe_next(form.next.data, current_user), code=303)


# --- one-time password links (invitation, reset) -----------------------------------------


@bp.route("/wachtwoord/<token>", methods=["GET", "POST"])
@csrf.exempt  # checked below, once the link is known: an unknown link is 404 either way
@portal_write
def password_link(token: str):
    """Choose a password through a one-time link an admin handed out. An unknown or used
    link is 404, an expired one 410, both with a page that says what to do."""
    state = management.find_link(token)
    if state.user is None:
        status = 410 if state.expired else 404
        return render_template("accounts/link_invalid.html", expired=state.expired), status
    if request.method == "POST":
        csrf.protect()
    user = state.user
    form = SetPasswordForm()
    status = 200
    if form.validate_on_submit():
        email = user.email
        try:
            management.use_link(token=token, password=form.password.data)
        except ValidationFailed:
            form.password.errors = [_("Minstens 10 tekens.")]
            status = 422
        else:
            if current_user.is_authenticated:
                logout_user()
            session.clear()
            flash(_("Je wachtwoord is ingesteld. Meld je nu aan."), "info")
            return redirect(url_for("accounts.login", email=email), code=303)
    elif request.method == "POST":
        status = 422
    response = render_template(
        "accounts/set_password.html",
        form=form,
        user=user,
        invitation=user.link_soort == "uitnodiging",
        carrier=service.current_carrier_of(user.transporteur_id),
    )
    return response, status
