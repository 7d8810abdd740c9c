"""Portal forms of webhooks: an endpoint (address, what it is for, the events it wants) and
the period of failed deliveries to send again."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import Field, SelectChoice, SelectMultipleField, StringField
from wtforms.validators import DataRequired, Length, ValidationError
from wtforms.widgets import URLInput

from portal.events import EVENT_TYPES
from portal.validators import DayField, PortalForm
from portal.webhooks.models import URL_MAX

EVENT_LABELS = {
    "taak.aangemaakt": _l("Taak aangemaakt"),
    "taak.gewijzigd": _l("Taak gewijzigd"),
    "taak.status_gewijzigd": _l("Status van een taak gewijzigd (van en naar)"),
    "taak.afgerond": _l("Taak afgerond (met facturatieregel en link naar het bewijs)"),
    "taak.verwijderd": _l("Taak verwijderd of gearchiveerd"),
    "antwoorden.ingediend": _l("Vragenlijst ingediend"),
    "bericht.gelezen": _l("Bericht gelezen door de chauffeur"),
    "voertuigsessie.actief": _l("Chauffeur rijdt een voertuig (sessie actief)"),
    "werkweek.goedgekeurd": _l("Werkweek goedgekeurd"),
    "webhook.test": _l("Testgebeurtenis"),
}


def event_label(event_type: str) -> str:
    return str(EVENT_LABELS.get(event_type, event_type))


class EndpointForm(PortalForm):
    url = StringField(
        _l("Adres (URL)"),
        validators=[DataRequired(_l("Vul het adres in.")), Length(max=URL_MAX)],
        description=_l(
            "Een https-adres van je eigen systeem, bijvoorbeeld https://tms.example.nl/rijplan."
        ),
        widget=URLInput(),
        render_kw={"autocomplete": "off", "spellcheck": "false", "placeholder": "https://"},
    )
    omschrijving = StringField(
        _l("Omschrijving"),
        validators=[Length(max=200)],
        description=_l("Waarvoor het endpoint is, bijvoorbeeld “TMS” of “Portaal verlader”."),
    )
    gebeurtenissen = SelectMultipleField(
        _l("Gebeurtenissen"),
        choices=[SelectChoice(t, EVENT_LABELS[t]) for t in EVENT_TYPES],
        validators=[DataRequired(_l("Kies minstens één gebeurtenis."))],
    )


class ResendForm(PortalForm):
    """Failed deliveries of a period (both days included) to send again."""

    van = DayField(_l("Van"))
    tot = DayField(_l("Tot en met"))

    def validate_tot(self, field: Field) -> None:
        if self.van.data and field.data and field.data < self.van.data:
            raise ValidationError(_("De einddatum ligt voor de begindatum."))
