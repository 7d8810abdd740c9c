"""Portal forms of drivers: the list's search, the driver form and the track's day."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from flask_babel import lazy_gettext as _l
from wtforms import DateField, SelectChoice, SelectField, SelectMultipleField, StringField
from wtforms.validators import DataRequired, Email, Length, Optional, Regexp

from portal.drivers.models import LANGUAGES, RIJBEWIJS_CATEGORIEEN
from portal.validators import PortalForm, in_calendar

LANGUAGE_LABELS = {"nl": _l("Nederlands"), "en": _l("Engels")}
STATUS_FILTERS = ("actief", "inactief", "alle")
PHONE = r"^\+?[0-9][0-9 ()./-]{4,38}[0-9]$"


CONTRACT_MESSAGE = _l("Vul 0 tot 60 uur per week in, in hele minuten (bijvoorbeeld 32 of 38,5).")


class ContractHoursField(StringField):
    """Hours per week typed the Dutch (38,5) or English way (38.5); data is a Decimal, or
    None when left empty. What was typed shows again."""

    def process_formdata(self, valuelist):
        self.raw = (valuelist[0] if valuelist else "").strip()
        self.data = None
        if not self.raw:
            return
        text = self.raw.replace(" ", "")
        if "," in text:
            text = text.replace(".", "").replace(",", ".")
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise ValueError(CONTRACT_MESSAGE) from None
        if not value.is_finite() or not 0 <= value <= 60 or (value * 60) % 1:
            raise ValueError(CONTRACT_MESSAGE)
        self.data = value

    def _value(self) -> str:
        if getattr(self, "raw", None) is not None:
            return self.raw
        if self.data is None:
            return ""
        text = format(Decimal(self.data).normalize(), "f")
        return text.replace(".", ",")


class DriverSearchForm(PortalForm):
    """The list's search and status filter, read from the query string."""

    class Meta:
        csrf = False

    q = StringField(_l("Zoeken"), validators=[Optional(), Length(max=100)])
    status = SelectField(
        _l("Status"),
        choices=[
            SelectChoice("actief", _l("Actief")),
            SelectChoice("inactief", _l("Gedeactiveerd")),
            SelectChoice("alle", _l("Alle chauffeurs")),
        ],
        default="actief",
        validators=[Optional()],
    )


class DriverForm(PortalForm):
    """Create or edit a driver."""

    naam = StringField(
        _l("Naam"),
        validators=[DataRequired(_l("Vul de naam in.")), Length(max=200)],
        render_kw={"autocomplete": "off"},
    )
    email = StringField(
        _l("E-mailadres"),
        validators=[
            Optional(),
            Length(max=254),
            Email(_l("Vul een geldig e-mailadres in, bijvoorbeeld jan@voorbeeld.nl.")),
        ],
        render_kw={"type": "email", "autocomplete": "off", "inputmode": "email"},
        description=_l("Optioneel; nodig om met een wachtwoord in te loggen in de app."),
    )
    telefoon = StringField(
        _l("Telefoon"),
        validators=[
            Optional(),
            Length(max=40),
            Regexp(PHONE, message=_l("Vul een telefoonnummer in, bijvoorbeeld 06-12345678.")),
        ],
        render_kw={"type": "tel", "autocomplete": "off", "inputmode": "tel"},
    )
    taal = SelectField(
        _l("Taal van de app"),
        choices=[SelectChoice(code, LANGUAGE_LABELS[code]) for code in LANGUAGES],
        default="nl",
    )
    contracturen = ContractHoursField(
        _l("Contracturen per week"),
        description=_l("Leeg: de contracturen van de loonregels (40 in de CAO)."),
        render_kw={"inputmode": "decimal", "autocomplete": "off"},
    )
    personeelsnummer = StringField(
        _l("Personeelsnummer"),
        validators=[Optional(), Length(max=30, message=_l("Hoogstens 30 tekens."))],
        description=_l("Het nummer in het salarispakket; gaat mee in de looncijfers."),
        render_kw={"autocomplete": "off"},
    )

    rijbewijs_categorieen = SelectMultipleField(
        _l("Rijbewijscategorieën"),
        choices=[SelectChoice(c, c) for c in RIJBEWIJS_CATEGORIEEN],
        description=_l(
            "Vink aan wat op het rijbewijs staat; de planning kiest alleen chauffeurs met de "
            "categorie die een combinatie vraagt (C, CE, T). Niets aangevinkt: onbekend."
        ),
    )

    def validate(self, extra_validators=None) -> bool:
        """The fields' own checks; an expiry date given for a category not ticked is an
        error at that date."""
        valid = super().validate(extra_validators)
        chosen = set(self.rijbewijs_categorieen.data or ())
        for category in RIJBEWIJS_CATEGORIEEN:
            field = self[expiry_field(category)]
            if field.data is not None and category not in chosen:
                field.errors = [*field.errors, str(EXPIRY_WITHOUT_CATEGORY) % {"c": category}]
                valid = False
        return valid

    def licences(self) -> dict:
        """The ticked categories with their expiry dates (None: not given)."""
        chosen = set(self.rijbewijs_categorieen.data or ())
        return {c: self[expiry_field(c)].data for c in RIJBEWIJS_CATEGORIEEN if c in chosen}


EXPIRY_WITHOUT_CATEGORY = _l("Vink %(c)s aan, of maak de datum leeg.")


def expiry_field(category: str) -> str:
    """The name of the form's expiry date field of a licence category."""
    return f"geldig_tot_{category}"


for _category in RIJBEWIJS_CATEGORIEEN:
    setattr(
        DriverForm,
        expiry_field(_category),
        DateField(
            _l("%(c)s geldig tot", c=_category),
            validators=[Optional(), in_calendar],
            render_kw={"autocomplete": "off"},
        ),
    )


class TrackForm(PortalForm):
    """The day of a driver's track."""

    class Meta:
        csrf = False

    datum = DateField(_l("Datum"), validators=[Optional(), in_calendar])
