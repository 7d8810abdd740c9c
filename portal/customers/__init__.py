"""Customers (klanten) of a carrier: who it works for (the farmer, the feed mill, the manure
buyer), with their debtor number, VAT number and invoice address, and their places
(`klant_locaties`): where the carrier loads and unloads for them, with opening hours, a
contact and remarks for the driver. `service.py` is the only door to both tables."""
