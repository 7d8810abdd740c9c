"""Portal forms of billing: the period and driver, to look at lines and to export them."""

from __future__ import annotations

import uuid

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import Field, SelectChoice, SelectField
from wtforms.validators import ValidationError

from portal.billing.service import NO_CUSTOMER, longer_than_a_year
from portal.validators import DayField, PortalForm


class PeriodForm(PortalForm):
    """Period (both days included), an optional driver and customer. Set the choices first
    (set_drivers, set_customers)."""

    van = DayField(_l("Van"))
    tot = DayField(_l("Tot en met"))
    chauffeur = SelectField(_l("Chauffeur"), choices=[], validate_choice=False)
    klant = SelectField(
        _l("Klant"), choices=[SelectChoice("", _l("Alle klanten"))], validate_choice=False
    )

    def set_drivers(self, drivers) -> None:
        self.chauffeur.choices = [SelectChoice("", _l("Alle chauffeurs"))] + [
            SelectChoice(str(d.id), d.naam) for d in drivers
        ]

    def set_customers(self, names: dict[uuid.UUID, str]) -> None:
        self.klant.choices = [
            SelectChoice("", _l("Alle klanten")),
            SelectChoice(NO_CUSTOMER, _l("Zonder klant")),
        ] + [SelectChoice(str(i), name) for i, name in names.items()]

    def validate_klant(self, field: Field) -> None:
        if field.data and field.data not in {c.value for c in field.choices}:
            raise ValidationError(_("Deze klant kennen we niet."))

    @property
    def klant_value(self) -> uuid.UUID | str | None:
        """The customer filter as the service takes it: an id, NO_CUSTOMER or None (all)."""
        if not self.klant.data or self.klant.errors:
            return None
        return self.klant.data if self.klant.data == NO_CUSTOMER else uuid.UUID(self.klant.data)

    def validate_tot(self, field: Field) -> None:
        van, tot = self.van.data, field.data
        if van is None or tot is None:
            return
        if tot < van:
            raise ValidationError(_("De einddatum ligt voor de begindatum."))
        if longer_than_a_year(van, tot):
            raise ValidationError(_("Kies een periode van hoogstens een jaar."))

    def validate_chauffeur(self, field: Field) -> None:
        if field.data and field.data not in {c.value for c in field.choices}:
            raise ValidationError(_("Deze chauffeur kennen we niet."))

    @property
    def chauffeur_id(self) -> uuid.UUID | None:
        return uuid.UUID(self.chauffeur.data) if self.chauffeur.data else None


class FilterForm(PeriodForm):
    """The lines to look at, read from the query string (GET: no CSRF token)."""

    class Meta:
        csrf = False


FORMATS = [SelectChoice("csv", "CSV"), SelectChoice("xlsx", "XLSX")]


class ExportForm(PeriodForm):
    """Export the lines shown: the same period and driver, and a file format."""

    formaat = SelectField(choices=FORMATS, validate_choice=True)


class ExportQueryForm(ExportForm):
    """The export asked for, read from the query string to confirm it (GET: no CSRF token)."""

    class Meta:
        csrf = False
