#!/usr/bin/env bash
# The store's work at N items (100,000 by default: 200,000 records) in SQLite through GRDB.swift, to compare with
# the journal's figures from rerun.sh: a package of its own (bench/store/sqlite/), so flowrun does not depend on
# GRDB. Prints each operation's wall time, the peak RSS and the database's size (see its main.swift).
#
#   bench/store/sqlite.sh [N]
set -euo pipefail
N=${1:-100000}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-sqlite-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$(dirname "$0")/sqlite"
swift build -c release >&2
.build/release/StoreSQLiteBench "$N" "$WORK/db"
