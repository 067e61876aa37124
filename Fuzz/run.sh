#!/usr/bin/env bash
# Builds and runs a libFuzzer target.
#
#   Fuzz/run.sh loader 600          # the workflow loader, validators, planner and diagnostic renderer
#   Fuzz/run.sh decoders 600        # ImageDecoder: JPEG (TurboJPEG), PNG (libpng), EXIF orientation
#   Fuzz/run.sh heif 300            # HEIFFile and HEIFCodec (libheif: HEIC through libde265, AVIF through dav1d)
#   Fuzz/run.sh tiff 300            # TIFFCodec (libtiff), the TIFF structure reader and EXIF stripping
#   Fuzz/run.sh resize 600          # the resampling kernels (AVX2 in C where the CPU has it) on any shape
#   Fuzz/run.sh loader 60 -jobs=2   # extra arguments go to libFuzzer
#
# The corpus grows in Fuzz/corpus/TARGET (not committed), seeded from the project's workflows, fixtures and
# Fuzz/seeds/loader (loader), its photos and Fuzz/seeds/decoders (decoders), Fuzz/seeds/heif and Fuzz/seeds/tiff
# (made by make-format-seeds.py), or a few generated shapes (resize).
# Crashes, leaks, timeouts and OOMs land in Fuzz/artifacts/TARGET/. SANITIZE=fuzzer runs without AddressSanitizer.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
target="${1:?usage: run.sh loader|decoders|heif|tiff|resize [seconds] [libFuzzer args...]}"
seconds="${2:-600}"
shift $(( $# >= 2 ? 2 : 1 ))
sanitize="${SANITIZE:-fuzzer,address}"

case "$target" in
    # An input that reaches the import limit expands 10,000 tasks: seconds under AddressSanitizer on a busy machine.
    loader) product=FuzzLoader; max_len=65536; timeout=30 ;;
    decoders) product=FuzzDecoders; max_len=262144; timeout=10 ;;
    heif) product=FuzzHEIF; max_len=65536; timeout=10 ;;
    tiff) product=FuzzTIFF; max_len=65536; timeout=10 ;;
    resize) product=FuzzResize; max_len=4096; timeout=10 ;;
    *) echo "unknown target '$target' (loader, decoders, heif, tiff or resize)" >&2; exit 2 ;;
esac

cd "$here"
build="$here/.build-fuzz"
[ "$sanitize" = "fuzzer,address" ] || build="$here/.build-fuzz-${sanitize//,/-}"
# -enable-testing: the targets reach the decoders and the resampler, which are not public API, by @testable import.
swift build -c release --build-path "$build" --product "$product" \
    -Xswiftc "-sanitize=$sanitize" -Xswiftc -parse-as-library -Xswiftc -enable-testing >&2

corpus="$here/corpus/$target"
seeds="$here/corpus/$target-seeds"
artifacts="$here/artifacts/$target"
mkdir -p "$corpus" "$seeds" "$artifacts"
if [ "$target" = loader ]; then
    cp "$root"/workflows/*.yaml "$seeds/"
    find "$root/Tests/FlowKitTests/Fixtures" -name '*.yaml' | while read -r f; do
        cp "$f" "$seeds/$(echo "${f#"$root"/}" | tr / _)"
    done
    find "$root/examples" -name '*.yaml' -not -path '*/.build*' -exec cp {} "$seeds/" \;
    # Imports, lists, globs and numbers at their limits, naming the files FuzzLoader puts beside the workflow.
    cp "$here"/seeds/loader/*.yaml "$seeds/"
    # One large graph (about 40 KB), so mutations also reach the sizes where anything quadratic shows.
    python3 "$root/bench/load/generate.py" 1000 "$seeds/generated-1000.yaml"
    extra=(-dict="$here/yaml.dict")
elif [ "$target" = decoders ]; then
    cp "$root"/examples/photos/*.jpg "$here"/seeds/decoders/* "$seeds/"
    extra=()
elif [ "$target" = heif ] || [ "$target" = tiff ]; then
    cp "$here/seeds/$target"/* "$seeds/"
    extra=()
else
    # Sizes, filter, fit, shrink and flags in the first 8 bytes, pixels after: a few shapes to start from.
    printf '\x60\x3c\x1d\x12\x00\x00\x00\x00noise-noise-noise' >"$seeds/thumbnail"
    printf '\x05\x03\x9f\x77\x01\x02\x00\x01' >"$seeds/enlarge-constant"
    printf '\x60\x01\x01\x01\x02\x01\x07\x02abcdefgh' >"$seeds/one-pixel-shrunk"
    extra=()
fi

# ASan: no leak report at exit of every input is wanted from the Swift runtime's caches, but real leaks
# in an input's processing are (detect_leaks stays on; libFuzzer checks for leaks per input with -detect_leaks=1).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0:symbolize=1}"
# The process-lifetime caches LeakSanitizer cannot see through (lsan.supp says which and why).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0}"
exec "$build/release/$product" "$corpus" "$seeds" \
    -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -malloc_limit_mb=1100 -timeout="$timeout" \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "${extra[@]}" "$@"
