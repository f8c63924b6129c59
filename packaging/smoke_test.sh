#!/usr/bin/env bash
# Run the frozen app the way a user would and check what it produces, not only exit codes:
#   1. --version prints the version of pyproject.toml;
#   2. a headless sweep on two worker processes (frozen children must start: freeze_support)
#      gives the numbers of the source tree, bit for bit;
#   3. OpenDP noise works from the bundle (its native library is inside): an audit run;
#   4. a screenshot of the main window on the built-in example (offscreen platform) is a
#      PNG of the window's size that is not blank;
#   5. a sweep recorded into a copy of the built-in project, and its report (PDF and HTML);
#   6. without PRIVPLAN_DEEP=1 the bundle has no JAX: a network command exits 2 naming the
#      optional 'deep' extra (with it, the bundle trains a small network);
#   7. the user guide is in the bundle where Help ▸ User Guide looks for it.
# Usage: packaging/smoke_test.sh [dist/privplan/privplan]
set -euo pipefail
cd "$(dirname "$0")/.."
APP=${1:-dist/privplan/privplan}
PY=${PY:-.venv/bin/python}
test -x "$APP" || { echo "smoke_test: no bundle at $APP (run make package)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export QT_QPA_PLATFORM=offscreen
# an empty cache: the first command unpacks OpenDP's library (packaging/rthook_opendp.py)
export XDG_CACHE_HOME="$out/cache"
fail() { echo "smoke_test: FAIL: $*" >&2; exit 1; }

# 1. version
want=$("$PY" -c "import tomllib; print(tomllib.load(open('pyproject.toml','rb'))['project']['version'])")
got=$("$APP" --version)
[ "$got" = "privplan $want" ] || fail "--version printed '$got', expected 'privplan $want'"
echo "ok 1 --version: $got"

# 2. a sweep on two worker processes, against the source tree
MDP=assets/examples/example2.mdp.json
args=(sweep "$MDP" --k 10,1000 --runs 8 --seed 3 --json)
PRIVPLAN_SMALL_WORK=0 "$APP" "${args[@]}" --workers 2 > "$out/frozen.json" \
    || fail "frozen sweep --workers 2 exited $?"
"$PY" app.py "${args[@]}" --workers 1 > "$out/source.json"
"$PY" - "$out/frozen.json" "$out/source.json" <<'PYEOF' || fail "sweep results differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("elapsed_s")
assert a.pop("backend") == "2 local worker processes", "the frozen sweep did not use 2 processes"
assert b.pop("backend") == "in-process"
assert a == b, "frozen and source sweeps differ"
assert len(a["v_lower_mean"]) == 2 and a["runs"] == 8
PYEOF
echo "ok 2 sweep on 2 frozen worker processes = source tree"

# 3. OpenDP from the bundle
"$APP" audit laplace --epsilon 1 --sensitivity 1 --samples 2000 --seed 1 --json > "$out/audit.json" \
    || fail "audit laplace exited $?"
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['verdict']=='consistent', d" \
    "$out/audit.json" || fail "audit verdict"
ls "$XDG_CACHE_HOME"/privplan/opendp-*/opendp.abi3.so > /dev/null 2>&1 \
    || fail "OpenDP's library was not unpacked into the cache"
echo "ok 3 OpenDP Laplace audit: consistent (library unpacked on first use)"

# 4. a screenshot of the main window
"$APP" --screenshot "$out/main.png" || fail "--screenshot exited $?"
"$PY" - "$out/main.png" <<'PYEOF' || fail "screenshot is not a picture of the window"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert w >= 800 and h >= 500, (w, h)
assert len(data) > 50_000, f"only {len(data)} bytes: a blank window?"
PYEOF
echo "ok 4 screenshot $(wc -c < "$out/main.png") bytes"

# 5. reports: a project with a sweep recorded by the frozen app, PDF and HTML, with the pages
#    of the source tree's report of the same project
PROJECT="$out/p.privplan.json"
cp assets/examples/builtin.privplan.json "$PROJECT"
"$APP" sweep "$PROJECT" --mdp four-startups --k 10,100 --runs 4 --seed 1 --record --json \
    > "$out/recorded.json" || fail "frozen sweep --record exited $?"
"$APP" report "$PROJECT" -o "$out/r.pdf" --json > "$out/report.json" || fail "report pdf exited $?"
head -c 5 "$out/r.pdf" | grep -q '%PDF-' || fail "r.pdf is not a PDF"
"$PY" app.py report "$PROJECT" -o "$out/s.pdf" --json > "$out/source-report.json"
pages=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['pages'])" "$out/report.json")
want=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['pages'])" "$out/source-report.json")
[ "$pages" -ge 2 ] && [ "$pages" = "$want" ] || fail "the PDF report has $pages page(s), the source tree's $want"
"$APP" report "$PROJECT" -o "$out/r.html" > /dev/null || fail "report html exited $?"
grep -q "Privacy ledger" "$out/r.html" || fail "the HTML report has no privacy ledger"
grep -q "four-startups" "$out/r.html" || fail "the HTML report does not show the recorded sweep"
echo "ok 5 reports: PDF ($pages pages, $(wc -c < "$out/r.pdf") bytes) and HTML of a recorded sweep"

# 6. the networks (the optional deep extra) are in the bundle only when the build asked
if [ "${PRIVPLAN_DEEP:-}" = "1" ]; then
    "$APP" mia --data wine --model mlp --train-size 20 --shadows 1 --epochs 2 --seed 1 --json \
        > "$out/deep.json" || fail "mia --model mlp exited $? in a PRIVPLAN_DEEP=1 bundle"
    echo "ok 6 the bundle trains a network (PRIVPLAN_DEEP=1)"
else
    set +e
    "$APP" mia --data wine --model mlp --seed 1 > /dev/null 2> "$out/deep.err"
    code=$?
    set -e
    [ "$code" = 2 ] && grep -q "privplan\[deep\]" "$out/deep.err" \
        || fail "mia --model without JAX: exit $code, '$(cat "$out/deep.err")'"
    echo "ok 6 no JAX in the bundle: mia --model exits 2 naming the deep extra"
fi
# 7. the user guide (gui/shell/help.py opens docs-site/ beside assets/ in the bundle)
guide=$(dirname "$APP")/_internal/docs-site
[ -f "$guide/guide/index.html" ] && [ -f "$guide/guide/cli-reference.html" ] \
    || fail "the user guide is missing from the bundle ($guide)"
echo "ok 7 the user guide is in the bundle"
echo "smoke_test: all 7 checks passed ($APP)"
