"""`score --signatures FILE` (the demo's): the table, then one line naming the file."""

from __future__ import annotations

from pathlib import Path

from mtstrata.cli import main

SAMPLE = Path(__file__).resolve().parent.parent / "sample"


def test_signatures_to_a_file(tmp_path, capsys):
    """The file holds exactly the signature lines the default output prints."""
    args = ["score", "-r", str(SAMPLE / "ref.A.txt"), "-i", str(SAMPLE / "sys" / "neural.txt"),
            "-m", "bleu", "chrf"]
    assert main(args) == 0
    default = capsys.readouterr().out.splitlines()
    sig_file = tmp_path / "sigs.txt"
    assert main([*args, "--signatures", str(sig_file)]) == 0
    short = capsys.readouterr().out.splitlines()
    assert short[:-1] == default[:3]  # the table
    assert short[-1] == f"signatures of the 2 metrics: {sig_file}"
    assert sig_file.read_text(encoding="utf-8").splitlines() == default[4:]
    assert [x.split(":")[0] for x in default[4:]] == ["BLEU", "chrF"]
    assert main([*args, "--signatures", str(sig_file), "-f", "json"]) == 2
    assert "--signatures (the json" in capsys.readouterr().err
