#!/usr/bin/env bash
# The Debian packages a binary needs at run time, read from the binary itself (`ldd`, `dpkg -S`), so that the
# container image's list follows the libraries flowrun links against.
#
#   scripts/runtime-packages.sh BINARY
#       Prints, one a line, the packages owning the libraries BINARY links against directly, less the ones a
#       Debian base image already holds and the ones another of them depends on. apt installs what those
#       packages depend on.
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

# `name path` for every library the loader resolves for a binary (the vDSO and the loader itself have no `=>`).
resolved_libraries() {
    local binary="$1" listing
    listing="$(ldd "$binary")" || fail "ldd cannot read $binary"
    if grep -q "not found" <<< "$listing"; then
        fail "libraries not found for $binary: $(grep "not found" <<< "$listing" | awk '{print $1}' | xargs)"
    fi
    awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' <<< "$listing"
}

# The installed packages and what each depends on (Depends and Pre-Depends), read once: dpkg-query is slow.
declare -A depends=()
read_dependencies() {
    local status package dependencies
    while IFS=$'\t' read -r status package dependencies; do
        [[ "$status" == ii* ]] && depends[$package]="$dependencies"
    done < <(dpkg-query -W -f='${db:Status-Abbrev}\t${Package}\t${Depends}, ${Pre-Depends}\n')
}

# Prints the packages given and the installed packages they depend on, transitively. Of alternatives (`a | b`),
# every installed one counts; versions and architecture qualifiers are dropped.
closure() {
    local -A seen=()
    local queue=("$@") package item items
    while ((${#queue[@]})); do
        package="${queue[0]}"
        queue=("${queue[@]:1}")
        [[ -n "${seen[$package]:-}" ]] && continue
        seen[$package]=1
        IFS=',|' read -ra items <<< "${depends[$package]:-}"
        for item in "${items[@]}"; do
            read -r item _ <<< "$item"
            item="${item%%:*}"
            [[ -n "$item" && -n "${depends[$item]+set}" && -z "${seen[$item]:-}" ]] && queue+=("$item")
        done
    done
    printf '%s\n' "${!seen[@]}"
}

# The base image holds apt and what apt depends on.
base_packages() {
    closure apt
}

# The names dpkg may know a library file by: Debian's /lib is a link to /usr/lib, and a package lists each file
# under its own spelling, of the path the loader found or of the file it leads to.
spellings() {
    local path
    for path in "$1" "$(readlink -f "$1")"; do
        echo "/usr${path#/usr}"
        echo "${path#/usr}"
    done
}

# `name path package` for every library a binary loads (`-` for a library no package provides), from one
# dpkg-query over every spelling.
library_owners() {
    local binary="$1" name path line package spelling i
    local -a names=() paths=() spellings=()
    local -A owner=()
    while read -r name path; do
        names+=("$name")
        paths+=("$path")
        mapfile -t -O "${#spellings[@]}" spellings < <(spellings "$path")
    done < <(resolved_libraries "$binary")
    # Lines read `package:arch: /path`, or `package1:arch, package2:arch: /path` for a shared file.
    while read -r line; do
        package="${line%%: /*}"
        package="${package%%, *}"
        owner["/${line#*: /}"]="${package%%:*}"
    done < <(dpkg-query -S "${spellings[@]}" 2> /dev/null)
    for i in "${!names[@]}"; do
        package=-
        while read -r spelling; do
            [[ -n "${owner[$spelling]:-}" ]] && package="${owner[$spelling]}" && break
        done < <(spellings "${paths[$i]}")
        echo "${names[$i]} ${paths[$i]} $package"
    done
}

# The packages of the libraries a binary names itself (its NEEDED entries), less the base image's.
needed_packages() {
    local binary="$1" needed base name path package
    needed="$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
    base="$(base_packages)"
    while read -r name path package; do
        grep -qxF "$name" <<< "$needed" || continue
        [[ "$package" != - ]] || fail "no package provides $path ($name)"
        grep -qxF "$package" <<< "$base" || echo "$package"
    done < <(library_owners "$binary") | sort -u
}

# Of the packages given, those no other one of them brings in as a dependency (libtiff6 brings libjpeg62-turbo and
# libwebp7): the list the image names is the smallest that installs the same.
minimal() {
    local -a kept=("$@") others
    local package brought
    for package in "$@"; do
        mapfile -t others < <(printf '%s\n' "${kept[@]}" | grep -vxF "$package")
        ((${#others[@]})) || continue
        # Read whole before grep: `grep -q` stopping early would fail the pipe under pipefail.
        brought="$(closure "${others[@]}")"
        grep -qxF "$package" <<< "$brought" && kept=("${others[@]}")
    done
    printf '%s\n' "${kept[@]}"
}

check() {
    local binary="$1" installed base name path package missing=0
    shift
    installed="$(closure "$@")"
    base="$(base_packages)"
    while read -r name path package; do
        if [[ "$package" == - ]]; then
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
    done < <(library_owners "$binary")
    return "$missing"
}

read_dependencies
case "${1:-}" in
    --check)
        (($# >= 2)) || fail "usage: $0 --check BINARY PACKAGE..."
        check "${@:2}"
        ;;
    -* | "")
        fail "usage: $0 BINARY | $0 --check BINARY PACKAGE..."
        ;;
    *)
        mapfile -t needed < <(needed_packages "$1")
        minimal "${needed[@]}"
        ;;
esac
