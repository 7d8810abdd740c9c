"""Proof of delivery (bewijs van aflevering): one completed task's evidence as a bundle.

The bundle gathers, from stored data only and through the other domains' services, what a
shipper asks after a delivery: the task (what, where, when, who, vehicle), its status times
from the audit trail, the photos (downscaled), signatures with the signer's name, scans, the
completion's location and its distance from the task's address, temperature and disinfection,
and the questionnaire answers against their revision. A manifest lists every part with its
SHA-256 and the bundle's own hash, so a later change shows; built twice, the bundle and its
PDF are the same bytes (`bundle.py` gathers, `pdf.py` renders).

It owns one table, `bewijs_links`: links a planner shares with a shipper, who opens the
bundle without an account until the link expires or is revoked. Only a hash of a link's
token is stored; `service.py` is the one door to the table.
"""
