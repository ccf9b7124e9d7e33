#!/usr/bin/env bash
# The main job: the murano command line tool on the bundled examples, one
# step per command, each with a heading that says what it shows and why.
# It needs nothing beside the clone and a Rust toolchain: it builds the
# CLI and fetches Murano's core library (io.murano, Murano's own code,
# which this project does not ship) from Debian's murano-common package,
# without installing anything (apt-get download and dpkg-deb -x).
#
# Optional settings:
#   MURANO       a murano binary to use instead of building one
#   MURANO_CORE  the core library (io.murano.zip or its folder) to use
#                instead of fetching murano-common
#   WORK         where files are written (default: target)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-target}
mkdir -p "$WORK"
n=0
step() {
    n=$((n + 1))
    printf '\n=== %d. %s ===\n%s\n\n' "$n" "$1" "$2"
}

if [ -z "${MURANO:-}" ]; then
    step "Build the murano binary" \
"cargo build --release -p murano-cli: every later step runs this binary."
    cargo build --release -p murano-cli
    MURANO=target/release/murano
fi
if [ -z "${MURANO_CORE:-}" ]; then
    step "Fetch Murano's core library" \
"io.murano (the base classes every application extends) comes from Debian's
murano-common package, unpacked into $WORK/murano-common (run as root on a
machine that never ran apt-get update)."
    if [ ! -d "$WORK/murano-common" ]; then
        (
            cd "$WORK"
            apt-get download murano-common \
                || { apt-get update -qq && apt-get download murano-common; }
            dpkg-deb -x murano-common_*.deb murano-common
        )
    fi
    MURANO_CORE=$WORK/murano-common/usr/share/murano-common/io.murano.zip
fi

step "murano check: lint the bundled packages" \
"The three example packages (an application, a library, a Heat.HOT package)
are checked as murano-pkg-check checks them, plus the checks beyond it (M
codes). They are clean, so nothing but the summary is printed."
"$MURANO" check examples/packages/shop examples/packages/greetings examples/packages/hello-hot

step "murano schema: the JSON schema of a class" \
"What Murano's API answers for com.example.Shop (GET /schemas): the
properties a client must fill in, with the core library as the catalog its
parent classes come from."
"$MURANO" schema examples/packages/shop com.example.Shop --catalog "$MURANO_CORE"

step "murano inspect: what a Heat.HOT package generates" \
"Murano turns a Heat template into a MuranoPL class and a Dynamic UI
definition when it imports the package; this shows both."
"$MURANO" inspect examples/packages/hello-hot

step "murano ui: fill in the shop's forms offline" \
"The values in examples/ui/shop-values.yaml go through the dashboard's
validation of each field; the object model the dashboard would send is
printed and kept in $WORK/shop-model.json for the deploy below."
"$MURANO" ui examples/packages/shop --values examples/ui/shop-values.yaml \
    --cloud examples/ui/cloud.yaml | tee "$WORK/shop-model.json"

step "murano test: a package's own MuranoPL tests" \
"The greetings library ships test classes; they run in the engine, without
a cloud, as Murano's test runner would run them."
"$MURANO" test examples/packages/greetings --catalog "$MURANO_CORE"

step "murano deploy --dry-run: deploy the shop against an offline cloud" \
"The object model from the ui step is deployed by the engine; the Heat
templates, agent plans and status reports it would send, and the final
object model, are printed."
"$MURANO" deploy --dry-run "$WORK/shop-model.json" --catalog examples/packages \
    --catalog "$MURANO_CORE"

step "murano catalog, murano env: a whole environment lifecycle" \
"An environment composes applications that reference each other: the Notes
form needs a NotesDb of the same environment (database=@notes-db). The
packages are imported into a store (a SQLite file in $WORK), both
applications added, the environment deployed, an action called, an
application edited and the environment deployed again, then deleted: its
objects destroyed and its Heat stacks removed from the offline cloud."
export MURANO_DB=$WORK/walkthrough-env.db
rm -f "$MURANO_DB"
"$MURANO" catalog import "$MURANO_CORE" examples/packages/notes-db examples/packages/notes
"$MURANO" env create demo
VM='{"?": {"type": "io.murano.resources.LinuxMuranoInstance"}, "name": "vm", "flavor": "m1.small", "image": "ubuntu"}'
"$MURANO" env add demo com.example.NotesDb --set name=notes-db --set "instance=$VM"
"$MURANO" env add demo com.example.Notes --set name=notes --set database=@notes-db --set "instance=$VM"
"$MURANO" env deploy demo
"$MURANO" env actions demo
BACKUP=$("$MURANO" env actions demo | awk '/_backup/ {print $1}')
"$MURANO" env action demo "$BACKUP"
"$MURANO" env edit demo notes '[{"op": "replace", "path": "/instance/flavor", "value": "m1.medium"}]'
"$MURANO" env deploy demo
"$MURANO" env deployments demo
"$MURANO" env delete demo

printf '\n=== done: %d steps ===\n' "$n"
