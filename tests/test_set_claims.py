"""What the project says of its bundled sets (issue 36 item 4): every set was built by the
nested procedure; `list metrics` quotes each set's nested estimate on an unseen year as its file
records it; no set file says a set beats chrF on an unseen year, and README quotes each set's
figure as its file records it."""

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


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_no_bundled_set_is_shown_to_beat_chrf_on_an_unseen_year(name):
    """What README and RESULTS.md say of every bundled set, as its file records it: at system
    level on an unseen year the rule does not call it better than chrF, and its claim says so."""
    verdict = _verdict(name)
    level = verdict["levels"]["across_years.sys_pearson"]
    lo, hi = level["interval"]
    assert not level["better_than_chrF"] and not (level["p"] < 0.05 and lo > 0)
    year = verdict["claim"].split(";")[0]
    assert "on an unseen year" in year and "not shown to differ from chrF" in year, year


def test_the_readme_quotes_each_sets_estimate_as_recorded():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in BUNDLED:  # each set's across-year estimate, as its file records it
        level = _verdict(name)["levels"]["across_years.sys_pearson"]
        lo, hi = level["interval"]
        assert f"{level['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}]" in readme, name
