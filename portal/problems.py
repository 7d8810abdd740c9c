"""Problems in the user's language: one catalogue from a problem's stable code to its wording.

Services and the questionnaire engine describe a problem by a code and params (with an English
message for the API); screens word it here. Codes come from the questionnaire engine's
reasons (engine.MESSAGES) and the completion check (lifecycle.COMPLETION_BLOCKERS); a test
fails when one of them has no Dutch and English text here.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask_babel import format_decimal
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal import question_labels as labels

TEXTS = {
    # --- completing a task (lifecycle.completion_blockers)
    "photos_too_few": _l("Foto's: %(given)s van minstens %(min)s"),
    "photos_too_many": _l("Te veel foto's: %(given)s, hoogstens %(max)s"),
    "signature_missing": _l("Handtekening ontbreekt"),
    "scan_missing": _l("Documentscan ontbreekt"),
    "location_missing": _l("Locatie van de chauffeur ontbreekt"),
    "location_missing_agr": _l(
        "Locatie van de chauffeur ontbreekt (nodig voor de AGR-GPS-registratie)"
    ),
    "temperature_missing": _l("Gemeten temperatuur ontbreekt (vereist %(required)s °C)"),
    "disinfection_unconfirmed": _l("Desinfectie is nog niet bevestigd"),
    "questionnaire_not_submitted": _l("De vragenlijst is nog niet ingevuld en ingediend"),
    # --- formulas (engine: formula_syntax)
    "formula_not_string": _l("Een formule moet tekst zijn, niet %(type)s."),
    "formula_too_long": _l("De formule is langer dan %(limit)s tekens."),
    "formula_empty": _l("De formule is leeg."),
    "formula_unclosed_brace": _l("Bij teken %(position)s staat een “{” zonder “}”."),
    "formula_single_equals": _l("Bij teken %(position)s staat één “=”; vergelijk met “==”."),
    "formula_bad_character": _l("Onverwacht teken “%(char)s” bij teken %(position)s."),
    "formula_bad_braced_id": _l(
        "Tussen de accolades bij teken %(position)s staat geen geldige id."
    ),
    "formula_expected": _l(
        "Bij teken %(position)s hoort “%(expected)s”, maar er staat “%(token)s”."
    ),
    "formula_expected_end": _l(
        "De formule houdt op bij teken %(position)s, maar er hoort nog “%(expected)s”."
    ),
    "formula_too_deep": _l("De formule is te diep genest (meer dan %(limit)s lagen)."),
    "formula_chained_comparison": _l(
        "Vergelijkingen kunnen niet aan elkaar vast; combineer ze met “and”."
    ),
    "formula_unexpected": _l("Onverwacht “%(token)s” bij teken %(position)s."),
    "formula_unexpected_end": _l("De formule houdt onverwacht op bij teken %(position)s."),
    "formula_unknown_function": _l("Onbekende functie “%(name)s” bij teken %(position)s."),
    "formula_arguments": _l("%(name)s() krijgt %(min)s argument(en), niet %(given)s."),
    "formula_arguments_range": _l(
        "%(name)s() krijgt %(min)s of %(max)s argumenten, niet %(given)s."
    ),
    "formula_arguments_least": _l(
        "%(name)s() krijgt minstens %(min)s argument(en), niet %(given)s."
    ),
    # --- values: answers, default values and compared values
    "not_a_number": _l("Moet een getal zijn, niet %(type)s."),
    "not_an_integer": _l("Moet een geheel getal zijn, niet %(type)s."),
    "not_whole": _l("Moet een geheel getal zijn."),
    "not_finite": _l("Moet een eindig getal zijn."),
    "number_too_large": _l("Het getal is te groot."),
    "not_a_boolean": _l("Moet ja of nee zijn, niet %(type)s."),
    "not_a_string": _l("Moet tekst zijn, niet %(type)s."),
    "text_too_long": _l("Hoogstens %(limit)s tekens."),
    "not_an_option": _l("“%(value)s” is geen van de keuzes."),
    "not_an_option_list": _l("Moet een lijst van keuzes zijn."),
    "option_chosen_twice": _l("Dezelfde keuze staat er twee keer in."),
    "date_invalid": _l("Moet een geldige datum zijn (JJJJ-MM-DD)."),
    "time_invalid": _l("Moet een geldige tijd zijn (UU:MM of UU:MM:SS)."),
    "datetime_invalid": _l("Moet een geldige datum en tijd zijn (JJJJ-MM-DDTUU:MM)."),
    "files_invalid": _l("Moet een lijst van bestands-id's zijn."),
    "file_listed_twice": _l("Hetzelfde bestand staat er twee keer in."),
    "too_many_files": _l("Hoogstens %(limit)s bestand(en)."),
    "location_invalid": _l("Moet een breedte- en lengtegraad zijn."),
    "location_not_numbers": _l("Breedte- en lengtegraad moeten getallen zijn."),
    "location_out_of_range": _l(
        "De breedtegraad ligt tussen -90 en 90, de lengtegraad tussen -180 en 180."
    ),
    "takes_no_answer": _l("Deze vraag heeft geen antwoord."),
    "below_min": _l("Minstens %(min)s."),
    "above_max": _l("Hoogstens %(max)s."),
    "too_few_chosen": _l("Kies er minstens %(min)s."),
    "too_many_chosen": _l("Kies er hoogstens %(max)s."),
    "too_short": _l("Minstens %(min)s tekens."),
    "too_long": _l("Hoogstens %(max)s tekens."),
    "pattern_mismatch": _l("Dit heeft niet de gevraagde vorm."),
    "condition_value_not_null": _l("Bij “%(operator)s” hoort geen waarde."),
    "condition_value_needed": _l(
        "Bij “%(operator)s” hoort een waarde (test met “is niet ingevuld” op een leeg antwoord)."
    ),
    "condition_list_needed": _l("Bij “%(operator)s” hoort minstens één waarde."),
    "condition_too_many_values": _l("Hoogstens %(limit)s waarden."),
    "condition_not_a_string": _l("Moet tekst zijn."),
    # --- questionnaire definitions
    "definition_not_object": _l("Een vragenlijst moet een JSON-object zijn, niet %(type)s."),
    "field_required": _l("%(name)s is verplicht."),
    "field_empty": _l("%(name)s mag niet leeg zijn."),
    "field_not_string": _l("%(name)s moet tekst zijn, niet %(type)s."),
    "field_too_long": _l("%(name)s is langer dan %(limit)s tekens."),
    "field_not_boolean": _l("%(name)s moet ja of nee zijn."),
    "field_not_integer": _l("%(name)s moet een geheel getal zijn."),
    "field_not_object": _l("%(name)s moet een JSON-object zijn."),
    "field_not_list": _l("%(name)s moet een lijst zijn."),
    "field_negative": _l("%(name)s mag niet negatief zijn."),
    "field_below_one": _l("%(name)s moet minstens 1 zijn."),
    "field_above_limit": _l("%(name)s mag hoogstens %(limit)s zijn."),
    "field_not_for_type": _l("%(name)s hoort niet bij een vraag van type “%(qtype)s”."),
    "id_invalid": _l("Een id bestaat uit letters, cijfers, '_', '.' en '-' (geen spaties)."),
    "slug_invalid": _l("Een activiteit bestaat uit kleine letters, cijfers, '_' en '-'."),
    "unknown_field": _l("Onbekend veld “%(name)s”: Rijplan kent het niet."),
    "schema_version_unknown": _l("Schemaversie %(version)s kent Rijplan niet (alleen %(known)s)."),
    "question_not_object": _l("Een vraag moet een JSON-object zijn, niet %(type)s."),
    "type_unknown": _l("Onbekend vraagtype “%(qtype)s”."),
    "duplicate_id": _l("De id “%(id)s” wordt al gebruikt door een eerdere vraag."),
    "no_answer_flag": _l("Een %(qtype)s heeft geen antwoord en kan dus niet “%(name)s” zijn."),
    "group_needs_question": _l("Een groep heeft minstens één vraag nodig."),
    "questionnaire_needs_question": _l("Een vragenlijst heeft minstens één vraag nodig."),
    "too_deep": _l("Groepen kunnen hoogstens %(limit)s lagen diep in elkaar."),
    "too_many_questions": _l("Een vragenlijst heeft hoogstens %(limit)s vragen."),
    "options_missing": _l("Geef minstens één keuze."),
    "options_empty": _l("Geef minstens één keuze."),
    "options_not_list": _l("De keuzes moeten een lijst met tekst zijn."),
    "too_many_options": _l("Een vraag heeft hoogstens %(limit)s keuzes."),
    "option_not_string": _l("Een keuze moet tekst zijn, niet %(type)s."),
    "option_empty": _l("Een keuze mag niet leeg zijn."),
    "option_too_long": _l("Een keuze is hoogstens %(limit)s tekens."),
    "duplicate_option": _l("De keuze “%(option)s” staat er twee keer in."),
    "regex_not_string": _l("Een patroon moet tekst zijn."),
    "regex_too_long": _l("Een patroon is hoogstens %(limit)s tekens."),
    "regex_invalid": _l("Dit patroon is geen geldige reguliere expressie (RE2): %(error)s"),
    "regex_too_complex": _l(
        "Dit patroon is te ingewikkeld om snel te controleren (hoogstens %(limit)s stappen); "
        "maak het eenvoudiger."
    ),
    "min_gt_max": _l("%(low)s (%(low_value)s) is groter dan %(high)s (%(high_value)s)."),
    "operator_unknown": _l("Onbekende vergelijking “%(operator)s”."),
    "formula_missing": _l("Een berekening heeft een formule nodig."),
    "readonly_without_default": _l(
        "Een verplichte alleen-lezen vraag heeft een standaardwaarde nodig."
    ),
    "default_not_allowed": _l("Een vraag van type “%(qtype)s” heeft geen standaardwaarde."),
    "unknown_reference": _l("Er is geen vraag met id “%(id)s”."),
    "self_reference": _l("Een vraag kan niet van zichzelf afhangen."),
    "enclosing_reference": _l("Een vraag kan niet afhangen van de groep waar ze in staat."),
    "forward_reference": _l(
        "Een vraag kan alleen afhangen van een eerdere vraag; “%(id)s” komt later."
    ),
    "reference_type": _l("“%(id)s” is een %(qtype)s en heeft geen antwoord om op te testen."),
    "operator_type": _l("“%(operator)s” past niet bij een vraag van type “%(qtype)s”."),
    "formula_unknown_id": _l("De formule gebruikt een vraag die niet bestaat (“%(id)s”)."),
    "formula_type": _l(
        "“%(id)s” is een %(qtype)s; een formule rekent alleen met getallen, berekeningen en "
        "ja/nee-vragen."
    ),
    "formula_cycle": _l("De formule hangt via %(names)s af van haar eigen uitkomst."),
    # --- answers
    "answers_not_object": _l("De antwoorden moeten een JSON-object zijn."),
    "required": _l("Dit is verplicht."),
    "not_calculated": _l("Dit kon niet worden berekend."),
    "unknown_question": _l("Onbekende vraag “%(id)s”."),
    # --- a push that did not reach a phone (messages.failures, prefixed "push_")
    "push_no_subscription": _l(
        "geen telefoon aangemeld voor pushmeldingen; het bericht staat wel in de app"
    ),
    "push_network_error": _l("netwerkfout naar de pushdienst (%(error)s)"),
    "push_endpoint_refused": _l("adres van de pushdienst geweigerd (%(detail)s)"),
    "push_subscription_invalid": _l("ongeldig push-abonnement (%(detail)s)"),
    "push_subscription_gone": _l("het push-abonnement bestaat niet meer (HTTP %(http)s)"),
    "push_service_unavailable": _l("pushdienst tijdelijk niet beschikbaar (HTTP %(http)s)"),
    "push_service_refused": _l("de pushdienst weigerde het bericht (HTTP %(http)s)"),
    "push_internal_error": _l("interne fout in de berichtendienst (%(error)s)"),
    "push_given_up": _l("opgegeven na %(attempts)s pogingen: %(last)s"),
    # --- a webhook delivery that did not arrive (webhooks.failures, prefixed "webhook_")
    "webhook_url_refused": _l("het adres van het endpoint is geweigerd (%(reason)s)"),
    "webhook_network_error": _l("netwerkfout naar het endpoint (%(error)s)"),
    "webhook_connection_refused": _l("de server van het endpoint weigerde de verbinding"),
    "webhook_timeout": _l("geen antwoord binnen %(seconds)s seconden"),
    "webhook_redirect": _l(
        "het endpoint antwoordde met een doorverwijzing (HTTP %(http)s); die volgen we niet"
    ),
    "webhook_unavailable": _l("het endpoint is tijdelijk niet bereikbaar (HTTP %(http)s)"),
    "webhook_refused": _l("het endpoint weigerde de gebeurtenis (HTTP %(http)s)"),
    "webhook_internal_error": _l("interne fout in de webhookdienst (%(error)s)"),
    "webhook_given_up": _l("opgegeven na %(attempts)s pogingen: %(last)s"),
    # --- why an address the server would post to is refused (portal/outbound.py)
    "url_invalid_url": _l("geen geldig adres"),
    "url_not_https": _l("het moet een https-adres zijn"),
    "url_no_host": _l("er staat geen server in het adres"),
    "url_credentials": _l("er mag geen gebruikersnaam of wachtwoord in het adres staan"),
    "url_bad_port": _l("ongeldige poort"),
    "url_bad_host": _l(
        "de server in het adres is geen gewone naam of adres (schrijf een IP-adres in de "
        "gewone vorm, een internationale naam als xn--…, en geen punt aan het eind)"
    ),
    "url_private_host": _l(
        "het adres moet op een openbare server staan, niet in een eigen netwerk"
    ),
}

JSON_TYPES = {
    "null": _l("leeg (null)"),
    "boolean": _l("ja/nee"),
    "number": _l("een getal"),
    "string": _l("tekst"),
    "list": _l("een lijst"),
    "object": _l("een object"),
}


class _Params(dict):
    """Params for a template: a name the problem did not bring shows as a dash, never a 500."""

    def __missing__(self, key: str) -> str:
        return "—"


def _number(value: float | int) -> str:
    """A number in the user's locale ("12,5"), whole numbers without decimals."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    return format_decimal(value, format="0.######")  # no grouping: "2000 tekens", "4,5 °C"


def _param(name: str, value: object) -> str:
    """One param as the user reads it."""
    if name == "type":
        return str(JSON_TYPES.get(str(value), value))
    if name == "qtype":
        return str(labels.TYPE_LABELS.get(str(value), value)).lower()
    if name == "operator":
        return str(labels.OPERATOR_LABELS.get(str(value), value))
    if name in ("name", "low", "high"):
        for key in (str(value), f"validation.{value}", f"visible_if.{value}"):
            if key in labels.FIELD_LABELS:
                return labels.field_label(key)
        return str(value)
    if name == "position" and isinstance(value, int):
        return str(value + 1)  # the engine counts from 0, people from 1
    if value is None:
        return "—"
    if isinstance(value, bool):
        return _("ja") if value else _("nee")
    if isinstance(value, (int, float)):
        return _number(value)
    return str(value)


def has_text(code: str) -> bool:
    return code in TEXTS


def say(code: str, params: Mapping | None = None, fallback: str = "") -> str:
    """A problem in the user's language, from its code and params (the fallback when unknown)."""
    template = TEXTS.get(code)
    if template is None:
        return fallback or code
    values = _Params({name: _param(name, value) for name, value in (params or {}).items()})
    return str(template) % values
