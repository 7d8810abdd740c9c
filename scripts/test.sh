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
echo "== pytest"
.venv/bin/python -m pytest -q "$@"
