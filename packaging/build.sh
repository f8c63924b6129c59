#!/usr/bin/env bash
# Build the one-folder app: dist/privplan/privplan (make package).
# Prints the bundle size and the start-up time of `privplan --version`, and checks that
# OpenDP's native library is inside (PyInstaller does not collect it by itself).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
"$PY" -m pip install -q --disable-pip-version-check "pyinstaller>=6.5" 2>&1 | grep -v '^WARNING: Location' || true
rm -rf build/privplan dist/privplan
# the user guide, bundled as docs-site/ (Help ▸ User Guide, F1)
"$PY" -m mkdocs build --strict --quiet
t0=$(date +%s)
"$PY" -m PyInstaller --noconfirm --log-level WARN --distpath dist --workpath build \
    packaging/privplan.spec
t1=$(date +%s)
APP=dist/privplan/privplan
test -x "$APP" || { echo "build.sh: $APP was not built" >&2; exit 1; }
lib=$(find dist/privplan -path '*opendp/lib/opendp*.so*' | head -1)
test -n "$lib" || { echo "build.sh: OpenDP's native library is missing from the bundle" >&2; exit 1; }
# OpenDP's wheel ships its library with debug symbols, and so does a source-built libpython;
# the wheels repaired by auditwheel (numpy, scipy, scikit-learn and their *.libs) are left
# alone: stripping a patchelf-edited library breaks it
if command -v strip >/dev/null; then
    strip --strip-unneeded "$lib"
    find dist/privplan/_internal -maxdepth 1 -name 'libpython*.so*' -exec strip --strip-unneeded {} +
    find dist/privplan/_internal/python3* dist/privplan/_internal/PySide6 -name '*.so*' \
        -exec strip --strip-unneeded {} + 2>/dev/null || true
fi
# ... and compressed: 161 MB -> 25 MB in the bundle, unpacked into the user's cache on first
# use by packaging/rthook_opendp.py
libmb=$(du -m "$lib" | cut -f1)
mkdir -p dist/privplan/_internal/opendp/lib.xz
packed=dist/privplan/_internal/opendp/lib.xz/$(basename "$lib").xz
if command -v xz >/dev/null; then xz -T0 -6 -c "$lib" > "$packed"
else "$PY" -c "import lzma,shutil,sys; shutil.copyfileobj(open(sys.argv[1],'rb'), lzma.open(sys.argv[2],'wb',preset=6))" "$lib" "$packed"; fi
rm -rf "$(dirname "$lib")"
size=$(du -sm dist/privplan | cut -f1)
TIMEFORMAT=%R
cache=$(mktemp -d)
first=$( { time XDG_CACHE_HOME=$cache "$APP" audit laplace --epsilon 1 --sensitivity 1 --samples 200 --seed 1 >/dev/null; } 2>&1 )
rm -rf "$cache"
"$APP" --version >/dev/null  # a first run warms the file cache
startup=$( { time "$APP" --version >/dev/null; } 2>&1 )
echo "bundle: dist/privplan, ${size} MB; built in $((t1 - t0)) s"
echo "OpenDP native library: ${packed#dist/privplan/} ($(du -m "$packed" | cut -f1) MB; ${libmb} MB stripped, unpacked on first use)"
echo "start-up (privplan --version): ${startup} s; first OpenDP use with an empty cache (unpacks it): ${first} s"
