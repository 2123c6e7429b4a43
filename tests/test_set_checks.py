"""Hand-edited set files are refused where they would combine silently wrong (issue 35 item 4):
a member's direction reversed against the metric's, directions differing between the levels,
one metric under two spellings, a member with a parameter of the wrong type, a learned set whose
weights are all 0, a key no set file holds (a misspelt ``ulc_sys`` was ignored). Each is one
paragraph naming the file, exit 2."""

from __future__ import annotations

import copy
import json

import pytest

from mtstrata.cli import main
from mtstrata.errors import InputError
from mtstrata.metrics.setfile import load_set

ULC = {"ulc": [{"metric": "ROUGE-L", "low": 0.0, "high": 1.0, "higher_is_better": True},
               {"metric": "chrf:char_order=2,beta=1", "low": 0.0, "high": 100.0,
                "higher_is_better": True}],
       "ulc_sys": [{"metric": "ROUGE-L", "low": 0.2, "high": 0.7, "higher_is_better": True},
                   {"metric": "chrf:char_order=2,beta=1", "low": 40.0, "high": 84.0,
                    "higher_is_better": True}]}


def _learned(weights=(0.5, 0.5)):
    lv = {"norms": copy.deepcopy(ULC["ulc"]), "weights": list(weights), "alpha": 1.0}
    return {"kind": "learned", "model": "ridge(positive)", "seg": lv,
            "sys": copy.deepcopy(lv), "provenance": {}}


def _write(tmp_path, data):
    p = tmp_path / "set.json"
    p.write_text(json.dumps(data))
    return p


def test_the_unedited_sets_load(tmp_path):
    assert load_set(_write(tmp_path, ULC))[0].metrics == ["ROUGE-L", "chrf:char_order=2,beta=1"]
    assert load_set(_write(tmp_path, _learned()))[0].metrics[0] == "ROUGE-L"


def _edit(fn, base=ULC):
    d = copy.deepcopy(base)
    fn(d)
    return d


CASES = {
    "reversed": (_edit(lambda d: [n.update(higher_is_better=False) for k in ("ulc", "ulc_sys")
                                  for n in d[k] if n["metric"] == "ROUGE-L"]),
                 "would be flipped"),
    "levels differ": (_edit(lambda d: d["ulc_sys"][0].update(higher_is_better=False)),
                      "at the segment level and false at the system level"),
    "two spellings": (_edit(lambda d: [d[k].append({**d[k][1], "metric": "CHRF:beta=1,"
                                                    "char_order=2"}) for k in ("ulc", "ulc_sys")]),
                      "two spellings"),
    # found by the fuzz test: loaded by load_set, refused by score (a float where an int is)
    "bad parameter": (_edit(lambda d: [d[k].append({**d[k][1], "metric": "chrf:char_order=2,"
                                                    "beta=1.0"}) for k in ("ulc", "ulc_sys")]),
                      "cannot be built: bad value '1.0' for 'beta'"),
    "misspelt key": (_edit(lambda d: d.update(ulc_sy=d.pop("ulc_sys"))), "did you mean 'ulc_sys'"),
    "zero weights": (_learned((0.0, 0.0)), "every weight is 0"),
    "learned key": (_edit(lambda d: d.update(provenace={}), _learned()), "'provenace'"),
    "level key": (_edit(lambda d: d["sys"].update(weight=[1, 1]), _learned()), "'weight'"),
    "learned reversed": (_edit(lambda d: [lv["norms"][1].update(higher_is_better=False)
                                          for lv in (d["seg"], d["sys"])], _learned()),
                         "would be flipped"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_edited_set_is_refused(tmp_path, case, capsys):
    data, needle = CASES[case]
    p = _write(tmp_path, data)
    with pytest.raises(InputError, match="set.json") as e:
        load_set(p)
    assert needle in str(e.value)
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n")
    rc = main(["score", "-r", str(ref), "-i", str(ref), "-m", f"ulc:{p}", "-q"])
    err = capsys.readouterr().err
    assert rc == 2 and needle in err and "Traceback" not in err
