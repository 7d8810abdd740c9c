"""Portal forms of customers: the customer form, the place form, the list's filters."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from wtforms import SelectChoice, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, Optional, ValidationError

from portal.customers.models import PLACE_KINDS
from portal.customers.rules import LIMITS
from portal.customers.words import SOORT_LABELS
from portal.fleet.pages.forms import DecimalCommaField
from portal.validators import PortalForm

ACTIVE_FILTERS = {
    "actief": _l("Actief"),
    "inactief": _l("Gedeactiveerd"),
    "alle": _l("Alle"),
}


# The VAT treatments a customer can have of its own; empty: each tariff's category holds.
VAT_TREATMENTS = {
    "": _l("Zoals het tarief zegt"),
    "AE": _l("Btw verlegd (ondernemer in een ander EU-land)"),
    "O": _l("Niet onderworpen aan btw (ondernemer buiten de EU)"),
    "Z": _l("Nultarief (vervoer bij in- of uitvoer)"),
    "E": _l("Vrijgesteld van btw"),
}
_ADDRESS = {"autocomplete": "off"}


def _length(name: str) -> list:
    return [Optional(), Length(max=LIMITS[name], message=_l("Dit is te lang."))]


class CustomerForm(PortalForm):
    naam = StringField(
        _l("Naam"),
        validators=[DataRequired(_l("Vul de naam van de klant in.")), *_length("naam")[1:]],
        description=_l("Zoals op de factuur, bijvoorbeeld “Maatschap Ter Horst”."),
    )
    debiteurnummer = StringField(
        _l("Debiteurnummer"),
        validators=_length("debiteurnummer"),
        description=_l("Het nummer van de klant in je boekhouding; uniek als je het invult."),
        render_kw={"autocomplete": "off"},
    )
    btw_nummer = StringField(
        _l("Btw-nummer"),
        validators=_length("btw_nummer"),
        description=_l("Bijvoorbeeld NL123456789B01, of een btw-nummer uit een ander EU-land."),
        render_kw={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"},
    )
    factuur_email = StringField(
        _l("E-mail voor facturen"),
        validators=_length("factuur_email"),
        render_kw={"type": "email", "autocomplete": "off"},
    )
    factuur_adres = StringField(
        _l("Straat en huisnummer"), validators=_length("factuur_adres"), render_kw=_ADDRESS
    )
    factuur_postcode = StringField(
        _l("Postcode"), validators=_length("factuur_postcode"), render_kw=_ADDRESS
    )
    factuur_plaats = StringField(
        _l("Plaats"), validators=_length("factuur_plaats"), render_kw=_ADDRESS
    )
    factuur_land = SelectField(_l("Land"), choices=[], validate_choice=False)
    kvk_nummer = StringField(
        _l("KvK-nummer"),
        validators=_length("kvk_nummer"),
        description=_l("8 cijfers. Een Nederlandse klant krijgt e-facturen via Peppol hierop."),
        render_kw={"autocomplete": "off", "inputmode": "numeric"},
    )
    gln = StringField(
        _l("GLN"),
        validators=_length("gln"),
        description=_l("Het GS1-locatienummer van 13 cijfers, als de klant het gebruikt."),
        render_kw={"autocomplete": "off", "inputmode": "numeric"},
    )
    peppol_id = StringField(
        _l("Peppol-ID"),
        validators=_length("peppol_id"),
        description=_l(
            "Alleen als de klant een ander Peppol-adres opgeeft, bijvoorbeeld 9925:BE0123456789."
        ),
        render_kw={"autocomplete": "off", "spellcheck": "false"},
    )
    btw_categorie = SelectField(_l("Btw"), choices=[], validate_choice=False)
    btw_vrijstellingsreden = StringField(
        _l("Reden of bewijs"),
        validators=_length("btw_vrijstellingsreden"),
        description=_l("Staat op de factuur. Leeg bij btw verlegd: dan staat er “Btw verlegd”."),
    )
    opmerkingen = TextAreaField(
        _l("Opmerkingen"),
        validators=_length("opmerkingen"),
        description=_l("Voor planners en de administratie."),
    )

    def set_choices(self, countries: list[tuple[str, str]]) -> None:
        """The invoice address's countries (EN 16931's list) and the VAT treatments."""
        self.factuur_land.choices = [SelectChoice(code, name) for code, name in countries]
        self.btw_categorie.choices = [SelectChoice(k, v) for k, v in VAT_TREATMENTS.items()]

    def customer_data(self) -> dict:
        """The form's fields as the service takes them."""
        return {name: self[name].data for name in self.data if name != "csrf_token"}


class PlaceForm(PortalForm):
    naam = StringField(
        _l("Naam"),
        validators=[DataRequired(_l("Vul de naam van de locatie in.")), *_length("naam")[1:]],
        description=_l("Bijvoorbeeld “Erf Enter” of “Mengvoederfabriek”."),
    )
    soort = SelectField(
        _l("Soort"),
        choices=[SelectChoice(key, label) for key, label in SOORT_LABELS.items()],
        default="beide",
    )
    adres = StringField(_l("Adres"), validators=_length("adres"))
    postcode = StringField(_l("Postcode"), validators=_length("postcode"))
    stad = StringField(_l("Plaats"), validators=_length("stad"))
    land = StringField(
        _l("Land"),
        validators=[DataRequired(_l("Vul een landcode in.")), Length(max=2)],
        default="NL",
        description=_l("Landcode van 2 letters: NL, DE, BE."),
        render_kw={"maxlength": 2, "autocapitalize": "characters"},
    )
    locatie_lat = DecimalCommaField(
        _l("Breedtegraad"), validators=[Optional()], render_kw={"inputmode": "decimal"}
    )
    locatie_lng = DecimalCommaField(
        _l("Lengtegraad"),
        validators=[Optional()],
        render_kw={"inputmode": "decimal"},
        description=_l("Bijvoorbeeld 52,2936 en 6,5714: beide of geen van twee."),
    )
    openingstijden = TextAreaField(
        _l("Openingstijden"),
        validators=_length("openingstijden"),
        description=_l("Bijvoorbeeld “ma-vr 6:00-17:00, za tot 12:00”."),
    )
    contactpersoon = StringField(_l("Contactpersoon"), validators=_length("contactpersoon"))
    telefoon = StringField(
        _l("Telefoon"), validators=_length("telefoon"), render_kw={"type": "tel"}
    )
    opmerkingen = TextAreaField(
        _l("Opmerkingen voor de chauffeur"),
        validators=_length("opmerkingen"),
        description=_l("Bijvoorbeeld de route over het erf of waar de sleutel ligt."),
    )

    def validate_soort(self, field) -> None:
        if field.data not in PLACE_KINDS:
            raise ValidationError(_l("Kies een soort."))

    def place_data(self) -> dict:
        """The form's fields as the service takes them."""
        return {name: self[name].data for name in self.data if name != "csrf_token"}


class CustomerFilterForm(PortalForm):
    """The list's filters (GET; no CSRF: it changes nothing)."""

    class Meta:
        csrf = False

    q = StringField(_l("Zoeken"), validators=[Optional(), Length(max=100)])
    status = SelectField(
        _l("Status"),
        choices=[SelectChoice(key, label) for key, label in ACTIVE_FILTERS.items()],
        default="actief",
    )

    def clean(self, name: str):
        """A filter's value when valid, else its default."""
        field = self[name]
        if field.errors:
            return field.default
        if isinstance(field, SelectField):
            valid = {value for value, *_rest in field.iter_choices()}
            return field.data if field.data in valid else field.default
        return field.data


class ConfirmForm(PortalForm):
    """A confirmation: only its CSRF token."""
