"""``estimator_export`` in code copied from tensorflow-estimator's sources: the
symbol it decorates is the one the module defines, constants stay as they are,
and it takes tensorflow-estimator's arguments only."""

import sys

import pytest

from estimator_revival.estimator import SessionRunHook, estimator_export

LIMIT = 3


def test_a_decorated_class_and_function_are_the_module_s_own():
    class StopHook(SessionRunHook):
        pass

    def helper(x):
        return 2 * x

    assert estimator_export("estimator.experimental.StopHook", v1=[])(StopHook) is StopHook
    assert estimator_export("estimator.helper")(helper)(4) == 8


def test_a_constant_is_left_as_the_module_defined_it():
    assert estimator_export("estimator.LIMIT").export_constant(__name__, "LIMIT") is None
    assert sys.modules[__name__].LIMIT == 3


def test_arguments_other_than_tensorflow_estimator_s_are_refused():
    with pytest.raises(TypeError):
        estimator_export("estimator.X", api_name="keras")
