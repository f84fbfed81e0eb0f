"""One root for every exception, statuses as a str enum with unchanged strings, and the options
classify and scan share defined once with one meaning (issue 25)."""

from __future__ import annotations

import json

import pytest

from picohead_runtime.errors import PicoheadError
from picohead_runtime.io import STATUSES, Status
from picohead_runtime.options import SHARED, THREADS


def _error_classes() -> list[tuple[type, type]]:
    """(class, the builtin base it always had) for every runtime exception class."""
    from picohead_runtime.bench import NothingToTime
    from picohead_runtime.cli import InputError, OutputError, UsageError
    from picohead_runtime.model import ModelError
    from picohead_runtime.spec import SpecError
    from picohead_runtime.windows import NotRegularFileError

    return [
        (NotRegularFileError, OSError),
        (SpecError, ValueError),
        (ModelError, RuntimeError),
        (UsageError, Exception),
        (OutputError, Exception),
        (InputError, Exception),
        (NothingToTime, Exception),
    ]


@pytest.mark.parametrize("cls, base", _error_classes(), ids=lambda c: c.__name__)
def test_every_runtime_error_has_the_one_root_and_keeps_its_base(cls, base):
    assert issubclass(cls, PicoheadError) and issubclass(cls, base)


def test_the_root_is_exported():
    import picohead_runtime

    assert picohead_runtime.PicoheadError is PicoheadError
    assert picohead_runtime.Status is Status


def test_statuses_are_plain_strings_in_every_form():
    assert STATUSES == tuple(Status)
    want = ["ok", "empty", "not_found", "permission_denied", "is_directory", "not_regular_file",
            "read_error"]
    assert [s.value for s in Status] == want
    for s, w in zip(Status, want):
        assert s == w and str(s) == w and f"{s}" == w and json.dumps(s) == json.dumps(w)
        assert Status(w) is s


def test_classify_uses_the_shared_definitions():
    from picohead_runtime.cli import build_parser

    actions = {a.option_strings[0]: a for a in build_parser("classify")._actions if a.option_strings}
    for opt in SHARED:
        assert opt.flag in actions, opt.flag
        if opt.flag != "--tier":  # --tier's help names the real folder's default
            assert actions[opt.flag].help == opt.help
    assert "parallel" in THREADS.help and "intra-op" not in THREADS.help
