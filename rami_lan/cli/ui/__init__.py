"""The terminal UI (prompt_toolkit): lobby, table screen, round results.

Small modules, one job each: `model` (the view-model built from session updates),
`describe` (events as log lines), `cards` (card chips), `render` (the model as
formatted text, one module per part of the screen), `table_screen` (layout, keys, the
session reader; `match_record` and `table_drag` beside it), `lobby` (a package: model,
presence, forms, view), `shell` (the one Application that shows a screen at a time).
"""
