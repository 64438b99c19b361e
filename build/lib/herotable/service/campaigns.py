"""A campaign's life: made (its first command recorded), listed for a member, and deleted for good."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from herotable.service.common import MEMBERSHIP_FACTS, fold_log
from herotable.service.memory import Memory
from herotable.service.states import States
from herotable.service.writer import Writer
from herotable.store.port import CampaignRow, EventStore, StoredEvent
from herotable.table import campaign_settings
from herotable.table.commands import command_from_json, command_to_json
from herotable.table.state import Forbidden, Role, Ruleset, TableState
from herotable.table.structure import CreateCampaign

log = logging.getLogger("herotable.service")


class Campaigns:
    def __init__(self, store: EventStore, states: States, memory: Memory, writer: Writer) -> None:
        self.store = store
        self.states = states
        self.memory = memory
        self.writer = writer

    def legacy_campaigns(self) -> list[CampaignRow]:
        """Campaigns recorded before events were facts: kept, never opened."""
        return [row for row in self.store.campaigns() if row.log_version < 2]

    def campaigns_of(self, user: str) -> list[tuple[TableState, Role]]:
        """The campaigns `user` belongs to, with their role, oldest first: found in the store's membership read model
        (the user's rows alone), then each folded from its own membership facts, never from a whole log. What it
        reads grows with the user's campaigns, never with anyone else's. Each state holds the campaign's name, game,
        members and whether it is archived, and nothing of its play."""
        rows = self.store.memberships_of(user)
        by_campaign: dict[str, list[StoredEvent]] = {}
        for e in self.store.events_of_types(MEMBERSHIP_FACTS, [row.campaign_id for row in rows]):
            by_campaign.setdefault(e.campaign_id, []).append(e)
        out = []
        for row in rows:
            events = by_campaign.get(row.campaign_id)
            if not events:  # deleted since its row was read
                continue
            members = fold_log(events)
            role = members.role_of(user)
            if role is not None:
                out.append((members, role))
        return out

    def create_campaign(
        self,
        user: str,
        display_name: str,
        title: str,
        ruleset: Ruleset,
        *,
        options: dict[str, Any] | None = None,
        campaign_id: str | None = None,
    ) -> TableState:
        cid = campaign_id or uuid.uuid4().hex[:12]
        cmd = command_from_json(
            command_to_json(CreateCampaign(cid, title, ruleset, user, display_name, dict(options or {})))
        )
        self.store.create_campaign(cid, title.strip() or cid, ruleset.value, self.writer.clock())
        return self.writer.begin(cid, TableState(cid, "", ruleset), cmd, user).state

    def delete_campaign(self, campaign_id: str, user: str) -> None:
        """Delete the campaign for good, its log, snapshots and invitations with it: the GM's alone, and not a fact,
        since nothing is left to hold one (the GM may export it first). Listeners are told, with no events. Raises
        Forbidden, UnknownCampaign."""
        if not self.states.state(campaign_id).is_gm(user):
            raise Forbidden(
                "campaign/not_gm", "only the GM deletes the campaign", fix="ask the GM", ruling=campaign_settings.RULE
            )
        self.store.delete_campaign(campaign_id)
        self.memory.forget(campaign_id)
        for listener in self.writer.listeners:  # told with no events: live viewers learn that the campaign is gone
            try:
                listener(campaign_id, [])
            except Exception:  # the campaign is deleted: a listener that fails must not hide that
                log.exception("a listener failed after campaign %s was deleted", campaign_id)
