#!/usr/bin/env bash
# Drill: Rijplan on two app hosts behind one address.
#
#   bash scripts/drill_two_hosts.sh
#
# Builds, on this machine, the production shape of docs/deploy.md with two app hosts:
#
#   client --TLS--> HAProxy 127.0.0.1:<free port> (roundrobin, /healthz checks, retries)
#                      |                          |
#          netns rjh1-<tag>: 10.231.N.2    netns rjh2-<tag>: 10.231.N.6
#          gunicorn (2 workers)            gunicorn (2 workers)
#          send-notifications              send-notifications
#          deliver-webhooks                deliver-webhooks
#                      |                          |
#          socat 10.231.N.1:<port> -> PostgreSQL 127.0.0.1:5432 (a fresh database)
#          one shared file storage folder
#
# then scripts/drill_two_hosts.py signs a planner in, uploads and downloads files, replays
# idempotent writes, has webhooks delivered and kills one host under load through HAProxy,
# printing a `PROVED: ...` line per claim. Everything it made (namespaces, veths, processes,
# the database and its roles, the temporary folder) is removed on exit.
#
# Needs: root (network namespaces), PostgreSQL at 127.0.0.1:5432 with user postgres trusted
# (RIJPLAN_TEST_PG), the venv (bash scripts/setup.sh --dev). Installs haproxy and socat
# (Debian packages) when missing. Takes under a minute; DRILL_KEEP=1 keeps the logs.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "drill_two_hosts: run as root (it creates network namespaces)" >&2
  exit 2
fi
PG_ADMIN=${RIJPLAN_TEST_PG:-postgresql://postgres@127.0.0.1:5432/postgres}
PY=.venv/bin/python
FLASK=(.venv/bin/flask --app wsgi)
unset DATABASE_URL DATABASE_ADMIN_URL  # the hosts get theirs below; none leaks in
started=$(date +%s)

need_packages() {
  local missing=()
  command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
  command -v socat >/dev/null || missing+=(socat)
  command -v openssl >/dev/null || missing+=(openssl)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing ${missing[*]} (Debian packages)..."
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
  fi
}

free_port() {
  $PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

psql_admin() {
  psql "$PG_ADMIN" -v ON_ERROR_STOP=1 -qAt "$@"
}

# --- what this run made, removed by cleanup() --------------------------------------------
tag=$(head -c 3 /dev/urandom | od -An -tx1 | tr -d ' \n')
tmp=$(mktemp -d /tmp/rijplan-drill-XXXXXX)
dbname="rijplan_drill_$tag"
owner_role="rijplan_drill_owner_$tag"
app_role="rijplan_drill_app_$tag"
ns1="rjh1-$tag"
ns2="rjh2-$tag"
veth1="rj${tag}a"
veth2="rj${tag}b"
groups=()   # process group ids (each started with setsid: the group id is its pid)
made_db=0
made_netns=0

cleanup() {
  local status=$?
  set +e
  trap - EXIT INT TERM
  echo "== cleaning up after $(($(date +%s) - started)) s"
  for pgid in "${groups[@]}"; do kill -TERM -- "-$pgid" 2>/dev/null; done
  for _ in $(seq 10); do
    local alive=0
    for pgid in "${groups[@]}"; do kill -0 -- "-$pgid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  for pgid in "${groups[@]}"; do kill -KILL -- "-$pgid" 2>/dev/null; done
  if [ "$made_netns" -eq 1 ]; then
    for ns in "$ns1" "$ns2"; do
      # Nothing started in the namespace may outlive it (by pid, in this namespace only).
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
      ip netns del "$ns" 2>/dev/null
    done
    ip link del "$veth1" 2>/dev/null
    ip link del "$veth2" 2>/dev/null
  fi
  local dropped=$SECONDS
  if [ "$made_db" -eq 1 ]; then  # DROP DATABASE waits for a checkpoint: slow on a busy server
    psql_admin -c "DROP DATABASE IF EXISTS \"$dbname\" WITH (FORCE)" \
      -c "DROP ROLE IF EXISTS \"$app_role\"" -c "DROP ROLE IF EXISTS \"$owner_role\""
  fi
  dropped=$((SECONDS - dropped))
  if [ "$status" -ne 0 ]; then
    for log in "$tmp"/*.log; do
      [ -f "$log" ] || continue
      echo "--- last lines of $(basename "$log")" >&2
      tail -n 15 "$log" >&2
    done
  fi
  if [ "${DRILL_KEEP:-}" = "1" ]; then
    echo "drill_two_hosts: logs kept in $tmp" >&2
  else
    rm -rf "$tmp"
  fi
  echo "drill_two_hosts: cleaned up ($(($(date +%s) - started)) s in all;" \
    "the database dropped in $dropped s)"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Start "$@" in the background as its own process group (setsid does not fork here: a
# background job of a script is no group leader), remembered for cleanup; its pid (which is
# its group id) in $spawned. Not in $(...): the subshell would forget the group.
spawned=""
spawn() {
  local log=$1
  shift
  setsid "$@" >"$tmp/$log" 2>&1 &
  spawned=$!
  disown "$spawned"  # no "Killed" notices from bash: cleanup() ends them
  groups+=("$spawned")
}

need_packages
psql_admin -c "SELECT 1" >/dev/null || {
  echo "drill_two_hosts: PostgreSQL does not answer at $PG_ADMIN" >&2
  exit 1
}

# --- 1. the database: owner migrates, the app role gets grant-app-role --------------------
echo "== database $dbname (owner $owner_role, app role $app_role)"
made_db=1
psql_admin -c "CREATE ROLE \"$owner_role\" LOGIN NOSUPERUSER" \
  -c "CREATE ROLE \"$app_role\" LOGIN NOSUPERUSER NOBYPASSRLS" \
  -c "CREATE DATABASE \"$dbname\" OWNER \"$owner_role\""
pg_user_base=$($PY -c 'import sys; from psycopg.conninfo import conninfo_to_dict
c = conninfo_to_dict(sys.argv[1])
print(c.get("user", "postgres"), c.get("host", "127.0.0.1") + ":" + str(c.get("port", "5432")))
' "$PG_ADMIN")
pg_base=${pg_user_base#* }
owner_url="postgresql://$owner_role@$pg_base/$dbname"
superuser_url="postgresql://${pg_user_base%% *}@$pg_base/$dbname"
# `flask --app wsgi db upgrade`, `grant-app-role` and the create-* commands, run in one
# process by the Python half (see seed() there).
RIJPLAN_INSTANCE="$tmp/instance-cli" $PY scripts/drill_two_hosts.py seed \
  --owner-url "$owner_url" --app-role "$app_role" --out "$tmp/seeded.json" 2>"$tmp/seed.log"
secret_key=$($PY -c 'import secrets; print(secrets.token_urlsafe(48))')

# --- 2. two hosts: a network namespace each, a veth pair to this (root) namespace --------
net=""
for _ in $(seq 50); do  # a /24 of 10.231.0.0/16 no interface here uses yet
  candidate=$((RANDOM % 254 + 1))
  ip -4 -o addr show | grep -q " 10\.231\.$candidate\." || { net="10.231.$candidate"; break; }
done
[ -n "$net" ] || { echo "drill_two_hosts: no free 10.231.x.0/24" >&2; exit 1; }
made_netns=1
ip netns add "$ns1"
ip netns add "$ns2"
setup_host() {  # ns veth root_addr host_addr
  local ns=$1 veth=$2 root_addr=$3 host_addr=$4
  ip link add "$veth" type veth peer name "${veth}n"
  ip link set "${veth}n" netns "$ns"
  ip addr add "$root_addr/30" dev "$veth"
  ip link set "$veth" up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$host_addr/30" dev "${veth}n"
  ip -n "$ns" link set "${veth}n" up
  ip -n "$ns" route add default via "$root_addr"
}
setup_host "$ns1" "$veth1" "$net.1" "$net.2"
setup_host "$ns2" "$veth2" "$net.5" "$net.6"
echo "   hosts: $ns1 at $net.2, $ns2 at $net.6 (veth pairs to $net.1 and $net.5)"

# PostgreSQL listens on 127.0.0.1, which inside a namespace is that namespace's own loopback.
# The simplest robust bridge is socat in the root namespace on the first veth's address: a
# byte-for-byte TCP forward, so sessions, LISTEN/NOTIFY (the change feed) and prepared
# statements behave exactly as on a direct connection, and PostgreSQL sees 127.0.0.1 (its
# trust rule holds, nothing of its configuration changes). Both hosts use the SAME URL:
# host 2 reaches $net.1 through its default route. (PgBouncer in transaction mode has a
# drill of its own: scripts/drills.sh pgbouncer.)
db_port=$(free_port)
spawn socat.log socat "TCP-LISTEN:$db_port,bind=$net.1,reuseaddr,fork" \
  "TCP:${pg_base%:*}:${pg_base##*:}"
app_db_url="postgresql://$app_role@$net.1:$db_port/$dbname"

# The address everything is reached at: HAProxy, terminating TLS as the production proxy.
lb_port=$(free_port)
public_url="https://127.0.0.1:$lb_port"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
  -keyout "$tmp/tls.key" -out "$tmp/tls.crt" 2>/dev/null
cat "$tmp/tls.crt" "$tmp/tls.key" >"$tmp/tls.pem"

mkdir -p "$tmp/files"
vapid=$($PY -c 'import base64
from cryptography.hazmat.primitives.asymmetric import ec
n = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value
print(base64.urlsafe_b64encode(n.to_bytes(32, "big")).rstrip(b"=").decode())')

host_env() {  # name: the environment of the host's processes, in $env
  env=(
    env RIJPLAN_ENV=production SECRET_KEY="$secret_key" DATABASE_URL="$app_db_url"
    RIJPLAN_INSTANCE="$tmp/instance-$1" FILE_STORAGE=local FILE_STORAGE_PATH="$tmp/files"
    PUBLIC_BASE_URL="$public_url" RIJPLAN_TRUSTED_PROXIES=1 WEBHOOKS_ALLOW_PRIVATE=1
    VAPID_PRIVATE_KEY="$vapid" VAPID_SUBJECT="mailto:drill@drill.example"
    PROMETHEUS_MULTIPROC_DIR="$tmp/metrics-$1"
  )
  mkdir -p "$tmp/instance-$1"
}
start_app() {  # name ns addr
  host_env "$1"
  spawn "$1-gunicorn.log" ip netns exec "$2" "${env[@]}" RIJPLAN_BIND="$3:8000" \
    RIJPLAN_WORKERS=2 .venv/bin/gunicorn -c gunicorn.conf.py wsgi:app
  echo "$spawned" >"$tmp/$1.pgid"
}
start_workers() {  # name ns: niced, so that on two shared cores the web apps boot first
  host_env "$1"
  spawn "$1-push.log" ip netns exec "$2" nice -n 10 "${env[@]}" \
    "${FLASK[@]}" send-notifications --interval 1
  spawn "$1-webhooks.log" ip netns exec "$2" nice -n 10 "${env[@]}" \
    "${FLASK[@]}" deliver-webhooks --interval 0.5
}
start_app h1 "$ns1" "$net.2"
start_app h2 "$ns2" "$net.6"
start_workers h1 "$ns1"
start_workers h2 "$ns2"
echo "   each host: gunicorn (2 workers) on :8000, send-notifications, deliver-webhooks"

# --- 3. HAProxy ------------------------------------------------------------------------
cat >"$tmp/haproxy.cfg" <<EOF
global
    log stdout format raw local0
    stats socket $tmp/haproxy.sock mode 600 level admin

defaults
    mode http
    log global
    option httplog
    timeout connect 1s
    timeout client 30s
    timeout server 30s
    timeout check 1s
    # A connection that fails, or a request whose host dies before answering, goes to the
    # other host (redispatch on every retry). Only requests that are safe to send twice are
    # retried after they reached a host: those with an Idempotency-Key, and GET/HEAD.
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response response-timeout 502 503 504

frontend rijplan
    bind 127.0.0.1:$lb_port ssl crt $tmp/tls.pem
    option forwardfor
    http-request set-header X-Forwarded-Proto https
    default_backend hosts

backend hosts
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
    default-server check inter 500ms fall 2 rise 1
    http-request disable-l7-retry if !METH_GET !METH_HEAD !{ req.hdr(idempotency-key) -m found }
    # The drill may pin a request to a host (a drill-only header; unknown values: roundrobin).
    use-server h1 if { req.hdr(x-drill-host) -m str h1 }
    use-server h2 if { req.hdr(x-drill-host) -m str h2 }
    http-response set-header X-Served-By %s
    server h1 $net.2:8000
    server h2 $net.6:8000
EOF
haproxy -c -q -f "$tmp/haproxy.cfg"
spawn haproxy.log haproxy -db -f "$tmp/haproxy.cfg"
echo "   HAProxy at $public_url: roundrobin over h1 and h2, /healthz every 500 ms"
echo "== setup done in $(($(date +%s) - started)) s"

# --- 4. the proofs ---------------------------------------------------------------------
$PY scripts/drill_two_hosts.py check \
  --base "$public_url" --cafile "$tmp/tls.crt" --stats-socket "$tmp/haproxy.sock" \
  --host "h1=http://$net.2:8000" --host "h2=http://$net.6:8000" \
  --kill-pgid "$(cat "$tmp/h2.pgid")" --receiver "$net.1" \
  --seeded "$tmp/seeded.json" --logs "$tmp" --db "$superuser_url"
