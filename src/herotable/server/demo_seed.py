"""Demo accounts and a demo campaign of each game, for `herotable serve --demo` (what `make run` starts)."""

from __future__ import annotations

from dataclasses import dataclass

from herotable.conviction import Abilities, Nature
from herotable.conviction import Role as CvRole
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.server.api import Registration, register_user
from herotable.server.deps import Services
from herotable.table.conviction.commands import CreateCvCharacter, CvSheet
from herotable.table.ltl.commands import CreateLtlCharacter
from herotable.table.state import Role, Ruleset
from herotable.table.structure import Join, StartAdventure, StartScene, StartSession

DEMO_PASSWORD = "herotable-demo"
DEMO_USERS = (("gwen", "Gwen (GM)"), ("ana", "Ana"), ("ben", "Ben"))


@dataclass(frozen=True)
class DemoLogin:
    username: str
    password: str
    role: str


def _cv_sheet(name: str, role: CvRole, charisma: int) -> CvSheet:
    return CvSheet(
        name=name,
        level=3,
        roles=(role,),
        toughness=2,
        nature=Nature("Loyal", "Reckless"),
        combat_bonus=2,
        abilities=Abilities(strength=2, dexterity=1, constitution=1, intelligence=0, wisdom=1, charisma=charisma),
        skills=(("Notice", 4), ("Acrobatics", 3)),
    )


def seed_demo(svc: Services) -> list[DemoLogin]:
    """Create the demo accounts and campaigns unless they exist; return the logins to print."""
    ids: dict[str, str] = {}
    for username, name in DEMO_USERS:
        user = svc.accounts.user_by_name(username) or register_user(
            svc, Registration(username=username, password=DEMO_PASSWORD, display_name=name)
        )
        ids[username] = user.user_id
    gm, ana, ben = ids["gwen"], ids["ana"], ids["ben"]
    for row in svc.table.legacy_campaigns():
        if row.campaign_id in ("demo-ltl", "demo-cv"):
            svc.table.store.delete_campaign(row.campaign_id)  # a demo recorded by an older herotable is made anew
    existing = {row.campaign_id for row in svc.table.store.campaigns()}
    if "demo-ltl" not in existing:
        table = svc.table
        table.create_campaign(gm, "Gwen", "Harbour Nights (Larger Than Life demo)", Ruleset.LTL, campaign_id="demo-ltl")
        table.execute("demo-ltl", ana, Join("Ana"))
        table.execute("demo-ltl", ben, Join("Ben"))
        table.execute("demo-ltl", ana, CreateLtlCharacter("comet", CAPTAIN_COMET))
        table.execute(
            "demo-ltl",
            ben,
            CreateLtlCharacter("nova", {**CAPTAIN_COMET, "name": "Nova", "base": "d8", "styles": {"Blasts": "d12"}}),
        )
        table.execute("demo-ltl", gm, CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True, hidden=True))
        for cmd in (StartAdventure(), StartSession(), StartScene()):
            table.execute("demo-ltl", gm, cmd)
    if "demo-cv" not in existing:
        table = svc.table
        table.create_campaign(gm, "Gwen", "Ninja Island (Conviction demo)", Ruleset.CONVICTION, campaign_id="demo-cv")
        table.execute("demo-cv", ana, Join("Ana"))
        table.execute("demo-cv", ben, Join("Ben", Role.PLAYER))
        table.execute("demo-cv", ana, CreateCvCharacter("kes", _cv_sheet("Kestrel", CvRole.WARRIOR, 2)))
        table.execute("demo-cv", ben, CreateCvCharacter("moss", _cv_sheet("Moss", CvRole.EXPERT, 1)))
        table.execute(
            "demo-cv", gm, CreateCvCharacter("rex", _cv_sheet("Captain Rex", CvRole.WARRIOR, 1), npc=True, hidden=True)
        )
        for cmd in (StartAdventure(), StartSession(), StartScene()):
            table.execute("demo-cv", gm, cmd)
    return [DemoLogin(u, DEMO_PASSWORD, "GM" if u == "gwen" else "player") for u, _ in DEMO_USERS]
