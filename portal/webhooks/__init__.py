"""Webhooks: endpoints of carriers' own systems, the events of changes (written with the
change, in its transaction), signed deliveries by a worker with retries, and every attempt."""
