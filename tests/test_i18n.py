"""The portal's text exists in Dutch (the source) and English (the catalog)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent


def test_every_text_in_the_code_has_an_english_translation(tmp_path):
    pot = tmp_path / "messages.pot"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "babel.messages.frontend",
            "extract",
            "-F",
            "babel.cfg",
            "-k",
            "_l",
            "-k",
            "lazy_gettext",
            "-o",
            str(pot),
            "--no-location",
            ".",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with pot.open("rb") as f:
        wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id}
    with (ROOT / "translations/en/LC_MESSAGES/messages.po").open("rb") as f:
        catalog = read_po(f)
    translated = {
        (m.id if isinstance(m.id, str) else m.id[0])
        for m in catalog
        if m.id
        and (all(m.string) if isinstance(m.string, tuple) else m.string)
        and "fuzzy" not in m.flags
    }
    missing = sorted(wanted - translated)
    assert not missing, f"untranslated: {missing} (run pybabel update and translate)"
