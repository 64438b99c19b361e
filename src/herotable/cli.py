"""The `herotable` command line (Typer). Each command maps `RulesError` to exit code 2 with its message."""

from __future__ import annotations

import json
import os
from pathlib import Path
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
        typer.echo(
            json.dumps({"expression": result.expression, "total": result.total, "text": result.text, "dice": dice})
        )
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


DatabaseOption = Annotated[
    str | None,
    typer.Option("--database", help="Database URL; default HEROTABLE_DATABASE_URL, else SQLite in ./data."),
]


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=code)


def _read_document(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise _fail(f"cannot read {path}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise _fail(f"{path} is not JSON (line {err.lineno}, column {err.colno}: {err.msg})") from None


@app.command("export")
def export_cmd(
    campaign_id: Annotated[str, typer.Argument(help="The campaign to export.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write here instead of standard output.")] = None,
    database: DatabaseOption = None,
) -> None:
    """Export a campaign (sheets, settings, every event) as one JSON document."""
    from herotable.store import StoreError, export_campaign, open_store

    try:
        store = open_store(database)
        document = export_campaign(store, campaign_id)
    except StoreError as err:
        raise _fail(str(err)) from None
    text = json.dumps(document, ensure_ascii=False, indent=1)
    if out is None:
        typer.echo(text)
    else:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"exported {campaign_id}: {document['event_count']} events to {out}")


@app.command("import")
def import_cmd(
    file: Annotated[Path, typer.Argument(help="A campaign export.")],
    database: DatabaseOption = None,
) -> None:
    """Import an exported campaign into an empty slot of the database, after checking every event replays."""
    from herotable.service import verified_import
    from herotable.store import StoreError, open_store

    document = _read_document(file)
    try:
        state = verified_import(open_store(database), document)
    except StoreError as err:
        raise _fail(str(err)) from None
    typer.echo(f"imported {state.campaign_id} ({state.name}): {state.seq} events")


@app.command("replay")
def replay_cmd(
    file: Annotated[Path, typer.Argument(help="A campaign export.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    database: DatabaseOption = None,
) -> None:
    """Rebuild a campaign's state from an export without rolling a die, check every event reproduces what it
    recorded, and compare with the database's copy of the campaign when there is one."""
    from herotable.service import TableService, verified_import
    from herotable.store import MemoryEventStore, StoreError, UnknownCampaign, open_store
    from herotable.table.views import view_for

    document = _read_document(file)
    try:
        state = verified_import(MemoryEventStore(), document)
    except StoreError as err:
        raise _fail(str(err), code=1) from None
    matches: bool | None = None
    if database is not None or os.environ.get("HEROTABLE_DATABASE_URL"):
        try:
            matches = TableService(open_store(database)).state(state.campaign_id) == state
        except UnknownCampaign:
            matches = None
        except StoreError as err:
            raise _fail(str(err)) from None
    if as_json:
        gm = next(m.user for m in state.members if m.role.value == "gm")
        typer.echo(
            json.dumps(
                {
                    "campaign_id": state.campaign_id,
                    "events": state.seq,
                    "replayed": True,
                    "matches_database": matches,
                    "state": view_for(state, gm),
                }
            )
        )
    else:
        typer.echo(f"{state.campaign_id} ({state.name}): {state.seq} events replay exactly")
        if matches is not None:
            typer.echo("the database's copy " + ("matches" if matches else "DIFFERS"))
    if matches is False:
        raise typer.Exit(code=1)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    demo: Annotated[bool, typer.Option("--demo", help="Create demo accounts and a campaign of each game.")] = False,
) -> None:
    """Start the web table (SQLite by default; HEROTABLE_DATABASE_URL picks another database)."""
    import uvicorn

    from herotable.server.app import create_app
    from herotable.server.demo_seed import seed_demo

    web = create_app()
    if demo:
        logins = seed_demo(web.state.services)
        typer.echo(f"herotable at http://{host}:{port} — demo logins (password for all: {logins[0].password}):")
        for login in logins:
            typer.echo(f"  {login.username:<5} {login.role}")
    uvicorn.run(web, host=host, port=port, log_level="info")


def main() -> None:
    app()
