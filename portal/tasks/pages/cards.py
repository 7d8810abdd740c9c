"""The board's cards: what every card needs once per request, the per-process cache of
rendered cards, and one card re-rendered after a change (htmx)."""

from __future__ import annotations

import uuid
from datetime import datetime
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

from babel import dates as babel_dates
from flask import current_app, make_response, render_template, url_for
from flask_babel import get_locale, get_timezone
from flask_babel import gettext as _
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

from portal import reads
from portal.customers import service as customers
from portal.drivers import service as drivers_service
from portal.fleet import service as fleet
from portal.tasks import lifecycle, service
from portal.tasks.combinations import plates_of_tasks
from portal.tasks.models import Task
from portal.tasks.pages.forms import MOVE_LABELS, REOPEN_LABEL, STATUS_LABELS
from portal.tasks.pages.kit import CLOSED, _back, task_page_url
from portal.web.kit import current_carrier_id


class _PerRequest(dict):
    """A dict that fills itself: key -> make(key), computed once per request (a board)."""

    def __init__(self, make):
        super().__init__()
        self._make = make

    def __missing__(self, key):
        self[key] = value = self._make(key)
        return value


# The id a card's URLs are built for once per request, then swapped for the task's own id
# (at its first occurrence: in the path, before the query; any id would do).
_PLACEHOLDER_ID = uuid.UUID("00000000-0000-4000-8000-0000000c0de0")


def _card_urls(back: str):
    """A card's URLs by name, for a task id: url_for runs once per endpoint and request (for
    a placeholder id), not once per card. The id sits in the path, before any query (`terug`),
    so the URL is split at the placeholder's first occurrence."""
    placeholder = str(_PLACEHOLDER_ID)
    built: dict[str, tuple[str, str]] = {}

    def split(url: str) -> tuple[str, str]:
        head, found, tail = url.partition(placeholder)
        assert found, url
        return head, tail

    def urls(task_id: uuid.UUID) -> SimpleNamespace:
        if not built:
            terug = {"terug": back}
            for name, endpoint, args in (
                ("move", "tasks.move", {}),
                ("status", "tasks.change_status", {}),
                ("cancel", "tasks.cancel", terug),
                ("reopen", "tasks.reopen", terug),
                ("move_back", "tasks.move", terug),
                ("edit", "tasks.edit", terug),
                ("duplicate", "tasks.duplicate", {}),
                ("delete", "tasks.delete", terug),
            ):
                built[name] = split(url_for(endpoint, task_id=_PLACEHOLDER_ID, **args))
            built["page"] = split(task_page_url(_PLACEHOLDER_ID))
        key = str(task_id)
        return SimpleNamespace(**{name: head + key + tail for name, (head, tail) in built.items()})

    return urls


def _trusted(text) -> Markup:
    """A text of our own catalog, rendered as a template renders `_()` or a lazy label:
    unescaped (jinja2.ext's gettext under autoescape gives Markup, LazyString.__html__ the
    plain text). Never for what a user typed."""
    return Markup(str(text))  # noqa: S704


def _card_texts() -> SimpleNamespace:
    """A card's fixed texts in the user's language. Markup, as `_()` in a template gives it
    (jinja2.ext's gettext under autoescape: Markup(text) % {})."""
    return SimpleNamespace(
        **{
            key: _trusted(text) % {}
            for key, text in (
                ("zonder_datum", _("zonder datum")),
                ("voertuig", _("Voertuig")),
                ("getrokken", _("Aanhanger of oplegger")),
                ("niet_toegewezen", _("Niet toegewezen")),
                ("eisen", _("Eisen")),
                ("vdm", _("VDM-nummer")),
                ("verplaats", _("Verplaats")),
                ("bewerken", _("Bewerken")),
                ("meer", _("Meer")),
                ("details", _("Details en historie")),
                ("dupliceren", _("Dupliceren")),
                ("verwijderen", _("Verwijderen…")),
                ("route", _("Van laadplaats naar losplaats")),
            )
        }
    )


def card_context(
    back: str,
    *,
    show_date: bool,
    warnings: dict | None = None,
    names: dict | None = None,
    plates: dict | None = None,
    customers: dict | None = None,
    combinations: dict | None = None,
) -> SimpleNamespace:
    """What every card on a board needs besides its task; warnings by task id, drivers'
    names and plates by id. Everything that is the same for every card (labels, texts, the
    URLs but for the id) is looked up here once per request, not once per card. A namespace,
    not a dict: `card.back` in a template then finds the attribute at once (Jinja tries an
    attribute before an item). `card.html(task, task_card)` renders a card through the
    per-process cache of cards (KEPT_CARDS)."""
    demand_texts = _demand_texts()
    card = SimpleNamespace(
        back=back,
        show_date=show_date,
        warnings=warnings or {},
        status_labels={key: _trusted(label) for key, label in STATUS_LABELS.items()},
        move_labels={key: _trusted(label) for key, label in MOVE_LABELS.items()},
        reopen_label=_trusted(REOPEN_LABEL),
        activity_labels=_PerRequest(current_app.jinja_env.filters["activity_label"]),
        text=_card_texts(),
        allowed_moves=lambda task: lifecycle.allowed_moves(task, office=True),
        urls=_card_urls(back),
        closed=CLOSED,
        demands=lambda task: card_demands(task, demand_texts),
        time=_time_formatter(),
        # The card's forms carry a mark where the session's CSRF token goes: a kept card is
        # the same for every planner; card.html() puts this request's token in its place.
        csrf_token=lambda: _CSRF_MARK,
        customers=customers or {},
        # Each task's combination (tasks.combinations.plates_of_tasks): the towed vehicle.
        combinations=combinations or {},
    )
    card.html = _KeptCards(card, names or {}, plates or {})
    return card


# A card's HTML follows from its task (id and version: every change raises `versie`), the
# user's language and time zone, the board's view and return URL, the names of its driver
# and vehicle, and its warnings. Cards without warnings (nearly all) are kept per process,
# by all of those, so a board that is loaded again renders only the cards that changed.
KEPT_CARDS = reads.ByteCache(max_bytes=32 * 1024 * 1024)
_CSRF_MARK = "csrf-token-of-this-request"


class _KeptCards:
    """card.html(task, macro, notice=None): the card's HTML, kept or rendered."""

    def __init__(self, card: SimpleNamespace, names: dict, plates: dict) -> None:
        self.card = card
        self.names = names
        self.plates = plates
        self.language = (str(get_locale()), str(get_timezone()))
        self.token = _once(generate_csrf)  # the same all through a request (flask_wtf's g)

    def __call__(self, task: Task, macro, notice: dict | None = None) -> Markup:
        key = None
        if notice is None:
            key = (
                task.id,
                task.versie,
                task.updated_at,
                *self.language,
                self.card.show_date,
                self.card.back,
                self.names.get(task.chauffeur_id),
                self.plates.get(task.vehicle_id),
                self.card.customers.get(task.klant_id),
                self.card.combinations.get(task.id),
                self._warned(task),
            )
            try:
                kept = KEPT_CARDS.get(key)
            except TypeError:  # a warning's parameter that cannot be a key
                kept = key = None
            if kept is not None:
                return self._with_token(kept.decode())
        html = str(macro(task, notice))
        if key is not None:
            KEPT_CARDS.put(key, html.encode())
        return self._with_token(html)

    def _warned(self, task: Task) -> tuple:
        """The card's warnings as they are worded: code, parameters, and the names and
        plates they mention."""
        if task.status in CLOSED:
            return ()
        return tuple(
            (
                w.code,
                tuple(sorted(w.params.items())),
                self.names.get(w.params.get("chauffeur_id")),
                self.plates.get(w.params.get("vehicle_id")),
            )
            for w in self.card.warnings.get(task.id, ())
        )

    def _with_token(self, html: str) -> Markup:
        if _CSRF_MARK not in html:
            return Markup(html)  # noqa: S704 (rendered by Jinja, escaped there)
        return Markup(html.replace(_CSRF_MARK, self.token()))  # noqa: S704


def _once(make):
    """make(), called on first use only: what a request may not need (a card-less board)."""
    made: list = []

    def value():
        if not made:
            made.append(make())
        return made[0]

    return value


def _time_formatter():
    """format_datetime (the `datetimeformat` filter) with the user's locale and time zone
    looked up once per request instead of once per card."""
    locale, zone = get_locale(), get_timezone()

    def time_of(moment: datetime, pattern: str) -> str:
        return babel_dates.format_datetime(moment, pattern, locale=locale, tzinfo=zone)

    return time_of


def _demand_texts() -> dict[str, str]:
    return {
        "fotos": _("Foto's"),
        "fotos_verplicht": _("Foto's verplicht"),
        "handtekening": _("Handtekening"),
        "handtekening_verplicht": _("Handtekening verplicht"),
        "scan": _("Scan"),
        "scan_verplicht": _("Documentscan verplicht"),
        "agr": _("AGR"),
        "agr_verplicht": _("AGR-GPS-registratie verplicht"),
        "locatie": _("Locatie"),
        "locatie_vastleggen": _("Locatie vastleggen"),
        "temperatuur": _("Vereiste temperatuur (°C)"),
        "desinfectie": _("Desinfectie"),
        "desinfectie_bevestigen": _("Desinfectie bevestigen"),
        "kooiaap": _("Kooiaap"),
        "kooiaap_nodig": _("Kooiaap nodig"),
    }


def card_demands(task: Task, texts: dict[str, str] | None = None) -> list[tuple[str, str, str]]:
    """What the driver must deliver, as (kind, short text, explanation) for a card; texts:
    _demand_texts() of this request (looked up here when not given)."""
    t = texts or _demand_texts()
    demands = []
    if task.require_photos:
        low, high = task.min_fotos, task.max_fotos
        count = ""
        if low is not None and high is not None:
            count = f" {low}\u2013{high}"
        elif low is not None:
            count = f" \u2265{low}"
        elif high is not None:
            count = f" \u2264{high}"
        demands.append(("foto", t["fotos"] + count, task.photo_label or t["fotos_verplicht"]))
    if task.require_signature:
        demands.append(("handtekening", t["handtekening"], t["handtekening_verplicht"]))
    if task.require_document_scan:
        demands.append(("scan", t["scan"], t["scan_verplicht"]))
    if task.agr_verplicht:
        demands.append(("locatie", t["agr"], t["agr_verplicht"]))
    elif task.require_location:
        demands.append(("locatie", t["locatie"], t["locatie_vastleggen"]))
    if task.required_temperatuur is not None:
        demands.append(("temperatuur", f"{task.required_temperatuur:g} °C", t["temperatuur"]))
    if task.required_desinfectie:
        demands.append(("desinfectie", t["desinfectie"], t["desinfectie_bevestigen"]))
    if task.kooiaap:
        demands.append(("kooiaap", t["kooiaap"], t["kooiaap_nodig"]))
    return demands


def _card(task: Task, status: int = 200, *, notice: dict | None = None):
    """One card, re-rendered after a status change (htmx)."""
    back = _back()
    show_date = parse_qs(urlsplit(back).query).get("weergave") == ["status"]
    warnings = service.planning_warnings(carrier_id=current_carrier_id(), tasks=[task])
    others = {w.params.get("chauffeur_id") for w in warnings.get(task.id, [])}
    names = drivers_service.names_by_id(
        carrier_id=current_carrier_id(), driver_ids={task.chauffeur_id, *others} - {None}
    )
    plates = fleet.plates_by_id(carrier_id=current_carrier_id(), vehicle_ids={task.vehicle_id})
    clients = customers.names_by_id(carrier_id=current_carrier_id(), customer_ids={task.klant_id})
    html = render_template(
        "tasks/_card_fragment.html",
        task=task,
        names=names,
        plates=plates,
        notice=notice,
        card=card_context(
            back,
            show_date=show_date,
            warnings=warnings,
            names=names,
            plates=plates,
            customers=clients,
            combinations=plates_of_tasks(carrier_id=current_carrier_id(), tasks=[task]),
        ),
    )
    return make_response(html, status)
