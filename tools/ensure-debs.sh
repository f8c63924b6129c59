#!/usr/bin/env bash
# Install the Debian packages a make target needs, only those that are missing.
# Usage: tools/ensure-debs.sh venv|test|run|wm|report
set -euo pipefail
case "${1:-}" in
  venv)   pkgs=(python3-venv) ;;
  test)   pkgs=(libegl1 libgl1 libxkbcommon0 libfontconfig1 libglib2.0-0 libdbus-1-3 fonts-dejavu-core) ;;
  run)    pkgs=(libegl1 libgl1 libxkbcommon0 libfontconfig1 libglib2.0-0 libdbus-1-3 fonts-dejavu-core
                xvfb xauth libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1
                libxcb-image0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-randr0) ;;
  wm)     pkgs=(xvfb xauth openbox x11-utils libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4
                libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-shape0
                libxcb-xinerama0 libxcb-randr0) ;;
  report) pkgs=(poppler-utils) ;;
  *) echo "usage: $0 venv|test|run|wm|report" >&2; exit 2 ;;
esac
if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "ensure-debs: not a Debian system; make sure these are installed: ${pkgs[*]}" >&2
  exit 0
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
# python3-venv is only needed where the interpreter cannot make a venv by itself.
if [ "$1" = venv ] && python3 -c "import ensurepip" >/dev/null 2>&1; then exit 0; fi
echo "ensure-debs: installing missing Debian packages: ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
