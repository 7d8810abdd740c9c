"""Portal forms of vehicles: the vehicle form, the list's filters, the sessions' filters."""

from __future__ import annotations

import math

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from wtforms import (
    BooleanField,
    FloatField,
    HiddenField,
    IntegerField,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import (
    DataRequired,
    Length,
    NumberRange,
    Optional,
    StopValidation,
    ValidationError,
)
from wtforms.widgets import TextInput

from portal.fleet import kenteken as plates
from portal.fleet.capabilities import MAX_NAAM
from portal.fleet.models import EENHEDEN, MAX_SNELHEID, SOORTEN
from portal.fleet.rules import (
    MAX_CAPACITEIT,
    MAX_OMSCHRIJVING,
    MAX_OPMERKINGEN,
    MAX_VLOOTNUMMER,
)
from portal.validators import PortalForm

SOORT_LABELS = {
    "vrachtwagen": _l("Vrachtwagen (bakwagen)"),
    "opleggertrekker": _l("Opleggertrekker"),
    "landbouwtrekker": _l("Landbouwtrekker (T)"),
    "bestelbus": _l("Bestelbus"),
    "aanhangwagen": _l("Aanhangwagen"),
    "oplegger": _l("Oplegger"),
    "landbouwaanhanger": _l("Landbouwaanhanger"),
    "overig": _l("Overig"),
}
EENHEID_LABELS = {
    "ton": _l("ton"),
    "m3": "m³",
    "liter": _l("liter"),
    "pallets": _l("pallets"),
    "stuks": _l("stuks (dieren, balen)"),
}
# How a unit reads after a number ("30 m³").
EENHEID_SHORT = {"ton": _l("ton"), "m3": "m³", "liter": _l("liter"), "pallets": _l("pallets"),
                 "stuks": _l("stuks")}  # fmt: skip
ACTIVE_FILTERS = {
    "actief": _l("Actief"),
    "inactief": _l("Gedeactiveerd"),
    "alle": _l("Alle"),
}
SESSION_STATUS_LABELS = {
    "pending": _l("Wacht op scan"),
    "active": _l("Rijdt"),
    "ended": _l("Beëindigd"),
    "expired": _l("Verlopen"),
}
END_REASONS = {
    "chauffeur": _l("door de chauffeur"),
    "kantoor": _l("door kantoor"),
    "vervangen": _l("vervangen door een nieuwe sessie"),
    "voertuig_gedeactiveerd": _l("voertuig gedeactiveerd"),
    "chauffeur_gedeactiveerd": _l("chauffeur gedeactiveerd"),
}
PLATE_MESSAGES = {
    "empty": _l("Vul het kenteken in."),
    "characters": _l("Een kenteken heeft alleen letters, cijfers en streepjes."),
    "length": _l("Een Nederlands kenteken heeft 6 letters en cijfers, bijvoorbeeld BX-12-LP."),
    "sidecode": _l(
        "Dit is geen Nederlands kenteken: de volgorde van letters en cijfers past bij geen "
        "sidecode (bijvoorbeeld BX-12-LP, 12-BLK-3 of VZH-56-E)."
    ),
}


def _dutch_plate(form, field) -> None:
    try:
        plates.parse(field.data or "")
    except plates.InvalidKenteken as error:
        raise StopValidation(str(PLATE_MESSAGES[error.reason])) from None


class DecimalCommaField(FloatField):
    """A number that may be written the Dutch way, with a decimal comma (a text input: a
    number input refuses the comma in some browsers)."""

    widget = TextInput()

    def process_formdata(self, valuelist):
        if not valuelist or not valuelist[0].strip():
            self.data = None
            return
        try:
            value = float(valuelist[0].strip().replace(",", "."))
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            self.data = None
            raise ValueError(_l("Vul een getal in, bijvoorbeeld 30 of 12,5."))
        self.data = value

    def _value(self) -> str:
        if self.raw_data:
            return self.raw_data[0]
        return f"{self.data:g}".replace(".", ",") if self.data is not None else ""


def _capacity(form, field) -> None:
    if field.data is not None and not 0 < field.data <= MAX_CAPACITEIT:
        raise ValidationError(_l("Vul een getal groter dan 0 in."))


class VehicleForm(PortalForm):
    """A vehicle's fields; its capabilities' fields are added per carrier (vehicle_form)."""

    kenteken = StringField(
        _l("Kenteken"),
        validators=[Optional(), _dutch_plate],
        description=_l(
            "Zoals op de kentekenplaat, met of zonder streepjes: BX-12-LP. Alleen een "
            "landbouwaanhanger op het herhalingskenteken van de trekker blijft leeg."
        ),
        render_kw={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"},
    )
    vlootnummer = StringField(
        _l("Vlootnummer"),
        validators=[Optional(), Length(max=MAX_VLOOTNUMMER)],
        description=_l("Jullie eigen nummer; nodig voor een voertuig zonder kenteken."),
        render_kw={"autocomplete": "off", "spellcheck": "false"},
    )
    soort = SelectField(
        _l("Soort"),
        choices=[SelectChoice(key, label) for key, label in SOORT_LABELS.items()],
        default="vrachtwagen",
    )
    omschrijving = StringField(
        _l("Omschrijving"),
        validators=[Optional(), Length(max=MAX_OMSCHRIJVING)],
        description=_l("Merk, type of opbouw, bijvoorbeeld “DAF XF met mesttank”."),
    )
    capaciteit = DecimalCommaField(
        _l("Capaciteit"), validators=[Optional(), _capacity], render_kw={"inputmode": "decimal"}
    )
    capaciteit_eenheid = SelectField(
        _l("Eenheid"),
        choices=[SelectChoice("", _l("— geen —"))]
        + [SelectChoice(key, label) for key, label in EENHEID_LABELS.items()],
        default="",
    )
    max_snelheid_kmh = IntegerField(
        _l("Maximumsnelheid (km/u)"),
        validators=[Optional(), NumberRange(1, MAX_SNELHEID, _l("Vul 1 tot 200 km/u in."))],
        description=_l(
            "Volgens het kentekenbewijs. Tot en met 40 km/u gelden de rij- en rusttijden "
            "(EU 561/2006) niet."
        ),
        render_kw={"inputmode": "numeric"},
    )
    opmerkingen = TextAreaField(
        _l("Opmerkingen"),
        validators=[Optional(), Length(max=MAX_OPMERKINGEN)],
        description=_l("Voor planners, bijvoorbeeld APK-datum of bijzonderheden."),
    )
    versie = HiddenField()

    def validate_soort(self, field) -> None:
        if field.data not in SOORTEN:
            raise ValidationError(_l("Kies een soort."))

    def validate_capaciteit_eenheid(self, field) -> None:
        if field.data and field.data not in EENHEDEN:
            raise ValidationError(_l("Kies een eenheid."))

    def validate(self, extra_validators=None) -> bool:
        valid = super().validate(extra_validators)
        capaciteit, eenheid = self.capaciteit, self.capaciteit_eenheid
        if capaciteit.data is not None and not capaciteit.errors and not eenheid.data:
            eenheid.errors.append(_l("Kies de eenheid van de capaciteit."))
            valid = False
        if eenheid.data and capaciteit.data is None and not capaciteit.errors:
            capaciteit.errors.append(_l("Vul de capaciteit in, of kies bij eenheid “geen”."))
            valid = False
        return valid

    def vehicle_data(self) -> dict:
        """The form's fields as the service takes them, with the capabilities ticked."""
        return {
            "kenteken": self.kenteken.data or None,
            "vlootnummer": self.vlootnummer.data or None,
            "soort": self.soort.data,
            "omschrijving": self.omschrijving.data,
            "capaciteit": self.capaciteit.data,
            "capaciteit_eenheid": self.capaciteit_eenheid.data or None,
            "max_snelheid_kmh": self.max_snelheid_kmh.data,
            "opmerkingen": self.opmerkingen.data,
            "kenmerken": capability_data(self),
        }


# --- capabilities: a checkbox per capability of the catalogue, with its parameters ---------


def cap_field(code: str, parameter: str | None = None) -> str:
    """The form field of a capability (or of one of its parameters)."""
    return f"kenmerk_{code}" + (f"__{parameter}" if parameter else "")


def vehicle_form(items, formdata=None) -> VehicleForm:
    """The vehicle form with the carrier's capabilities (catalogue items): a checkbox each,
    and each one's parameter fields."""

    class Form(VehicleForm):
        pass

    for item in items:
        setattr(Form, cap_field(item.code), BooleanField(gettext(item.naam)))
        for parameter in item.parameters:
            label = f"{parameter.label} ({parameter.unit})" if parameter.unit else parameter.label
            kind = DecimalCommaField if parameter.kind == "number" else StringField
            validators = [Optional()] + (
                [Length(max=parameter.max_length)] if parameter.kind == "text" else []
            )
            setattr(
                Form,
                cap_field(item.code, parameter.name),
                kind(label, validators=validators, render_kw={"autocomplete": "off"}),
            )
    form = Form(formdata)
    form.capability_items = list(items)
    return form


def capability_data(form) -> dict:
    """The capabilities ticked, each with the parameters filled in."""
    chosen = {}
    for item in getattr(form, "capability_items", ()):
        if not form[cap_field(item.code)].data:
            continue
        chosen[item.code] = {
            p.name: form[cap_field(item.code, p.name)].data
            for p in item.parameters
            if form[cap_field(item.code, p.name)].data not in (None, "")
        }
    return chosen


def fill_capabilities(form, capabilities: dict[str, dict]) -> None:
    """Tick the vehicle's capabilities and fill in their parameters (for editing)."""
    for item in getattr(form, "capability_items", ()):
        form[cap_field(item.code)].data = item.code in capabilities
        for p in item.parameters:
            form[cap_field(item.code, p.name)].data = capabilities.get(item.code, {}).get(p.name)


def capability_error_fields(errors: list[dict]) -> list[dict]:
    """The service's capability errors named as the form's fields."""
    renamed = []
    for error in errors:
        field = error.get("field") or ""
        if field.startswith("kenmerken."):
            code, _dot, parameter = field.removeprefix("kenmerken.").partition(".")
            error = {**error, "field": cap_field(code, parameter or None)}
        renamed.append(error)
    return renamed


class VehicleFilterForm(PortalForm):
    """The list's filters (GET; no CSRF: it changes nothing)."""

    class Meta:
        csrf = False

    q = StringField(_l("Zoeken"), validators=[Optional(), Length(max=100)])
    status = SelectField(
        _l("Status"),
        choices=[SelectChoice(key, label) for key, label in ACTIVE_FILTERS.items()],
        default="actief",
    )
    soort = SelectField(
        _l("Soort"),
        choices=[SelectChoice("", _l("Alle soorten"))]
        + [SelectChoice(key, label) for key, label in SOORT_LABELS.items()],
        default="",
    )

    def clean(self, name: str):
        """A filter's value when valid, else its default."""
        field = self[name]
        if field.errors:
            return field.default
        if isinstance(field, SelectField):
            return (
                field.data if field.data in {c[0] for c in field.iter_choices()} else field.default
            )
        return field.data


class SessionFilterForm(PortalForm):
    """The sessions page's filters (GET)."""

    class Meta:
        csrf = False

    chauffeur = SelectField(_l("Chauffeur"), default="")
    voertuig = SelectField(_l("Voertuig"), default="")
    status = SelectField(
        _l("Status"),
        choices=[
            SelectChoice("", _l("Alle statussen")),
            SelectChoice("active", SESSION_STATUS_LABELS["active"]),
            SelectChoice("pending", SESSION_STATUS_LABELS["pending"]),
            SelectChoice("ended", SESSION_STATUS_LABELS["ended"]),
        ],
        default="",
    )

    def set_choices(self, drivers, vehicles) -> None:
        self.chauffeur.choices = [SelectChoice("", _l("Alle chauffeurs"))] + [
            SelectChoice(str(d.id), d.naam if d.actief else f"{d.naam} ({_l('gedeactiveerd')})")
            for d in drivers
        ]
        self.voertuig.choices = [SelectChoice("", _l("Alle voertuigen"))] + [
            SelectChoice(str(v.id), v.label) for v in vehicles
        ]

    def clean(self, name: str) -> str:
        field = self[name]
        valid = {value for value, *_rest in field.iter_choices()}
        return field.data if field.data in valid else ""


class CapabilityForm(PortalForm):
    """A capability's name: a new one, or a new name for one."""

    naam = StringField(
        _l("Naam"),
        validators=[DataRequired(_l("Vul een naam in.")), Length(max=MAX_NAAM)],
        render_kw={"autocomplete": "off"},
    )


class ConfirmForm(PortalForm):
    """A confirmation: only its CSRF token."""
