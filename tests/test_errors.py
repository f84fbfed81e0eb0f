"""Every exception class picohead defines derives from picohead_runtime's PicoheadError and keeps
the builtin base it always had, so old except clauses still catch it (issue 25)."""

from __future__ import annotations

import pytest

from picohead_runtime.errors import PicoheadError


def _classes() -> list[tuple[type, type]]:
    from picohead.data.fetch import FetchError
    from picohead.data.gitmirror import MirrorError
    from picohead.data.producers import IndependenceError
    from picohead.data.recipe import RecipeError
    from picohead.dataset import ManifestError
    from picohead.train_config import ConfigError
    from picohead_exporters.errors import ExportError, GateError

    return [(FetchError, RuntimeError), (MirrorError, RuntimeError), (IndependenceError, ValueError),
            (RecipeError, ValueError), (ManifestError, ValueError), (ConfigError, ValueError),
            (ExportError, RuntimeError), (GateError, RuntimeError)]


@pytest.mark.parametrize("cls, base", _classes(), ids=lambda c: c.__name__)
def test_one_root(cls, base):
    assert issubclass(cls, PicoheadError) and issubclass(cls, base)
