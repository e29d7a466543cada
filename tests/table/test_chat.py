"""Tests for rami_lan.net.chat: cleaning, size limit, per-seat token bucket, bots."""

from __future__ import annotations

import pytest

from rami_lan.cli.messages import chat_line, chat_refusal_text
from rami_lan.i18n import set_language
from rami_lan.net.chat import (
    MAX_CHAT_CHARS,
    ChatPolicy,
    ChatRefusal,
    TokenBucket,
    clean_chat_text,
)
from rami_lan.net.protocol import MAX_CHAT


class FakeClock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_limit_matches_the_protocol() -> None:
    assert MAX_CHAT_CHARS == MAX_CHAT == 200


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("bonjour", "bonjour"),
        ("  salut \n tout\tle   monde  ", "salut tout le monde"),
        ("a\x00b\x07c\x1b[31mrouge", "abc[31mrouge"),
        ("\u202eevil\u202c name\u200b", "evil name"),
        ("ligne1\u2028ligne2\u2029fin", "ligne1 ligne2 fin"),
        ("no\u00a0break", "no break"),
        ("é à ç 🂡 ♥", "é à ç 🂡 ♥"),
        ("\x00\x01\n\t ", ""),
    ],
)
def test_clean_keeps_printable_text_only(raw: str, clean: str) -> None:
    assert clean_chat_text(raw) == (clean, False)


def test_size_limit_cuts_at_200() -> None:
    text, cut = clean_chat_text("x" * 250)
    assert cut and text == "x" * 200
    assert clean_chat_text("y" * 200) == ("y" * 200, False)
    verdict = ChatPolicy(clock=FakeClock()).check(0, "z" * 201)
    assert verdict.ok and verdict.truncated and len(verdict.text) == 200
    with pytest.raises(TypeError):
        clean_chat_text(b"bytes")  # type: ignore[arg-type]


def test_empty_is_refused_and_costs_nothing() -> None:
    policy = ChatPolicy(burst=1, clock=FakeClock())
    v = policy.check(0, " \x00\n")
    assert not v.ok and v.refusal is ChatRefusal.EMPTY
    assert policy.check(0, "ok").ok  # the one token is still there


def test_rate_limit_per_seat_with_injected_clock() -> None:
    clock = FakeClock()
    policy = ChatPolicy(burst=3, rate=0.5, clock=clock)
    assert [policy.check(1, f"m{i}").ok for i in range(3)] == [True] * 3
    v = policy.check(1, "one more")
    assert not v.ok and v.refusal is ChatRefusal.RATE_LIMITED
    assert v.retry_after == pytest.approx(2.0)
    # Another seat has its own bucket.
    assert policy.check(2, "hello").ok
    # A refused line costs nothing; after 1 s still not enough, after 2 s one token.
    clock.t += 1.0
    assert not policy.check(1, "again").ok
    clock.t += 1.0
    assert policy.check(1, "again").ok
    assert not policy.check(1, "and again").ok
    # A long pause refills up to the burst only.
    clock.t += 3600
    assert [policy.check(1, "x").ok for _ in range(4)] == [True, True, True, False]
    # Forgetting a seat (it left) gives the next player a fresh bucket.
    policy.forget(1)
    assert policy.check(1, "new player").ok


def test_clock_going_back_refills_nothing() -> None:
    clock = FakeClock()
    bucket = TokenBucket(1, 1.0, clock)
    assert bucket.take()
    clock.t -= 100
    assert not bucket.take()
    clock.t += 0.5
    assert bucket.wait_time() == pytest.approx(0.5)
    clock.t += 0.5
    assert bucket.take()
    with pytest.raises(ValueError):
        TokenBucket(0, 1.0, clock)
    with pytest.raises(ValueError):
        ChatPolicy(rate=0)
    with pytest.raises(ValueError):
        ChatPolicy(max_chars=201)


def test_bots_never_chat() -> None:
    policy = ChatPolicy(clock=FakeClock())
    assert policy.check(0, "bip", bot=True).refusal is ChatRefusal.BOT
    policy.set_bot(3)
    assert policy.is_bot(3)
    assert policy.check(3, "bip").refusal is ChatRefusal.BOT
    policy.set_bot(3, False)
    assert policy.check(3, "I am human now").ok
    policy.set_bot(2)
    policy.forget(2)
    assert not policy.is_bot(2)


def test_messages_in_both_languages() -> None:
    clock = FakeClock()
    policy = ChatPolicy(burst=1, clock=clock)
    policy.check(0, "a")
    limited = policy.check(0, "b")
    try:
        set_language("en")
        assert chat_refusal_text(limited) == "Too many messages: wait 2 s."
        assert chat_refusal_text(policy.check(0, "", bot=False)) == "The message is empty."
        assert chat_refusal_text(policy.check(0, "x", bot=True)) == "Bots do not chat."
        assert chat_line("Marie", "salut\x1b") == "Marie: salut"
        set_language("fr")
        assert chat_refusal_text(limited) == "Trop de messages : attendez 2 s."
        assert chat_refusal_text(policy.check(0, "x", bot=True)) == "Les robots ne discutent pas."
        assert chat_line("Marie", "salut") == "Marie : salut"
        assert chat_refusal_text(policy.check(1, "fine")) == ""
    finally:
        set_language("en")
