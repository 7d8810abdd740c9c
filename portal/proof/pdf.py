"""The bundle as a PDF (fpdf2, pure Python): the same bytes each time it is rendered.

Only the PDF's built-in fonts (Helvetica, Courier; Latin-1) are used, so nothing of the
machine goes into the file; `latin1()` folds what Latin-1 lacks (dashes, quotes, €) into
what it has. The creation date is the task's completion time, the file id derives from the
content, and the images are the bundle's own downscaled parts.
"""

from __future__ import annotations

import io
from zoneinfo import ZoneInfo

from flask_babel import get_locale
from flask_babel import gettext as _
from fpdf.enums import XPos, YPos

from portal.pdf_text import ACCENT, INK, MUTED, RULE, WIDTH, A4Document, latin1
from portal.proof import wording
from portal.proof.bundle import Bundle, Part


class _Writer:
    def __init__(self, bundle: Bundle):
        self.bundle = bundle
        self.facts = bundle.facts
        self.zone = ZoneInfo(self.facts.get("tijdzone") or "Europe/Amsterdam")
        footer = _("Bewijs van aflevering · bundel %(hash)s", hash=bundle.sha256[:16])
        self.pdf = A4Document(footer)

    def when(self, iso: str | None) -> str:
        return wording.when(iso, self.zone, str(get_locale() or "nl"))

    # --- blocks ------------------------------------------------------------------------

    def heading(self, text: str, need: float = 30) -> None:
        """A section's heading, on a new page when `need` mm (the heading and what must
        follow it) no longer fit on this one."""
        pdf = self.pdf
        if pdf.get_y() + need > pdf.h - 20:
            pdf.add_page()
        pdf.ln(4)
        pdf.set_font("Helvetica", "B", 12)
        pdf.set_text_color(*ACCENT)
        pdf.cell(WIDTH, 7, latin1(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.set_draw_color(*RULE)
        pdf.line(15, pdf.get_y(), 15 + WIDTH, pdf.get_y())
        pdf.ln(2)
        pdf.set_text_color(*INK)

    def rows(self, rows: list[tuple[str, str]], widths=(50, 130), mono: bool = False) -> None:
        pdf = self.pdf
        pdf.set_font("Helvetica", "", 9.5)
        pdf.set_draw_color(*RULE)
        with pdf.table(
            col_widths=widths,
            width=WIDTH,
            first_row_as_headings=False,
            borders_layout="HORIZONTAL_LINES",
            line_height=5.2,
            padding=(1.2, 1.5),
            text_align="LEFT",
        ) as table:
            for label, value in rows:
                row = table.row()
                pdf.set_text_color(*MUTED)
                row.cell(latin1(label))
                pdf.set_text_color(*INK)
                if mono:
                    pdf.set_font("Courier", "", 8)
                row.cell(latin1(value))
                if mono:
                    pdf.set_font("Helvetica", "", 9.5)
        pdf.set_text_color(*INK)

    def note(self, text: str) -> None:
        self.pdf.set_font("Helvetica", "I", 9.5)
        self.pdf.set_text_color(*MUTED)
        self.pdf.multi_cell(
            WIDTH, 5.2, latin1(text), align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT
        )
        self.pdf.set_text_color(*INK)

    @staticmethod
    def row_height(parts: list[Part], per_row: int = 2) -> float:
        """The height of the first row of images (with its caption and the heading)."""
        cell = (WIDTH - 6 * (per_row - 1)) / per_row
        return 20 + max((_fit(p, cell, 95)[1] for p in parts[:per_row]), default=0)

    def images(self, parts: list[Part], captions: list[str], per_row: int = 2) -> None:
        """Images side by side, each scaled into its cell, with a caption under it."""
        pdf = self.pdf
        gap = 6
        cell = (WIDTH - gap * (per_row - 1)) / per_row
        for start in range(0, len(parts), per_row):
            batch = parts[start : start + per_row]
            sizes = [_fit(p, cell, 95) for p in batch]
            height = max(h for _w, h in sizes) + 7
            if pdf.get_y() + height > pdf.h - 20:
                pdf.add_page()
            top = pdf.get_y()
            for index, (part, (w, h)) in enumerate(zip(batch, sizes, strict=True)):
                x = 15 + index * (cell + gap)
                pdf.image(io.BytesIO(part.data), x=x, y=top, w=w, h=h)
                pdf.set_draw_color(*RULE)
                pdf.rect(x, top, w, h)
                pdf.set_xy(x, top + h + 1)
                pdf.set_font("Helvetica", "", 8)
                pdf.set_text_color(*MUTED)
                pdf.cell(cell, 4, latin1(captions[start + index]))
            pdf.set_text_color(*INK)
            pdf.set_xy(15, top + height + 2)

    # --- the document ------------------------------------------------------------------

    def write(self) -> bytes:
        self._title()
        facts = self.facts
        self.heading(_("Taak"))
        self.rows(wording.task_rows(facts, self.when))
        self.heading(_("Statustijden"))
        statuses = wording.status_rows(facts, self.when)
        if statuses:
            self.rows(statuses)
        else:
            self.note(_("Geen statustijden vastgelegd."))
        self.heading(_("Afronding"))
        self.rows(wording.completion_rows(facts))
        self._files()
        self._answers()
        self._manifest()
        return bytes(self.pdf.output())

    def _title(self) -> None:
        """The document's properties and its first lines: carrier, title, task, when."""
        pdf, facts, task = self.pdf, self.facts, self.facts["taak"]
        pdf.set_creation_date(self.bundle.completed_at)
        pdf.set_title(latin1(_("Bewijs van aflevering: %(name)s", name=task["naam"])))
        pdf.set_author(latin1(facts["transporteur"]))
        pdf.set_creator("Rijplan")
        pdf.set_lang(str(get_locale() or "nl"))
        pdf.add_page()
        pdf.set_font("Helvetica", "", 9)
        pdf.set_text_color(*MUTED)
        pdf.cell(WIDTH, 5, latin1(facts["transporteur"]), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.set_font("Helvetica", "B", 18)
        pdf.set_text_color(*INK)
        pdf.cell(WIDTH, 9, latin1(_("Bewijs van aflevering")), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.set_font("Helvetica", "", 12)
        pdf.multi_cell(WIDTH, 6, latin1(task["naam"]), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.set_font("Helvetica", "", 9.5)
        pdf.set_text_color(*MUTED)
        done = _("Afgerond op %(when)s", when=self.when(task["afgerond_op"]))
        pdf.cell(WIDTH, 6, latin1(done), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.set_text_color(*INK)

    def _files(self) -> None:
        """The photos, signatures and scans as images, and those that are no image."""
        photos = [p for p in self.bundle.of_kind("photo") if p.shown]
        self.heading(_("Foto's"), need=self.row_height(photos))
        if photos:
            self.images(photos, [_("Foto %(n)s", n=i) for i in range(1, len(photos) + 1)])
        self._unshown("photo", _("Geen foto's."))
        signatures = [p for p in self.bundle.of_kind("signature") if p.shown]
        self.heading(_("Handtekening"), need=self.row_height(signatures))
        if signatures:
            self.images(signatures, [wording.signer_caption(p.signer) for p in signatures])
        self._unshown("signature", _("Geen handtekening."))
        scans = [p for p in self.bundle.of_kind("document_scan") if p.shown]
        self.heading(_("Scans"), need=self.row_height(scans))
        if scans:
            captions = [wording.scan_caption(p.name, i, self.facts) for i, p in enumerate(scans, 1)]
            self.images(scans, captions)
        self._unshown("document_scan", _("Geen scans."))

    def _answers(self) -> None:
        """Each questionnaire's answers under its title."""
        pdf = self.pdf
        self.heading(_("Antwoorden"))
        sessions = self.facts["vragenlijsten"]
        if not sessions:
            self.note(_("Geen antwoorden."))
        for session in sessions:
            pdf.set_font("Helvetica", "B", 10)
            title = wording.session_title(session, self.when)
            pdf.multi_cell(WIDTH, 6, latin1(title), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            rows = wording.answer_rows(session)
            if rows:
                self.rows(rows, widths=(70, 110))
            else:
                self.note(_("Geen antwoorden."))
            pdf.ln(2)

    def _manifest(self) -> None:
        """Every part with its SHA-256, and the bundle's."""
        self.heading(_("Manifest"))
        self.note(
            _(
                "Elk deel van de bundel met zijn SHA-256. Een latere wijziging van een deel "
                "geeft een andere hash, en daarmee een andere bundelhash."
            )
        )
        manifest = [(p.name, p.sha256) for p in self.bundle.parts]
        manifest.append((_("Bundel (SHA-256)"), self.bundle.sha256))
        self.rows(manifest, widths=(45, 135), mono=True)

    def _unshown(self, kind: str, absent: str) -> None:
        parts = self.bundle.of_kind(kind)
        hidden = [p for p in parts if not p.shown]
        if not parts:
            self.note(absent)
        for part in hidden:
            text = _("%(name)s: bijgevoegd als bestand (niet als beeld te tonen).", name=part.name)
            if part.name == self.facts["afronding"].get("papieren_bon"):
                text = f"{_('Papieren afleverbon')}: {text}"
            self.note(text)


def _fit(part: Part, width: float, height: float) -> tuple[float, float]:
    """The size in mm of an image scaled into width x height, keeping its proportions."""
    from PIL import Image

    with Image.open(io.BytesIO(part.data)) as image:
        w, h = image.size
    scale = min(width / w, height / h)
    return w * scale, h * scale


def render(bundle: Bundle) -> bytes:
    """The bundle as PDF bytes, in the current language: the same bytes each time."""
    return _Writer(bundle).write()
