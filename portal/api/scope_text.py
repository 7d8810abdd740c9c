"""What each API-key scope allows, in words: the bearer scheme's description in the OpenAPI
document lists them."""

from __future__ import annotations

SCOPE_TEXT = {
    "tasks:read": "read tasks (lists, one task, its details), their files and evidence",
    "tasks:write": "create, change, move, complete and delete tasks; upload files; report "
    "driver positions",
    "questionnaires:read": "read the active questionnaires and the drivers' answer sessions",
    "drivers:read": "read driver profiles and the carrier's drivers with their positions",
    "vehicles:read": "read vehicles and vehicle sessions",
    "vehicles:write": "change vehicles and end vehicle sessions",
    "messages:read": "read drivers' messages and the push settings",
    "messages:write": "send messages, mark them read and manage push subscriptions",
    "tacho:read": "read tachograph files and their download links",
    "tacho:write": "upload tachograph files",
    "hours:read": "read drivers' work days, activities and hours",
    "hours:write": "record and correct work days and activities",
    "webhooks:read": "read webhook endpoints and their deliveries",
    "webhooks:write": "register, change, pause, test and delete webhook endpoints; resend "
    "deliveries",
    "customers:read": "read customers and their loading and unloading places",
    "customers:write": "add, change, deactivate and delete customers and their places",
    "tariffs:read": "read tariffs: the carrier's defaults and its customers' own prices",
    "tariffs:write": "add, change and delete tariffs",
    "invoices:read": "read issued invoices and credit notes, as JSON or their UBL",
    "invoices:write": "credit invoices and run the billing export (it issues invoices)",
}
