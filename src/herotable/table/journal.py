"""The campaign's journal: entries the GM writes (handouts, notes on what happened) and shows to nobody, to chosen
members, or to everyone, and notes each player keeps on their own characters.

An entry starts as the GM's alone. Showing it is a fact that carries the entry, sent to exactly its new readers (one
copy for everyone, or one copy per chosen member; the GM sees them all), so it reaches them live and in their own
event streams, and nobody else learns even its title. An edit of a shown entry reaches its readers the same way;
hiding it again tells those who lose it that it is gone, and nothing more.

Undo (R-T-4): showing and hiding are actions, which the GM may undo like any other (the entry goes back to whom it
was shown to before); writing, editing and removing an entry, and a player's notes, are not actions: like chat,
they are never undone and never stand in the way of undoing the last action.

A private note on a character is read by the character's player and the GM alone (an NPC's: the GM alone).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Annotated, Any

from herotable.table.codec import evolved
from herotable.table.commands import (
    LABEL_LENGTH,
    Command,
    Ctx,
    Decision,
    Text,
    handles,
    require_controls,
    require_gm,
)
from herotable.table.core import evolves
from herotable.table.facts import Emitted, Fact, Visibility, fact
from herotable.table.game import Choice, Domain, LegalAction, Subset, TextDomain
from herotable.table.state import JournalEntry as Entry
from herotable.table.state import Role, TableError, TableState

ENTRY_LENGTH = 20_000  # an entry's text: a handout of a few pages (chat and sheet prose take 2,000, R-T-5)
NOTE_LENGTH = 20_000  # a player's notes on a character
ENTRIES = 500  # entries a campaign holds at most
DIGEST = re.compile(r"[0-9a-f]{64}")  # an image's SHA-256, as the server keeps it
GROUP = "Journal"
RULE = "R-T-4"


# --- facts ---


@fact
@dataclass(frozen=True)
class EntryWritten(Fact):
    """An entry written or edited, with its whole text: sent to the GM and whoever reads it already."""

    type = "journal.written"
    copied = True
    entry: str
    title: str
    body: str
    image: str | None = None


@fact
@dataclass(frozen=True)
class ReadersSet(Fact):
    """Who reads an entry now besides the GM: everyone, or the members named (none: the GM alone). The GM's
    record: readers learn of an entry through `EntryShown` and `EntryHidden`, never who else reads it."""

    type = "journal.readers_set"
    entry: str
    title: str
    everyone: bool = False
    readers: tuple[str, ...] = ()


@fact
@dataclass(frozen=True)
class EntryShown(Fact):
    """An entry shown to whoever reads this fact (one copy for everyone, or one per member it is shown to): it
    carries the entry, so its readers hold it from their own streams."""

    type = "journal.shown"
    inert = True
    news = True
    copied = True
    entry: str
    title: str
    body: str
    image: str | None = None


@fact
@dataclass(frozen=True)
class EntryHidden(Fact):
    """An entry no longer shown to whoever reads this fact: to them it is gone."""

    type = "journal.hidden"
    inert = True
    copied = True
    entry: str


@fact
@dataclass(frozen=True)
class EntryRemoved(Fact):
    """An entry removed from the journal for good."""

    type = "journal.removed"
    copied = True
    entry: str


@fact
@dataclass(frozen=True)
class PrivateNoteWritten(Fact):
    """A character's private notes as they now read (empty: none), for its player and the GM."""

    type = "character.private_note"
    character: str
    text: str


def entry_of(state: TableState, entry: str) -> Entry | None:
    return next((e for e in state.journal if e.id == entry), None)


def _put(state: TableState, new: Entry, **more: Any) -> TableState:
    if entry_of(state, new.id) is None:
        return evolved(state, journal=(*state.journal, new), **more)
    return evolved(state, journal=tuple(new if e.id == new.id else e for e in state.journal), **more)


@evolves(EntryWritten)
def _written(state: TableState, f: EntryWritten) -> TableState:
    old = entry_of(state, f.entry)
    if old is None:
        return _put(state, Entry(f.entry, f.title, f.body, f.image), journal_made=state.journal_made + 1)
    return _put(state, replace(old, title=f.title, body=f.body, image=f.image))


@evolves(ReadersSet)
def _readers_set(state: TableState, f: ReadersSet) -> TableState:
    old = entry_of(state, f.entry)
    return state if old is None else _put(state, replace(old, everyone=f.everyone, readers=f.readers))


@evolves(EntryRemoved)
def _removed(state: TableState, f: EntryRemoved) -> TableState:
    return evolved(state, journal=tuple(e for e in state.journal if e.id != f.entry))


@evolves(PrivateNoteWritten)
def _noted(state: TableState, f: PrivateNoteWritten) -> TableState:
    kept = tuple((c, text) for c, text in state.private_notes if c != f.character)
    return evolved(state, private_notes=(*kept, (f.character, f.text)) if f.text else kept)


def audiences_of(entries: tuple[Entry, ...]) -> tuple[tuple[str, bool, tuple[str, ...]], ...]:
    """Who read each of these entries: what undoing a show returns to."""
    return tuple((e.id, e.everyone, e.readers) for e in entries)


def restore_audiences(state: TableState, before: tuple[tuple[str, bool, tuple[str, ...]], ...]) -> TableState:
    """The journal with each entry's readers as `before` says (entries written or removed since stay as they are)."""
    was = {entry: (everyone, readers) for entry, everyone, readers in before}
    if not was and not state.journal:
        return state
    journal = tuple(
        replace(e, everyone=was[e.id][0], readers=was[e.id][1]) if e.id in was else e for e in state.journal
    )
    return evolved(state, journal=journal)


def regained(state: TableState, before: tuple[Entry, ...] | None) -> list[Emitted]:
    """What undoing the last action shows again, given the journal as it stood `before` that action (None: not
    known): each entry as it reads now, to the members who read it then and do not now (an undone hide), so their
    own streams hold what they read again."""
    if before is None:
        return []
    was = {e.id: e for e in before}
    out: list[Emitted] = []
    for e in state.journal:
        old = was.get(e.id)
        if old is None or e.everyone:
            continue
        shown = EntryShown(e.id, e.title, e.body, e.image)
        if old.everyone:
            out.append(Emitted(shown, Visibility.PUBLIC))
        else:
            out += [Emitted(shown, Visibility.OWNER, user) for user in old.readers if user not in e.readers]
    return out


# --- commands ---


@dataclass(frozen=True)
class WriteEntry(Command):
    """Write a new journal entry (`entry` left out) or edit one; only the GM writes them. `image` is the digest of
    an image uploaded to the campaign; an edit without it keeps the entry's image, and "" takes it away. A new entry
    is the GM's alone until shown."""

    type = "journal.write"
    title: Annotated[str, Text(LABEL_LENGTH, required=True)]
    body: Annotated[str, Text(ENTRY_LENGTH)] = ""
    entry: str | None = None
    image: str | None = None


@dataclass(frozen=True)
class ShowEntry(Command):
    """Show an entry to everyone (`everyone`), to the members named in `readers`, or to nobody but the GM (neither)."""

    type = "journal.show"
    entry: str
    everyone: bool = False
    readers: tuple[str, ...] = ()


@dataclass(frozen=True)
class RemoveEntry(Command):
    """Remove an entry from the journal for good."""

    type = "journal.remove"
    entry: str


@dataclass(frozen=True)
class WritePrivateNote(Command):
    """Set a character's private notes (empty: none), read by its player and the GM alone."""

    type = "character.write_private_note"
    character: str
    text: Annotated[str, Text(NOTE_LENGTH)] = ""


def _entry(state: TableState, entry: str) -> Entry:
    found = entry_of(state, entry)
    if found is None:
        there = ", ".join(f"{e.id} ({e.title})" for e in state.journal[:10]) or "none yet"
        raise TableError(
            "journal/unknown_entry", f"there is no journal entry {entry!r}", fix=f"use one of: {there}", ruling=RULE
        )
    return found


def to_readers(entry: Entry, f: Fact, gm: str) -> list[Emitted]:
    """Copies of `f` for the GM and whoever reads `entry`: one for everyone, or one per reader (the GM sees each)."""
    if entry.everyone:
        return [Emitted(f, Visibility.PUBLIC)]
    if entry.readers:
        return [Emitted(f, Visibility.OWNER, user) for user in entry.readers]
    return [Emitted(f, Visibility.GM)]


@handles(WriteEntry)
def _write(state: TableState, cmd: WriteEntry, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    if "\n" in cmd.title or "\r" in cmd.title:
        raise TableError(
            "journal/title_lines", "a title is one line", fix="put the rest in the entry's text", ruling="R-T-5"
        )
    if cmd.image and not DIGEST.fullmatch(cmd.image):
        raise TableError(
            "journal/image",
            "the image is not one uploaded to this campaign",
            fix="upload the image on the journal page and choose it, or leave the image out",
            ruling=RULE,
        )
    if cmd.entry is None:
        if len(state.journal) >= ENTRIES:
            raise TableError(
                "journal/full",
                f"the journal holds {ENTRIES} entries, the most a campaign keeps",
                fix="remove entries you no longer need, or edit one",
                ruling=RULE,
            )
        entry = Entry(f"e{state.journal_made + 1}", cmd.title.strip(), cmd.body)  # never one used before
    else:
        entry = _entry(state, cmd.entry)
    image = (entry.image if cmd.image is None else cmd.image) or None  # an edit keeps its picture unless told
    written = EntryWritten(entry.id, cmd.title.strip(), cmd.body, image)
    return Decision(to_readers(entry, written, state.gm))


def _check_readers(state: TableState, cmd: ShowEntry) -> tuple[str, ...]:
    readers = tuple(dict.fromkeys(cmd.readers))
    if cmd.everyone and readers:
        raise TableError(
            "journal/everyone_and_readers",
            "an entry is shown to everyone or to members named, not both",
            fix="leave the readers out to show it to everyone, or name them without everyone",
            ruling=RULE,
        )
    for user in readers:
        member = state.member(user)
        if member is None or member.role is Role.GM:
            others = ", ".join(m.name for m in state.members if m.role is not Role.GM) or "nobody yet"
            raise TableError(
                "journal/unknown_reader",
                "a reader named is not a member of this campaign besides the GM",
                fix=f"name members among: {others}",
                ruling=RULE,
            )
    return tuple(sorted(readers))


@handles(ShowEntry)
def _show(state: TableState, cmd: ShowEntry, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    old = _entry(state, cmd.entry)
    readers = _check_readers(state, cmd)
    again = (old.everyone, old.readers) == (cmd.everyone, readers)  # shown again: a reminder to its readers
    new = replace(old, everyone=cmd.everyone, readers=readers)
    out: list[Emitted] = []
    shown = EntryShown(new.id, new.title, new.body, new.image)
    if new.everyone:
        out.append(Emitted(shown, Visibility.PUBLIC))
    else:
        out += [Emitted(shown, Visibility.OWNER, user) for user in readers if again or user not in old.readers]
    if old.everyone and not new.everyone:  # every member but the new readers loses it
        losing = [m.user for m in state.members if m.role is not Role.GM and m.user not in readers]
    else:
        losing = [user for user in old.readers if not new.everyone and user not in readers]
    out += [Emitted(EntryHidden(new.id), Visibility.OWNER, user) for user in losing]
    # the GM's record, last: the log marks the action as its readers saw it, not as the GM's alone
    out.append(Emitted(ReadersSet(new.id, new.title, new.everyone, readers), Visibility.GM))
    return Decision(out)


@handles(RemoveEntry)
def _remove(state: TableState, cmd: RemoveEntry, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    entry = _entry(state, cmd.entry)
    return Decision(to_readers(entry, EntryRemoved(entry.id), state.gm))


@handles(WritePrivateNote)
def _note(state: TableState, cmd: WritePrivateNote, ctx: Ctx) -> Decision:
    require_controls(state, ctx.user, cmd.character)
    owner = state.character(cmd.character).owner
    noted = PrivateNoteWritten(cmd.character, cmd.text.strip())
    if owner == state.gm:
        return Decision([Emitted(noted, Visibility.GM)])
    return Decision([Emitted(noted, Visibility.OWNER, owner)])


COMMANDS_OUTSIDE_UNDO = frozenset({WriteEntry.type, RemoveEntry.type, WritePrivateNote.type})


# --- what each member may read ---


def readable(state: TableState, user: str | None) -> list[Entry]:
    """The entries `user` may read, oldest first."""
    return [e for e in state.journal if e.read_by(state, user)]


def private_notes(state: TableState, user: str | None) -> dict[str, str]:
    """The private notes `user` may read, by character: those on their own characters (the GM: all)."""
    gm = state.is_gm(user)
    owners = {c.id: c.owner for c in state.characters}
    owners.update({s.ref.id: s.ref.owner for s in state.retired})
    return {c: text for c, text in state.private_notes if gm or (user is not None and owners.get(c) == user)}


def entry_json(state: TableState, e: Entry, user: str | None, *, body: bool) -> dict[str, Any]:
    """An entry as `user` may see it, as plain JSON (with its text, with `body`): readers are the GM's to know."""
    item: dict[str, Any] = {"id": e.id, "title": e.title, "image": e.image}
    if body:
        item["body"] = e.body
    if state.is_gm(user):
        item.update(everyone=e.everyone, readers=list(e.readers))
    return item


def view(state: TableState, user: str | None) -> dict[str, Any]:
    """The journal as `user` may see it in the campaign's view: each entry's heading, not its text, which the
    journal's own page and route give (a view goes out with every command's answer and live frame), and the private
    notes on the member's characters."""
    entries = [entry_json(state, e, user, body=False) for e in readable(state, user)]
    return {"entries": entries, "private_notes": private_notes(state, user)}


def search(state: TableState, user: str | None, words: str) -> list[Entry]:
    """The entries `user` may read holding every word of `words` (in any case, in the title or the text), those
    with the words in their title first. Only what the reader may read is searched, so a result never leaks."""
    terms = [w.casefold() for w in words.split() if w.strip()]
    if not terms:
        return []
    found = []
    for e in readable(state, user):
        title, text = e.title.casefold(), f"{e.title}\n{e.body}".casefold()
        if all(t in text for t in terms):
            found.append((0 if all(t in title for t in terms) else 1, e))
    return [e for _, e in sorted(found, key=lambda pair: pair[0])]


# --- legal actions ---


def legal(state: TableState, user: str) -> list[LegalAction]:
    """The GM writes, shows and removes entries; the GM and each player keep private notes on their characters."""
    role = state.role_of(user)
    if role is None or role is Role.SPECTATOR:
        return []
    out: list[LegalAction] = []
    if role is Role.GM:
        text = {"title": TextDomain(LABEL_LENGTH, required=True), "body": TextDomain(ENTRY_LENGTH)}
        if len(state.journal) < ENTRIES:
            out.append(LegalAction(WriteEntry.type, "Write a journal entry", fields=text, group=GROUP, rule=RULE))
        others = [m for m in state.members if m.role is not Role.GM]
        who = Subset(tuple(m.user for m in others), tuple(m.name for m in others), min_size=1)
        for e in state.journal:
            fixed = {"entry": e.id}
            label = f"“{e.title}”"
            out.append(LegalAction(WriteEntry.type, f"Edit {label}", fixed, text, group=GROUP, rule=RULE))
            if not e.everyone:
                out.append(
                    LegalAction(ShowEntry.type, f"Show {label} to everyone", fixed | {"everyone": True}, group=GROUP)
                )
            if others:
                out.append(
                    LegalAction(ShowEntry.type, f"Show {label} to…", fixed, {"readers": who}, group=GROUP, rule=RULE)
                )
            if e.shown:
                out.append(LegalAction(ShowEntry.type, f"Hide {label}", fixed, group=GROUP, rule=RULE))
            out.append(LegalAction(RemoveEntry.type, f"Remove {label}", fixed, group=GROUP, rule=RULE))
    mine = [c for c in state.characters if role is Role.GM or c.owner == user]
    if mine:
        chars = Choice(tuple(c.id for c in mine), tuple(c.name for c in mine))
        fields: dict[str, Domain] = {"character": chars, "text": TextDomain(NOTE_LENGTH)}
        out.append(
            LegalAction(WritePrivateNote.type, "Private notes on a character", fields=fields, group=GROUP, rule=RULE)
        )
    return out


# --- the log's words (registered in herotable.table.render) ---


RENDERERS: dict[str, Callable[[Any, Mapping[str, str]], str | None]] = {
    EntryWritten.type: lambda f, n: f"Journal entry “{f.title}” written",
    ReadersSet.type: lambda f, n: None if f.everyone or f.readers else f"“{f.title}” is now read by nobody but the GM",
    EntryShown.type: lambda f, n: f"The GM shows “{f.title}”",  # to whom: the log's mark says (everyone, or a few)
    EntryHidden.type: lambda f, n: "A journal entry is no longer shown",
    EntryRemoved.type: lambda f, n: "A journal entry was removed",
    PrivateNoteWritten.type: lambda f, n: f"Private notes on {n.get(f.character, 'a character')} written",
}
TITLES = {
    EntryWritten.type: "Journal",
    ReadersSet.type: "Handout",
    EntryShown.type: "Handout",
    EntryHidden.type: "Handout",
    EntryRemoved.type: "Journal",
    PrivateNoteWritten.type: "Notes",
}
