"""mtstrata's benchmarks: each module measures one cost and prints its figures.

Not part of the wheel. Each runs from the repository's root as ``python -m benchmarks.NAME``
(so that it can use the tools of :mod:`tools` and the tests' reference definitions), and none
is run by the test suite: a benchmark's computations that tests need are functions, tested as
such.
"""
