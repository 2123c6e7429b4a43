"""The tools that build mtstrata's shipped artefacts, kept in the source repository.

Not part of the wheel (``pyproject.toml`` packages ``mtstrata*`` only) and never imported by
the package: the package may name a tool only by where it lives (the mtstrata source
repository) and how it runs. Each tool runs from the repository's root as ``python -m
tools.NAME`` and is imported by the tests as ``tools.NAME``:

* the bundled metric sets (``mtstrata/data/sets``): :mod:`tools.make_sets` builds them with
  ``search --nested``, :mod:`tools.record_sets` re-records their members' signatures;
  :mod:`tools.cross_year` (with :mod:`tools.cross_year_data`, :mod:`tools.cross_year_report`)
  measures procedures fitted on one year on the other;
* the role labellers' models (``mtstrata/data/srl_*.npz``): :mod:`tools.train_srl`,
  :mod:`tools.train_srl_contextual`, their gold data (:mod:`tools.srl_propbank`,
  :mod:`tools.srl_ewt_gold`, :mod:`tools.srl_gold`) and scoring (:mod:`tools.srl_eval`);
* the golden snapshot (``tests/data/golden_snapshot.json``): :mod:`tools.update_golden`;
* RESULTS.md's generated sections: :mod:`tools.results_doc` and its generators
  (:mod:`tools.results_linguistic`, :mod:`tools.emb_results`, :mod:`tools.results_wmt19`,
  :mod:`tools.cross_year`, :mod:`tools.make_results`), run by ``make results``;
* :mod:`tools.mutation_sample` (a sampled mutation score) and :mod:`tools.install_wordnet`.

Bad input to a tool is one paragraph on standard error and exit code 2, never a traceback
(:mod:`tools._cli`).
"""
