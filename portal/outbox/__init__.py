"""The one outbox-and-worker core that the messages (Web Push) and webhook outboxes use.

It knows outbox tables only by their shared columns (transporteur_id, id, status,
volgende_poging_op, claim_id, pogingen, fout, verzonden_op) and imports no domain:

- `queue.Queue`: which carriers have due entries, claiming due entries with a lease (and
  FOR UPDATE SKIP LOCKED on PostgreSQL), handing a claim back, recording where an entry
  goes after an attempt, and the backlog across carriers (for the metrics); `queue.Held`,
  what a pass holds of an entry (each outbox adds what it sends);
- `retry.Backoff` and `retry.decide`: the waits between attempts, Retry-After, and what an
  attempt's outcome makes of the entry (sent, queued for a retry, failed or given up);
- `failures.FailureCodes`: an outbox's stable failure codes, stored as compact JSON, in
  English for the API and in the user's language for the portal;
- `worker`: one pass per carrier in its scope (`run_pass`), the draining run (`drain`) and
  the service loop (`serve`, stopped cleanly by `stop_on_signals`), and `command`, a worker
  command's run (`Run`, read from the options `commands.worker_options` adds).

Each domain keeps what is its own: what a push or a webhook post is, its tables, its
failure codes and their meaning, its heartbeat or pruning (messages/outbox.py and
worker.py, webhooks/outbox.py and worker.py).
"""

from portal.outbox.failures import FailureCodes
from portal.outbox.queue import Held, Queue
from portal.outbox.retry import Backoff, Decision, decide

__all__ = ["Backoff", "Decision", "FailureCodes", "Held", "Queue", "decide"]
