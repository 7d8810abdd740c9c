#!/usr/bin/env bash
# Install everything Rijplan needs into this checkout: a Python virtualenv with the pinned
# packages, the front-end packages from the npm registry (copied into static/vendor), and
# the compiled translations. Safe to run again; it only does what is missing or changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
want_dev=${1:-}

apt_install() {
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$@"
}

if ! command -v "$PYTHON" >/dev/null || ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "Rijplan needs Python 3.11 or newer (set PYTHON=...)." >&2
  exit 1
fi
if ! command -v npm >/dev/null; then
  echo "Installing Node.js and npm (Debian packages)..."
  apt_install nodejs npm
fi

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
requirements=requirements.txt
[ "$want_dev" = "--dev" ] && requirements=requirements-dev.txt
stamp=".venv/.installed-$(sha256sum requirements.txt requirements-dev.txt | sha256sum | cut -c1-16)-$(basename "$requirements")"
if [ ! -f "$stamp" ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check -r "$requirements"
  touch "$stamp"
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
mkdir -p static/vendor
cp node_modules/htmx.org/dist/htmx.min.js static/vendor/htmx.min.js
cp node_modules/@picocss/pico/css/pico.min.css static/vendor/pico.min.css
mkdir -p static/vendor/leaflet/images
cp node_modules/leaflet/dist/leaflet.js node_modules/leaflet/dist/leaflet.css static/vendor/leaflet/
cp node_modules/leaflet/dist/images/*.png static/vendor/leaflet/images/

.venv/bin/pybabel compile -d translations 2>/dev/null
