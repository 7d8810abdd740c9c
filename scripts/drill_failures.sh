#!/usr/bin/env bash
# Failure drills against real processes on loopback, each printing what it proved
# (`PROVED: ...`) or what failed (`FAILED: ...`, and a non-zero exit):
#
#   1. PostgreSQL restarted under API load (pg_ctl restart -m fast, then -m immediate) on a
#      throwaway cluster of its own: every answer a success or a 503 problem+json
#      `database_unavailable` with Retry-After, recovery without restarting gunicorn, and
#      writes sent again with their Idempotency-Key stored exactly once.
#   2. A webhook worker SIGKILLed while it holds claims: another takes them over after the
#      lease, every delivery arrives at least once, nothing stays queued.
#   3. A full disk under local file storage (a 2 MiB tmpfs): 503 `storage_unavailable`, no
#      partial file, no row; uploads work again once space is freed.
#
# Usage: bash scripts/drill_failures.sh   (about 1 to 2.5 minutes; never more than 3)
#
# Runs as root (initdb and pg_ctl as the postgres user; the tmpfs needs mount: where mount is
# not permitted drill 3 says SKIPPED). Needs the venv (bash scripts/setup.sh --dev) and
# PostgreSQL's binaries (PG_BIN, default: the newest /usr/lib/postgresql/*/bin). Never
# touches the server at 127.0.0.1:5432: everything runs in a temp folder on free loopback
# ports, and the trap below stops it all, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "drill_failures: $*" >&2
  exit 2
}
[ -x .venv/bin/python ] || fail "no .venv here; run bash scripts/setup.sh --dev first"
if [ -z "${PG_BIN:-}" ]; then
  PG_BIN=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
fi
[ -n "$PG_BIN" ] && [ -x "$PG_BIN/pg_ctl" ] || fail "no PostgreSQL binaries (pg_ctl) found; set PG_BIN"
as_postgres=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || fail "as root, a 'postgres' user must exist to run the cluster"
  as_postgres=(runuser -u postgres --)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rijplan-drills.XXXXXX")
chmod 755 "$work" # the postgres user reaches its cluster folder inside
pgdata="$work/pg/data"

drill_pid=""
cleanup() {
  local status=$?
  set +e
  # The drills first (they stop what they started), then what is left: by pid, each the
  # leader of its own process group, as the drills recorded them.
  if [ -n "$drill_pid" ] && kill -0 "$drill_pid" 2>/dev/null; then
    kill -TERM "$drill_pid"
    wait "$drill_pid"
  fi
  for pidfile in "$work"/pids/*.pid; do
    [ -e "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
  done
  if [ -f "$pgdata/postmaster.pid" ]; then
    "${as_postgres[@]}" "$PG_BIN/pg_ctl" -D "$pgdata" -m immediate -w stop >/dev/null 2>&1
  fi
  if mountpoint -q "$work/storage" 2>/dev/null; then
    umount "$work/storage" 2>/dev/null || umount -l "$work/storage"
  fi
  rm -rf "$work"
  [ "$status" -eq 0 ] || echo "drill_failures: FAILED (exit $status)" >&2
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
  .venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A cluster of its own: owner and app roles as in README "Production notes".
started=$(date +%s)
port=$(free_port)
mkdir "$work/pg"
[ "$(id -u)" -ne 0 ] || chown postgres: "$work/pg"
"${as_postgres[@]}" "$PG_BIN/initdb" -D "$pgdata" -U postgres -A trust -E UTF8 \
  --locale=C.UTF-8 -N >/dev/null
# fsync off: a throwaway cluster on a shared machine (a crash of the server, not of the
# machine, is what -m immediate drills; the WAL is replayed from the page cache).
"${as_postgres[@]}" "$PG_BIN/pg_ctl" -D "$pgdata" -w -t 60 -l "$work/pg/postgres.log" start \
  -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work/pg -c fsync=off" >/dev/null
psql=("$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres)
"${psql[@]}" -c "CREATE ROLE rijplan_owner LOGIN" \
  -c "CREATE ROLE rijplan_app LOGIN NOSUPERUSER NOBYPASSRLS" \
  -c "CREATE DATABASE rijplan OWNER rijplan_owner"

# The app's storage folder on a small filesystem of its own.
mkdir "$work/storage"
if mount_error=$(mount -t tmpfs -o size=2m tmpfs "$work/storage" 2>&1); then
  mount_error=""
else
  mount_error=$(echo "${mount_error:-mount failed}" | head -n 1)
fi

echo "== PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, a cluster of its own ($(($(date +%s) - started)) s)"
# A hard bound of 3 minutes in all; in the background so that a signal reaches the trap at
# once (bash runs traps only between commands, and `wait` is one).
budget=$((165 - $(date +%s) + started))
DRILL_PG_PORT=$port DRILL_PG_DATA=$pgdata DRILL_MOUNT_ERROR=$mount_error DRILL_SECONDS=$budget \
  DRILL_APP_PORT=$(free_port) PG_BIN=$PG_BIN \
  timeout -k 5 "$budget" .venv/bin/python -u scripts/drill_failures.py "$work" &
drill_pid=$!
status=0
wait "$drill_pid" || status=$?
drill_pid=""
[ "$status" -ne 124 ] || echo "drill_failures: timed out (3 minutes in all)" >&2
exit "$status"
