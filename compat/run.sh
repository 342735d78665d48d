#!/usr/bin/env bash
# Official client compatibility suite: builds payport, starts it on a fresh
# SQLite database with one merchant (schedule_list_paged on), installs the
# pinned official Node client (iamport-rest-client-nodejs, see package.json and
# package-lock.json) from the npm registry and drives payport through it with
# Node's built-in test runner (compat.test.mjs).
#
#   bash compat/run.sh            # from the repository root (or anywhere)
#
# Needs: go, node (>= 20), npm. Exits non-zero on any failure.
set -euo pipefail

compat_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$compat_dir/.." && pwd)"

die() { echo "compat: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1; }

# --- toolchain ---------------------------------------------------------------
if ! need go && [ -x /usr/local/go/bin/go ]; then export PATH="/usr/local/go/bin:$PATH"; fi
need go || die "Go toolchain not found (PATH or /usr/local/go/bin/go)"
need node || die "node not found: the compatibility suite needs Node.js >= 20 (node --test)"
need npm || die "npm not found: the compatibility suite installs the official client with npm"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || die "Node.js >= 20 required (found $(node --version))"
echo "compat: $(go version | cut -d' ' -f3), node $(node --version), npm $(npm --version 2>/dev/null)"

# --- scratch space and cleanup -------------------------------------------------
tmp="$(mktemp -d "${TMPDIR:-/tmp}/payport-compat.XXXXXX")"
server_pid=""
cleanup() {
  local rc=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ "$rc" -ne 0 ] && [ -s "$tmp/server.log" ]; then
    echo "compat: last lines of the payport log ($tmp/server.log):" >&2
    tail -n 40 "$tmp/server.log" >&2 || true
  fi
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- build payport and create the merchant -----------------------------------
echo "compat: building payport"
(cd "$repo_root" && go build -o "$tmp/payport" ./cmd/payport)

export PAYPORT_DATABASE_URL="sqlite:$tmp/payport.db"
export PAYPORT_LOG_FORMAT=json
unset PAYPORT_SECRET_KEY PAYPORT_ADDR PAYPORT_PUBLIC_URL PAYPORT_SANDBOX || true

"$tmp/payport" migrate >/dev/null
creds="$("$tmp/payport" merchant create --name compat --json)"
read_field() { node -e 'const o=JSON.parse(process.argv[1]); const v=o[process.argv[2]]; if(!v){process.exit(1)} process.stdout.write(String(v))' "$creds" "$1"; }
IMP_KEY="$(read_field imp_key)" || die "merchant create: no imp_key in: $creds"
IMP_SECRET="$(read_field imp_secret)" || die "merchant create: no imp_secret"
"$tmp/payport" merchant set --imp-key "$IMP_KEY" --schedule-list-paged=true >/dev/null
"$tmp/payport" merchant list --json | node -e '
  let s=""; process.stdin.on("data",d=>s+=d).on("end",()=>{
    const m=JSON.parse(s).find(m=>m.imp_key===process.argv[1]);
    if(!m||m.schedule_list_paged!==true){console.error("compat: schedule_list_paged is not on");process.exit(1)}
  })' "$IMP_KEY"

# --- start the server --------------------------------------------------------
port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close()})')"
PAYPORT_URL="http://127.0.0.1:$port"
"$tmp/payport" serve --addr "127.0.0.1:$port" >"$tmp/server.log" 2>&1 &
server_pid=$!

ready=""
for _ in $(seq 1 100); do
  kill -0 "$server_pid" 2>/dev/null || die "payport exited before it became healthy"
  if node -e 'fetch(process.argv[1]+"/healthz").then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$PAYPORT_URL"; then
    ready=1; break
  fi
  sleep 0.1
done
[ -n "$ready" ] || die "payport did not answer GET /healthz on $PAYPORT_URL within 10s"
echo "compat: payport serving on $PAYPORT_URL"

# --- install the pinned client (only when node_modules is missing or stale) ---
cd "$compat_dir"
[ -f package-lock.json ] || die "compat/package-lock.json is missing"
lock_sum="$(node -e 'process.stdout.write(require("crypto").createHash("sha256").update(require("fs").readFileSync("package-lock.json")).digest("hex"))')"
stamp="node_modules/.compat-lock-sha256"
if [ ! -d node_modules ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  echo "compat: npm ci"
  npm ci --no-audit --no-fund
  printf '%s' "$lock_sum" >"$stamp"
fi
node -e 'const p=require("iamport-rest-client-nodejs/package.json"); console.log("compat: iamport-rest-client-nodejs " + p.version)'

# --- run the suite -------------------------------------------------------------
export PAYPORT_URL IMP_KEY IMP_SECRET
set +e
node --test --test-reporter=tap compat.test.mjs 2>&1 | tee "$tmp/tap.txt"
rc=${PIPESTATUS[0]}
set -e
echo "compat: summary"
grep -E '^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ' "$tmp/tap.txt" || true
[ "$rc" -eq 0 ] || die "node --test failed (exit $rc)"
echo "compat: OK"
