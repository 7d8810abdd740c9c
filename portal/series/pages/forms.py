"""Portal forms of recurring work: a template, a series with its rule, a confirmation."""

from __future__ import annotations

import re
from datetime import time

from flask_babel import lazy_gettext as _l
from wtforms import (
    IntegerField,
    RadioField,
    SelectChoice,
    SelectField,
    SelectMultipleField,
    StringField,
)
from wtforms.validators import DataRequired, Length, NumberRange, Optional, ValidationError
from wtforms.widgets import CheckboxInput, ListWidget

from portal.validators import DayField, PortalForm
from portal.web.kit import parse_uuid

WEEKDAY_LABELS = (
    _l("maandag"), _l("dinsdag"), _l("woensdag"), _l("donderdag"), _l("vrijdag"),
    _l("zaterdag"), _l("zondag"),
)  # fmt: skip
PATTERN_LABELS = {
    "wekelijks": _l("Wekelijks op vaste dagen"),
    "eerste_werkdag": _l("Maandelijks op de eerste werkdag"),
}
HOLIDAY_LABELS = {
    "overslaan": _l("Overslaan: op een feestdag geen taak"),
    "volgende_werkdag": _l("Verschuiven naar de volgende werkdag"),
}
TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


class CheckboxesField(SelectMultipleField):
    """Several choices as checkboxes."""

    widget = ListWidget(prefix_label=False)
    option_widget = CheckboxInput()


class TimeOfDayField(StringField):
    """A time of day as HH:MM (what <input type="time"> sends); data is a time."""

    def process_formdata(self, valuelist):
        if not valuelist:
            return
        raw = (valuelist[0] or "").strip()
        self.raw, self.data = raw, None
        found = TIME.fullmatch(raw)
        if found:
            self.data = time(int(found[1]), int(found[2]))

    def _value(self) -> str:
        if isinstance(self.data, time):
            return self.data.strftime("%H:%M")
        return getattr(self, "raw", "") or ""

    def pre_validate(self, form):
        if getattr(self, "raw", "") and self.data is None:
            raise ValidationError(_l("Vul een tijd in als uu:mm, bijvoorbeeld 07:30."))


class OptionalDayField(DayField):
    """A day that may be left empty (as hours' pages have it)."""

    def pre_validate(self, form):
        if not getattr(self, "raw", None):
            self.data = None
            return
        super().pre_validate(form)


class TemplateForm(PortalForm):
    naam = StringField(
        _l("Naam"),
        validators=[DataRequired(_l("Geef het sjabloon een naam.")), Length(max=200)],
        description=_l("Zoals de planning het kent, bijvoorbeeld “Mest Jansen”."),
    )
    type = StringField(
        _l("Soort werk"),
        validators=[DataRequired(_l("Vul de soort werk in.")), Length(max=64)],
        description=_l("De vragenlijst volgt de soort werk."),
    )
    klant_id = SelectField(_l("Klant"), choices=[], validate_choice=False)
    duur_min = IntegerField(
        _l("Verwachte duur (minuten)"),
        validators=[Optional(), NumberRange(min=1, max=1440, message=_l("1 tot 1440 minuten."))],
    )
    capaciteiten = CheckboxesField(_l("Nodig aan het voertuig"), choices=[], validate_choice=False)

    def set_choices(self, customers: dict, capabilities: dict[str, str]) -> None:
        self.klant_id.choices = [SelectChoice("", _l("Geen klant"))] + [
            SelectChoice(str(i), naam) for i, naam in sorted(customers.items(), key=lambda x: x[1])
        ]
        self.capaciteiten.choices = [SelectChoice(c, n) for c, n in capabilities.items()]

    def template_data(self) -> dict:
        return {
            "naam": (self.naam.data or "").strip(),
            "type": (self.type.data or "").strip(),
            "klant_id": parse_uuid(self.klant_id.data),
            "duur_min": self.duur_min.data,
            "capaciteiten": list(self.capaciteiten.data or []),
        }


class SeriesForm(PortalForm):
    naam = StringField(
        _l("Naam"), validators=[DataRequired(_l("Geef de reeks een naam.")), Length(max=200)]
    )
    sjabloon_id = SelectField(_l("Sjabloon"), choices=[], validate_choice=False)
    patroon = RadioField(
        _l("Herhaling"),
        choices=[SelectChoice(k, v) for k, v in PATTERN_LABELS.items()],
        default="wekelijks",
    )
    weekdagen = CheckboxesField(
        _l("Op"), choices=[SelectChoice(str(i), d) for i, d in enumerate(WEEKDAY_LABELS)]
    )
    om_weken = IntegerField(
        _l("Elke zoveel weken"),
        default=1,
        validators=[Optional(), NumberRange(min=1, max=52, message=_l("1 tot 52 weken."))],
        description=_l("1: elke week, 2: om de week."),
    )
    startdatum = DayField(_l("Vanaf"), validators=[DataRequired(_l("Kies de eerste dag."))])
    einddatum = OptionalDayField(_l("Tot en met"))
    tijd = TimeOfDayField(_l("Tijd"), validators=[DataRequired(_l("Vul de tijd in."))])
    feestdagen = RadioField(
        _l("Op een feestdag"),
        choices=[SelectChoice(k, v) for k, v in HOLIDAY_LABELS.items()],
        default="overslaan",
    )
    chauffeur_id = SelectField(_l("Chauffeur"), choices=[], validate_choice=False)
    vehicle_id = SelectField(_l("Voertuig"), choices=[], validate_choice=False)

    def set_choices(self, templates: list, drivers: list, vehicles: list) -> None:
        self.sjabloon_id.choices = [SelectChoice(str(t.id), t.naam) for t in templates]
        self.chauffeur_id.choices = [SelectChoice("", _l("Nog niet gekozen"))] + [
            SelectChoice(str(d.id), d.naam) for d in drivers
        ]
        self.vehicle_id.choices = [SelectChoice("", _l("Nog niet gekozen"))] + [
            SelectChoice(str(v.id), v.label) for v in vehicles
        ]

    def series_data(self) -> dict:
        return {
            "naam": (self.naam.data or "").strip(),
            "sjabloon_id": parse_uuid(self.sjabloon_id.data),
            "patroon": self.patroon.data,
            "weekdagen": tuple(int(d) for d in self.weekdagen.data or () if d.isdigit()),
            "om_weken": self.om_weken.data or 1,
            "startdatum": self.startdatum.data,
            "einddatum": self.einddatum.data,
            "tijd": self.tijd.data,
            "feestdagen": self.feestdagen.data,
            "chauffeur_id": parse_uuid(self.chauffeur_id.data),
            "vehicle_id": parse_uuid(self.vehicle_id.data),
        }

    def fill(self, series) -> None:
        for name in ("naam", "patroon", "om_weken", "startdatum", "einddatum", "tijd"):
            self[name].data = getattr(series, name)
        self.feestdagen.data = series.feestdagen
        self.sjabloon_id.data = str(series.sjabloon_id)
        self.weekdagen.data = [d for d in series.weekdagen.split(",") if d]
        self.chauffeur_id.data = str(series.chauffeur_id or "")
        self.vehicle_id.data = str(series.vehicle_id or "")


class ConfirmForm(PortalForm):
    """A confirmation: only its CSRF token."""
