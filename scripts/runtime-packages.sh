#!/usr/bin/env bash
# The Debian packages a binary needs at run time, read from the binary itself (`ldd`, `dpkg -S`), so that the
# container image's list follows the libraries flowrun links against.
#
#   scripts/runtime-packages.sh BINARY
#       Prints, one a line, the packages owning the libraries BINARY links against directly, less the ones a
#       Debian base image already holds. apt installs what those packages depend on.
#   scripts/runtime-packages.sh --check BINARY PACKAGE...
#       Checks that every library BINARY loads (ldd, transitively) is provided by one of the PACKAGEs, by a
#       package they depend on, or by the base image; prints each library with where it comes from and exits 1 if
#       one is provided by none.
#
# The base image is taken to hold apt and everything apt depends on (libc6, libgcc-s1, libstdc++6, zlib1g,
# libgnutls30, …): every Debian image has apt, and the runtime stage uses it to install the packages.
set -euo pipefail

fail() {
    echo "runtime-packages: $*" >&2
    exit 1
}

# The package owning a library file. Debian's /lib is a link to /usr/lib, and dpkg knows each file under the
# name its package gives it, so both spellings are tried, of the path and of its target.
owner() {
    local path="$1" candidates candidate
    candidates=("$path" "$(readlink -f "$path")")
    for candidate in "${candidates[@]}"; do
        candidates+=("/usr${candidate#/usr}" "${candidate#/usr}")
    done
    for candidate in "${candidates[@]}"; do
        if dpkg-query -S "$candidate" > /dev/null 2>&1; then
            dpkg-query -S "$candidate" 2> /dev/null | head -n 1 | cut -d: -f1
            return 0
        fi
    done
    return 1
}

# `name path` for every library the loader resolves for BINARY (the vDSO and the loader itself have no `=>`).
resolved_libraries() {
    local binary="$1" listing
    listing="$(ldd "$binary")" || fail "ldd cannot read $binary"
    if grep -q "not found" <<< "$listing"; then
        fail "libraries not found for $binary: $(grep "not found" <<< "$listing" | awk '{print $1}' | xargs)"
    fi
    awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' <<< "$listing"
}

# The installed packages that PACKAGEs depend on (Depends and Pre-Depends), transitively, with the PACKAGEs.
closure() {
    local -A seen=()
    local queue=("$@") package dependency
    while ((${#queue[@]})); do
        package="${queue[0]}"
        queue=("${queue[@]:1}")
        [[ -n "${seen[$package]:-}" ]] && continue
        seen[$package]=1
        # Alternatives (`a | b`), versions and architecture qualifiers: every installed alternative counts.
        for dependency in $(dpkg-query -W -f='${Depends}, ${Pre-Depends}\n' "$package" 2> /dev/null \
            | tr ',|' '\n\n' | sed -e 's/([^)]*)//g' -e 's/:[a-z0-9]*//g' | awk 'NF { print $1 }'); do
            if [[ -z "${seen[$dependency]:-}" ]] && dpkg-query -W "$dependency" > /dev/null 2>&1; then
                queue+=("$dependency")
            fi
        done
    done
    printf '%s\n' "${!seen[@]}" | sort
}

base_packages() {
    closure apt
}

# The packages of the libraries BINARY names itself (its NEEDED entries), less the base image's.
needed_packages() {
    local binary="$1" needed name path package
    needed="$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
    local base
    base="$(base_packages)"
    while read -r name path; do
        grep -qxF "$name" <<< "$needed" || continue
        package="$(owner "$path")" || fail "no package provides $path ($name)"
        grep -qxF "$package" <<< "$base" || echo "$package"
    done < <(resolved_libraries "$binary") | sort -u
}

check() {
    local binary="$1" installed base name path package missing=0
    shift
    installed="$(closure "$@")"
    base="$(base_packages)"
    while read -r name path; do
        if ! package="$(owner "$path")"; then
            echo "  $name: $path belongs to no package"
            missing=1
        elif grep -qxF "$package" <<< "$installed"; then
            echo "  $name: $package (installed)"
        elif grep -qxF "$package" <<< "$base"; then
            echo "  $name: $package (base image)"
        else
            echo "  $name: $package — NOT installed by: $*"
            missing=1
        fi
    done < <(resolved_libraries "$binary")
    return "$missing"
}

case "${1:-}" in
    --check)
        (($# >= 2)) || fail "usage: $0 --check BINARY PACKAGE..."
        check "${@:2}"
        ;;
    -* | "")
        fail "usage: $0 BINARY | $0 --check BINARY PACKAGE..."
        ;;
    *)
        needed_packages "$1"
        ;;
esac
