"""Billing's portal pages: the billing lines of a period and their export (lines.py), a
batch's invoices, issuing and hand prices (invoices.py), the list of invoices and credit
notes, one document, crediting and the VAT overview (documents.py), and the tariffs
(tariffs.py). The blueprints and what the pages share are kit.py's."""
