"""Billing's portal pages: the billing lines of a period and their export (lines.py), a
batch's invoices, issuing and hand prices (invoices.py), the list of invoices and credit
notes, one document, crediting and the VAT overview (documents.py), and the tariffs
(tariffs.py). The blueprints and what the pages share are kit.py's; the app registers the
blueprints this package offers."""

# Their routes join the blueprints (invoices.py brings documents.py's after its own).
from portal.billing.pages import invoices, lines, tariffs  # noqa: F401
from portal.billing.pages.kit import billing_bp, invoices_bp, tariffs_bp

__all__ = ["billing_bp", "invoices_bp", "tariffs_bp"]
