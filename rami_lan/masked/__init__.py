"""Masked deck: private dealing with SRA-style commutative masking on the ed25519 group.

Pure and sans-I/O: no sockets, no clock, and randomness only from a callable passed in.
See ``docs/masked_deck.md`` for the byte-by-byte specification.

* :mod:`.group` — card points, scalars and the group operations (PyNaCl/libsodium only);
* :mod:`.deck` — one masked shuffle (mask pass, lock pass), key commitments, unmasking;
* :mod:`.messages` — the protocol's messages and their strict plain (msgpack) forms;
* :mod:`.audit` — the end-of-round recomputation that names cheaters with evidence;
* :mod:`.session` — one participant's state machine;
* :mod:`.memory` — an in-memory multi-party driver for tests and benchmarks.
"""
