"""The `herotable` command line (Typer). Each command maps `RulesError` to exit code 2 with its message."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, help="herotable: Larger Than Life and Conviction.")


@app.callback()
def _root() -> None:
    """Run Larger Than Life and DPoNI Conviction games exactly by their rules."""


def main() -> None:
    app()
