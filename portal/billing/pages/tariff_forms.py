"""The portal's form of a tariff: whose, which activity, from when, how it charges."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import Field, SelectChoice, SelectField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

from portal.billing import pricing
from portal.tasks.pages.forms import WholeNumberField
from portal.validators import DayField, PortalForm

BASIS_LABELS = {
    "eenheid": _l("eenheid (ton, m³, …)"),
    "vracht": _l("vracht"),
    "uur": _l("uur"),
    "km": _l("kilometer"),
}
# How an hourly tariff rounds the recorded time: always up, to a whole unit.
ROUNDING_LABELS = {
    1: _l("per minuut (niet afronden)"),
    5: _l("per 5 minuten"),
    6: _l("per 6 minuten (0,1 uur)"),
    10: _l("per 10 minuten"),
    15: _l("per kwartier"),
    30: _l("per half uur"),
    60: _l("per heel uur"),
}
# The VAT categories of EN 16931 a tariff charges under.
VAT_CATEGORY_LABELS = {
    "S": _l("Standaardtarief (S)"),
    "Z": _l("Nultarief (Z)"),
    "E": _l("Vrijgesteld (E)"),
    "AE": _l("Btw verlegd (AE)"),
    "O": _l("Niet onderworpen aan btw (O)"),
}


class AmountField(StringField):
    """An amount typed the Dutch way (4,35) or the English way (4.35); data is a Decimal."""

    def process_formdata(self, valuelist):
        raw = (valuelist[0] if valuelist else "").strip().replace("€", "").replace(" ", "")
        self.data = None
        self.raw = raw
        if not raw:
            return
        if "," in raw:
            raw = raw.replace(".", "").replace(",", ".")  # 1.234,50 -> 1234.50
        try:
            value = Decimal(raw)
        except InvalidOperation:
            value = None
        if value is None or not value.is_finite():
            raise ValueError(_l("Vul een bedrag in, bijvoorbeeld 4,35."))
        self.data = value

    def _value(self) -> str:
        if getattr(self, "raw", None) is not None and self.data is None:
            return self.raw
        if self.data is None:
            return ""
        return format(self.data.normalize(), "f").replace(".", ",")


class TariffForm(PortalForm):
    klant_id = SelectField(_l("Voor"), choices=[], validate_choice=False)
    activity_type = SelectField(_l("Activiteit"), choices=[], validate_choice=False)
    geldig_vanaf = DayField(_l("Geldig vanaf"))
    grondslag = SelectField(
        _l("Prijs per"), choices=[SelectChoice(k, v) for k, v in BASIS_LABELS.items()]
    )
    eenheid = StringField(
        _l("Eenheid"),
        description=_l("Zoals op de taak: ton, m³, stuks. Alleen bij een prijs per eenheid."),
        validators=[Optional(), Length(max=20, message=_l("Hoogstens 20 tekens."))],
    )
    prijs = AmountField(
        _l("Prijs (€, zonder btw)"), validators=[InputRequired(_l("Vul de prijs in."))]
    )
    minimum = AmountField(
        _l("Minimumbedrag (€)"), description=_l("Een rit kost minstens dit (zonder btw).")
    )
    wachttijd_vrij_minuten = WholeNumberField(
        _l("Gratis wachttijd (minuten)"),
        default=0,
        validators=[Optional(), NumberRange(0, 1440, _l("Tussen 0 en 1440 minuten."))],
    )
    wachttijd_per_uur = AmountField(
        _l("Wachttijd daarna (€ per uur)"), description=_l("Leeg: wachten wordt niet berekend.")
    )
    weekend_toeslag_procent = AmountField(
        _l("Weekendtoeslag (%)"), description=_l("Op zaterdag en zondag, over de prijs.")
    )
    btw_procent = AmountField(_l("Btw (%)"), default=Decimal(21))
    btw_categorie = SelectField(
        _l("Btw-categorie"),
        choices=[SelectChoice(k, v) for k, v in VAT_CATEGORY_LABELS.items()],
        default="S",
        validate_choice=False,
        description=_l("Standaard: 21% of 9%. Nultarief, vrijgesteld, verlegd en niet belast: 0%."),
    )
    btw_vrijstellingsreden = StringField(
        _l("Reden of bewijs zonder btw"),
        description=_l(
            "Staat op de factuur. Verplicht bij vrijgesteld, btw verlegd en niet belast, "
            "bijvoorbeeld “Btw verlegd”; bij het nultarief het bewijs, zoals het MRN van de "
            "uitvoer."
        ),
        validators=[Length(max=300, message=_l("Hoogstens 300 tekens."))],
    )
    afronding_minuten = SelectField(
        _l("Tijd afronden"),
        choices=[SelectChoice(str(k), v) for k, v in ROUNDING_LABELS.items()],
        default="1",
        validate_choice=False,
        description=_l("Alleen bij een prijs per uur: de gewerkte tijd, naar boven afgerond."),
    )
    minimum_minuten = WholeNumberField(
        _l("Minimaal (minuten)"),
        default=0,
        description=_l("Alleen bij een prijs per uur: er wordt minstens zoveel tijd berekend."),
        validators=[Optional(), NumberRange(0, 1440, _l("Tussen 0 en 1440 minuten."))],
    )

    def set_choices(self, customers: dict, activities: list[SelectChoice]) -> None:
        self.klant_id.choices = [SelectChoice("", _l("Alle klanten (standaardtarief)"))] + [
            SelectChoice(str(k), v) for k, v in customers.items()
        ]
        self.activity_type.choices = activities

    def validate_activity_type(self, field: Field) -> None:
        if field.data not in {c.value for c in field.choices}:
            raise ValidationError(_l("Kies een activiteit uit de lijst."))

    def validate_afronding_minuten(self, field: Field) -> None:
        if field.data not in {str(unit) for unit in pricing.ROUNDING_UNITS}:
            raise ValidationError(_l("Kies hoe de tijd wordt afgerond uit de lijst."))

    def validate_btw_categorie(self, field: Field) -> None:
        if field.data not in pricing.VAT_CATEGORIES:
            raise ValidationError(_l("Kies een btw-categorie uit de lijst."))

    # The VAT rules are the service's (tariffs._check_vat); checked here as well, so that
    # they are told with the form's other problems at once.
    def validate_btw_procent(self, field: Field) -> None:
        if field.process_errors:
            return  # no number: said already
        rate = field.data if field.data is not None else Decimal(21)
        if rate.is_finite() and pricing.vat_problem(self.btw_categorie.data, rate):
            raise ValidationError(vat_rate_text(self.btw_categorie.data))

    def validate_btw_vrijstellingsreden(self, field: Field) -> None:
        categorie = self.btw_categorie.data
        if categorie in pricing.NEEDS_TEXT and not (field.data or "").strip():
            raise ValidationError(reason_text(categorie))


def _category_label(categorie: str) -> str:
    return str(VAT_CATEGORY_LABELS.get(categorie, categorie))


def vat_rate_text(categorie: str) -> str:
    """Why a VAT rate does not fit the category, in the user's language."""
    if categorie == "S":
        return _("Bij het standaardtarief is de btw meer dan 0%.")
    return _("Bij %(categorie)s is de btw 0%%.", categorie=_category_label(categorie))


def reason_text(categorie: str) -> str:
    """That the category needs its exemption reason (Z: its evidence), in the user's language."""
    if categorie == "Z":
        return _("Noem het bewijs voor het nultarief, bijvoorbeeld het uitvoerdocument (MRN).")
    return _(
        "Vul de reden in: die staat bij %(categorie)s op de factuur.",
        categorie=_category_label(categorie),
    )


class HandPriceForm(PortalForm):
    """A line's price set by hand: the net amount and the VAT rate, typed the Dutch way."""

    bedrag = AmountField(
        _l("Bedrag zonder btw (€)"),
        validators=[
            InputRequired(_l("Vul het bedrag in.")),
            NumberRange(0, 1_000_000_000, _l("Tussen 0 en 1.000.000.000.")),
        ],
    )
    btw_procent = AmountField(
        _l("Btw (%)"),
        default=Decimal(21),
        validators=[
            InputRequired(_l("Vul het btw-percentage in.")),
            NumberRange(0, 100, _l("Tussen 0 en 100.")),
        ],
    )
    btw_vrijstellingsreden = StringField(
        _l("Reden of bewijs zonder btw"),
        description=_l(
            "Bij 0 procent: waarom er geen btw is, of bij het nultarief het bewijs (het MRN van de "
            "uitvoer). Leeg: wat het tarief of de klant zegt."
        ),
        validators=[Length(max=300, message=_l("Hoogstens 300 tekens."))],
    )
