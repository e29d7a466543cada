"""Masked deck: the whole-protocol test vector of docs/fair_shuffle.md (chapter "Private dealing"), pinned.

Two participants (seats 0 and 1), a 4-card deck, the fair-shuffle round tag of
``table_id = bytes(range(16))``, match 1, round 1, and each seat's randomness the
test stream ``HashRandom(tag || u8(seat))``. An outsider who follows the spec
recomputes every value here.
"""

from __future__ import annotations

from rami_lan.masked.deck import initial_points, key_commitment, lock_step, mask_step, unmask
from rami_lan.masked.memory import MemoryTable
from rami_lan.masked.session import CardPublic, CardReceived

TAG = b"rami-lan/v1" + bytes(range(16)) + (1).to_bytes(4, "big") + (1).to_bytes(4, "big")

SECRETS = {
    0: (
        "9ffb992ebe27be4b02d024a999ebc3044d1ecb1f92fc7d4315839d945976b50c",
        (1, 2, 0, 3),
        (
            "6f09e95b129e8dfd8990432bdd0d5bad3af176d5475404a061caae534dbde70b",
            "9f0890c41e9193484828e4cbd0dbaf784257ccf0fd6036cf4586630364d4b902",
            "df988583e5c2c9fe2d967a3b218a6810c387e41f3d947497e4327991d0eca90d",
            "9e19c9405ad57db5df07c92d0ef1aad87439e62a8155a27ca7f5557ebc8b6607",
        ),
    ),
    1: (
        "467616a4470fae18d9619ee3db3c344a21e45804a679f856d1949a37f8b3f70f",
        (2, 1, 3, 0),
        (
            "26a91667b11a9199547c5aff62b1b0fee1aa314cfbdcef3aed857e3d1d822603",
            "ae72a2082a00e425f644974f884bb1d5f64ffd8a7567dc3a20df1475548fad09",
            "cd29be490b16a9de34aa19b7ad6f0c66fada7746af0557aa36ed2181b3118f07",
            "c6a09e372c6991ec3dd94ce13352fce999d052d6428481480bc5bcc1747ae60a",
        ),
    ),
}
MASK_0 = [
    "7095e846389f383d9594e265da8f3559b01d264c0bfc17231ef3fa7f9fd89421",
    "0a8f6e2c90ad90d2d4c31ab40f1e33e0b9f31876793a3debd43a099d63b1f1bf",
    "57e7881e50d7083c6647c53fdb65aa91fb015b4deacabb2777c860bb458a66dc",
    "5e9c694313b209525cca0c76ba1c714beb219f0209300afd600ecbd6ddff4226",
]
LOCK_1 = [
    "8edd76b7cae0c7efc8a7d3f8cb1377f347f678a485100a2c55070f192940b407",
    "bfd0ce31c14895f0760a2fdbf7f7d2146bb2bdf9d19db7efee2866d0dcd7e9af",
    "1558106ca86a6e23eecb93ee0d9ddba3537cd4a496b977ec08afbbcfc3d4fcf1",
    "e4e6b374d981c09faa1e9b4c8d18cbe14b85cd72ed01df0e764c0ece12595a2a",
]
COMMIT_SEAT_1_POS_0 = "0346149926fdcc04f49e04d503b87a5bb1067bef54cc1f804b08bfd183dc13d9"
ORDER = (0, 2, 3, 1)


def _secrets(seat: int) -> tuple[bytes, tuple[int, ...], tuple[bytes, ...]]:
    r, perm, keys = SECRETS[seat]
    return bytes.fromhex(r), perm, tuple(bytes.fromhex(k) for k in keys)


def test_protocol_vector_recomputed_step_by_step() -> None:
    r0, p0, k0 = _secrets(0)
    r1, p1, k1 = _secrets(1)
    d1 = mask_step(initial_points(range(4)), r0, p0)
    assert [p.hex() for p in d1] == MASK_0
    d2 = mask_step(d1, r1, p1)
    e2 = lock_step(lock_step(d2, r0, k0), r1, k1)
    assert [p.hex() for p in e2] == LOCK_1
    assert key_commitment(TAG, 0, 1, 0, k1[0]).hex() == COMMIT_SEAT_1_POS_0
    cards = [unmask(e2[j], [k0[j], k1[j]]) for j in range(4)]
    assert cards == list(initial_points(ORDER))


def test_protocol_vector_from_the_participants() -> None:
    table = MemoryTable(TAG, (0, 1), 0, 4)
    table.start_deck(0, range(4))
    for seat in (0, 1):
        r, perm, keys = table.participants[seat].snapshot()["decks"][0]["secrets"]
        assert (r, tuple(perm), tuple(keys)) == _secrets(seat)
    table.assign(0, 0, 1)
    table.assign(0, 1, 0)
    table.assign(0, 2, None)
    assert [e for e in table.events[1] if isinstance(e, CardReceived)] == [CardReceived(0, 0, 1, 0)]
    assert [e for e in table.events[0] if isinstance(e, CardReceived | CardPublic)] == [
        CardReceived(0, 1, 0, 2),
        CardPublic(0, 2, None, 3),
    ]
    table.audit()
    report = table.participants[1].report
    assert report is not None and report.fair and report.orders == {0: ORDER}
