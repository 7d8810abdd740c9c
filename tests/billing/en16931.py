"""The official EN 16931 validation rules for UBL (tests/fixtures/einvoice), run with SaxonC-HE.

`failed(xml)` runs the compiled Schematron over a document (an Invoice or a CreditNote) and
answers every rule it breaks as `Failure(id, flag, text, location)`; `fatal(xml)` only those
flagged fatal, which a receiving access point refuses. The stylesheet is compiled once per
process (about a second).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

XSLT = Path(__file__).parents[1] / "fixtures" / "einvoice" / "EN16931-UBL-validation.xslt"
SVRL = "http://purl.oclc.org/dsdl/svrl"


@dataclass(frozen=True)
class Failure:
    id: str
    flag: str
    text: str
    location: str

    def __str__(self) -> str:
        return f"{self.id} ({self.flag}) at {self.location}: {self.text}"


@functools.cache
def _stylesheet():
    from saxonche import PySaxonProcessor

    processor = PySaxonProcessor(license=False)
    compiled = processor.new_xslt30_processor().compile_stylesheet(stylesheet_file=str(XSLT))
    # The processor must outlive what it made: keep both.
    return processor, compiled


def failed(xml: bytes) -> list[Failure]:
    """Every EN 16931 rule the document breaks (empty: it passes)."""
    processor, stylesheet = _stylesheet()
    node = processor.parse_xml(xml_text=xml.decode("utf-8"))
    report = stylesheet.transform_to_string(xdm_node=node)
    root = etree.fromstring(report.encode("utf-8"))
    return [
        Failure(
            id=item.get("id", ""),
            flag=item.get("flag", ""),
            text=" ".join(item.findtext(f"{{{SVRL}}}text", "").split()),
            location=item.get("location", ""),
        )
        for item in root.iter(f"{{{SVRL}}}failed-assert")
    ]


def fatal(xml: bytes) -> list[Failure]:
    """The rules the document breaks that are flagged fatal."""
    return [failure for failure in failed(xml) if failure.flag == "fatal"]


def assert_valid(xml: bytes) -> None:
    """Fail with every broken rule, fatal or warning, spelled out."""
    found = failed(xml)
    assert not found, "EN 16931:\n" + "\n".join(str(f) for f in found)
