"""The terminal UI (prompt_toolkit): lobby, table screen, round results.

Small modules, one job each: `model` (the view-model built from session updates),
`describe` (events as log lines), `cards` (card chips), `render` (the model as
formatted text), `table_screen` / `lobby` (layouts, keys, the session reader),
`shell` (the one Application that shows a screen at a time).
"""
