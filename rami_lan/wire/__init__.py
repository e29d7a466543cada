"""The wire's message catalogue, below `table` and above `core`/`masked`.

`checks` holds the limits, codes and one validator per field type; `messages` the
protocol errors, :class:`~rami_lan.wire.messages.Message` and one frozen dataclass per
kind. The table machine builds these messages, the host and the client encode and decode
them (`rami_lan.net.session`), and ``docs/protocol.md`` is generated from them.
"""
