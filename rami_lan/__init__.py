"""rami-lan: the French card game Rami, played peer-to-peer on a local network."""

__version__ = "0.1.0"
