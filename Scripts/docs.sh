#!/usr/bin/env bash
# Builds the DocC documentation of the two libraries an app links, UserDebugKit and
# UserDebugCapture, into .build/docs/NAME.doccarchive, and fails when docc reports any warning or
# error (a broken ``Symbol`` link, a missing article) or when a Swift snippet of an article no
# longer type-checks against the library it documents.
#   Scripts/docs.sh               builds the two libraries (a no-op after `swift build`), then the docs
#   Scripts/docs.sh --skip-build  uses the debug build as it is (Scripts/test.sh, right after its build)
# Also merges both into .build/docs/userdebug.doccarchive, the one to browse (a static site: serve it
# with any file server, then open /documentation/userdebugkit). Writes nothing outside .build/docs/.
set -euo pipefail
cd "$(dirname "$0")/.."

toolchain_bin=$(dirname "$(readlink -f "$(command -v swift)")")
docc=${DOCC:-$toolchain_bin/docc}
extract=$toolchain_bin/swift-symbolgraph-extract
swiftc=$toolchain_bin/swiftc
modules=.build/debug/Modules
out=.build/docs
triple=$(uname -m)-unknown-linux-gnu

fail() {
  echo "docs.sh: $*" >&2
  exit 1
}

[[ -x $docc ]] || fail "no docc at $docc (it ships with the Swift toolchain; set DOCC to another path)"
if [[ ${1:-} != --skip-build ]]; then
  # The same C flags as Scripts/test.sh, so this build reuses that one's products.
  swift build --target UserDebugCapture -Xcc -Wall -Xcc -Wextra -Xcc -Werror=implicit-function-declaration >/dev/null ||
    fail "swift build --target UserDebugCapture failed; run it to see why"
fi
for module in UserDebugKit UserDebugCapture; do
  [[ -f $modules/$module.swiftmodule ]] || fail "no $modules/$module.swiftmodule; run swift build first"
done

rm -rf "$out"
# swiftc leaves a TemporaryDirectory.* behind on every run and docc merge a directory of its own:
# they go to a TMPDIR inside $out, removed on exit.
export TMPDIR=$PWD/$out/tmp
mkdir -p "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT
log=$out/docc.log
# The debug build's module cache: inside .build and already warm (a new one costs some 15 s of
# Glibc and Foundation modules; without the option they would go to ~/.cache).
# The path as the build recorded it (.build/debug is a symbolic link), or clang sees two caches.
cache=$(readlink -f .build/debug)/ModuleCache
# -I Sources/CSQLite, CZlib, CBrotli: UserDebugKit's module refers to those system libraries, whose
# module maps live there; and to CShared, a C target whose module map the build writes.
search=(-I "$modules" -I Sources/CSQLite -I Sources/CZlib -I Sources/CBrotli
  -Xcc "-fmodule-map-file=$(readlink -f .build/debug)/CShared.build/module.modulemap" -module-cache-path "$cache")

# Every ```swift block of a catalog's pages, in page order, is one file that must type-check as an
# app's main.swift would, in Swift 6 mode with DEBUG defined and warnings as errors. A package
# manifest (first line `// swift-tools-version`) is left out: it is not app code.
check_snippets() {
  local catalog=$1 name=$2 page file
  mkdir -p "$out/snippets"
  for page in "$catalog"/*.md; do
    file=$out/snippets/$name-$(basename "$page" .md).swift
    awk -v page="$page" '
      /^```swift[[:space:]]*$/ { inside = 1; first = 1; next }
      inside && /^```[[:space:]]*$/ { inside = 0; next }
      inside && first && /^\/\/ swift-tools-version/ { inside = 0; next }
      inside { if (first) printf "// %s:%d\n", page, NR; first = 0; print }
    ' "$page" >"$file"
    [[ -s $file ]] || { rm -f "$file"; continue; }
    "$swiftc" -typecheck -swift-version 6 -D DEBUG -warnings-as-errors "${search[@]}" "$file" >"$file.log" 2>&1 ||
      fail "a Swift snippet in $page does not type-check against the API (all of that page's snippets: $file):
$(head -n 40 "$file.log")"
  done
}

# Builds one catalog; extra arguments go to docc convert.
convert() {
  local name=$1 catalog=$2 graphs=$out/symbol-graphs/$1 status=0
  shift 2
  mkdir -p "$graphs"
  "$extract" -module-name "$name" -target "$triple" "${search[@]}" -minimum-access-level public \
    -skip-inherited-docs -output-dir "$graphs" >>"$log" 2>&1 ||
    fail "swift-symbolgraph-extract failed for $name:
$(tail -n 20 "$log")"
  check_snippets "$catalog" "$name"
  echo "== docc convert $name" >>"$log"
  "$docc" convert "$catalog" --additional-symbol-graph-dir "$graphs" \
    --output-path "$out/$name.doccarchive" --fallback-display-name "$name" \
    --fallback-bundle-identifier "userdebug.$name" --warnings-as-errors "$@" >"$out/$name.log" 2>&1 || status=$?
  cat "$out/$name.log" >>"$log"
  if [[ $status -ne 0 ]] || grep -qiE '(warning|error):' "$out/$name.log"; then
    cat "$out/$name.log" >&2
    fail "docc reported problems in $catalog (above; exit status $status): fix the link or article it names"
  fi
  echo "docs.sh: $out/$name.doccarchive"
}

# The external-link flag makes UserDebugKit's archive one that UserDebugCapture's pages can link
# into (``/UserDebugKit/SessionStore``); docc wants it on the linking side too.
convert UserDebugKit Sources/UserDebugKit/UserDebugKit.docc --enable-experimental-external-link-support
convert UserDebugCapture Sources/UserDebugCapture/UserDebugCapture.docc \
  --enable-experimental-external-link-support --dependency "$out/UserDebugKit.doccarchive"

# One archive with both, where the links between them lead somewhere.
"$docc" merge "$out/UserDebugKit.doccarchive" "$out/UserDebugCapture.doccarchive" \
  --synthesized-landing-page-name userdebug --output-path "$out/userdebug.doccarchive" >"$out/merge.log" 2>&1 || {
  cat "$out/merge.log" >&2
  fail "docc merge failed (above)"
}
echo "docs.sh: $out/userdebug.doccarchive (both libraries; serve it with: python3 -m http.server -d $out/userdebug.doccarchive)"
