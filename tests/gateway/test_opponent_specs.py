"""The gateway's check of an opponent spec against the engine's own list of
players (the one its ``ListPlayers`` serves): every refusal says what the
family takes. A bare ``clairvoyant`` is told to name the player whose policy it
knows (over the service nothing binds it to its opponent, as a match does)."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from engine_svc.players import list_players
from gateway.errors import GameError
from gateway.players import PlayerInfo, check_spec

PLAYERS = [PlayerInfo(**asdict(p)) for p in list_players()]


@pytest.mark.parametrize("spec", ["clairvoyant:greedy", "greedy", "engine:1000", "noisy_greedy:30", "perfect",
                                  "human", "alphabeta"])
def test_the_specs_the_engine_lists_are_accepted(spec):
    check_spec(spec, PLAYERS)


@pytest.mark.parametrize(("spec", "message"), [
    ("clairvoyant", "opponent 'clairvoyant': clairvoyant needs the player whose policy it knows named after a "
                    "colon, e.g. clairvoyant:greedy (offered here: clairvoyant:greedy)"),
    ("clairvoyant:engine", "opponent 'clairvoyant:engine': offered here is clairvoyant:greedy (clairvoyant knowing "
                           "the policy of the player after the colon)"),
    ("clairvoyant:", "opponent 'clairvoyant:': offered here is clairvoyant:greedy"),
    ("greedy:3", "opponent 'greedy:3': greedy takes no ':' part"),
    ("alphabeta:2", "opponent 'alphabeta:2': alphabeta takes no ':' part"),
    ("engine:0", "opponent 'engine:0': engine:N needs a whole number N in 1..600000"),
    ("noisy_greedy:x", "opponent 'noisy_greedy:x': noisy_greedy:N needs a whole number N in 0..100"),
    ("nobody", "unknown opponent 'nobody'; known: random, "),
    ("x" * 65, "unknown opponent 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (65 characters)"),
])
def test_a_bad_spec_says_what_its_family_takes(spec, message):
    with pytest.raises(GameError) as caught:
        check_spec(spec, PLAYERS)
    assert caught.value.code == "bad_request"
    assert caught.value.message.startswith(message), caught.value.message


@pytest.mark.slow  # the real engine service
def test_a_bare_clairvoyant_over_rest(api):
    r = api.post("/api/v1/games", json={"opponent": "clairvoyant"})
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["code"] == "bad_request" and "named after a colon, e.g. clairvoyant:greedy" in error["message"]
    made = api.post("/api/v1/games", json={"opponent": "clairvoyant:greedy"})
    assert made.status_code in (200, 201), made.text
