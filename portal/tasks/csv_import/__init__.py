"""Reading a CSV of tasks: decoding, columns, values, matching drivers, plates, customers
and their places, checking.

Pure functions over the file's text, plus one lookup of the carrier's drivers, vehicles,
customers and the places of the customers the file names (`directory`). Each row's values
go through the API's own `TaskCreate`, so a row the import accepts is exactly a task the API
would accept; only the CSV's way of writing values (ja/nee, decimal commas, local times,
names instead of ids) is translated here first.

By job: `columns` (what a file may hold), `reading` (the file), `matching` (names against the
carrier's own), `checking` (its rows), `writing` (the example); this package answers for all
of them. Reading, staging, the error report and the one unit of work of the import are the
import kit's (portal/imports/).
"""

from portal.imports import ROW, SILENT_COLUMNS, FileRefused, ParsedFile, normalise_header
from portal.tasks.csv_import.checking import (
    FALSE,
    LOCAL_FORMATS,
    TRUE,
    add_service_errors,
    check,
    check_row,
    parse_moment,
)
from portal.tasks.csv_import.columns import (
    ALIASES,
    COLUMN_HELP,
    COLUMN_ORDER,
    COLUMNS,
    FIELD_COLUMNS,
    ID_FIELDS,
    KINDS,
    LOOKUP_COLUMNS,
    LOOKUP_FIELDS,
    MAX_BYTES,
    MAX_ROWS,
    REQUIRED_COLUMNS,
    RowResult,
)
from portal.tasks.csv_import.matching import (
    PLACE_COLUMNS,
    Directory,
    directory,
    match_customer,
    match_driver,
    match_place,
    match_vehicle,
)
from portal.tasks.csv_import.reading import read_csv
from portal.tasks.csv_import.writing import EXAMPLE_ROWS, example_csv

__all__ = [
    "ALIASES",
    "COLUMNS",
    "COLUMN_HELP",
    "COLUMN_ORDER",
    "EXAMPLE_ROWS",
    "FALSE",
    "FIELD_COLUMNS",
    "ID_FIELDS",
    "KINDS",
    "LOCAL_FORMATS",
    "LOOKUP_COLUMNS",
    "LOOKUP_FIELDS",
    "MAX_BYTES",
    "MAX_ROWS",
    "PLACE_COLUMNS",
    "REQUIRED_COLUMNS",
    "ROW",
    "SILENT_COLUMNS",
    "TRUE",
    "Directory",
    "FileRefused",
    "ParsedFile",
    "RowResult",
    "add_service_errors",
    "check",
    "check_row",
    "directory",
    "example_csv",
    "match_customer",
    "match_driver",
    "match_place",
    "match_vehicle",
    "normalise_header",
    "parse_moment",
    "read_csv",
]
