"""The wild suite: every head measured on content from producers the training corpus never saw.

- ``suite``: the sample record, the writer the source builders use, the dev/test split, the manifest;
- ``sources/``: one builder per task (formats/MIME, code language, text language, risk);
- ``score``/``metrics``/``report``: a model (every tier) over the suite, the figures, the Markdown.

Who made a sample and the rule that keeps the suite apart from the corpus live in
``picohead.data.producers`` (the corpus builder checks the same rule from its side).

``benchmarks/wild.py`` is the command that builds, scores and reports it beside the anchors.
"""
