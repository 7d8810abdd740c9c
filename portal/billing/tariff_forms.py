"""The portal's form of a tariff: whose, which activity, from when, how it charges."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import Field, IntegerField, SelectChoice, SelectField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from portal.billing.forms import DayField

BASIS_LABELS = {
    "eenheid": _l("eenheid (ton, m³, …)"),
    "vracht": _l("vracht"),
    "uur": _l("uur"),
    "km": _l("kilometer"),
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


class TariffForm(FlaskForm):
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
    wachttijd_vrij_minuten = IntegerField(
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

    def set_choices(self, customers: dict, activities: list[SelectChoice]) -> None:
        self.klant_id.choices = [SelectChoice("", _l("Alle klanten (standaardtarief)"))] + [
            SelectChoice(str(k), v) for k, v in customers.items()
        ]
        self.activity_type.choices = activities

    def validate_activity_type(self, field: Field) -> None:
        if field.data not in {c.value for c in field.choices}:
            raise ValueError(_l("Kies een activiteit uit de lijst."))


class HandPriceForm(FlaskForm):
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
