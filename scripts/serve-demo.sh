#!/usr/bin/env bash
# Install, create the SQLite database with demo data, and serve the portal.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export FLASK_APP=wsgi
.venv/bin/flask db upgrade
logins=$(.venv/bin/flask seed-demo)
port=${PORT:-5000}
cat <<MSG

  Rijplan runs at http://127.0.0.1:${port}/
  Sign in as planner@vdberg.example (password: demo-wachtwoord)
  Other demo sign-ins: ${logins}
  The API: http://127.0.0.1:${port}/api/v1/openapi.json

MSG
exec .venv/bin/flask run --host 127.0.0.1 --port "$port"
