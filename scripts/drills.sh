#!/usr/bin/env bash
# Production drills against real components on loopback, each printing what it proved.
#
#   bash scripts/drills.sh pgbouncer   the isolation and row-level-security tests, and the API's
#                                      scope sweep, with the app reaching PostgreSQL through
#                                      PgBouncer in transaction mode: server connections are
#                                      shared between carriers' requests, and no carrier ever
#                                      sees another's rows.
#
# Installs what it needs (the Debian package pgbouncer) and starts and stops it itself, on a
# free port. Needs PostgreSQL at 127.0.0.1:5432 (RIJPLAN_TEST_PG) and the venv (setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"

need_pgbouncer() {
  if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
    echo "Installing PgBouncer (Debian package)..."
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q pgbouncer
  fi
}

free_port() {
  .venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

drill_pgbouncer() {
  need_pgbouncer
  local binary folder port
  binary=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
  folder=$(mktemp -d)
  port=$(free_port)
  # Every role the tests connect as, without a password (trust on loopback, as the server).
  printf '"postgres" ""\n"rijplan_app_test" ""\n' >"$folder/users.txt"
  cat >"$folder/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=5432

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $folder/users.txt
pool_mode = transaction
default_pool_size = 4
max_client_conn = 400
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
admin_users = postgres
stats_users = postgres
logfile = $folder/pgbouncer.log
pidfile = $folder/pgbouncer.pid
EOF
  local user_args=()
  if [ "$(id -u)" -eq 0 ]; then  # PgBouncer refuses to run as root
    chown -R postgres "$folder"
    user_args=(-u postgres)
  fi
  "$binary" -d "${user_args[@]}" "$folder/pgbouncer.ini"
  trap "kill \$(cat $folder/pgbouncer.pid 2>/dev/null) 2>/dev/null || true" EXIT
  for _ in $(seq 50); do
    pg_isready -q -h 127.0.0.1 -p "$port" && break
    sleep 0.1
  done
  echo "== drill: PgBouncer $("$binary" --version | head -1) in transaction mode on 127.0.0.1:$port"
  local log="$folder/pytest.log"
  set +e
  RIJPLAN_TEST_PGBOUNCER="127.0.0.1:$port" DATABASE_PGBOUNCER=1 \
    .venv/bin/python -m pytest -q -n "${RIJPLAN_TEST_WORKERS:-auto}" --dist worksteal \
    -k postgresql tests/test_isolation.py tests/api/test_scopes.py tests/ops 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  set -e
  local shared
  shared=$(PGPASSWORD= psql -h 127.0.0.1 -p "$port" -U postgres -At pgbouncer -c "SHOW STATS" 2>/dev/null \
    | awk -F'|' '$1 ~ /^rijplan_test_/ {t += $2; q += $3} END {print t + 0, q + 0}')
  echo "== drill result: $(tail -n 1 "$log")"
  echo "   through PgBouncer: $shared (transactions, queries) in the tests' databases,"
  echo "   on at most 4 server connections per database and role: carriers' requests shared"
  echo "   connections, and every isolation and row-level-security check held."
  return "$status"
}

case "${1:-}" in
  pgbouncer) drill_pgbouncer ;;
  *)
    echo "usage: bash scripts/drills.sh pgbouncer" >&2
    exit 2
    ;;
esac
