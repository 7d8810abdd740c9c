"""The task form: every field of a task a planner may set, grouped as the form shows them,
with the customer's places to choose from and the checks across fields."""

from __future__ import annotations

import uuid

from flask_babel import lazy_gettext as _l
from wtforms import (
    BooleanField,
    DateField,
    HiddenField,
    IntegerField,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
    TimeField,
)
from wtforms.validators import (
    DataRequired,
    InputRequired,
    Length,
    NumberRange,
    Optional,
    ValidationError,
)

from portal import countries
from portal.fleet.rules import TOWED
from portal.tasks.models import MAX_DURATION_MIN
from portal.tasks.pages.forms import DecimalCommaField, WholeNumberField, activity_choices, finite
from portal.validators import PortalForm, in_calendar


def _iso_country(form, field) -> None:
    """A country an invoice may name: ISO 3166-1 alpha-2 (EN 16931's list)."""
    if field.data and not countries.is_country(field.data):
        raise ValidationError(_l("Kies een landcode uit ISO 3166, zoals NL, BE of DE."))


def _country(label):
    return StringField(
        label,
        filters=[lambda v: v.strip().upper() if isinstance(v, str) else v],
        validators=[
            Optional(),
            _iso_country,
        ],
    )


class TaskForm(PortalForm):
    """Every field of a task a planner may set, grouped as the form shows them."""

    # Wat
    type = SelectField(_l("Soort"), validators=[InputRequired(_l("Kies een soort."))])
    naam = StringField(
        _l("Naam"), validators=[DataRequired(_l("Geef de taak een naam.")), Length(max=200)]
    )
    omschrijving = TextAreaField(_l("Omschrijving"), validators=[Optional(), Length(max=5000)])
    artikel = StringField(_l("Artikel"), validators=[Optional(), Length(max=200)])
    hoeveelheid = DecimalCommaField(
        _l("Hoeveelheid"), validators=[Optional(), NumberRange(min=0, max=1_000_000_000), finite]
    )
    eenheid = StringField(_l("Eenheid"), validators=[Optional(), Length(max=20)])
    opmerkingen = TextAreaField(_l("Opmerkingen"), validators=[Optional(), Length(max=5000)])
    vdm_nummer = StringField(_l("VDM-nummer"), validators=[Optional(), Length(max=40)])
    # Waar
    adres = StringField(_l("Adres"), validators=[Optional(), Length(max=200)])
    postcode = StringField(_l("Postcode"), validators=[Optional(), Length(max=16)])
    stad = StringField(_l("Plaats"), validators=[Optional(), Length(max=100)])
    land = StringField(
        _l("Land"),
        filters=[lambda v: v.strip().upper() if isinstance(v, str) else v],
        validators=[
            Optional(),
            _iso_country,
        ],
    )
    contactpersoon = StringField(_l("Contactpersoon"), validators=[Optional(), Length(max=200)])
    telefoon = StringField(_l("Telefoon"), validators=[Optional(), Length(max=40)])
    telefoon_mobiel = StringField(_l("Mobiel"), validators=[Optional(), Length(max=40)])
    locatie_lat = DecimalCommaField(
        _l("Breedtegraad"), validators=[Optional(), NumberRange(min=-90, max=90), finite]
    )
    locatie_lng = DecimalCommaField(
        _l("Lengtegraad"), validators=[Optional(), NumberRange(min=-180, max=180), finite]
    )
    # Klant en route: choosing a customer offers its places; choosing a place fills its
    # address in (route.py copies what is left empty).
    klant_id = SelectField(_l("Klant"), validators=[Optional()], validate_choice=False)
    laadlocatie_id = SelectField(_l("Laadplaats"), validators=[Optional()], validate_choice=False)
    laad_adres = StringField(_l("Laadadres"), validators=[Optional(), Length(max=200)])
    laad_postcode = StringField(_l("Postcode laden"), validators=[Optional(), Length(max=16)])
    laad_stad = StringField(_l("Plaats laden"), validators=[Optional(), Length(max=100)])
    laad_land = _country(_l("Land laden"))
    loslocatie_id = SelectField(_l("Losplaats"), validators=[Optional()], validate_choice=False)
    los_adres = StringField(_l("Losadres"), validators=[Optional(), Length(max=200)])
    los_postcode = StringField(_l("Postcode lossen"), validators=[Optional(), Length(max=16)])
    los_stad = StringField(_l("Plaats lossen"), validators=[Optional(), Length(max=100)])
    los_land = _country(_l("Land lossen"))
    # Wanneer en wie
    gepland_datum = DateField(_l("Datum"), validators=[Optional(), in_calendar])
    gepland_tijd = TimeField(_l("Tijd"), validators=[Optional()])
    duur_min = WholeNumberField(
        _l("Verwachte duur (minuten)"),
        description=_l("Leeg: de gebruikelijke duur van deze soort."),
        validators=[
            Optional(),
            NumberRange(
                min=1,
                max=MAX_DURATION_MIN,
                message=_l("Tussen 1 en %(max)s minuten (een dag).", max=MAX_DURATION_MIN),
            ),
        ],
    )
    chauffeur_id = SelectField(_l("Chauffeur"), validators=[Optional()])
    vehicle_id = SelectField(_l("Voertuig"), validators=[Optional()])
    # Not a task field: the trailer coupled for this task (tasks/pages/trailer.py).
    getrokken_id = SelectField(
        _l("Aanhanger"),
        validators=[Optional()],
        description=_l("Leeg: de koppeling van de dag van het voertuig."),
    )
    # Eisen
    require_photos = BooleanField(_l("Foto's verplicht"))
    min_fotos = WholeNumberField(
        _l("Minimaal aantal foto's"), validators=[Optional(), NumberRange(min=0, max=100)]
    )
    max_fotos = WholeNumberField(
        _l("Maximaal aantal foto's"), validators=[Optional(), NumberRange(min=0, max=100)]
    )
    photo_label = StringField(
        _l("Wat moet er op de foto?"), validators=[Optional(), Length(max=200)]
    )
    require_signature = BooleanField(_l("Handtekening verplicht"))
    require_document_scan = BooleanField(_l("Documentscan verplicht"))
    require_location = BooleanField(_l("Locatie vastleggen"))
    agr_verplicht = BooleanField(_l("AGR-GPS-registratie verplicht"))
    required_desinfectie = BooleanField(_l("Desinfectie bevestigen"))
    required_temperatuur = DecimalCommaField(
        _l("Vereiste temperatuur (°C)"),
        validators=[Optional(), NumberRange(min=-60, max=100), finite],
    )
    kooiaap = BooleanField(_l("Kooiaap nodig"))
    # The version the planner started from: a stale one is a conflict, not an overwrite.
    versie = IntegerField(widget=HiddenField.widget, validators=[Optional()])
    terug = HiddenField()

    FIELDSETS = (
        (_l("Wat"), ("type", "naam", "omschrijving", "artikel", "hoeveelheid", "eenheid",
                     "opmerkingen", "vdm_nummer")),
        (_l("Waar"), ("adres", "postcode", "stad", "land", "contactpersoon", "telefoon",
                      "telefoon_mobiel", "locatie_lat", "locatie_lng")),
        (_l("Klant en route"), ("klant_id", "laadlocatie_id", "laad_adres", "laad_postcode",
                                "laad_stad", "laad_land", "loslocatie_id", "los_adres",
                                "los_postcode", "los_stad", "los_land")),
        (_l("Wanneer en wie"), ("gepland_datum", "gepland_tijd", "duur_min", "chauffeur_id",
                                "vehicle_id", "getrokken_id")),
        (_l("Eisen"), ("require_photos", "min_fotos", "max_fotos", "photo_label",
                       "require_signature", "require_document_scan", "require_location",
                       "agr_verplicht", "required_desinfectie", "kooiaap",
                       "required_temperatuur")),
    )  # fmt: skip
    TEXT_FIELDS = (
        "naam", "omschrijving", "artikel", "eenheid", "opmerkingen", "vdm_nummer", "adres",
        "postcode", "stad", "land", "contactpersoon", "telefoon", "telefoon_mobiel",
        "photo_label", "laad_adres", "laad_postcode", "laad_stad", "laad_land", "los_adres",
        "los_postcode", "los_stad", "los_land",
    )  # fmt: skip
    ROUTE_CHOICES = ("klant_id", "laadlocatie_id", "loslocatie_id")
    ROUTE_FIELDSET = 2  # FIELDSETS' index of Klant en route (the part htmx refreshes)
    NUMBER_FIELDS = (
        "hoeveelheid", "locatie_lat", "locatie_lng", "min_fotos", "max_fotos",
        "required_temperatuur", "duur_min",
    )  # fmt: skip
    FLAG_FIELDS = (
        "require_photos", "require_signature", "require_document_scan", "require_location",
        "agr_verplicht", "required_desinfectie", "kooiaap",
    )  # fmt: skip

    def set_choices(self, *, drivers, vehicles, types: set[str]) -> None:
        self.type.choices = activity_choices(types)
        self.chauffeur_id.choices = [SelectChoice("", _l("Niet toegewezen"))] + [
            SelectChoice(str(d.id), d.naam) for d in drivers
        ]
        self.vehicle_id.choices = [SelectChoice("", _l("Geen voertuig"))] + [
            SelectChoice(str(v.id), v.label) for v in vehicles
        ]
        self.getrokken_id.choices = [SelectChoice("", _l("Koppeling van de dag"))] + [
            SelectChoice(str(v.id), v.label) for v in vehicles if v.soort in TOWED and v.actief
        ]

    def set_route_choices(self, customers: dict, places: list) -> None:
        """The customers to choose from (id: name) and the chosen one's places; a value not
        among them is an error at the field."""
        self.klant_id.choices = [SelectChoice("", _l("Geen klant"))] + [
            SelectChoice(str(k), v) for k, v in customers.items()
        ]
        for name, kinds, other in (
            ("laadlocatie_id", ("laden", "beide"), _l("Ander adres")),
            ("loslocatie_id", ("lossen", "beide"), _l("Ander adres")),
        ):
            self[name].choices = [SelectChoice("", other)] + [
                SelectChoice(str(p.id), _place_label(p)) for p in places if p.soort in kinds
            ]

    def validate(self, extra_validators=None) -> bool:
        valid = super().validate(extra_validators)
        for name in self.ROUTE_CHOICES:
            field = self[name]
            if field.data and field.data not in {c.value for c in field.choices}:
                field.errors.append(
                    _l("Kies een klant uit de lijst.")
                    if name == "klant_id"
                    else _l("Kies een plaats van deze klant.")
                )
        # Checks across fields, each error at the field a planner must change.
        day, moment = self.gepland_datum, self.gepland_tijd
        if not (day.errors or moment.errors):
            if moment.data is not None and day.data is None:
                day.errors.append(_l("Kies ook een datum."))
            elif day.data is not None and moment.data is None:
                moment.errors.append(_l("Kies ook een tijd."))
        low, high = self.min_fotos, self.max_fotos
        if (
            not (low.errors or high.errors)
            and None not in (low.data, high.data)
            and high.data < low.data
        ):
            high.errors.append(_l("Het maximum is kleiner dan het minimum."))
        lat, lng = self.locatie_lat, self.locatie_lng
        if not (lat.errors or lng.errors) and (lat.data is None) != (lng.data is None):
            (lat if lat.data is None else lng).errors.append(
                _l("Vul breedte- en lengtegraad allebei in, of geen van beide.")
            )
        return valid and not any(f.errors for f in self)

    def task_data(self) -> dict:
        """The form's values as the service takes them (empty text is None)."""
        data: dict = {"type": self.type.data}
        for name in self.TEXT_FIELDS:
            value = getattr(self, name).data
            data[name] = value.strip() or None if isinstance(value, str) else None
        for name in self.NUMBER_FIELDS:
            data[name] = getattr(self, name).data
        for name in self.FLAG_FIELDS:
            data[name] = bool(getattr(self, name).data)
        data["vehicle_id"] = uuid.UUID(self.vehicle_id.data) if self.vehicle_id.data else None
        for name in self.ROUTE_CHOICES:
            data[name] = uuid.UUID(self[name].data) if self[name].data else None
        for end in ("laad", "los"):
            # Taken from the chosen place (route.py), else none: the form shows neither.
            data.update({f"{end}_naam": None, f"{end}_lat": None, f"{end}_lng": None})
        return data


def _place_label(place) -> str:
    where = ", ".join(part for part in (place.adres, place.stad) if part)
    return f"{place.naam} ({where})" if where else place.naam
