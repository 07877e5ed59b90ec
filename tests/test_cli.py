"""lib.cli: a named error ends a command with one line and status 1; a bug keeps its traceback."""

from __future__ import annotations

import pytest

from lib.cli import NamedError, run_main
from lib.data import DataError
from lib.params import ParamsError


def test_a_named_error_is_one_line_and_status_1(capsys):
    def main():
        raise NamedError("data/x.json: record 3: field 'label': expected one of ...")

    with pytest.raises(SystemExit) as end:
        run_main(main)
    assert end.value.code == 1
    assert capsys.readouterr().err == "error: data/x.json: record 3: field 'label': expected one of ...\n"


def test_the_status_main_returns_is_the_exit_status():
    for returned, status in [(None, 0), (0, 0), (2, 2)]:
        with pytest.raises(SystemExit) as end:
            run_main(lambda r=returned: r)
        assert end.value.code == status


def test_a_bug_is_not_hidden():
    with pytest.raises(ZeroDivisionError):
        run_main(lambda: 1 / 0)


def test_the_study_errors_that_name_user_input_are_named_errors():
    assert issubclass(DataError, NamedError) and issubclass(ParamsError, NamedError)
    assert issubclass(DataError, ValueError)  # callers that catch ValueError still do


def test_a_missing_params_section_ends_a_command_with_one_line(tmp_path, capsys):
    from lib.params import section

    (tmp_path / "params.yaml").write_text("profile: {name: study}\n")
    with pytest.raises(SystemExit) as end:
        run_main(lambda: section("store", tmp_path / "params.yaml"))
    assert end.value.code == 1 and "no section 'store' (sections: profile)" in capsys.readouterr().err
