"""Demo accounts and a demo campaign of each game, for `herotable serve --demo` (what `make run` starts)."""

from __future__ import annotations

from dataclasses import dataclass

from herotable.conviction import Abilities, Nature
from herotable.conviction import Role as CvRole
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.server.api.accounts import Registration, register_user
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


# Ben's hero in the Larger Than Life demo: a different Power, story, ratings and Superpowers from Ana's Captain Comet,
# with a healing Power (R-LTL-15) so the demo shows healing too
NOVA = {
    "name": "Nova",
    "writer": "Ines Ink",
    "artist": "Tom Tone",
    "origin": "A lighthouse keeper's daughter who caught a falling star's light in the lamp and in herself",
    "superpowers": [
        {"name": "Light Blasts", "stunts": ["Blinding Flash"]},
        {"name": "Healing Glow", "stunts": [], "healing": True},
    ],
    "motivation": "Keep every light in the harbour burning",
    "costume": "Midnight blue, with a star on the chest that flares when she is angry",
    "specialties": ["Navigation", "First Aid"],
    "complications": ["Her glow gives her away in the dark"],
    "drawbacks": ["Weakened in total darkness"],
    "base": "d8",
    "styles": {"Blasts": "d12", "Dodge": "d10"},
    "karma": "d8",
    "heroism": "d10",
    "hero_points": 0,
}

# The Conviction demo's three: a warrior who boards ships, an expert who talks and tinkers, and a pirate captain who
# speaks with dinosaurs and calls storms; different roles, abilities, skills, feats and Natures
KESTREL = CvSheet(
    name="Kestrel",
    level=3,
    roles=(CvRole.WARRIOR,),
    toughness=3,
    nature=Nature("Loyal", "Reckless"),
    combat_bonus=3,
    abilities=Abilities(strength=3, dexterity=2, constitution=1, intelligence=0, wisdom=0, charisma=-1),
    skills=(("Acrobatics", 4), ("Climb", 3), ("Intimidate", 4), ("Notice", 2)),
    feats=("Sea Legs", "Heavy Swing", "Boarding Rush"),
)
MOSS = CvSheet(
    name="Moss",
    level=3,
    roles=(CvRole.EXPERT,),
    toughness=1,
    nature=Nature("Curious", "Greedy"),
    combat_bonus=1,
    abilities=Abilities(strength=0, dexterity=1, constitution=0, intelligence=2, wisdom=1, charisma=2),
    skills=(("Notice", 6), ("Diplomacy", 6), ("Craft", 5), ("Pilot", 4), ("Sleight of Hand", 3)),
    feats=("Keen Eye", "Silver Tongue", "Jury-Rig"),
)
CAPTAIN_REX = CvSheet(
    name="Captain Rex",
    level=4,
    roles=(CvRole.WARRIOR, CvRole.ADEPT),
    toughness=2,
    nature=Nature("Bold", "Cruel"),
    combat_bonus=3,
    abilities=Abilities(strength=2, dexterity=1, constitution=2, intelligence=1, wisdom=2, charisma=3),
    skills=(("Intimidate", 7), ("Handle Animal", 5), ("Pilot", 4)),
    feats=("Spirit Sight", "Storm Calling", "Dino Whisperer"),
)


def seed_demo(svc: Services) -> list[DemoLogin]:
    """Create the demo accounts and campaigns unless they exist; return the logins to print."""
    ids: dict[str, str] = {}
    for username, name in DEMO_USERS:
        user = svc.accounts.user_by_name(username) or register_user(
            svc, Registration(username=username, password=DEMO_PASSWORD, display_name=name), by_owner=True
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
            CreateLtlCharacter("nova", NOVA),
        )
        table.execute("demo-ltl", gm, CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True, hidden=True))
        for cmd in (StartAdventure(), StartSession(), StartScene()):
            table.execute("demo-ltl", gm, cmd)
    if "demo-cv" not in existing:
        table = svc.table
        table.create_campaign(gm, "Gwen", "Ninja Island (Conviction demo)", Ruleset.CONVICTION, campaign_id="demo-cv")
        table.execute("demo-cv", ana, Join("Ana"))
        table.execute("demo-cv", ben, Join("Ben", Role.PLAYER))
        table.execute("demo-cv", ana, CreateCvCharacter("kes", KESTREL))
        table.execute("demo-cv", ben, CreateCvCharacter("moss", MOSS))
        table.execute("demo-cv", gm, CreateCvCharacter("rex", CAPTAIN_REX, npc=True, hidden=True))
        for cmd in (StartAdventure(), StartSession(), StartScene()):
            table.execute("demo-cv", gm, cmd)
    return [DemoLogin(u, DEMO_PASSWORD, "GM" if u == "gwen" else "player") for u, _ in DEMO_USERS]
