"""gunicorn's settings for Rijplan: `.venv/bin/gunicorn -c gunicorn.conf.py wsgi:app`.

Threaded workers keep connections alive: a reverse proxy (or a driver's phone) sends the
next request on the same connection instead of opening one per request, as sync workers
demand. Each setting can be overridden on the command line (`-w 8`) or in the environment
(RIJPLAN_BIND, RIJPLAN_WORKERS, RIJPLAN_THREADS, RIJPLAN_LOG_FORMAT).

Logs go to stderr (errors) and stdout (access), one JSON object per line by default, each
with the request id the app answered in `X-Request-ID`; RIJPLAN_LOG_FORMAT=text for plain
lines. Metrics (/metrics, see portal/ops/metrics.py) add up every worker's figures through
PROMETHEUS_MULTIPROC_DIR, a folder made fresh at start.
"""

import multiprocessing
import os
import shutil
import tempfile

bind = os.environ.get("RIJPLAN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("RIJPLAN_WORKERS") or multiprocessing.cpu_count() * 2)
worker_class = "gthread"
threads = int(os.environ.get("RIJPLAN_THREADS") or 2)
keepalive = 30  # seconds an idle connection stays open for its next request
timeout = 30  # a worker silent this long is restarted
graceful_timeout = 30  # on SIGTERM: finish what runs, then stop
max_requests = 5000  # a worker is replaced after this many requests (slow leaks stay small)
max_requests_jitter = 500  # not all at once

log_format = os.environ.get("RIJPLAN_LOG_FORMAT") or "json"
os.environ.setdefault("RIJPLAN_LOG_FORMAT", log_format)  # the app logs the same way
# RIJPLAN_ACCESS_LOG=off: no access lines (benchmarks measure the app, not the log).
accesslog = None if os.environ.get("RIJPLAN_ACCESS_LOG") == "off" else "-"
errorlog = "-"
if log_format == "json":
    logger_class = "portal.ops.gunicorn_logs.JsonLogger"

# gunicorn's control socket (gunicornc) only when asked for: by default every gunicorn of a
# user shares ~/.gunicorn/gunicorn.ctl, which a service user may not even have.
control_socket = os.environ.get("RIJPLAN_CONTROL_SOCKET") or "gunicorn.ctl"
control_socket_disable = not os.environ.get("RIJPLAN_CONTROL_SOCKET")

# One folder for every worker's metrics, emptied at each start (stale files would add up),
# and removed at exit when it was made here.
_made_metrics_folder = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _made_metrics_folder:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="rijplan-metrics-")


def on_starting(server):
    folder = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder, exist_ok=True)


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    if _made_metrics_folder:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)


def post_worker_init(worker):
    """Once the worker has loaded the app: leave its long-lived objects (the app, its
    templates, SQLAlchemy's mappers, the libraries; some 400,000) out of the collector's
    rounds, so a page that makes many objects (the week view's 2,800 cards) does not pay for
    walking them again and again (bench/board_week.py --gc-freeze measures it)."""
    import gc

    gc.collect()
    gc.freeze()
