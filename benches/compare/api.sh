#!/usr/bin/env bash
# murano serve against Python's murano-api (Murano 14.0.0 from Debian's
# python3-murano, served offline by murano_api_server.py as the API
# conformance recorder served it): the same load (examples/api_load.rs:
# package list over the imported packages, environment show, service edits,
# with deployments in flight) against each, then the throughput ratio.
# Usage: benches/compare/api.sh [--seconds N] [--clients N] [--packages N] [--deployments N]
# Defaults: 10 s, 64 clients, 1000 packages, 8 deployments.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
args=("$@")
python=${MURANO_PYTHON:-/usr/bin/python3}
if ! "$python" -c "import murano.api.v1.router" 2>/dev/null; then
    echo "api.sh: $python cannot import murano (apt-get install python3-murano)" >&2
    exit 2
fi
cargo build --quiet --release -p murano-benches --example api_load --manifest-path "$root/Cargo.toml"
load="$root/target/release/examples/api_load"
work=$(mktemp -d)
port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$python" "$here/murano_api_server.py" "$work/murano.db" "$port" >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 120); do
    grep -q '^listening on' "$work/server.log" && break
    kill -0 $server 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    sleep 0.5
done
echo "== Python murano-api (Murano 14.0.0, $("$python" --version 2>&1), eventlet WSGI server) =="
"$load" --url "http://127.0.0.1:$port" "${args[@]}" | tee "$work/python.txt" || true
echo "== murano serve (in process) =="
"$load" "${args[@]}" | tee "$work/rust.txt"
rps() { sed -n 's/.*= \([0-9.]*\) requests\/s.*/\1/p' "$1"; }
py=$(rps "$work/python.txt"); rs=$(rps "$work/rust.txt")
"$python" - "$py" "$rs" <<'PY'
import sys
py, rs = (float(x or 0) for x in sys.argv[1:3])
if py > 0:
    print("throughput ratio murano serve / murano-api: %.1fx (target >= 20x)" % (rs / py))
else:
    print("throughput ratio: Python served no request")
PY
