"""`score --details` gives the counts behind each per-type value: matched / hypothesis /
reference elements, in the text table and the JSON (``detail_counts``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mtstrata.cli import main

SAMPLE = Path(__file__).resolve().parent.parent / "sample"


def test_details_counts_add_up_and_give_p_and_r(tmp_path, capsys):
    files = [str(SAMPLE / "sys" / "neural.txt"), str(SAMPLE / "sys" / "literal.txt")]
    args = ["score", "-r", str(SAMPLE / "ref.A.txt"), "-i", *files, "-m", "SP-Op(*)",
            "--details", "--cache", str(tmp_path / "a.sqlite")]
    assert main([*args, "-f", "json"]) == 0
    recs = json.loads(capsys.readouterr().out)["scores"]
    assert len(recs) == 2
    for r in recs:
        counts, details = r["detail_counts"], r["details"]
        types = {k: v for k, v in counts.items() if not k.startswith("SP-Op(*)")}
        assert set(counts) == set(details)  # every value has its counts
        total = [sum(c[k] for c in types.values()) for k in range(3)]
        hits, hyp, ref = counts["SP-Op(*) P"]
        assert [hits, hyp, ref] == total
        assert details["SP-Op(*) P"] == pytest.approx(hits / hyp, abs=1e-9)
        assert details["SP-Op(*) R"] == pytest.approx(hits / ref, abs=1e-9)
        assert all(0 <= h <= min(p, q) for h, p, q in types.values())
    # the reference counts do not depend on the system
    a, b = ({k: c[2] for k, c in r["detail_counts"].items()} for r in recs)
    assert {k: a[k] for k in a.keys() & b.keys()} == {k: b[k] for k in a.keys() & b.keys()}
    assert main(args) == 0
    text = capsys.readouterr().out
    nn = recs[0]["detail_counts"]["SP-Op(NN)"]
    line = next(x for x in text.splitlines() if x.strip().startswith("SP-Op(NN)"))
    assert f"({nn[0]}/{nn[1]}/{nn[2]})" in line
    assert "(m/h/r): elements matched / in the hypotheses / in the references" in text
