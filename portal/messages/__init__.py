"""Messages to drivers: sent from the portal or the API, pushed to their phones (Web Push)
by the worker through an outbox, and kept in the app's inbox."""
