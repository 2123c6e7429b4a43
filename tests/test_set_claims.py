"""What the project says of its bundled sets (issue 36 item 4): no description claims a set beats
chrF, and the cross-year figures are labelled as what they are (selected in sample, not
nested), in `list metrics`, README and RESULTS.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtstrata.metrics import REGISTRY
from mtstrata.metrics.ulc import BUNDLED

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_list_metrics_never_says_a_set_beats_chrf(name):
    entry, _ = REGISTRY.lookup(name)
    text = entry.description
    assert "not shown to beat chrF" in text
    assert "beat" not in text.replace("not shown to beat", "")
    if name != "ULC":  # the three chosen across years
        assert "selected in sample, not nested" in text


def test_readme_and_results_label_the_figures():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    results = (ROOT / "RESULTS.md").read_text(encoding="utf-8")
    assert "**No bundled set is shown to beat chrF.**" in readme
    assert "selected in sample, not nested" in readme
    assert ("No bundled set (`ULC`, `ULC-lex`, `ULC-emb`, `ULC-years`) is shown to beat chrF"
            in results)
    for doc in (readme, results):
        assert "nested estimate" in doc and "pending" in doc
