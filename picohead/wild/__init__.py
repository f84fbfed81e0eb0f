"""The wild suite: every head measured on content from producers the training corpus never saw.

- ``producers``: producer keys, the corpus's producers, reserved sources, the independence check;
- ``suite``: the sample record, the writer the source builders use, the dev/test split, the manifest;
- ``sources/``: one builder per task (formats/MIME, code language, text language, risk);
- ``score``/``metrics``/``robustness``: a model (every tier) over the suite and the figures.

``benchmarks/wild.py`` is the command that builds, scores and reports it beside the anchors.
"""
