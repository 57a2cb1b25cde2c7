"""The command line's options: their choices are those of the modules that define them.

:mod:`bbqmis.coloring.options` keeps its own copies so that ``--help`` imports none of the
search; these tests keep the copies equal to the originals.
"""

import pytest

from bbqmis.coloring import options, pipeline
from bbqmis.coloring.tree import executors, tree
from bbqmis.mis import graphio, training


@pytest.mark.timeout(30)
def test_the_options_choices_are_those_of_the_modules_that_define_them():
    assert options.FORMATS == graphio.FORMATS and options.EXTENSIONS == graphio.EXTENSIONS
    assert options.ANGLES == training.ANGLES and options.STARTS == training.STARTS
    assert options.TRAINING_METHODS == tuple(training.METHODS)
    assert options.STRATEGIES == tree.STRATEGIES and options.KINDS == executors.KINDS
    assert options.METHODS == pipeline.METHODS
