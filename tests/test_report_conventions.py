"""The report speaks as `compare` does: the same default numbers of draws (sacreBLEU's 1000
bootstrap resamples and 10,000 randomisation trials), the same p-value text (``<= 1/(n+1)`` at
the floor), and a provenance command that pastes back into a shell."""

from __future__ import annotations

import re
import shlex

import pytest

from mtstrata.cli import main
from mtstrata.meta.significance import DEFAULT_N
from mtstrata.report.html import decode


def test_defaults_p_values_and_command_match_compare(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(f"the cat number {i} sat on the mat today\n" for i in range(30)))
    good = tmp_path / "good.txt"
    good.write_text("".join(f"the cat number {i} sat on the mat today\n" for i in range(30)))
    bad = tmp_path / "bad.txt"
    bad.write_text("".join(f"dog {i} stood\n" for i in range(30)))
    out = tmp_path / "my report.html"
    argv = ["report", "-r", str(ref), "-i", str(bad), str(good), "-m", "bleu", "SP-Op(*)",
            "-q", "--out", str(out)]
    assert main(argv) == 0
    page = out.read_text(encoding="utf-8")
    data = decode(page)
    prov = data["provenance"]
    assert (prov["resamples"], prov["trials"]) == (DEFAULT_N["bs"], DEFAULT_N["ar"])
    # the command is shell-quoted: split back, it is the command that was run
    words = shlex.split(prov["command"])
    assert words[:2] == ["mtstrata", "report"] and "SP-Op(*)" in words
    assert words[words.index("--out") + 1] == str(out)
    capsys.readouterr()
    assert main(["compare", "-r", str(ref), "-i", str(bad), str(good), "-b", "bad", "-m",
                 "bleu", "--test", "bs", "ar"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("BLEU"))
    bs_p, ar_p = re.findall(r"<= 1/\d+|\d\.\d{4}(?=\s|$)", line)[-2:]
    assert (bs_p, ar_p) == ("<= 1/1001", "<= 1/10001")  # a clear difference: the floor
    table = page[page.index("Differences to the baseline"):]
    row = table[table.index("<td>BLEU</td>"):table.index("</tr>", table.index("<td>BLEU</td>"))]
    assert [x.replace("&lt;", "<") for x in re.findall(r'<td class="num">([^<]*(?:&lt;'
                                                         r'[^<]*)?)</td>', row)][-2:] == [
        ar_p, bs_p]


@pytest.mark.parametrize("spec", ["bleu", "chrf", "ter", "wer"])
def test_shared_trials_give_compares_randomisation_p(spec):
    """The report draws the randomisation's trials once for all comparisons; each p is the
    one `compare` (approximate_randomization, sacreBLEU's --paired-ar) gives, to the bit."""
    import random

    from mtstrata import metrics
    from mtstrata.meta.significance import (
        approximate_randomization,
        randomization_p,
        trials,
    )
    from mtstrata.segment import Segment

    rnd = random.Random(7)
    words = ["the", "a", "cat", "dog", "sat", "ran", "on", "under", "mat", "rug", "today"]
    refs = [" ".join(rnd.choices(words, k=rnd.randint(3, 12))) for _ in range(60)]
    hyps = [[" ".join(rnd.choices(words, k=rnd.randint(2, 12))) for _ in refs]
            for _ in range(3)]
    m = metrics.create(spec)
    seg = Segment.from_text
    stats = [m.stats_batch([seg(x) for x in h], [[seg(r)] for r in refs]) for h in hyps]
    pos = trials(len(refs), 500, 12345)  # drawn once, as the report does
    for a, b in ((stats[0], stats[1]), (stats[2], stats[1]), (stats[1], stats[1])):
        want = approximate_randomization(m.score, b, a, n=500, seed=12345).p
        assert randomization_p(m.score, a, b, pos) == want
