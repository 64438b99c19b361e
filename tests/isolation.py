"""What keeps one test process apart from every other on the machine: xdist workers of one run, and other clones
testing at the same time, each get their own PostgreSQL database, Redis prefix and files."""

from __future__ import annotations

import os
import secrets

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
# random per test process, so two runs at once never meet on a shared server
RUN_ID = f"{secrets.token_hex(4)}_{WORKER}"

# Password hashes as cheap as argon2 allows: what the tests check of logins never depends on a hash's cost, and a
# full-cost hash (64 MiB, three passes) takes a third of a second, hundreds of times over. Servers a test starts as
# processes read the same from the environment (set in tests/conftest.py).
CHEAP_HASHES = {"hash_memory_kib": 256, "hash_rounds": 1}
CHEAP_HASH_ENV = {"HEROTABLE_HASH_MEMORY_KIB": "256", "HEROTABLE_HASH_ROUNDS": "1"}
