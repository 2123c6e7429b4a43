"""compare-mt's sentence-level analyses of the report (mtstrata.report.sentences): a metric by
sentence-length bucket with the length ratio, the histogram of segment-score differences, and
the segments that separate two systems most; against hand-computed examples, then in a report
against what `score` prints for the same segments."""

from __future__ import annotations

import json

import pytest

from mtstrata.cli import main
from mtstrata.report import sentences as S
from mtstrata.report.html import decode


def _words(n, w="w"):
    return [f"{w}{k}" for k in range(n)]


def test_by_length_by_hand():
    ref = [_words(3), _words(12), _words(12), _words(25)]
    outs = {"a": [_words(2), _words(10), _words(14), _words(30)]}
    seg = {"a": [10.0, 20.0, None, 40.0]}
    t = S.by_length(ref, outs, seg, corpus_score=lambda s, idx: float(sum(idx)))
    assert t["buckets"] == ["<10", "[10,20)", "[20,30)", "[30,40)", "[40,50)", "[50,60)",
                            ">=60"]
    assert t["sentences"] == [1, 2, 1, 0, 0, 0, 0]
    rows = t["systems"]["a"]
    assert rows[0] == {"sentences": 1, "ref_words": 3, "out_words": 2, "mean": 10.0,
                       "corpus": 0.0, "ratio": round(2 / 3, 4)}
    # an undefined segment score is left out of the mean, not counted as 0
    assert rows[1] == {"sentences": 2, "ref_words": 24, "out_words": 24, "mean": 20.0,
                       "corpus": 3.0, "ratio": 1.0}
    assert rows[2]["mean"] == 40.0 and rows[2]["ratio"] == 1.2 and rows[2]["corpus"] == 3.0
    for empty in rows[3:]:  # "no data", never a score of 0
        assert empty["mean"] is None and empty["corpus"] is None and empty["ratio"] is None


def test_differences_by_hand():
    a = [50.0, 40.0, 10.0, 10.0, None, 0.0]
    b = [0.0, 45.0, 10.0, 30.0, 5.0, 100.0]
    d = S.differences(a, b, higher=True, scale=100.0)  # 50, -5, 0, -20, -, -100
    assert (d["a_wins"], d["b_wins"], d["ties"], d["undefined"]) == (1, 3, 1, 1)
    assert d["mean"] == -15.0
    counts = {(x["side"], x["from"], x["to"]): x["count"] for x in d["bins"]}
    assert counts == {("b", None, -50.0): 1, ("b", -50.0, -20.0): 0, ("b", -20.0, -10.0): 1,
                      ("b", -10.0, -5.0): 0, ("b", -5.0, 0.0): 1, ("tie", 0.0, 0.0): 1,
                      ("a", 0.0, 5.0): 0, ("a", 5.0, 10.0): 0, ("a", 10.0, 20.0): 0,
                      ("a", 20.0, 50.0): 1, ("a", 50.0, None): 0}
    assert sum(counts.values()) == 5
    # lower is better (TER): the same scores, the other way round
    low = S.differences(a, b, higher=False, scale=100.0)
    assert (low["a_wins"], low["b_wins"], low["mean"]) == (3, 1, 15.0)


def test_separating_by_hand():
    a = [50.0, 40.0, 10.0, 10.0, None, 0.0, 60.0]
    b = [0.0, 45.0, 10.0, 30.0, 5.0, 100.0, 10.0]
    ex = S.separating(a, b, higher=True, n=2)
    assert [r["segment"] for r in ex["a_better"]] == [0, 6]  # 50 and 50: by segment
    assert [r["segment"] for r in ex["b_better"]] == [5, 3]  # -100, -20
    assert ex["b_better"][0] == {"segment": 5, "diff": -100.0, "a": 0.0, "b": 100.0}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sent")
    refs = ["the cat sat on the mat today", "a long sentence " * 4 + "with twelve words ok",
            "one two three four five six seven eight nine ten eleven twelve thirteen",
            "short one here", "the dog barked at the cat all night long and then slept"]
    a = ["the cat sat on a mat today", "a long sentence " * 3 + "with words", refs[2],
         "short here", "the dog barked all night and slept"]
    b = ["a cat sits on the mat", "a long sentence " * 4 + "with twelve words", "one two",
         "short one here", "dog barked at cat all night long then slept"]
    for name, lines in (("ref", refs), ("a", a), ("b", b)):
        (tmp / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out, js = tmp / "r.html", tmp / "r.json"
    assert main(["report", "-r", str(tmp / "ref.txt"), "-i", str(tmp / "a.txt"),
                 str(tmp / "b.txt"), "-m", "chrf", "bleu", "-n", "50", "-q", "--out", str(out),
                 "--json", str(js)]) == 0
    return tmp, out, json.loads(js.read_text(encoding="utf-8")), refs, a, b


def test_report_json_has_the_sentence_analyses_as_score_computes_them(report, capsys):
    tmp, out, an, refs, a, b = report
    sen = an["sentences"]
    assert sen["metric"] == "BLEU" and sen["pair"] == ["b", "a"]  # default: BLEU; other, base
    capsys.readouterr()
    assert main(["score", "-r", str(tmp / "ref.txt"), "-i", str(tmp / "a.txt"),
                 str(tmp / "b.txt"), "-m", "bleu", "--sentence-level", "-f", "json"]) == 0
    segs = {s["system"]: s["segments"] for s in json.loads(capsys.readouterr().out)["scores"]}
    lengths = [len(r.split()) for r in refs]
    bucket = [0 if n < 10 else 1 for n in lengths]
    for k in (0, 1):
        idx = [i for i, x in enumerate(bucket) if x == k]
        for name, lines in (("a", a), ("b", b)):
            row = sen["by_length"]["systems"][name][k]
            assert row["sentences"] == len(idx)
            assert row["mean"] == pytest.approx(sum(segs[name][i] for i in idx) / len(idx),
                                                abs=1e-3)
            assert row["ratio"] == pytest.approx(sum(len(lines[i].split()) for i in idx) /
                                                 sum(lengths[i] for i in idx), abs=1e-4)
            # the bucket's corpus score: `score` on those segments alone
            (tmp / "sr.txt").write_text("".join(refs[i] + "\n" for i in idx))
            (tmp / "sh.txt").write_text("".join(lines[i] + "\n" for i in idx))
            assert main(["score", "-r", str(tmp / "sr.txt"), "-i", str(tmp / "sh.txt"), "-m",
                         "bleu", "-f", "json"]) == 0
            whole = json.loads(capsys.readouterr().out)["scores"][0]["score"]
            assert row["corpus"] == pytest.approx(whole, abs=1e-3)
    d = sen["differences"]
    diff = [x - y for x, y in zip(segs["b"], segs["a"], strict=True)]
    assert d["a_wins"] == sum(x > 0 for x in diff) and d["b_wins"] == sum(x < 0 for x in diff)
    assert sum(x["count"] for x in d["bins"]) == len(diff)


def test_static_page_has_the_tables_and_examples(report):
    tmp, out, an, refs, a, b = report
    page = out.read_text(encoding="utf-8")
    assert 'id="length-scores"' in page and 'id="score-differences"' in page
    assert "no data" in page  # the length buckets no sentence falls in
    ex = page[page.index('<div id="examples">'):]
    ex = ex[:ex.index("</div>")]
    sen = decode(page)["analyses"]["sentences"]
    first = sen["examples"]["a_better"][0]["segment"]
    block = ex[ex.index(f'data-segment="{first}"'):]
    block = block[:block.index("</table>")]
    for text in (refs[first], b[first], a[first]):  # reference and both outputs, as text
        assert text.strip() in block


def test_unknown_sentence_metric_exits_2(report, capsys):
    tmp = report[0]
    assert main(["report", "-r", str(tmp / "ref.txt"), "-i", str(tmp / "a.txt"), "-m", "chrf",
                 "--sentence-metric", "ter", "-q", "--out", str(tmp / "x.html")]) == 2
    assert "--sentence-metric 'ter' is not one of" in capsys.readouterr().err
