"""Promise: the index holds no secret, so no query can find, count or rank by one.

The attack it stops: a client that may call ``search`` (a prompt-injected agent
included) probes ``+<a word beside the secret> +<prefix>*`` and reads the hit total,
growing the prefix one character at a time. Secrets of every known format and of every
generated class (`secret_generated`) are planted beside made-up search words, indexed
for real, and each is probed with its own prefixes through the service and the MCP
``search`` tool: the recovered characters (the longest prefix of 4+ characters that
still counts a hit) must be none, in the text and in the camelCase ``parts`` field.
Also: the generated classes are redacted on their own, over many seeds.
"""

from __future__ import annotations

import os
import random
import re

import pytest
from mcp import Client

from ccarchive.mcp_server.server import build_server
from ccarchive.redact import redact
from tests.conftest import build_index
from tests.support.secret_generated import GENERATED, plant_oracle_archive
from tests.support.secret_shapes import Gen

SEED = int(os.environ.get("CCARCHIVE_SECRETS_SEED", "20261127"))


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("oracle")
    arc = plant_oracle_archive(out / "claude", SEED)
    svc = build_index(arc.root, out / "data")
    return arc, svc, out


def _probes(secret: str) -> list[str]:
    """Prefixes an attacker would grow: the secret's runs of letters and digits (what the
    tokenizer makes terms of), from 4 characters up, and their lower-case camel parts."""
    out = []
    for run in re.findall(r"[A-Za-z0-9]{6,}", secret):
        out.extend(run[:k] for k in range(4, min(len(run), 16) + 1, 3))
        parts = re.findall(r"[A-Z]*[a-z0-9]+", run)
        out.extend(part.lower()[:6] for part in parts if len(part) >= 6)
    return out


def _first_probes(secret: str) -> list[str]:
    """The probes that settle whether anything is recovered: each run's 4-character
    prefix, and the camel parts. A prefix query matches the terms that start with it (the
    index's words are runs of letters and digits, lowercased, so a run's prefix is one
    term's prefix, a regex on the text, title and parts fields), so a longer prefix of a
    run that counts a hit means its 4-character prefix counts that hit too: when none of
    these does, no probe of `_probes` can."""
    out = []
    for run in re.findall(r"[A-Za-z0-9]{6,}", secret):
        out.append(run[:4])
        parts = re.findall(r"[A-Z]*[a-z0-9]+", run)
        out.extend(part.lower()[:6] for part in parts if len(part) >= 6)
    return out


def _hidden(plant, secret: str) -> bool:
    """Does redaction hide this secret in its planted text? (Where it does not, the
    detector missed it, a recall gap `test_generated_classes_are_redacted` and the
    adversarial suite measure; the index then holds what the reader sees.)"""
    out = redact(plant.text)
    return not any(secret[i : i + 8] in out for i in range(max(1, len(secret) - 7)))


def _recovered(total_of, needle: str, secret: str) -> int:
    """The longest prefix (4+ characters) of the secret's probes that counts a hit beside
    ``needle``: every probe is asked only once one of `_first_probes` hits."""
    if not any(total_of(f"+{needle} +{prefix}*") > 0 for prefix in _first_probes(secret)):
        return 0
    best = 0
    for prefix in _probes(secret):
        if total_of(f"+{needle} +{prefix}*") > 0:
            best = max(best, len(prefix))
    return best


def test_service_search_recovers_no_character(planted) -> None:
    arc, svc, _ = planted
    leaks = []
    probes = 0
    for plant in arc.plants:
        for secret in plant.secrets:
            if not _hidden(plant, secret):
                continue

            def total(q: str) -> int:
                return svc.search(
                    q, include_tool_results=True, include_thinking=True, limit=1
                ).total

            probes += len(_probes(secret))
            n = _recovered(total, plant.needle, secret)
            if n:
                leaks.append((plant.shape, plant.place, secret[:12], n))
    assert probes > 500
    assert leaks == []
    gaps = sum(not _hidden(p, s) for p in arc.plants for s in p.secrets)
    assert gaps <= len(arc.plants) // 20, gaps  # recall gaps in filler: few


async def test_mcp_search_recovers_no_character(planted) -> None:
    arc, svc, _ = planted
    server = build_server(svc, redact_secrets=True, active_minutes=0)
    rng = random.Random(SEED)
    hidden = [p for p in arc.plants if _hidden(p, p.secrets[0])]
    sample = rng.sample(hidden, min(40, len(hidden)))
    leaks = []
    async with Client(server) as client:
        for plant in sample:
            secret = plant.secrets[0]
            for prefix in _first_probes(secret)[:2]:
                res = await client.call_tool("search", {"query": f"+{plant.needle} +{prefix}*"})
                data = res.structured_content or {}
                if (data.get("total") or 0) > 0:
                    leaks.append((plant.shape, plant.place, prefix))
    assert leaks == []


def test_the_probe_finds_what_is_indexed(planted) -> None:
    """Not vacuous: the same probe finds a word that is indexed beside each needle."""
    arc, svc, _ = planted
    found = 0
    for plant in arc.plants[:30]:
        word = plant.needle
        if svc.search(f"+{word} +{word[:5]}*", include_tool_results=True, limit=1).total:
            found += 1
    assert found >= 25


@pytest.mark.parametrize("shape", sorted(GENERATED))
def test_generated_classes_are_redacted(shape: str) -> None:
    """Every generated class, 150 seeds each: no 8 characters of a secret readable."""
    readable = []
    for n in range(150):
        p = GENERATED[shape](Gen(random.Random(SEED * 1000 + n)))
        out = redact(p.text)
        readable.extend(
            (p.text, out)
            for s in p.secrets
            if any(s[i : i + 8] in out for i in range(max(1, len(s) - 7)))
        )
    assert readable == []
