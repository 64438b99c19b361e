"""The `herotable` command line (Typer). Each command maps `RulesError` to exit code 2 with its message."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from herotable.dice import SystemRng
from herotable.notation import NotationError, roll_notation

app = typer.Typer(no_args_is_help=True, add_completion=False, help="herotable: Larger Than Life and Conviction.")


@app.callback()
def _root() -> None:
    """Run Larger Than Life and DPoNI Conviction games exactly by their rules."""


@app.command()
def roll(
    expression: Annotated[str, typer.Argument(help="Dice in d20 notation, e.g. 2d20kh1+3, 4d6kh3 or 1d6e6.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Roll free-form dice notation (the d20 library's syntax, at most 100 dice)."""
    try:
        result = roll_notation(expression, SystemRng())
    except NotationError as exc:
        if as_json:
            typer.echo(json.dumps({"error": {"code": exc.code, "message": exc.reason, "fix": exc.fix}}))
        else:
            typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from None
    if as_json:
        dice = [{"sides": sides, "face": face} for sides, face in result.dice]
        typer.echo(json.dumps({"expression": result.expression, "total": result.total, "text": result.text,
                               "dice": dice}))
    else:
        typer.echo(result.text)


@app.command()
def demo(
    seed: Annotated[int | None, typer.Option(help="Replay the same fight: the dice come from this seed.")] = None,
) -> None:
    """Watch Captain Comet and Doctor Entropy fight a whole Larger Than Life conflict, every roll shown."""
    from rich.console import Console
    from rich.rule import Rule

    from herotable.demo import run_demo
    from herotable.dice import SeededRng

    console = Console()
    narration = run_demo(SystemRng() if seed is None else SeededRng(seed))
    for title, lines in narration.rounds:
        console.print(Rule(f"[bold]{title}[/bold]"))
        for line in lines:
            console.print(line)


def main() -> None:
    app()
