#!/usr/bin/env bash
# Side-by-side comparison with the Python reference (yaql 3.2.0, PyYAML,
# murano-pkg-check 0.3.0, openstack-heat 27.0.1; Murano 14.0.0's executor
# from Debian's python3-murano for the engine row).
# Usage: benches/compare/run.sh [--quick] [--system-alloc] [--only ROW[,ROW...]] [--rounds N]
#   --quick: a tenth of the inputs, 3 repetitions (well under two minutes).
#   --only: time only these rows (engine, hot-validate, yaql-parse,
#     class-load, yaql-eval, package-check), e.g. --only hot-validate.
#   --rounds N: time each row N times, Python then Rust back to back, and
#     print the median of the N ratios (default 1).
#   --system-alloc: time the Rust side with the system allocator instead of
#     mimalloc, which the murano tool ships with.
# The data root is $MURANO_SHARED, default ../shared beside the workspace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
shared=${MURANO_SHARED:-$root/../shared}
venv=${COMPARE_VENV:-$root/target/compare-venv}
repetitions=5
quick=()
features=()
only=()
rounds=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --quick) repetitions=3; quick=(--quick) ;;
        --system-alloc) features=(--no-default-features) ;;
        --only)
            [[ $# -ge 2 ]] || { echo "--only needs a row name" >&2; exit 2; }
            only=(--only "$2"); shift ;;
        --rounds)
            [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "--rounds needs a positive number" >&2; exit 2; }
            rounds=(--rounds "$2"); shift ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
    shift
done
if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet yaql==3.2.0 PyYAML==6.0.3 murano-pkg-check==0.3.0
fi
# Heat's engine for the hot-validate row (added later: older venvs lack it).
if ! "$venv/bin/python" -c "import heat" 2>/dev/null; then
    "$venv/bin/pip" install --quiet openstack-heat==27.0.1 yaql==3.2.0 PyYAML==6.0.3
fi
# Murano's own executor for the engine row (Debian's python3-murano,
# Murano 14.0.0 on yaql 2.0.0), when this machine lets us install it.
if ! /usr/bin/python3 -c "import murano.dsl" 2>/dev/null && [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-murano >/dev/null || true
fi
cargo build --quiet --release -p murano-benches --bin compare "${features[@]}" --manifest-path "$root/Cargo.toml"
"$venv/bin/python" "$here/compare.py" "$shared" "$root/target/release/compare" "$repetitions" "$root/target/compare-zips" "${quick[@]}" "${only[@]}" "${rounds[@]}"
