"""The `herotable` command line (Typer). Each command maps `RulesError` to exit code 2 with its message."""

from __future__ import annotations

import contextlib
import inspect
import json
import os
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from herotable.dice import Rating, SystemRng
from herotable.notation import NotationError, roll_notation

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="herotable: Larger Than Life and Conviction.\n\nExit codes: 0 done; 1 refused by the rules or the data; 2 a "
    "wrong command line or setting. With --json a command prints one JSON document, its refusals too.",
)

if TYPE_CHECKING:
    from herotable.service import TableService


def _version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        typer.echo(f"herotable {version('herotable')}")
        raise typer.Exit()


@app.callback()
def _root(
    _: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Run Larger Than Life and DPoNI Conviction games exactly by their rules."""
    _json_mode(False)


@app.command()
def roll(
    expression: Annotated[str, typer.Argument(help="Dice in d20 notation, e.g. 2d20kh1+3, 4d6kh3 or 1d6e6.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Roll free-form dice notation (the d20 library's syntax, at most 100 dice)."""
    _json_mode(as_json)
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
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Watch Captain Comet and Doctor Entropy fight a whole Larger Than Life conflict, every roll shown."""
    _json_mode(as_json)
    from rich.console import Console
    from rich.rule import Rule

    from herotable.demo import run_demo
    from herotable.dice import SeededRng

    console = Console()
    narration = run_demo(SystemRng() if seed is None else SeededRng(seed))
    if as_json:
        from rich.text import Text

        rounds = [{"title": t, "lines": [Text.from_markup(line).plain for line in ls]} for t, ls in narration.rounds]
        typer.echo(json.dumps({"rounds": rounds}))
        return
    for title, lines in narration.rounds:
        console.print(Rule(f"[bold]{title}[/bold]"))
        for line in lines:
            console.print(line)


JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
DatabaseOption = Annotated[
    str | None,
    typer.Option("--database", help="Database URL; default HEROTABLE_DATABASE_URL, else SQLite in ./data."),
]


def _settings() -> Any:
    """The server's settings as the environment gives them, for a command that works on the same database."""
    from herotable.server.settings import Settings, SettingsError

    try:
        return Settings.load()
    except SettingsError as err:
        raise _fail(err.problems[0], EXIT_USAGE) from None


def _database(database: str | None) -> str:
    """--database, else the database the server's settings name (HEROTABLE_DATABASE_URL, else SQLite in
    HEROTABLE_DATA_DIR), read the way the server reads them."""
    if database:
        return database
    settings = _settings()
    return str(settings.database_url or f"sqlite:///{settings.data_dir / 'herotable.db'}")


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}{'' if n == 1 else 's'}"


EXIT_REFUSED = 1  # refused by the rules or the data: no such user, a backup that does not check, a schema behind
EXIT_USAGE = 2  # the command line or the settings are wrong: an option's value, a missing --base-url
_JSON = [False]  # whether the command running now was given --json (set by each command, reset by the root)


def _json_mode(as_json: bool) -> None:
    _JSON[0] = as_json


def _fail(message: str, code: int = EXIT_REFUSED) -> typer.Exit:
    """The command's refusal: one line on standard error, or with --json one JSON document on standard output
    (`{"error": {"code": "refused"|"usage", "message": …}}`); the exit code says which."""
    if _JSON[0]:
        kind = "usage" if code == EXIT_USAGE else "refused"
        typer.echo(json.dumps({"error": {"code": kind, "message": message}}))
    else:
        typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=code)


def _done(document: dict[str, Any], text: str) -> None:
    """What a command did: one JSON document with --json, else a line for people."""
    typer.echo(json.dumps(document) if _JSON[0] else text)


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
    as_json: Annotated[bool, typer.Option("--json", help="With --out: say what was written as JSON.")] = False,
) -> None:
    """Export a campaign (sheets, settings, every event) as one JSON document."""
    from herotable.store import StoreError, export_campaign, open_store

    _json_mode(as_json)
    try:
        store = open_store(_database(database), migrate="check")  # a read-only command never changes the schema
        document = export_campaign(store, campaign_id)
    except StoreError as err:
        raise _fail(str(err)) from None
    text = json.dumps(document, ensure_ascii=False, indent=1)
    if out is None:
        typer.echo(text)
    else:
        out.write_text(text, encoding="utf-8")
        events = document["event_count"]
        _done(
            {"campaign_id": campaign_id, "events": events, "path": str(out)},
            f"exported {campaign_id}: {events} events to {out}",
        )


@app.command("import")
def import_cmd(
    file: Annotated[Path, typer.Argument(help="A campaign export.")],
    database: DatabaseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import an exported campaign into an empty slot of the database, after checking its hash chain and that every
    event folds."""
    from herotable.service import verified_import
    from herotable.store import StoreError, open_store

    _json_mode(as_json)
    document = _read_document(file)
    try:
        state = verified_import(open_store(_database(database), migrate="auto"), document)
    except StoreError as err:
        raise _fail(str(err)) from None
    _done(
        {"campaign_id": state.campaign_id, "name": state.name, "events": state.seq},
        f"imported {state.campaign_id} ({state.name}): {state.seq} events",
    )


@app.command("backup")
def backup_cmd(
    file: Annotated[Path, typer.Argument(help="The new file to write the backup to.")],
    database: DatabaseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Copy the SQLite database into FILE while the server runs (SQLite's online backup: one consistent moment)."""
    from herotable.backup import backup
    from herotable.store import StoreError

    _json_mode(as_json)
    try:
        copied = backup(_database(database), file)
    except StoreError as err:
        raise _fail(str(err)) from None
    _done(
        {"path": str(copied.path), "campaigns": copied.campaigns, "events": copied.events},
        f"backed up {_count(copied.campaigns, 'campaign')}, {_count(copied.events, 'event')}, to {copied.path}",
    )


@app.command("restore")
def restore_cmd(
    file: Annotated[Path, typer.Argument(help="A backup made by `herotable backup`.")],
    replace: Annotated[
        bool, typer.Option("--replace", help="Put it in place of the database there now (stop the server first).")
    ] = False,
    database: DatabaseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check a backup (intact, a herotable database this version reads, every campaign whole up to its head and
    folding with its hash chain intact, every snapshot readable) and put it in place of the SQLite database. Exits 0
    once it is in place, 1 when it refuses (a check fails, a server holds the database, or a database is there
    without --replace); nothing changes then."""
    from herotable.backup import restore
    from herotable.store import StoreError

    _json_mode(as_json)
    try:
        copied = restore(file, _database(database), replace=replace)
    except StoreError as err:
        raise _fail(str(err)) from None
    _done(
        {"path": str(copied.path), "campaigns": copied.campaigns, "events": copied.events},
        f"restored {_count(copied.campaigns, 'campaign')}, {_count(copied.events, 'event')}, to {copied.path}",
    )


@app.command("replay")
def replay_cmd(
    file: Annotated[Path, typer.Argument(help="A campaign export.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    database: DatabaseOption = None,
) -> None:
    """Rebuild a campaign's state from an export without rolling a die or running a rule: check its hash chain and
    fold every event, and compare with the database's copy of the campaign when there is one."""
    _json_mode(as_json)
    from herotable.service import TableService, verified_import
    from herotable.store import MemoryEventStore, StoreError, UnknownCampaign, open_store
    from herotable.table.views import view_for

    document = _read_document(file)
    try:
        state = verified_import(MemoryEventStore(), document)
    except StoreError as err:
        raise _fail(str(err)) from None
    matches: bool | None = None
    if database is not None or _settings().database_url:
        try:
            matches = TableService(open_store(_database(database), migrate="check")).state(state.campaign_id) == state
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
                    "chain": "intact",
                    "replayed": True,
                    "matches_database": matches,
                    "state": view_for(state, gm),
                }
            )
        )
    else:
        typer.echo(f"{state.campaign_id} ({state.name}): {state.seq} events, hash chain intact, every one folds")
        if matches is not None:
            typer.echo("the database's copy " + ("matches" if matches else "DIFFERS"))
    if matches is False:
        raise typer.Exit(code=1)


@app.command("audit")
def audit_cmd(
    file: Annotated[Path, typer.Argument(help="A campaign export.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Decide every command of an export again under today's rules, from its recorded dice, and report each one
    whose facts differ (commands recorded under other rules versions are listed, not judged). Exits 1 when any
    command disagrees; the campaign loads either way."""
    _json_mode(as_json)
    from herotable.service import verified_import
    from herotable.store import MemoryEventStore, StoreError
    from herotable.table.audit import audit

    document = _read_document(file)
    scratch = MemoryEventStore()
    try:
        state = verified_import(scratch, document)
    except StoreError as err:
        raise _fail(str(err)) from None
    report = audit(scratch.load(state.campaign_id))
    if as_json:
        typer.echo(json.dumps({"campaign_id": state.campaign_id, **report.to_json()}))
    else:
        typer.echo(
            f"{state.campaign_id} ({state.name}): {report.commands} commands, {report.agreed} decide again as recorded"
        )
        for seq, name, version in report.older:
            typer.echo(f"  event {seq}: {name} was decided under rules version {version}; not judged")
        for f in report.findings:
            typer.echo(f"  event {f.seq}: {f.command} DISAGREES: {f.problem}")
    if not report.clean:
        raise typer.Exit(code=1)


def serve(demo: bool = False, **given: Any) -> None:
    """Start the web table. Every setting is an option here and an environment variable (HEROTABLE_PORT for
    --port…); an option wins. The table of them all is in docs/operations.md."""
    import logging.config

    import uvicorn

    from herotable.server.app import app_when_database_answers
    from herotable.server.games.demo import seed_demo
    from herotable.server.logs import log_config
    from herotable.server.metrics import MULTIPROCESS_ENV
    from herotable.server.settings import Settings, SettingsError, unknown_variables
    from herotable.server.transport import NO_DELAY_HTTP, ready_to_serve
    from herotable.store import StoreError

    try:
        settings = Settings.load(given)
    except SettingsError as err:
        for problem in err.problems:
            typer.echo(f"error: {problem}", err=True)
        for name in unknown_variables():
            typer.echo(f"warning: {_unknown(name)}", err=True)
        raise typer.Exit(code=2) from None
    logging.config.dictConfig(log_config(settings.log_format, settings.log_level))  # every line from here in one format
    said = logging.getLogger("herotable.serve")
    for name in unknown_variables():
        said.warning(_unknown(name))
    if settings.port:  # a port taken, or a host that is no address here, in one line before anything starts
        taken = _cannot_listen(settings.host, settings.port)
        if taken:
            raise _fail(taken)
    try:
        settings = settings.with_secret()
    except SettingsError as err:
        raise _fail(err.problems[0], EXIT_USAGE) from None
    if settings.workers > 1 and not settings.redis_url:
        raise _fail(
            f"--workers {settings.workers} needs Redis, so that a roll made on one process reaches viewers on the "
            "others. Tip: set HEROTABLE_REDIS_URL (e.g. redis://127.0.0.1:6379/0), or run one worker",
            EXIT_USAGE,
        )
    if settings.workers > 1 and not os.environ.get(MULTIPROCESS_ENV):  # /metrics sums every worker's counts
        import atexit
        import shutil
        import tempfile

        os.environ[MULTIPROCESS_ENV] = counts = tempfile.mkdtemp(prefix="herotable-metrics-")
        atexit.register(shutil.rmtree, counts, ignore_errors=True)  # this run's counts go with it
    if demo and settings.public_url and settings.public_url.startswith("https://"):
        raise _fail(
            f"--demo makes accounts whose password is published, and HEROTABLE_PUBLIC_URL={settings.public_url} "
            "says this server is open to the world. Tip: run the demo on your own machine, without a public URL",
            EXIT_USAGE,
        )
    try:  # the database is opened (and SQLite upgraded) once, before any worker starts
        web = app_when_database_answers(settings)
    except StoreError as err:
        raise _fail(str(err)) from None
    notice = legacy_notice(web.state.services.table)
    if notice:
        said.warning(notice)
    address = settings.public_url or f"http://{settings.host}:{settings.port}"
    if demo:
        commands = logging.getLogger("herotable.command")
        level = commands.level
        commands.setLevel(logging.WARNING)  # the demo's own making is no news: its forty commands stay out of the log
        try:
            logins = seed_demo(web.state.services)
        finally:
            commands.setLevel(level)
        typer.echo(f"herotable at {address} — demo logins (password for all: {logins[0].password}):")
        for login in logins:
            typer.echo(f"  {login.username:<5} {login.role}")
    else:
        typer.echo(f"herotable at {address}")
    options: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "http": NO_DELAY_HTTP,  # answers are not held back by Nagle's algorithm (see server/transport.py)
        "log_level": settings.log_level,
        "log_config": log_config(settings.log_format, settings.log_level),
        "access_log": False,  # herotable logs each request itself, with its id and without secrets
        # forwarded headers are read by the app itself, from the proxies HEROTABLE_TRUSTED_PROXIES names only
        "proxy_headers": False,
    }
    if settings.workers == 1:
        ready_to_serve()
        uvicorn.run(web, **options)
    else:  # each worker builds its own app from the same environment, with the options given here on top
        for name, value in given.items():
            if value is not None:
                os.environ[f"HEROTABLE_{name.upper()}"] = str(value)
        uvicorn.run("herotable.server.app:served_app", factory=True, workers=settings.workers, **options)


def _metavar(name: str, field: Any) -> str:
    """How a setting's value is written, for `serve --help`: <open|invite|closed>, <int>, <seconds>, <a,b,…>…"""
    import types
    import typing

    kind = field.annotation
    if typing.get_origin(kind) is typing.Literal:
        return "<" + "|".join(typing.get_args(kind)) + ">"
    if typing.get_origin(kind) in (typing.Union, types.UnionType):  # `X | None`: X is how it is written
        kind = next(a for a in typing.get_args(kind) if a is not type(None))
    if typing.get_origin(kind) is tuple:
        return "<a,b,…>"
    if kind is float:  # a float setting is a time in seconds (`…_s`), or a size (`…_mb`)
        return "<seconds>" if name.endswith("_s") else "<megabytes>" if name.endswith("_mb") else "<number>"
    return {int: "<int>", Path: "<path>"}.get(kind, "<text>")


def _unknown(name: str) -> str:
    from herotable.server.settings import meant

    guess = meant(name)
    hint = f"did you mean {guess}?" if guess else "`herotable serve --help` lists every setting"
    return f"{name} names no setting and is ignored; {hint}"


def _cannot_listen(host: str, port: int) -> str | None:
    """Why `serve` could not listen at host:port, in one line with a fix; None when it can."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return f"HEROTABLE_HOST={host!r} is no address of this machine. Tip: 127.0.0.1, or 0.0.0.0 for every interface"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds it
        try:
            probe.bind(address)
        except OSError as err:
            return (
                f"cannot listen on {host}:{port} ({err.strerror}). Tip: stop what uses it, or choose another "
                "HEROTABLE_PORT (--port)"
            )
    return None


def _serve_signature() -> inspect.Signature:
    """`serve`'s options: --demo, then one for each setting (its help the settings table's sentence)."""
    from herotable.server.settings import ENV_PREFIX, Settings

    params = [
        inspect.Parameter(
            "demo",
            inspect.Parameter.KEYWORD_ONLY,
            default=False,
            annotation=Annotated[
                bool, typer.Option("--demo", help="Create demo accounts and a campaign of each game.")
            ],
        )
    ]
    for name, field in Settings.model_fields.items():
        if name == "secret_key":
            continue  # a command line is visible to every user of the machine: HEROTABLE_SECRET_KEY(_FILE) only
        dashed = name.replace("_", "-")
        text = " ".join((field.description or "").split()) + f" [env {ENV_PREFIX}{name.upper()}]"
        option = (
            typer.Option(f"--{dashed}/--no-{dashed}", help=text, rich_help_panel="Settings", show_default=False)
            if field.annotation in (bool, bool | None)
            else typer.Option(
                f"--{dashed}", help=text, rich_help_panel="Settings", show_default=False, metavar=_metavar(name, field)
            )
        )
        kind: Any = bool | None if field.annotation in (bool, bool | None) else str | None
        params.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[kind, option])
        )
    return inspect.Signature(params)


serve.__signature__ = _serve_signature()  # type: ignore[attr-defined]
app.command()(serve)


db_app = typer.Typer(no_args_is_help=True, help="The database's schema: which revision it is at, and upgrades.")
app.add_typer(db_app, name="db")


def _schema(database: str | None) -> tuple[str, str | None, str]:
    """(the database as shown, its revision, this herotable's newest), reading only; exits 2 when it cannot."""
    from herotable.store import StoreError

    try:
        return _read_schema(database)
    except StoreError as err:
        raise _fail(str(err)) from None


def _read_schema(database: str | None) -> tuple[str, str | None, str]:
    from sqlalchemy.exc import OperationalError

    from herotable.store import StoreError
    from herotable.store.engine import create_store_engine
    from herotable.store.migrate import schema_status
    from herotable.store.sql import one_line, parse_database_url

    raw = _database(database)
    if raw == "memory://":
        raise StoreError("memory:// has no schema: it is made anew by each process. Tip: name a database")
    url = parse_database_url(raw)
    shown = url.render_as_string(hide_password=True)
    if url.get_backend_name() == "sqlite" and not Path(url.database or "").exists():
        raise StoreError(
            f"there is no database at {url.database}. Tip: check --database or HEROTABLE_DATABASE_URL; "
            "`herotable db upgrade` makes a new one"
        )
    engine = create_store_engine(url)
    try:
        current, head = schema_status(engine)
    except OperationalError as err:
        raise StoreError(f"cannot open the database {shown}: {one_line(err.orig)}") from None
    finally:
        engine.dispose()
    return shown, current, head


def _status(current: str | None, head: str) -> str:
    return "up to date" if current == head else "empty" if current is None else "behind"


@db_app.command("current")
def db_current(database: DatabaseOption = None, as_json: JsonOption = False) -> None:
    """Say which schema revision the database is at, and this herotable's newest. Changes nothing."""
    _json_mode(as_json)
    shown, current, head = _schema(database)
    status = _status(current, head)
    if as_json:
        typer.echo(json.dumps({"database": shown, "revision": current, "head": head, "status": status}))
    else:
        typer.echo(f"{shown}: revision {current or 'none'}; this herotable's newest is {head} ({status})")


@db_app.command("check")
def db_check(database: DatabaseOption = None, as_json: JsonOption = False) -> None:
    """Exit 0 when the database is at this herotable's newest revision, 1 when it needs `herotable db upgrade`
    (or cannot be read, or a newer herotable made it), 2 for a wrong --database. Changes nothing."""
    _json_mode(as_json)
    shown, current, head = _schema(database)
    if current != head:
        raise _fail(
            f"{shown} is at revision {current or 'none'} and this herotable needs {head}. "
            "Tip: back it up, then run `herotable db upgrade`"
        )
    _done({"database": shown, "revision": head, "status": "up to date"}, f"{shown}: revision {head}, up to date")


@db_app.command("upgrade")
def db_upgrade(database: DatabaseOption = None, as_json: JsonOption = False) -> None:
    """Bring the database's schema to this herotable's newest revision, in one transaction, keeping every row (a new
    SQLite file is made). Safe while servers of this version run; stop older ones first."""
    _json_mode(as_json)
    from herotable.store import StoreError, open_store
    from herotable.store.migrate import head_revision

    before: str | None = None
    with contextlib.suppress(StoreError):  # a SQLite file not made yet; open_store says anything else again
        before = _read_schema(database)[1]
    try:
        store = open_store(_database(database), migrate="upgrade")
    except StoreError as err:
        raise _fail(str(err)) from None
    close = getattr(store, "close", None)
    if close is not None:
        close()
    head = head_revision()
    said = (
        f"already at revision {head}; nothing to do"
        if before == head
        else f"upgraded from revision {before or 'none'} to {head}"
    )
    _done({"from": before, "to": head, "upgraded": before != head}, said)


user_app = typer.Typer(no_args_is_help=True, help="Accounts, for the server's owner.")
app.add_typer(user_app, name="users")
app.add_typer(user_app, name="user", hidden=True)  # the name of earlier versions: scripts that use it keep working
campaigns_app = typer.Typer(no_args_is_help=True, help="The server's campaigns, for its owner.")
app.add_typer(campaigns_app, name="campaigns")


def _accounts(database: str | None, *, writing: bool) -> Any:
    """The account store of the database; a command that only reads never migrates it."""
    from herotable.store import StoreError, open_store
    from herotable.store.accounts import accounts_for

    try:
        store = open_store(_database(database), migrate="auto" if writing else "check")
    except StoreError as err:
        raise _fail(str(err)) from None
    return store, accounts_for(store)


def _user(accounts: Any, username: str) -> Any:
    from herotable.server.admin import AdminError, find_user

    try:
        return find_user(accounts, username)
    except AdminError as err:
        raise _fail(str(err)) from None


@user_app.command("list")
def users_list(database: DatabaseOption = None, as_json: JsonOption = False) -> None:
    """Every account: username, name, since when, admin or not, disabled or not. Changes nothing."""
    _json_mode(as_json)
    from herotable.server.admin import user_row

    _, accounts = _accounts(database, writing=False)
    rows = [user_row(u) for u in accounts.users()]
    if as_json:
        typer.echo(json.dumps({"users": rows}))
        return
    for r in rows:
        flags = ", ".join(f for f in ("admin" if r["admin"] else "", "DISABLED" if r["disabled_at"] else "") if f)
        typer.echo(f"{r['username']:<20} {r['display_name']:<24} since {r['created_at'][:10]}  {flags}".rstrip())
    typer.echo(f"{len(rows)} account{'' if len(rows) == 1 else 's'}")


@user_app.command("create")
def users_create(
    username: Annotated[str, typer.Argument(help="3 to 40 letters, digits, '.', '_' or '-'.")],
    name: Annotated[
        str | None, typer.Option("--name", help="The name shown at the table; default the username.")
    ] = None,
    admin: Annotated[bool, typer.Option("--admin", help="Make the account an admin of this server.")] = False,
    database: DatabaseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Make an account (whatever the registration setting), asking for its password twice."""
    _json_mode(as_json)
    import uuid

    from pydantic import ValidationError

    from herotable.server.admin import user_row
    from herotable.server.api.accounts import Registration
    from herotable.server.auth import HashGate, stamp
    from herotable.server.settings import Settings, SettingsError
    from herotable.store.accounts import User, UsernameTaken

    password = typer.prompt(f"Password for {username}", hide_input=True, confirmation_prompt=True)
    try:
        body = Registration(username=username, password=password, display_name=name or username)
        settings = Settings.load()
    except ValidationError as err:
        first = err.errors()[0]
        raise _fail(f"{first['loc'][0]}: {first['msg']}; nothing was made", EXIT_USAGE) from None
    except SettingsError as err:
        raise _fail(err.problems[0], EXIT_USAGE) from None
    _, accounts = _accounts(database, writing=True)
    gate = HashGate(1, 60.0, memory_kib=settings.hash_memory_kib, rounds=settings.hash_rounds)
    user = User(uuid.uuid4().hex[:16], body.username.lower(), body.display_name.strip(), gate.hash(password), stamp())
    try:
        accounts.add_user(user)
    except UsernameTaken as err:
        raise _fail(str(err)) from None
    if admin:
        accounts.set_admin(user.user_id, True)
    _done(user_row(replace(user, admin=admin)), f"made {user.username}{' (admin)' if admin else ''}")


def _set_admin(username: str, database: str | None, admin: bool) -> None:
    _, accounts = _accounts(database, writing=True)
    user = _user(accounts, username)
    accounts.set_admin(user.user_id, admin)
    _done(
        {"username": user.username, "admin": admin},
        f"{user.username} is {'now an admin' if admin else 'no longer an admin'}",
    )


@user_app.command("promote")
def users_promote(
    username: Annotated[str, typer.Argument()], database: DatabaseOption = None, as_json: JsonOption = False
) -> None:
    """Make the account an admin of this server (it sees /admin: every account and campaign, and may disable
    accounts). Only the shell makes admins."""
    _json_mode(as_json)
    _set_admin(username, database, True)


@user_app.command("demote")
def users_demote(
    username: Annotated[str, typer.Argument()], database: DatabaseOption = None, as_json: JsonOption = False
) -> None:
    """Take the admin role from the account."""
    _json_mode(as_json)
    _set_admin(username, database, False)


@user_app.command("disable")
def users_disable(
    username: Annotated[str, typer.Argument()], database: DatabaseOption = None, as_json: JsonOption = False
) -> None:
    """Stop the account logging in, and end its sessions and API tokens now (its live tables close at once on
    servers sharing HEROTABLE_REDIS_URL; elsewhere within 10 s). Its characters and campaigns stay."""
    _json_mode(as_json)
    from herotable.server.admin import set_disabled

    _, accounts = _accounts(database, writing=True)
    user = _user(accounts, username)
    if user.disabled:
        _done(
            {"username": user.username, "disabled": True, "sessions_ended": 0}, f"{user.username} was disabled already"
        )
        return
    ended = set_disabled(accounts, user, True)
    _announce_sessions_ended(user.user_id)
    _done(
        {"username": user.username, "disabled": True, "sessions_ended": ended},
        f"{user.username} is disabled; {_count(ended, 'session')} ended",
    )


@user_app.command("enable")
def users_enable(
    username: Annotated[str, typer.Argument()], database: DatabaseOption = None, as_json: JsonOption = False
) -> None:
    """Let a disabled account log in again."""
    _json_mode(as_json)
    from herotable.server.admin import set_disabled

    _, accounts = _accounts(database, writing=True)
    user = _user(accounts, username)
    set_disabled(accounts, user, False)
    _done({"username": user.username, "disabled": False}, f"{user.username} may log in again")


tokens_app = typer.Typer(no_args_is_help=True, help="Personal API tokens, for the server's owner.")
app.add_typer(tokens_app, name="tokens")


@tokens_app.command("create")
def tokens_create(
    username: Annotated[str, typer.Argument(help="The account the token acts for.")],
    name: Annotated[str, typer.Option("--name", help="What it is for, e.g. the group's dice bot.")],
    scope: Annotated[str, typer.Option("--scope", help="read (looks only), play (commands as a player) or gm.")],
    campaign: Annotated[str | None, typer.Option("--campaign", help="The one campaign it reaches.")] = None,
    days: Annotated[
        int | None, typer.Option("--days", min=1, max=365, help="Days it works; none: until revoked.")
    ] = None,
    database: DatabaseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Make an API token for an account and print it, once: only its hash is kept."""
    _json_mode(as_json)
    from herotable.server.tokens import SCOPES, make_token

    if scope not in SCOPES:
        raise _fail(f"--scope {scope!r} is not one of {', '.join(SCOPES)}", EXIT_USAGE)
    store, accounts = _accounts(database, writing=True)
    user = _user(accounts, username)
    if campaign is not None:
        from herotable.service import TableService
        from herotable.store import StoreError

        try:
            member = TableService(store).state(campaign).role_of(user.user_id) is not None
        except StoreError:
            member = False
        if not member:
            raise _fail(
                f"{user.username} is not a member of a campaign {campaign!r}; no token was made. Tip: `herotable "
                "campaigns list` shows each campaign's id"
            )
    text, token = make_token(accounts, user, name, scope, campaign, days)
    if as_json:
        typer.echo(
            json.dumps({"token": text, "token_id": token.token_id, "scope": scope, "expires_at": token.expires_at})
        )
    else:
        typer.echo(f"{text}\n(the token of {user.username}, scope {scope}; shown this once)")


@tokens_app.command("list")
def tokens_list(
    username: Annotated[str, typer.Argument(help="The account whose tokens to list.")],
    database: DatabaseOption = None,
    as_json: JsonOption = False,
) -> None:
    """An account's tokens (never their text), with when each was last used. Changes nothing."""
    _json_mode(as_json)
    from herotable.server.api.tokens import token_json
    from herotable.server.auth import stamp

    _, accounts = _accounts(database, writing=False)
    user = _user(accounts, username)
    rows = [token_json(t, stamp()) for t in accounts.tokens_of(user.user_id)]
    if as_json:
        typer.echo(json.dumps({"tokens": rows}))
        return
    for r in rows:
        standing = "works" if r["live"] else "revoked" if r["revoked_at"] else "expired"
        used = (r["last_used_at"] or "never")[:16]
        typer.echo(f"{r['token_id']}  {r['name']}  [{r['scope']}]  {standing}, last used {used}")
    typer.echo(_count(len(rows), "token"))


@tokens_app.command("revoke")
def tokens_revoke(
    username: Annotated[str, typer.Argument(help="The account the token belongs to.")],
    token_id: Annotated[str, typer.Argument(help="The token's id, as `tokens list` shows it.")],
    database: DatabaseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Revoke a token: from now on it is refused."""
    _json_mode(as_json)
    from herotable.server.auth import stamp

    _, accounts = _accounts(database, writing=True)
    user = _user(accounts, username)
    if not accounts.revoke_token(token_id, user.user_id, stamp()):
        raise _fail(f"{user.username} has no live token {token_id!r}. Tip: `herotable tokens list {user.username}`")
    _announce_sessions_ended(user.user_id)  # servers sharing Redis close the sockets it opened
    _done({"revoked": token_id}, f"revoked {token_id}")


@campaigns_app.command("list")
def campaigns_list(database: DatabaseOption = None, as_json: JsonOption = False) -> None:
    """Every campaign: its id, name, game, GM, members and events. Changes nothing."""
    _json_mode(as_json)
    from herotable.server.admin import campaign_lines

    store, accounts = _accounts(database, writing=False)
    lines = campaign_lines(store, accounts)
    if as_json:
        typer.echo(json.dumps({"campaigns": [line.to_json() for line in lines]}))
        return
    for c in lines:
        old = "" if c.readable else "  (from an older herotable, kept unread)"
        typer.echo(
            f"{c.campaign_id}  {c.name}  [{c.game}]  GM {c.gm or '—'}, {_count(c.members, 'member')}, "
            f"{_count(c.events, 'event')}{old}"
        )
    typer.echo(f"{len(lines)} campaign{'' if len(lines) == 1 else 's'}")


@user_app.command("reset-password")
def reset_password_cmd(
    username: Annotated[str, typer.Argument(help="The account's username.")],
    set_password: Annotated[
        bool, typer.Option("--set-password", help="Type a new password here instead of printing a link.")
    ] = False,
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", help="The address users open herotable at; default HEROTABLE_PUBLIC_URL."),
    ] = None,
    database: DatabaseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Let a user back into their account: print a one-time link (good for an hour) where they choose a new
    password, or set one now. Either way every session and API token of the account ends."""
    _json_mode(as_json)
    from herotable.server.auth import HashGate, new_reset_link, replace_password
    from herotable.store import StoreError, open_store
    from herotable.store.accounts import accounts_for

    try:
        accounts = accounts_for(open_store(_database(database), migrate="auto"))
    except StoreError as err:
        raise _fail(str(err)) from None
    user = accounts.user_by_name(username.lower())
    if user is None:
        raise _fail(f"there is no user {username!r}. Tip: check the spelling; usernames are not case-sensitive")
    if not set_password:
        from herotable.server.settings import Settings, SettingsError

        try:
            base_url = base_url or Settings.load().public_url
        except SettingsError as err:
            raise _fail(err.problems[0], EXIT_USAGE) from None
        if not base_url:
            raise _fail(
                "the link needs the address users open herotable at. Tip: pass --base-url https://table.example, "
                "or set HEROTABLE_PUBLIC_URL as the server has it",
                EXIT_USAGE,
            )
        link = new_reset_link(accounts, user, base_url)
        _done(
            {"username": user.username, "link": link},
            f"Send this to {user.username}; it works once, within the hour:\n{link}",
        )
        return
    password = typer.prompt(f"New password for {user.username}", hide_input=True, confirmation_prompt=True)
    if not 8 <= len(password) <= 200:
        raise _fail("the password needs 8 to 200 characters; nothing was changed", EXIT_USAGE)
    costs = _settings()  # a new hash at the server's cost
    gate = HashGate(1, 60.0, memory_kib=costs.hash_memory_kib, rounds=costs.hash_rounds)
    ended = replace_password(accounts, gate, user, password, keep=None)
    _announce_sessions_ended(user.user_id)
    _done(
        {"username": user.username, "sessions_ended": ended},
        f"The password of {user.username} is set; {_count(ended, 'session')} ended.",
    )


def _announce_sessions_ended(user_id: str) -> None:
    """Tell running servers (through Redis, when HEROTABLE_REDIS_URL is set) to close the user's live sockets."""
    settings = _settings()
    url = settings.redis_url
    if not url:
        return
    import redis

    from herotable.server.live import channel

    try:
        redis.Redis.from_url(url).publish(channel(settings.redis_prefix), json.dumps({"sessions_of": user_id}))
    except redis.exceptions.RedisError as err:
        typer.echo(f"warning: could not tell the servers through Redis ({err}); open live tables close on reload")


def legacy_notice(service: TableService) -> str | None:
    """What `serve` says at start-up about campaigns recorded before the table kept facts, if there are any."""
    legacy = service.legacy_campaigns()
    if not legacy:
        return None
    names = ", ".join(f"{row.name!r} ({row.campaign_id})" for row in legacy)
    return (
        f"{len(legacy)} campaign(s) were recorded by an older herotable and cannot be opened: {names}. "
        "They are kept in the database untouched; every other campaign is served."
    )


# --- odds and sim (herotable.odds) -------------------------------------------------------------------------

odds_app = typer.Typer(no_args_is_help=True, help="Exact odds: exchanges, whole duels, Conviction checks.")
sim_app = typer.Typer(no_args_is_help=True, help="Monte Carlo for conflicts too large to solve exactly.")
app.add_typer(odds_app, name="odds")
app.add_typer(sim_app, name="sim")

ExplodingOption = Annotated[bool, typer.Option("--exploding", help="Exploding maximum rolls (R-LTL-18).")]


def _probability(value: Fraction) -> dict[str, object]:
    return {"exact": str(value), "float": float(value)}


def _ladder_die(text: str) -> Rating:
    try:
        return Rating.of(text)
    except ValueError as err:
        raise _fail(str(err), EXIT_USAGE) from None


def _emit(document: dict[str, object], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(document))
        return
    for key, value in document.items():
        if isinstance(value, dict) and "float" in value:
            typer.echo(f"{key:>16}: {value['exact']:>24}  ({value['float']:.4f})")
        elif isinstance(value, dict) and "estimate" in value:
            typer.echo(f"{key:>16}: {value['estimate']:.4f}  [{value['low']:.4f}, {value['high']:.4f}]")
        else:
            typer.echo(f"{key:>16}: {value}")


@odds_app.command("exchange")
def odds_exchange(
    you: Annotated[str, typer.Argument(help="Your die, e.g. d8.")],
    opp: Annotated[str, typer.Argument(help="The opposing die, e.g. d12.")],
    rerolls: Annotated[int, typer.Option("--rerolls", min=0, help="Re-rolls you will use (R-LTL-9).")] = 0,
    opp_rerolls: Annotated[int, typer.Option("--opp-rerolls", min=0, help="Re-rolls the opponent uses.")] = 0,
    new_stands: Annotated[bool, typer.Option("--new-stands", help="A re-roll's new result stands.")] = False,
    exploding: ExplodingOption = False,
    as_json: JsonOption = False,
) -> None:
    """Exact odds of one exchange: win, tie, lose and both criticals (R-LTL-3, R-LTL-8)."""
    _json_mode(as_json)
    from herotable.ltl.options import LtlOptions, RerollMode
    from herotable.odds.exchange import Roll, exchange

    mode = RerollMode.NEW_STANDS if new_stands else RerollMode.KEEP_BETTER
    try:
        odds = exchange(
            Roll(_ladder_die(you), rerolls),
            Roll(_ladder_die(opp), opp_rerolls),
            LtlOptions(exploding=exploding, reroll_mode=mode),
        )
    except ValueError as err:
        raise _fail(str(err)) from None
    _emit({k: _probability(v) for k, v in odds.as_dict().items()}, as_json)


@odds_app.command("conflict")
def odds_conflict(
    a: Annotated[str, typer.Argument(help="Side A's base Power, e.g. d10.")],
    b: Annotated[str, typer.Argument(help="Side B's base Power, e.g. d8.")],
    broke_a: Annotated[int, typer.Option("--broke-a", min=0, help="A goes for broke with N levels each round.")] = 0,
    broke_b: Annotated[int, typer.Option("--broke-b", min=0, help="B goes for broke with N levels each round.")] = 0,
    exploding: ExplodingOption = False,
    as_json: JsonOption = False,
) -> None:
    """Exact odds of a whole duel to defeat (R-LTL-12): who wins, expected rounds and levels left."""
    _json_mode(as_json)
    from herotable.ltl.options import LtlOptions
    from herotable.odds.conflict import Contender, Policy, conflict

    odds = conflict(
        Contender(_ladder_die(a), policy=Policy(broke=broke_a)),
        Contender(_ladder_die(b), policy=Policy(broke=broke_b)),
        LtlOptions(exploding=exploding),
    )
    _emit(
        {
            "a_wins": _probability(odds.a_wins),
            "b_wins": _probability(odds.b_wins),
            "expected_rounds": _probability(odds.expected_rounds),
            "a_levels_left": _probability(odds.a_levels_left),
            "b_levels_left": _probability(odds.b_levels_left),
            "outcomes": [{"winner": w, "levels_left": k, "p": _probability(p)} for w, k, p in odds.outcomes],
        },
        as_json,
    )


@odds_app.command("check")
def odds_check(
    bonus: Annotated[int, typer.Option("--bonus", help="The check's total modifier.")],
    dc: Annotated[int, typer.Option("--dc", help="The Difficulty to meet.")],
    conviction_reroll: Annotated[bool, typer.Option("--conviction-reroll", help="Spend Conviction (R-CV-4).")] = False,
    wit: Annotated[bool, typer.Option("--wit", help="Add a Quotable Wit's +2 (R-CV-12).")] = False,
    as_json: JsonOption = False,
) -> None:
    """Exact chance that d20 + bonus meets the Difficulty (R-CV-1)."""
    _json_mode(as_json)
    from herotable.odds.check import check

    odds = check(bonus, dc, conviction_reroll=conviction_reroll, wit=wit)
    _emit({"success": _probability(odds.success)}, as_json)


@sim_app.command("conflict")
def sim_conflict(
    a: Annotated[str, typer.Argument(help="Side A: one die or several, comma-separated (d8,d8).")],
    b: Annotated[str, typer.Argument(help="Side B: one die or several, comma-separated.")],
    trials: Annotated[int, typer.Option("--trials", min=1, help="Conflicts to simulate.")] = 20_000,
    seed: Annotated[int, typer.Option("--seed", help="The simulation's seed (same seed, same answer).")] = 0,
    target: Annotated[str, typer.Option("--target", help="weakest, strongest or spread.")] = "weakest",
    confidence: Annotated[float, typer.Option("--confidence", min=0.5, max=0.9999)] = 0.95,
    exploding: ExplodingOption = False,
    as_json: JsonOption = False,
) -> None:
    """Monte Carlo odds of a conflict, N against M (R-LTL-12), with a confidence interval."""
    _json_mode(as_json)
    from herotable.ltl.options import LtlOptions
    from herotable.odds.melee import Estimate, Targeting
    from herotable.odds.montecarlo import simulate_melee

    try:
        targeting = Targeting(target)
    except ValueError:
        raise _fail(f"unknown target policy {target!r}; use weakest, strongest or spread", EXIT_USAGE) from None
    side_a = [_ladder_die(d) for d in a.split(",")]
    side_b = [_ladder_die(d) for d in b.split(",")]
    odds = simulate_melee(
        side_a,
        side_b,
        seed,
        trials=trials,
        targeting=targeting,
        options=LtlOptions(exploding=exploding),
        confidence=confidence,
    )

    def est(e: Estimate) -> dict[str, object]:
        return {"estimate": e.value, "low": e.low, "high": e.high}

    _emit(
        {
            "method": odds.method.value,
            "trials": odds.trials,
            "confidence": odds.confidence,
            "a_wins": est(odds.a_wins),
            "b_wins": est(odds.b_wins),
            "draw": est(odds.draw),
            "expected_rounds": est(odds.expected_rounds),
        },
        as_json,
    )


def main() -> None:
    app()
