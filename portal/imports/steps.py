"""The steps every import takes, the same for each domain (a domain's `Steps`): the upload
read and kept (`receive`), the valid rows imported in one unit of work, once (`commit`), the
preview's context, and the rows with errors handed back as a CSV to fix (`error_report`,
`report_download`). What a row holds and becomes is the domain's: it reads the file by its
`Columns`, checks the rows, and imports them through its service."""

from __future__ import annotations

import logging
import os
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from flask import Response, flash, redirect, request, url_for
from flask_babel import format_decimal
from flask_babel import gettext as _

from portal import spreadsheets
from portal.errors import ValidationFailed
from portal.imports.files import (
    ROW,
    SILENT_COLUMNS,
    Columns,
    FileRefused,
    ParsedFile,
    RowResult,
)
from portal.imports.files import normalise_header as _normalise
from portal.imports.staging import Staging
from portal.unit_of_work import after_commit, after_rollback, refused

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Imported:
    """What an import did: kept with the upload (`record["imported"]`), and told."""

    summary: dict
    message: str


@dataclass(frozen=True)
class Nothing:
    """Nothing to import; the upload stays free to import later."""

    message: str


Work = Callable[[], "Imported | Nothing | Response"]


@dataclass(frozen=True)
class Steps:
    """One domain's import: where its uploads wait, how it reads a file, the text that asks
    for one, and its preview page (an endpoint taking the upload's token)."""

    staging: Staging
    read: Callable[[bytes, str], ParsedFile]
    max_bytes: int
    choose: str  # lazy text: no file was chosen
    preview: str

    def back(self, token: str) -> Response:
        return redirect(url_for(self.preview, token=token), 303)

    def load(self, token: str, *, carrier_id: uuid.UUID) -> dict:
        return self.staging.load(token, carrier_id=carrier_id)

    def receive(
        self, form: Callable[[str, int], object], *, carrier_id: uuid.UUID, user_id: uuid.UUID
    ):
        """The form's file (`bestand`) read and kept: to its preview. A file that cannot be
        read, or none, or one without rows goes back to the form with the reason."""
        try:
            token = self._keep(carrier_id, user_id)
        except FileRefused as refusal:
            return form(refusal.message, refusal.status)
        return redirect(url_for(self.preview, token=token), 303)

    def _keep(self, carrier_id: uuid.UUID, user_id: uuid.UUID) -> str:
        upload = request.files.get("bestand")
        if upload is None or not upload.filename:
            raise FileRefused(str(self.choose), 422)
        # One byte past the limit is enough to know the file is too large.
        raw = upload.stream.read(self.max_bytes + 1)
        name = os.path.basename(upload.filename.replace("\\", "/"))[:200]
        parsed = self.read(raw, name)
        if not parsed.rows:
            raise FileRefused(_("Het bestand heeft geen rijen onder de kopregel."), 422)
        token = self.staging.keep(parsed, name, carrier_id=carrier_id, user_id=user_id)
        logger.info("%s %s: %s rows uploaded", self.staging.folder, token[:6], len(parsed.rows))
        return token

    def import_once(
        self,
        token: str,
        record: dict,
        work: Work,
        refusal: Callable[[ValidationFailed], object] = lambda failed: None,
    ):
        """Import an upload once, in the request's one unit of work: `work` checks the rows
        again and writes them through the domain's service. Its answer is what was imported
        (the upload says so once the unit of work is committed), nothing, or a refusal the
        domain words. When the service refuses a row (ValidationFailed: something changed
        since the preview) nothing is kept: the planner sees `refusal(failed)`'s page, else
        the preview again."""
        back = self.back(token)
        if record.get("imported"):
            flash(_("Dit bestand is al geïmporteerd."), "error")
            return back
        # Only one import per upload, even when the button is pressed twice at once.
        if not self.staging.claim(token):
            flash(_("Dit bestand wordt al geïmporteerd."), "error")
            return back
        # Whatever refuses or breaks the import from here (also its commit) frees the upload.
        after_rollback(lambda: self.staging.release(token))
        try:
            outcome = work()
        except ValidationFailed as failed:
            logger.warning(
                "%s %s refused by the service: %s", self.staging.folder, token[:6], failed
            )
            flash(
                _(
                    "De import is afgebroken; er is niets geïmporteerd. Controleer het voorbeeld "
                    "en probeer het opnieuw."
                ),
                "error",
            )
            return refused(refusal(failed) or back)
        return self._done(token, record, outcome, back)

    def _done(self, token: str, record: dict, outcome, back: Response):
        if isinstance(outcome, Nothing):
            self.staging.release(token)
            flash(outcome.message, "error")
            return back
        if not isinstance(outcome, Imported):
            return outcome
        record["imported"] = {"at": time.time(), **outcome.summary}
        # The upload says "imported" once the rows are committed, not before.
        after_commit(lambda: self.staging.write(token, record))
        flash(outcome.message, "success")
        return back


def form_limits(columns: Columns) -> dict:
    """How large a file the upload form says it takes: rows and megabytes."""
    return {
        "max_rows": format_decimal(columns.max_rows),
        "max_mb": columns.max_bytes // (1024 * 1024),
    }


def preview_context(token: str, record: dict, parsed: ParsedFile, results: list) -> dict:
    """What every import's preview page shows: the upload, its rows (only those with errors
    when asked: `?alleen=fouten`) and how many there are."""
    only_errors = request.args.get("alleen") == "fouten"
    return {
        "token": token,
        "record": record,
        "parsed": parsed,
        "results": [r for r in results if not r.valid] if only_errors else results,
        "only_errors": only_errors,
        "total": len(results),
        "row_key": ROW,
    }


def error_report(parsed: ParsedFile, results: list[RowResult]) -> str:
    """The rows with errors as the planner sent them, plus a `fouten` column: fix and upload
    again (the import skips that column)."""
    lines: list[list[str]] = []
    # An earlier report's own fouten column is left out: this one writes it afresh.
    keep = [
        i
        for i, name in enumerate(parsed.header)
        if parsed.columns[i] is not None or _normalise(name) not in SILENT_COLUMNS
    ]
    lines.append([parsed.header[i] for i in keep] + ["fouten"])
    for result in results:
        if not result.valid:
            cells = [result.cells[i] if i < len(result.cells) else "" for i in keep]
            lines.append([*cells, "; ".join(result.messages(parsed.header))])
    return spreadsheets.csv_text(lines, delimiter=parsed.delimiter)


def report_download(record: dict, parsed: ParsedFile, results: list, *, name: str) -> Response:
    """The error report as a download named after the uploaded file (`name` when it has
    none): '<file>-fouten.csv'."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(record.get("bestandsnaam") or name).stem)
    filename = f"{stem.strip('-')[:60] or name}-fouten.csv"
    return download(error_report(parsed, results), filename)


def download(text: str, filename: str) -> Response:
    """A CSV the browser saves as filename."""
    return Response(
        text.encode("utf-8"),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
