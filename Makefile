# The two commands of README.md:  `make demo` (install everything, score the bundled sample)
# and `make test` (the test suite; .ci/run calls it).
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.mtstrata-installed
# lexical metrics, then linguistic ones over the spaCy layers and the semantic-role labeller
DEMO_METRICS ?= bleu bleu-sbp nist chrf chrf++ ter wer per wrr 4-GRR tBLEU METEOR-sy \
	ROUGE-L ROUGE-W GTM-2 Ol 'SP-Op(*)' 'SP-Oc(*)' SP-pBLEU 'DP-Or(*)' DP-HWCM_r-4 DP-Ld \
	'NE-Oe(*)' 'SR-Or(*)' 'SR-Mrv(*)' Bllip EMB-F EMB-cos ULC ULC-lex ULC-emb

.PHONY: setup demo test check setup-stanza bench lint wheelhouse results

$(STAMP): requirements.txt mtstrata/data/models.lock pyproject.toml scripts/setup.sh \
		scripts/install_debian_data.sh
	bash scripts/setup.sh
	touch $@

setup: $(STAMP)

demo: setup
	$(BIN)/mtstrata score -r sample/ref.A.txt -r sample/ref.B.txt -i sample/sys/*.txt \
		-m $(DEMO_METRICS) --signatures build/demo-signatures.txt

STANZA_STAMP := $(VENV)/.mtstrata-stanza-installed
$(STANZA_STAMP): $(STAMP) requirements-stanza.txt
	$(BIN)/python -m pip --disable-pip-version-check -q install -r requirements-stanza.txt
	touch $@

# the optional stanza backend (stanza; torch is in requirements.txt); its conversion tests need it
setup-stanza: $(STANZA_STAMP)

# every pinned wheel in a local directory: the wheel test installs from it without network
WHEELHOUSE_STAMP := $(VENV)/wheelhouse/.complete
$(WHEELHOUSE_STAMP): $(STAMP) requirements.txt mtstrata/data/models.lock scripts/wheelhouse.sh
	VENV=$(VENV) bash scripts/wheelhouse.sh
	touch $@

wheelhouse: $(WHEELHOUSE_STAMP)

# the suite in TEST_WORKERS processes (pytest-xdist; 0: in this process); `make check` is the
# quick tier for the inner loop: every test but those marked slow (tests/conftest.py) and the wheel
TEST_WORKERS ?= 2
test: setup setup-stanza wheelhouse
	MTSTRATA_WHEELHOUSE=$(abspath $(VENV))/wheelhouse $(BIN)/python -m pytest -n $(TEST_WORKERS)

check: setup
	$(BIN)/python -m pytest -n $(TEST_WORKERS) -m "not slow and not wheel"

lint: setup
	$(BIN)/ruff check mtstrata tests benchmarks tools

# RESULTS.md's generated sections (tools/results_doc.py: one generator per section, the
# hand-written text between them kept), from the score tables cached in RESULTS_TABLES (a cold
# run annotates and scores every WMT17/WMT19 output: hours on 2 cores; warm: minutes).
# DATA: $MTSTRATA_DATA when set, else ../shared/data beside the checkout.
DATA ?= $(if $(MTSTRATA_DATA),$(MTSTRATA_DATA),$(abspath ../shared/data))
RESULTS_TABLES ?= $(HOME)/.cache/mtstrata/results
R := $(RESULTS_TABLES)
PY := $(abspath $(BIN))/python
NO_DATA = make results: no WMT data under $(DATA) (wmt17_toen_da, wmt19_da_sys); set DATA=DIR \
	or MTSTRATA_DATA=DIR
results: setup
	@test -d $(DATA)/wmt17_toen_da -a -d $(DATA)/wmt19_da_sys || { echo "$(NO_DATA)" >&2; exit 2; }
	$(PY) -m tools.results_linguistic --data $(DATA) --ling-tables $(R)/17-ling \
		--ref-tables $(R)/17-ref --ter --ter-tables $(R)/17-ter \
		--cache $(R)/annotations.sqlite --out RESULTS.md
	$(PY) -m tools.emb_results --data $(DATA)/wmt17_toen_da \
		--cache $(R)/annotations.sqlite --full-tables $(R)/17-emb --out build/emb_results.md \
		--results RESULTS.md
	$(PY) -m tools.results_wmt19 --data $(DATA) --tables $(R)/19 \
		--cache $(R)/annotations.sqlite --emb-sets build --ling-tables $(R)/17-ling \
		--ref-tables $(R)/17-ref --out RESULTS.md
	$(PY) -m tools.cross_year --data $(DATA) --tables $(R)/cross-year \
		--cache $(R)/annotations.sqlite --wmt17-judged $(R)/cross-year-data \
		--json-dir build/cross-year --results RESULTS.md
	$(PY) -m tools.make_results --data $(DATA) --tables $(R)/17-text \
		--ling-tables $(R)/17-ling --out RESULTS.md
