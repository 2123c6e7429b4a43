from mtstrata import signature


def test_build_parse_and_run_facts():
    s = signature.build("BLEU", [("tok", "13a"), ("smooth", "exp")])
    s2 = signature.add_run_facts(s, nrefs="2", ann="spacy-3.8.18")
    name, params, run = signature.parse(s2)
    assert name == "BLEU"
    assert params == {"tok": "13a", "smooth": "exp"}
    assert run["nrefs"] == "2" and run["ann"] == "spacy-3.8.18" and "v" in run
    assert s2.endswith(f"|v:{run['v']}")
