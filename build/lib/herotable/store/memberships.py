"""The membership read model: who belongs to each campaign and in which role, kept by the store from the membership
facts as they are written (appended or imported, in the same transaction), so that listing one user's campaigns
reads that user's rows alone, however many other campaigns the store holds.

The rows follow the fold of the same facts (`herotable.table.core`, `campaign_settings`): a campaign created with
its GM, members joining, changing role and leaving, the GM role handed over. Membership facts are never undone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from herotable.store.port import NewEvent, StoredEvent, StoreError
from herotable.table.campaign_settings import GmHandedOver
from herotable.table.core import CampaignCreated, MemberJoined, MemberLeft, RoleChanged
from herotable.table.facts import FactError, read_fact
from herotable.table.state import Role

MEMBERSHIP_KINDS = frozenset(
    {CampaignCreated.type, MemberJoined.type, RoleChanged.type, MemberLeft.type, GmHandedOver.type}
)


def changes_members(events: Iterable[NewEvent | StoredEvent]) -> bool:
    """Whether any of `events` changes who belongs to the campaign, or in which role."""
    return any(e.type in MEMBERSHIP_KINDS for e in events)


def members_after(members: Mapping[str, str], events: Iterable[NewEvent | StoredEvent]) -> dict[str, str]:
    """The campaign's members (user → role) after `events`, from `members` before them. Raises StoreError for a
    membership fact that cannot be read (nothing is written then)."""
    out = dict(members)
    for e in events:
        if e.type not in MEMBERSHIP_KINDS:
            continue
        try:
            f = read_fact(e.type, e.version, e.data)
        except FactError as err:
            raise StoreError(f"a {e.type!r} event cannot be read: {err}") from None
        if isinstance(f, CampaignCreated):
            out = {f.gm: Role.GM.value}
        elif isinstance(f, MemberJoined) or (isinstance(f, RoleChanged) and f.user in out):
            out[f.user] = _role(f.role, e.type)
        elif isinstance(f, MemberLeft):
            out.pop(f.user, None)
        elif isinstance(f, GmHandedOver):
            for user, role in ((f.old, Role.PLAYER), (f.new, Role.GM)):
                if user in out:
                    out[user] = role.value
    return out


def _role(value: str, kind: str) -> str:
    if value not in _ROLES:
        raise StoreError(f"a {kind!r} event names the role {value!r}; a role is one of {', '.join(_ROLES)}")
    return value


_ROLES = tuple(role.value for role in Role)
