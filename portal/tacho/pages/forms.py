"""Portal forms of tachograph files: the list's filters, the upload's links, linking a file,
giving its period, and making a download link."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from wtforms import DateField, SelectChoice, SelectField
from wtforms.validators import Optional, ValidationError

from portal.tacho.ddd.detect import BESTUURDERSKAART, VOERTUIGEENHEID
from portal.tacho.service import LINK_CHOICES
from portal.validators import PortalForm, in_calendar

SOORT_LABELS = {
    BESTUURDERSKAART: _l("Bestuurderskaart"),
    VOERTUIGEENHEID: _l("Voertuigeenheid"),
}
GENERATIE_LABELS = {
    "1": _l("Digitale tachograaf (1e generatie)"),
    "2": _l("Slimme tachograaf (2e generatie)"),
    "2.2": _l("Slimme tachograaf versie 2"),
}
LINK_LABELS = {
    LINK_CHOICES[0]: _l("5 minuten"),
    LINK_CHOICES[1]: _l("1 uur"),
    LINK_CHOICES[2]: _l("24 uur"),
    LINK_CHOICES[3]: _l("7 dagen"),
}


def driver_choices(drivers, empty) -> list[SelectChoice]:
    return [SelectChoice("", empty)] + [
        SelectChoice(str(d.id), d.naam if d.actief else f"{d.naam} ({_l('gedeactiveerd')})")
        for d in drivers
    ]


def vehicle_choices(vehicles, empty) -> list[SelectChoice]:
    return [SelectChoice("", empty)] + [
        SelectChoice(str(v.id), v.kenteken if v.actief else f"{v.kenteken} ({_l('gedeactiveerd')})")
        for v in vehicles
    ]


class _Choosing:
    """Selects of drivers and vehicles whose choices come from the carrier's rows."""

    def set_choices(self, drivers, vehicles, empty_driver, empty_vehicle) -> None:
        self.chauffeur.choices = driver_choices(drivers, empty_driver)
        self.voertuig.choices = vehicle_choices(vehicles, empty_vehicle)

    def chosen(self, name: str) -> str:
        """A select's value when it is one of its choices, else ''."""
        field = self[name]
        valid = {value for value, *_rest in field.iter_choices()}
        return field.data if field.data in valid else ""


class TachoFilterForm(_Choosing, PortalForm):
    """The list's filters (GET; no CSRF: it changes nothing)."""

    class Meta:
        csrf = False

    chauffeur = SelectField(_l("Chauffeur"), default="")
    voertuig = SelectField(_l("Voertuig"), default="")
    soort = SelectField(
        _l("Soort"),
        choices=[SelectChoice("", _l("Alle soorten"))]
        + [SelectChoice(key, label) for key, label in SOORT_LABELS.items()],
        default="",
    )
    van = DateField(_l("Van"), validators=[Optional(), in_calendar])
    tot = DateField(_l("Tot en met"), validators=[Optional(), in_calendar])

    def validate_tot(self, field) -> None:
        if field.data and self.van.data and field.data < self.van.data:
            raise ValidationError(_l("De einddatum ligt voor de begindatum."))


class UploadForm(_Choosing, PortalForm):
    """The upload's optional links (the files themselves come as the `bestanden` parts)."""

    chauffeur = SelectField(_l("Koppel aan chauffeur"), default="")
    voertuig = SelectField(_l("Koppel aan voertuig"), default="")


class LinkForm(_Choosing, PortalForm):
    chauffeur = SelectField(_l("Chauffeur"), default="")
    voertuig = SelectField(_l("Voertuig"), default="")


class PeriodForm(PortalForm):
    van = DateField(_l("Eerste dag"), validators=[Optional(), in_calendar])
    tot = DateField(_l("Laatste dag"), validators=[Optional(), in_calendar])

    def validate(self, extra_validators=None) -> bool:
        valid = super().validate(extra_validators)
        van, tot = self.van, self.tot
        if valid and (van.data is None) != (tot.data is None):
            missing = van if van.data is None else tot
            missing.errors.append(_l("Vul beide dagen in, of laat beide leeg."))
            valid = False
        if valid and van.data and tot.data and tot.data < van.data:
            tot.errors.append(_l("De laatste dag ligt voor de eerste dag."))
            valid = False
        return valid


class ShareForm(PortalForm):
    geldigheid = SelectField(
        _l("Geldig"),
        choices=[SelectChoice(str(seconds), label) for seconds, label in LINK_LABELS.items()],
        default=str(LINK_CHOICES[2]),
    )
