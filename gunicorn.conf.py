"""gunicorn's settings for Rijplan: `.venv/bin/gunicorn -c gunicorn.conf.py wsgi:app`.

Threaded workers keep connections alive: a reverse proxy (or a driver's phone) sends the
next request on the same connection instead of opening one per request, as sync workers
demand. Each setting can be overridden on the command line (`-w 8`) or in the environment
(RIJPLAN_BIND, RIJPLAN_WORKERS, RIJPLAN_THREADS).
"""

import multiprocessing
import os

bind = os.environ.get("RIJPLAN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("RIJPLAN_WORKERS") or multiprocessing.cpu_count() * 2)
worker_class = "gthread"
threads = int(os.environ.get("RIJPLAN_THREADS") or 2)
keepalive = 30  # seconds an idle connection stays open for its next request
timeout = 30  # a worker silent this long is restarted
graceful_timeout = 30  # on SIGTERM: finish what runs, then stop
