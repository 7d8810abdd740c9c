"""The portal's form of a pay rule set: from when, contract hours, where overtime starts,
what is paid at which percentage, the one-day night-trip surcharge, the irregular-hours
windows as a table, holidays, and the amounts of the verblijfkosten (their structure stays
as the set it starts from has it)."""

from __future__ import annotations

import dataclasses
import re
from datetime import date
from decimal import Decimal, InvalidOperation

from flask_babel import lazy_gettext as _l
from wtforms import (
    BooleanField,
    FieldList,
    Form,
    FormField,
    HiddenField,
    RadioField,
    SelectChoice,
    SelectMultipleField,
    StringField,
    TextAreaField,
)
from wtforms.validators import InputRequired, Length

from portal.hours import cao
from portal.hours.cao.rules import SOORTEN
from portal.hours.pages.forms import SOORT_LABELS
from portal.hours.pages.ruleset_labels import (
    ALLOWANCE_NAMES,
    FEESTDAG_LABELS,
    OVERUREN_LABELS,
    SAMENLOOP_LABELS,
    WEEKDAGEN,
)
from portal.validators import DayField, PortalForm

EMPTY_ROWS = 3  # empty window rows under the filled ones
DELEN = ("eendaags", "eerste_dag", "tussendag", "laatste_dag")


def _number(raw: str) -> Decimal | None:
    """A number typed the Dutch way (32,5) or the English way (32.5); None when it is none."""
    text = raw.replace(" ", "").replace("€", "")
    if "," in text:
        text = text.replace(".", "").replace(",", ".")
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _dutch(value: Decimal) -> str:
    return format(value, "f").replace(".", ",")


class NumberField(StringField):
    """A decimal typed the Dutch or English way; data is a Decimal (None when left empty).
    What was typed shows again when it is not a number."""

    def __init__(self, label=None, validators=None, message=None, places=0, **kwargs):
        super().__init__(label, validators, **kwargs)
        self.message = message or _l("Vul een getal in.")
        self.places = places  # shown with at least this many decimals: 0,00

    def process_formdata(self, valuelist):
        self.raw = (valuelist[0] if valuelist else "").strip()
        self.data = None
        if self.raw:
            self.data = _number(self.raw)
            if self.data is None:
                raise ValueError(self.message)

    def _value(self) -> str:
        if getattr(self, "raw", None) is not None:
            return self.raw  # as typed
        if self.data is None:
            return ""
        value = Decimal(self.data).normalize()
        if self.places and value.as_tuple().exponent > -self.places:
            value = value.quantize(Decimal(1).scaleb(-self.places))
        return _dutch(value)


class PercentField(NumberField):
    """A whole percentage (130); data is an int."""

    def process_formdata(self, valuelist):
        super().process_formdata(valuelist)
        if self.data is not None:
            if self.data != self.data.to_integral_value():
                self.data = None
                raise ValueError(self.message)
            self.data = int(self.data)


class DatesField(TextAreaField):
    """Dates, one per line (or separated by commas), as 24-12-2026 or 2026-12-24."""

    def process_formdata(self, valuelist):
        self.raw = valuelist[0] if valuelist else ""
        self.data = ()
        found, wrong = [], []
        for part in re.split(r"[\s,;]+", self.raw.strip()):
            if not part:
                continue
            try:
                if re.fullmatch(r"\d{1,2}-\d{1,2}-\d{4}", part):
                    d, m, y = (int(x) for x in part.split("-"))
                    found.append(date(y, m, d))
                else:
                    found.append(date.fromisoformat(part))
            except ValueError:
                wrong.append(part)
        if wrong:
            raise ValueError(
                _l("Geen datum: %(value)s. Schrijf bijvoorbeeld 24-12-2026.", value=wrong[0])
            )
        self.data = tuple(sorted(set(found)))

    def _value(self) -> str:
        if getattr(self, "raw", None) is not None:
            return self.raw
        return "\n".join(d.strftime("%d-%m-%Y") for d in self.data or ())


class WindowForm(Form):
    """One row of the irregular-hours table."""

    naam = StringField(_l("Naam"), validators=[Length(max=40)])
    dagen = SelectMultipleField(
        _l("Dagen"),
        choices=[SelectChoice(d, label) for d, label in WEEKDAGEN.items()],
        coerce=int,
    )
    van = StringField(_l("Van"), render_kw={"placeholder": "00:00", "inputmode": "numeric"})
    tot = StringField(_l("Tot"), render_kw={"placeholder": "24:00", "inputmode": "numeric"})
    procent = PercentField(
        _l("Procent"), message=_l("Vul een heel percentage in, bijvoorbeeld 130.")
    )

    def is_empty(self) -> bool:
        return not any(
            (
                (self.naam.data or "").strip(),
                self.dagen.data,
                (self.van.data or "").strip(),
                (self.tot.data or "").strip(),
                getattr(self.procent, "raw", None) or self.procent.data is not None,
            )
        )


class RuleSetForm(PortalForm):
    basis = HiddenField()
    geldig_vanaf = DayField(
        _l("Geldig vanaf"),
        description=_l("Een maandag: de regels gelden per hele week, tot de volgende regelset."),
    )
    naam = StringField(
        _l("Naam"),
        validators=[InputRequired(_l("Geef de regelset een naam.")), Length(max=120)],
    )
    contracturen = NumberField(
        _l("Contracturen per week"),
        message=_l("Vul een aantal uren in, bijvoorbeeld 40 of 32,5."),
        description=_l(
            "Voor chauffeurs zonder eigen contracturen; een kortere week wordt "
            "aangevuld tot de contracturen."
        ),
    )
    overuren_grens = RadioField(
        _l("Overuren vanaf"),
        choices=[SelectChoice(k, v) for k, v in OVERUREN_LABELS.items()],
        validate_choice=False,
    )
    dubbele_bemanning = BooleanField(
        _l("Dubbel bemande voertuigen"),
        description=_l(
            "De week voor overuren loopt tot zaterdag 07:00 en de zaterdagtoeslag begint om "
            "07:00 (artikel 27 lid 2 en 33 lid 2)."
        ),
    )
    betaalde_soorten = SelectMultipleField(
        _l("Betaalde activiteiten"),
        choices=[SelectChoice(s, SOORT_LABELS[s]) for s in SOORTEN],
        validate_choice=False,
    )
    overuren_procent = PercentField(
        _l("Overuren (%)"), message=_l("Vul een heel percentage in, bijvoorbeeld 130.")
    )
    zaterdag_procent = PercentField(
        _l("Zaterdag (%)"), message=_l("Vul een heel percentage in, bijvoorbeeld 150.")
    )
    zondag_procent = PercentField(
        _l("Zondag en feestdagen (%)"),
        message=_l("Vul een heel percentage in, bijvoorbeeld 200."),
    )
    samenloop = RadioField(
        _l("Overuren in onregelmatige uren"),
        choices=[SelectChoice(k, v) for k, v in SAMENLOOP_LABELS.items()],
        validate_choice=False,
    )
    nachtrit_procent = PercentField(
        _l("Toeslag eendaagse nachtrit (%)"),
        message=_l("Vul een heel percentage in, bijvoorbeeld 19."),
        description=_l(
            "Bovenop het uurloon voor de diensturen van een eendaagse rit tussen de twee "
            "tijden, ook naast overuren; 0 is geen toeslag (artikel 37)."
        ),
    )
    nachtrit_van = StringField(
        _l("Nachtrit van"), render_kw={"placeholder": "21:00", "inputmode": "numeric"}
    )
    nachtrit_tot = StringField(
        _l("Nachtrit tot"), render_kw={"placeholder": "05:00", "inputmode": "numeric"}
    )
    vensters = FieldList(FormField(WindowForm), min_entries=0)
    feestdagen = SelectMultipleField(
        _l("Betaalde feestdagen"),
        choices=[SelectChoice(k, FEESTDAG_LABELS[k]) for k in cao.FEESTDAGEN],
        validate_choice=False,
    )
    extra_feestdagen = DatesField(
        _l("Eigen vrije dagen"),
        description=_l("Betaald als feestdag. Eén datum per regel, bijvoorbeeld 24-12-2026."),
        render_kw={"rows": 3},
    )
    max_dag = NumberField(
        _l("Waarschuwing boven (uren per dag)"),
        message=_l("Vul een aantal uren in, bijvoorbeeld 15."),
        description=_l("Een dag met meer betaalde uren krijgt een waarschuwing bij de controle."),
    )
    drempel = NumberField(
        _l("Verblijfkosten vanaf (uren afwezig)"),
        message=_l("Vul een aantal uren in, bijvoorbeeld 4."),
        description=_l("Een rit levert pas iets op als de afwezigheid langer is dan dit."),
    )
    bedragen = FieldList(
        NumberField(message=_l("Vul een bedrag in, bijvoorbeeld 4,35."), places=2),
        min_entries=0,
    )


# --- the amounts of the verblijfkosten, in the order of cao's checks -----------------------


@dataclasses.dataclass(frozen=True)
class Amount:
    """One amount of the verblijfkosten: where it sits (cao's field path), its tariff and its
    name, whether per hour, and its value."""

    veld: str
    deel: str
    naam: str
    per_uur: bool
    bedrag: Decimal
    tijden: str = ""  # an hourly amount's hours of the day: "18:00 to 24:00"


def amounts(rules: cao.PayRules) -> list[Amount]:
    found = []
    for deel in DELEN:
        tarief: cao.DayRate = getattr(rules.verblijfkosten, deel)
        for i, uur in enumerate(tarief.uurtarieven):
            path = f"verblijfkosten.{deel}.uurtarieven[{i}]"
            tijden = f"{uur.van}\u2013{uur.tot}"
            naam = str(ALLOWANCE_NAMES.get(uur.naam, uur.naam))
            found.append(Amount(path, deel, naam, True, uur.bedrag_per_uur, tijden))
        for i, vast in enumerate(tarief.vaste_bedragen):
            path = f"verblijfkosten.{deel}.vaste_bedragen[{i}]"
            naam = str(ALLOWANCE_NAMES.get(vast.naam, vast.naam))
            found.append(Amount(path, deel, naam, False, vast.bedrag))
    return found


def _with_amounts(kosten: cao.Allowances, values: list) -> cao.Allowances:
    """kosten with its amounts, in amounts()' order, replaced by values."""
    values = iter(values)
    parts = {}
    for deel in DELEN:
        tarief: cao.DayRate = getattr(kosten, deel)
        uren = tuple(
            dataclasses.replace(u, bedrag_per_uur=next(values, None)) for u in tarief.uurtarieven
        )
        vast = tuple(
            dataclasses.replace(v, bedrag=next(values, None)) for v in tarief.vaste_bedragen
        )
        parts[deel] = cao.DayRate(uurtarieven=uren, vaste_bedragen=vast)
    return dataclasses.replace(kosten, **parts)


def _minutes(hours: Decimal | None):
    """Hours as minutes: an int when whole, else the Decimal (cao refuses it)."""
    if hours is None:
        return None
    minutes = hours * 60
    return int(minutes) if minutes == minutes.to_integral_value() else minutes


def fill(form: RuleSetForm, rules: cao.PayRules, *, basis: str) -> None:
    """Put a rule set in an unsubmitted form, with empty window rows below its own."""
    form.basis.data = basis
    form.geldig_vanaf.data = rules.geldig_vanaf
    form.naam.data = rules.naam
    form.contracturen.data = Decimal(rules.contracturen)
    form.betaalde_soorten.data = list(rules.betaalde_soorten)
    for name in (
        "overuren_grens",
        "dubbele_bemanning",
        "overuren_procent",
        "zaterdag_procent",
        "zondag_procent",
        "samenloop",
        "nachtrit_procent",
        "nachtrit_van",
        "nachtrit_tot",
    ):
        form[name].data = getattr(rules, name)
    for venster in rules.vensters:
        form.vensters.append_entry(
            {
                "naam": venster.naam,
                "dagen": list(venster.dagen),
                "van": venster.van,
                "tot": venster.tot,
                "procent": venster.procent,
            }
        )
    form.feestdagen.data = list(rules.feestdagen)
    form.extra_feestdagen.data = rules.extra_feestdagen
    form.max_dag.data = Decimal(rules.max_dag_min) / 60
    form.drempel.data = Decimal(rules.verblijfkosten.drempel_min) / 60
    for amount in amounts(rules):
        form.bedragen.append_entry(amount.bedrag)
    add_empty_rows(form)


def add_empty_rows(form: RuleSetForm, count: int = EMPTY_ROWS) -> None:
    for _ in range(count):
        form.vensters.append_entry()


def used_rows(form: RuleSetForm) -> list[int]:
    """The indexes of the window rows that are filled in (empty rows are ignored)."""
    return [i for i, row in enumerate(form.vensters.entries) if not row.form.is_empty()]


def rules_from(form: RuleSetForm, base: cao.PayRules) -> cao.PayRules:
    """The rule set the validated form describes; what the form does not edit (the structure
    of the verblijfkosten, the source text) comes from base."""
    vensters = []
    for i in used_rows(form):
        row = form.vensters.entries[i].form
        vensters.append(
            cao.Window(
                naam=(row.naam.data or "").strip(),
                dagen=tuple(sorted(set(row.dagen.data or ()))),
                van=(row.van.data or "").strip(),
                tot=(row.tot.data or "").strip(),
                procent=row.procent.data,
            )
        )
    kosten = _with_amounts(base.verblijfkosten, [entry.data for entry in form.bedragen.entries])
    return dataclasses.replace(
        base,
        geldig_vanaf=form.geldig_vanaf.data,
        naam=(form.naam.data or "").strip(),
        contracturen=form.contracturen.data,
        betaalde_soorten=tuple(s for s in SOORTEN if s in (form.betaalde_soorten.data or ())),
        overuren_procent=form.overuren_procent.data,
        zaterdag_procent=form.zaterdag_procent.data,
        zondag_procent=form.zondag_procent.data,
        samenloop=form.samenloop.data,
        overuren_grens=form.overuren_grens.data,
        dubbele_bemanning=bool(form.dubbele_bemanning.data),
        nachtrit_procent=form.nachtrit_procent.data,
        nachtrit_van=(form.nachtrit_van.data or "").strip(),
        nachtrit_tot=(form.nachtrit_tot.data or "").strip(),
        vensters=tuple(vensters),
        feestdagen=tuple(k for k in cao.FEESTDAGEN if k in (form.feestdagen.data or ())),
        extra_feestdagen=form.extra_feestdagen.data or (),
        max_dag_min=_minutes(form.max_dag.data),
        verblijfkosten=dataclasses.replace(kosten, drempel_min=_minutes(form.drempel.data)),
    )
