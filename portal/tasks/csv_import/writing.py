"""The example file for the planner (the error report is the import kit's)."""

from __future__ import annotations

from portal import spreadsheets
from portal.tasks.csv_import.columns import COLUMN_ORDER

EXAMPLE_ROWS = (
    {
        "naam": "Mest laden Enter",
        "type": "mest_laden",
        "gepland_op": "2026-11-23 07:30",
        "chauffeur": "Jan de Vries",
        "kenteken": "BX-12-AB",
        "klant": "10023",
        "laadplaats": "Erf Enter",
        "losplaats": "Mestverwerking",
        "hoeveelheid": "32,5",
        "eenheid": "ton",
        "vdm_nummer": "2611230412",
        "duur_min": "90",
        "agr_verplicht": "ja",
        "require_photos": "ja",
        "min_fotos": "2",
    },
    {
        "naam": "Varkens naar Deurne",
        "type": "vee_transport",
        "gepland_op": "24-11-2026 05:45",
        "chauffeur": "sanne@voorbeeld.nl",
        "kenteken": "VT123X",
        "klant": "Varkenshouderij Jansen",
        "laadplaats": "Stal",
        "los_naam": "Slachterij Deurne",
        "los_adres": "Kanaaldijk 3",
        "los_stad": "Deurne",
        "los_land": "NL",
        "required_desinfectie": "ja",
        "require_signature": "ja",
        "opmerkingen": "Bel bij aankomst",
    },
)


def example_csv() -> str:
    """An example file with every column, separated by ';' as Dutch spreadsheets write it."""
    rows = ([row.get(name, "") for name in COLUMN_ORDER] for row in EXAMPLE_ROWS)
    return spreadsheets.csv_text([COLUMN_ORDER, *rows])
