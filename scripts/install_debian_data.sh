#!/usr/bin/env bash
# Install the Debian packages pinned in models.lock ([[data]] with source = "debian"):
# download each at its pinned version, check its sha256 against the lock, install the file.
# Needs root (or sudo). Without it, say what to run and fail: METEOR needs WordNet, the CP
# metrics the link-grammar parser (whose Python module `mtstrata models --install` then links
# into the environment).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t rows < <(python3 - <<'PY'
import tomllib
for d in tomllib.load(open("models.lock", "rb")).get("data", []):
    if d["source"] == "debian":
        # a superseded build may be replaced by the archive's newest only where no number
        # depends on the package (see models.lock; mtstrata.lock checks the pair)
        newest = d.get("superseded") == "newest" and d.get("numbers") is False
        print(d["name"], d["version"], d["sha256"], "newest" if newest else "strict")
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
  if ! (cd "$tmp" && $SUDO apt-get download -qq "$1=$2" 2>/dev/null); then
    if [ "$4" != newest ]; then
      echo "mtstrata set-up: Debian's archive no longer has $1=$2 (pinned in models.lock); refusing to install another build." >&2
      exit 1
    fi
    (cd "$tmp" && $SUDO apt-get download -qq "$1")
    f=$(ls "$tmp"/"$1"_*.deb)
    echo "mtstrata set-up: NOTE: Debian's security archive no longer has $1=$2 (sha256 $3, pinned in models.lock): it keeps only its newest build. Installing $(basename "$f") (sha256 $(sha256sum "$f" | cut -d' ' -f1)) instead; no number depends on $1 (models.lock: numbers = false). Update the pin to it." >&2
    debs+=("$f")
    continue
  fi
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
