"""What the project says of its bundled sets (issue 36 item 4): every set was built by the
nested procedure; `list metrics` quotes each set's nested estimate on an unseen year as its file
records it, and no description, README or RESULTS.md sentence says a set beats chrF."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mtstrata.metrics import REGISTRY
from mtstrata.metrics.ulc import BUNDLED, SETS_DIR

ROOT = Path(__file__).resolve().parents[1]


def _verdict(name: str) -> dict:  # type: ignore[type-arg]
    data = json.loads((SETS_DIR / BUNDLED[name]).read_text(encoding="utf-8"))
    prov = data["provenance"]
    assert prov["procedure"].startswith("search --nested"), prov["procedure"]
    return prov["verdict"]


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_list_metrics_quotes_the_nested_estimate(name):
    entry, _ = REGISTRY.lookup(name)
    text = entry.description
    verdict = _verdict(name)
    # the across-year figure, as the set's own claim writes it (set - chrF and its interval)
    year = verdict["claim"].split(";")[0]
    figure = re.search(r"set - chrF ([+-]\d\.\d{3} \[[+-]\d\.\d{3}, [+-]\d\.\d{3}\])", year)
    assert figure is not None, year
    assert f"set - chrF {figure.group(1)}" in text, (text, figure.group(1))
    level = verdict["levels"]["across_years.sys_pearson"]
    assert not level["better_than_chrF"]  # what the description says:
    assert "not shown to beat chrF" in text
    assert "beat" not in text.replace("not shown to beat", "")
    for key, said in (("wmt17_pairs.sys_pearson", "better on an unseen WMT17 pair"),):
        assert verdict["levels"][key]["better_than_chrF"] == (said in text), (name, key)


def test_readme_and_results_label_the_figures():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    results = (ROOT / "RESULTS.md").read_text(encoding="utf-8")
    flat = " ".join(readme.split())
    assert "**No bundled set is shown to beat chrF on an unseen year.**" in flat
    assert ("No bundled set (`ULC`, `ULC-lex`, `ULC-emb`, `ULC-years`) is shown to beat chrF on "
            "an unseen year" in " ".join(results.split()))
    for name in BUNDLED:  # each set's across-year estimate, as its file records it
        level = _verdict(name)["levels"]["across_years.sys_pearson"]
        lo, hi = level["interval"]
        assert f"{level['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}]" in readme, name
