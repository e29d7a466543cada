"""Command line and terminal UI."""
