"""The import kit: what the tasks import and the customers import share, so each domain
keeps only what is its own (its columns, its matching, its rows' rules, its service).

- `files`: the file as the import carries it (`ParsedFile`, `RowResult` with errors at the
  cell, `FileRefused`), the column handling (`Columns`, `map_columns`, `normalise_header`)
  and how a cell and a name are compared (`cell_text`, `name_key`);
- `reading`: a CSV (Dutch Excel's or another) or an XLSX's first sheet as header and rows;
- `xlsx_rows`: the XLSX reader itself, as a stream within budgets;
- `staging`: where an upload waits between its preview and its import (`Staging`);
- `steps`: a domain's `Steps`: the upload received, the valid rows committed once in one
  unit of work; the preview's context, the error report.

A shared leaf: it imports no domain.
"""

from portal.imports.files import (
    ROW,
    SILENT_COLUMNS,
    Columns,
    FileRefused,
    ParsedFile,
    RowResult,
    cell_text,
    map_columns,
    name_key,
    normalise_header,
)
from portal.imports.reading import decode, read_table, sniff_delimiter
from portal.imports.staging import TTL_SECONDS, Staging
from portal.imports.steps import (
    Imported,
    Nothing,
    Steps,
    download,
    error_report,
    form_limits,
    preview_context,
    report_download,
)

__all__ = [
    "ROW",
    "SILENT_COLUMNS",
    "TTL_SECONDS",
    "Columns",
    "FileRefused",
    "Imported",
    "Nothing",
    "ParsedFile",
    "RowResult",
    "Staging",
    "Steps",
    "cell_text",
    "decode",
    "download",
    "error_report",
    "form_limits",
    "map_columns",
    "name_key",
    "normalise_header",
    "preview_context",
    "read_table",
    "report_download",
    "sniff_delimiter",
]
