#!/usr/bin/env bash
# Install everything (Python, npm and Debian packages, Chromium included) and run every test:
# lint, migrations, then pytest on SQLite and, when it answers, PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null; then
  echo "Installing Chromium for the browser tests (Debian package)..."
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q chromium
fi
bash scripts/setup.sh --dev

echo "== ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "== migrations: upgrade an empty database, then check the models for drift"
check_dir=$(mktemp -d)
export RIJPLAN_INSTANCE="$check_dir" SECRET_KEY=check-only
.venv/bin/flask --app wsgi db upgrade 2>&1 | tail -n 1
.venv/bin/flask --app wsgi db check
unset RIJPLAN_INSTANCE SECRET_KEY
rm -rf "$check_dir"
# In parallel: one worker per core (RIJPLAN_TEST_WORKERS=0 runs in this process). Each worker
# has its own SQLite files and its own PostgreSQL database (tests/conftest.py).
workers=${RIJPLAN_TEST_WORKERS:-auto}
echo "== pytest ($workers workers)"
.venv/bin/python -m pytest -q -n "$workers" --dist worksteal "$@"
