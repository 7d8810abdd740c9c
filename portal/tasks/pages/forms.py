"""Portal forms of tasks: the board's filters, the task form, and the keyboard move."""

from __future__ import annotations

import math
import uuid

from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    DateField,
    FloatField,
    HiddenField,
    IntegerField,
    RadioField,
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
    StopValidation,
    ValidationError,
)
from wtforms.widgets import TextInput

from portal import countries
from portal.labels import ACTIVITY_LABELS
from portal.tasks.models import MAX_DURATION_MIN, STATUSES
from portal.validators import PortalForm, in_calendar

STATUS_LABELS = {
    "gepland": _l("Gepland"),
    "ontvangen": _l("Ontvangen"),
    "gestart": _l("Gestart"),
    "afgerond": _l("Afgerond"),
    "geannuleerd": _l("Geannuleerd"),
}

# What a button on a card says for a move to each status.
MOVE_LABELS = {
    "ontvangen": _l("Ontvangen"),
    "gestart": _l("Starten"),
    "afgerond": _l("Afronden"),
    "geannuleerd": _l("Annuleren…"),
}
REOPEN_LABEL = _l("Heropenen")

# The fields of a completion blocker (lifecycle.completion_blockers), as people read them.
BLOCKER_LABELS = {
    "fotos": _l("Foto's"),
    "handtekening": _l("Handtekening"),
    "scan": _l("Scan"),
    "locatie": _l("Locatie"),
    "temperatuur": _l("Temperatuur"),
    "desinfectie": _l("Desinfectie"),
    "status": _l("Status"),
}

UNASSIGNED = "geen"  # the chauffeur filter's value for tasks without a driver
VEHICLE_ALONG, VEHICLE_STAYS = "mee", "los"  # the move form's answers about the vehicle
VIEWS = ("dag", "status")


def activity_choices(extra: set[str] = frozenset()) -> list[SelectChoice]:
    """The activity types a planner picks from: the known ones plus extra (e.g. the task's own,
    or the types of the carrier's questionnaires), each by its readable name."""
    labels = ACTIVITY_LABELS
    names = dict.fromkeys([*labels, *sorted(t for t in extra if t)])
    readable = {
        name: str(labels[name]) if name in labels else name.replace("_", " ").capitalize()
        for name in names
    }
    return [SelectChoice(name, readable[name]) for name in names]


def _finite(form, field) -> None:
    if field.data is not None and not math.isfinite(field.data):
        raise ValidationError(_l("Vul een getal in."))


class _StopOnBadInput:
    """A field whose unreadable input gets one error, not a second one from its range check."""

    def pre_validate(self, form):
        typed = bool(self.raw_data and str(self.raw_data[0]).strip())
        if self.process_errors and typed:
            raise StopValidation()


class WholeNumberField(_StopOnBadInput, IntegerField):
    pass


class DecimalCommaField(_StopOnBadInput, FloatField):
    """A number that may be written the Dutch way, with a decimal comma (so a text input:
    a number input would refuse the comma in some browsers)."""

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
            raise ValueError(_l("Vul een getal in."))
        self.data = value


class BoardFilterForm(PortalForm):
    """The board's view and filters, read from the query string (GET: no CSRF token).

    Choices of driver, vehicle and type are set by the view; a value that is not among them
    (another carrier's driver, a typo) is an error at the field and filters nothing."""

    class Meta:
        csrf = False

    weergave = SelectField(
        _l("Weergave"),
        choices=[SelectChoice("dag", _l("Dag")), SelectChoice("status", _l("Status"))],
        validators=[Optional()],
    )
    datum = DateField(_l("Datum"), validators=[Optional(), in_calendar])
    van = DateField(_l("Van"), validators=[Optional(), in_calendar])
    tot = DateField(_l("Tot en met"), validators=[Optional(), in_calendar])
    chauffeur = SelectField(_l("Chauffeur"), validators=[Optional()])
    voertuig = SelectField(_l("Voertuig"), validators=[Optional()])
    type = SelectField(_l("Soort"), validators=[Optional()])
    status = SelectField(
        _l("Status"),
        choices=[SelectChoice("", _l("Alle statussen"))]
        + [SelectChoice(s, STATUS_LABELS[s]) for s in STATUSES],
        validators=[Optional()],
    )
    q = StringField(_l("Zoeken"), validators=[Optional(), Length(max=100)])

    def set_choices(self, drivers, vehicles) -> None:
        self.chauffeur.choices = [
            SelectChoice("", _l("Alle chauffeurs")),
            SelectChoice(UNASSIGNED, _l("Niet toegewezen")),
        ] + [SelectChoice(str(d.id), d.naam) for d in drivers]
        self.voertuig.choices = [SelectChoice("", _l("Alle voertuigen"))] + [
            SelectChoice(str(v.id), v.kenteken) for v in vehicles
        ]
        types = activity_choices({self.type.data} if self.type.data else set())
        self.type.choices = [SelectChoice("", _l("Alle soorten")), *types]

    def validate_tot(self, field) -> None:
        if field.data and self.van.data and field.data < self.van.data:
            raise ValidationError(_l("Tot en met ligt voor de begindatum."))

    def clean(self, name: str):
        """A field's value when it is valid, else None: a bad filter filters nothing."""
        field = getattr(self, name)
        if field.errors or field.data in ("", None):
            return None
        return field.data


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
        _l("Hoeveelheid"), validators=[Optional(), NumberRange(min=0, max=1_000_000_000), _finite]
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
        _l("Breedtegraad"), validators=[Optional(), NumberRange(min=-90, max=90), _finite]
    )
    locatie_lng = DecimalCommaField(
        _l("Lengtegraad"), validators=[Optional(), NumberRange(min=-180, max=180), _finite]
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
        validators=[Optional(), NumberRange(min=-60, max=100), _finite],
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
                                "vehicle_id")),
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
            SelectChoice(str(v.id), v.kenteken) for v in vehicles
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


class MoveForm(PortalForm):
    """Move a task to another driver and/or moment: the keyboard alternative to dragging.

    Fields left out of the POST keep their value: a card dropped on another lane sends only
    the driver, one dropped on another day only the date (its time of day stays)."""

    chauffeur_id = SelectField(_l("Chauffeur"), validators=[Optional()])
    datum = DateField(_l("Datum"), validators=[Optional(), in_calendar])
    tijd = TimeField(_l("Tijd"), validators=[Optional()])
    # Whether the task's vehicle goes along to another driver (asked when it has one).
    voertuig = RadioField(
        _l("Gaat het voertuig mee naar de nieuwe chauffeur?"),
        choices=[
            SelectChoice(VEHICLE_ALONG, _l("Ja, het voertuig gaat mee")),
            SelectChoice(VEHICLE_STAYS, _l("Nee, de taak verder zonder dit voertuig")),
        ],
        default=VEHICLE_ALONG,
        validators=[Optional()],
    )
    versie = IntegerField(
        widget=HiddenField.widget,
        validators=[InputRequired(_l("Ververs het bord en probeer het opnieuw."))],
    )
    terug = HiddenField()

    def set_choices(self, drivers) -> None:
        self.chauffeur_id.choices = [SelectChoice("", _l("Niet toegewezen"))] + [
            SelectChoice(str(d.id), d.naam) for d in drivers
        ]


class PaperCompletionForm(PortalForm):
    """Complete a task on a paper delivery note (tasks/paper.py): the reason and the scan;
    the measured temperature and the disinfection when the task asks for them (the view
    drops those fields otherwise)."""

    reden = TextAreaField(
        _l("Waarom op papier?"),
        validators=[DataRequired(_l("Vul de reden in.")), Length(max=1000)],
        description=_l(
            "Bijvoorbeeld: telefoon van de chauffeur leeg; de klant tekende alleen de papieren bon."
        ),
    )
    bon = FileField(
        _l("Scan of foto van de afleverbon"),
        validators=[FileRequired(_l("Kies de scan van de papieren afleverbon."))],
        description=_l("PDF, JPEG of PNG."),
        render_kw={"accept": "application/pdf,image/jpeg,image/png"},
    )
    temperatuur = DecimalCommaField(
        _l("Gemeten temperatuur op de bon (°C)"),
        validators=[
            InputRequired(_l("Neem de gemeten temperatuur van de bon over.")),
            NumberRange(min=-60, max=100),
            _finite,
        ],
    )
    desinfectie = BooleanField(
        _l("De bon bevestigt de desinfectie"),
        validators=[DataRequired(_l("De bon moet de desinfectie bevestigen."))],
    )
    versie = IntegerField(widget=HiddenField.widget, validators=[Optional()])
