"""mtme output names the metrics that clash (found by tools/mutation_sample.py)."""

from __future__ import annotations

import pytest

from mtstrata import metrics
from mtstrata.errors import InputError
from mtstrata.meta.mtme import file_stems, metric_name


def test_a_file_name_clash_names_the_clashing_metrics_and_only_them():
    bleu, chrf = metrics.create("bleu"), metrics.create("chrf")
    with pytest.raises(InputError) as e:
        file_stems([bleu, chrf, bleu], ["newstest.ref"])
    msg = str(e.value)
    assert msg.startswith(f"metrics {[metric_name(bleu)] * 2} would be written to one file")
    assert metric_name(chrf) not in msg
