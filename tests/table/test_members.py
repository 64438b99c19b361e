"""Finding a member of a table: by a look through a few, through an index of many (R-T-1)."""

from __future__ import annotations

import dataclasses

from herotable.table.codec import evolved
from herotable.table.state import SCANNED_MEMBERS, Member, Role, Ruleset, TableState


def test_a_member_is_found_alike_among_a_few_and_among_many_and_a_changed_list_is_read_afresh():
    for count in (3, SCANNED_MEMBERS + 1, 50):
        others = [Member(f"u{n}", f"User {n}", Role.PLAYER if n % 2 else Role.SPECTATOR) for n in range(count)]
        members = (Member("gm", "Gail", Role.GM), *others)
        state = TableState("c1", "Harbour", Ruleset.LTL, members=members)
        assert state.role_of("gm") is Role.GM and state.gm == "gm"
        assert [state.role_of(f"u{n}") for n in range(count)] == [m.role for m in members[1:]]
        assert state.member("nobody") is None and state.member(None) is None and state.member("") is None
        # the fold's copies share the list, and the member found; a new list is looked through anew
        later = evolved(state, seq=state.seq + 1)
        assert later.member(f"u{count - 1}") is state.member(f"u{count - 1}")
        promoted = dataclasses.replace(later, members=(*members[:-1], Member(f"u{count - 1}", "Then", Role.PLAYER)))
        assert promoted.role_of(f"u{count - 1}") is Role.PLAYER and promoted.member(f"u{count - 1}").name == "Then"
        gone = evolved(promoted, members=members[:-1])
        assert gone.member(f"u{count - 1}") is None and state.member(f"u{count - 1}") is members[-1]


def test_the_first_of_a_user_listed_twice_is_the_member():
    twice = (*[Member(f"u{n}", f"User {n}", Role.PLAYER) for n in range(20)], Member("u3", "Again", Role.GM))
    state = TableState("c1", "Harbour", Ruleset.LTL, members=twice)
    assert state.member("u3") is twice[3]
