"""Benchmarks: each module prints one JSON object (``python -m benchmarks.<name>``)."""
