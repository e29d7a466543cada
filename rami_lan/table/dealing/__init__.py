"""How the table machine deals a round: one `Dealing` interface, two strategies.

`PlainDealing` (`plain.py`): the host knows every card; the deck comes from the round's
seed. `MaskedDealing` (`masked.py`, its journal and record in `masked_journal.py`):
private dealing, the deck masked by every participant's machine (docs/masked_deck.md).
The machine picks one per round (`TableMachine.dealing_for_round`) and asks it at every
point where the two ways differ (`base.Dealing`).
"""

from rami_lan.table.dealing.base import Dealing
from rami_lan.table.dealing.masked import MaskedDealing, Standing, key_holders, step_wait
from rami_lan.table.dealing.plain import PlainDealing

__all__ = ["Dealing", "MaskedDealing", "PlainDealing", "Standing", "key_holders", "step_wait"]
