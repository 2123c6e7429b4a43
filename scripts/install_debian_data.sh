#!/usr/bin/env bash
# Install the Debian packages pinned in models.lock ([[data]] with source = "debian"):
# download each at its pinned version, check its sha256 against the lock, install the file.
# Needs root (or sudo). Without it, say what to run and fail: METEOR needs WordNet.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t rows < <(python3 - <<'PY'
import tomllib
for d in tomllib.load(open("models.lock", "rb")).get("data", []):
    if d["source"] == "debian":
        print(d["name"], d["version"], d["sha256"])
PY
)
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then SUDO=sudo; else
    echo "mtstrata set-up: installing Debian packages needs root; run as root:" >&2
    for r in "${rows[@]}"; do set -- $r; echo "  apt-get install -y --no-install-recommends $1=$2" >&2; done
    exit 1
  fi
fi
todo=()
for r in "${rows[@]}"; do
  set -- $r
  have=$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true)
  if [ "$have" = "$2" ]; then echo "$1 $2 already installed"; else todo+=("$r"); fi
done
[ ${#todo[@]} -eq 0 ] && exit 0
tmp=$(mktemp -d); chmod 755 "$tmp"
$SUDO apt-get update -qq
debs=()
for r in "${todo[@]}"; do
  set -- $r
  (cd "$tmp" && $SUDO apt-get download -qq "$1=$2" 2>/dev/null)
  f=$(ls "$tmp"/"$1"_*.deb)
  got=$(sha256sum "$f" | cut -d' ' -f1)
  if [ "$got" != "$3" ]; then
    echo "mtstrata set-up: $f has sha256 $got, models.lock pins $3; refusing to install." >&2
    exit 1
  fi
  debs+=("$f")
done
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${debs[@]}"
rm -rf "$tmp"
