"""A bad option is one line on stderr and status 2, for the command and every subcommand (argparse
prints its usage block first, ten lines for ``eval``)."""

from __future__ import annotations

import pytest

from ctxsieve.cli import SUBCOMMANDS, main


@pytest.mark.parametrize("argv", [["--no-such-option"], *[[name, "--no-such-option"] for name in SUBCOMMANDS]])
def test_a_bad_option_is_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    # an option no parser knows is reported by the top-level one, a missing argument by the subcommand's
    assert err.startswith(("ctxsieve: error: ", f"ctxsieve {argv[0]}: error: ")), err
    assert "--help)" in err and ("--no-such-option" in err or "required" in err), err
