#!/usr/bin/env bash
# Install, create the SQLite database with demo data, and serve the portal.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export FLASK_APP=wsgi
.venv/bin/flask db upgrade
port=${PORT:-5000}
.venv/bin/flask seed-demo | .venv/bin/python -c '
import json, sys
logins = json.load(sys.stdin)
port = sys.argv[1]
print(f"""
  Rijplan runs at http://127.0.0.1:{port}/
  Portal sign-ins (password {logins["password"]}):
    {", ".join(logins["portal"])}
  Driver app sign-ins, POST /api/v1/auth/token (same password):
    {", ".join(logins["drivers"])}
  The API document: http://127.0.0.1:{port}/api/v1/openapi.json
  No push worker runs in the demo: messages wait in the outbox, and /berichten says so.
""")' "$port"
exec .venv/bin/flask run --host 127.0.0.1 --port "$port"
