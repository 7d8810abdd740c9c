#!/usr/bin/env bash
# Production drills against real components on loopback, each printing what it proved.
#
#   bash scripts/drills.sh pgbouncer   the isolation and row-level-security tests, and the API's
#                                      scope sweep, with the app reaching PostgreSQL through
#                                      PgBouncer in transaction mode: server connections are
#                                      shared between carriers' requests, and no carrier ever
#                                      sees another's rows.
#
#   bash scripts/drills.sh replica     a primary cluster of the drill's own and a streaming replica
#                                      made from it with pg_basebackup: reads that tolerate lag
#                                      go to the replica, never behind a carrier's change;
#                                      row-level security holds there; stopped, it costs nothing.
#   bash scripts/drills.sh two-hosts   two gunicorn hosts in network namespaces behind HAProxy,
#                                      sharing database and storage: sessions, CSRF, signed
#                                      links, idempotency keys and workers work on either; one
#                                      host killed under load loses no write (drill_two_hosts.sh)
#   bash scripts/drills.sh failures    PostgreSQL restarted under load, a webhook worker killed
#                                      holding claims, a full disk (drill_failures.sh)
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

PG_BIN=/usr/lib/postgresql/15/bin

as_postgres() {  # PostgreSQL's tools refuse to run as root
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

drill_replica() {
  local folder primary_port replica_port
  folder=$(mktemp -d)
  chmod 755 "$folder"
  if [ "$(id -u)" -eq 0 ]; then chown postgres "$folder"; fi
  primary_port=$(free_port)
  replica_port=$(free_port)
  trap "as_postgres $PG_BIN/pg_ctl -D $folder/replica -m immediate stop >/dev/null 2>&1 || true;
        as_postgres $PG_BIN/pg_ctl -D $folder/primary -m immediate stop >/dev/null 2>&1 || true;
        rm -rf $folder" EXIT
  echo "== drill: a primary of its own on 127.0.0.1:$primary_port, and a streaming replica"
  echo "   made from it with pg_basebackup on 127.0.0.1:$replica_port"
  as_postgres "$PG_BIN/initdb" -D "$folder/primary" -U postgres -A trust -E UTF8 \
    --locale=C.UTF-8 >/dev/null
  cat >>"$folder/primary/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $primary_port
unix_socket_directories = '$folder'
wal_level = replica
max_wal_senders = 4
fsync = off
EOF
  as_postgres "$PG_BIN/pg_ctl" -D "$folder/primary" -l "$folder/primary.log" -w start >/dev/null
  as_postgres "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres \
    -D "$folder/replica" -R -X stream -c fast
  cat >>"$folder/replica/postgresql.conf" <<EOF
port = $replica_port
hot_standby = on
EOF
  as_postgres "$PG_BIN/pg_ctl" -D "$folder/replica" -l "$folder/replica.log" -w start >/dev/null
  local state
  state=$(psql -h 127.0.0.1 -p "$replica_port" -U postgres -At -c "SELECT pg_is_in_recovery()")
  if [ "$state" != "t" ]; then echo "the replica is not in recovery" >&2; return 1; fi
  local as=""
  if [ "$(id -u)" -eq 0 ]; then as="runuser -u postgres --"; fi
  set +e
  RIJPLAN_TEST_PG="postgresql://postgres@127.0.0.1:$primary_port/postgres" \
    RIJPLAN_TEST_REPLICA="127.0.0.1:$replica_port" \
    RIJPLAN_TEST_REPLICA_DIR="$folder/replica" RIJPLAN_TEST_REPLICA_AS="$as" \
    .venv/bin/python -m pytest -q -s -p no:randomly -k postgresql \
    tests/ops/test_replica_streaming.py tests/ops/test_replica.py 2>&1 \
    | grep -v -E "^(INFO|WARNI) |^$" | tee "$folder/pytest.log"
  local status=${PIPESTATUS[0]}
  set -e
  echo "== drill result: $(tail -n 1 "$folder/pytest.log")"
  if [ "$status" -eq 0 ]; then
    echo "   proved: lists were read on the replica once it had replayed the carrier's changes"
    echo "   and never behind one (replay paused: the primary answered); row-level security"
    echo "   held on the replica as the app role; with the replica stopped every read was"
    echo "   answered by the primary, none failed, and reads returned to it once it was back."
  fi
  return "$status"
}

case "${1:-}" in
  pgbouncer) drill_pgbouncer ;;
  replica) drill_replica ;;
  two-hosts) bash scripts/drill_two_hosts.sh ;;
  failures) bash scripts/drill_failures.sh ;;
  *)
    echo "usage: bash scripts/drills.sh pgbouncer|replica|two-hosts|failures" >&2
    exit 2
    ;;
esac
