"""The table layer: between the rules core and the network (the table machine, verifier)."""
