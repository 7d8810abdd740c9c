"""The week's cards as HTML: each drawn by the template's `week_card` macro once, then kept
per process (cards.KEPT_CARDS, beside the day board's) by everything it shows, so a week that
is loaded again (the poll, another planner) renders only the cards that changed."""

from __future__ import annotations

from types import SimpleNamespace

from flask_babel import get_locale, get_timezone, ngettext
from flask_babel import gettext as _
from markupsafe import Markup

from portal.tasks.pages.cards import KEPT_CARDS
from portal.tasks.pages.kit import CLOSED
from portal.tasks.pages.week_layout import Placed


class WeekCards:
    """week_cards(placed, macro): the card's HTML, kept or rendered by macro(placed)."""

    def __init__(self, card: SimpleNamespace, names: dict, plates: dict) -> None:
        self.card = card
        self.names = names
        self.plates = plates
        self.language = (str(get_locale()), str(get_timezone()))

    def __call__(self, placed: Placed, macro) -> Markup:
        task = placed.task
        key = (
            "week",
            task.id,
            task.versie,
            task.updated_at,
            *self.language,
            self.card.back,
            placed.place,
            placed.clock,
            placed.day,
            placed.estimated,
            placed.before,
            placed.after,
            placed.proposed,
            placed.copy,
            self.plates.get(task.vehicle_id),
            self._warned(task),
        )
        try:
            kept = KEPT_CARDS.get(key)
        except TypeError:  # a warning's parameter that cannot be a key
            kept = key = None
        if kept is not None:
            return Markup(kept.decode())  # noqa: S704 (rendered by Jinja, escaped there)
        html = str(macro(placed))
        if key is not None:
            KEPT_CARDS.put(key, html.encode())
        return Markup(html)  # noqa: S704

    def _warned(self, task) -> tuple:
        """The card's warnings as they are worded: code, parameters, names and plates."""
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


def week_texts() -> SimpleNamespace:
    """The texts every lane and card of the week repeats, looked up once per request."""
    return SimpleNamespace(
        estimated=_("geschatte duur"),
        inactive=_("niet actief"),
        no_tasks=_("Geen taken"),
        no_data=_("Nog geen rijtijdgegevens"),
        budget_label=_("Rijtijd over (EU 561/2006)"),
        budget_now=_("Rijtijd over (nu)"),
        pause=_("Tot pauze"),
        today=_("Vandaag"),
        week=_("Week"),
        fortnight=_("2 weken"),
        daily_rest=_("Dagrust uiterlijk"),
        weekly_rest=_("Weekrust uiterlijk"),
        daily_rest_short=_("Dagrust"),
        weekly_rest_short=_("Weekrust"),
        count=lambda n: ngettext("%(num)s taak", "%(num)s taken", n),
    )
