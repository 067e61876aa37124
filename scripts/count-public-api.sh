#!/usr/bin/env bash
# Counts the declarations each Swift module of flowrun exports: those declared `public` or `open` (what another
# package may use), beside those declared `package` (what only this package's targets and tests may use).
# Usage: scripts/count-public-api.sh [Sources folder]   — prints one row per module and a total.
# A declaration is a line whose modifiers (after any attributes) include the access level; `public import` is an
# import, not a declaration, and lines in comments and multi-line strings that look like code are not expected.
set -euo pipefail
cd "$(dirname "$0")/.."
sources=${1:-Sources}

modifier='(@[A-Za-z_]+(\([^)]*\))?|final|override|static|class|nonisolated|indirect|required|convenience|mutating|dynamic|lazy|weak|unowned|private\(set\)|internal\(set\)|package\(set\))'
declarations() {  # access-level pattern, module folder: the declaration lines
    { grep -rhE --include='*.swift' "^[[:space:]]*(${modifier}[[:space:]]+)*$1[[:space:]]" "$2" || true; } |
        { grep -vE "^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*$1[[:space:]]+import[[:space:]]" || true; }
}

printf '%-16s %8s %8s\n' module public package
total_public=0 total_package=0
for folder in "$sources"/*/; do
    module=$(basename "$folder")
    compgen -G "$folder*.swift" >/dev/null || [[ -n $(find "$folder" -name '*.swift' -print -quit) ]] || continue
    public=$(declarations '(public|open)' "$folder" | grep -c . || true)
    package=$(declarations 'package' "$folder" | grep -c . || true)
    printf '%-16s %8d %8d\n' "$module" "$public" "$package"
    total_public=$((total_public + public)) total_package=$((total_package + package))
done
printf '%-16s %8d %8d\n' total "$total_public" "$total_package"
