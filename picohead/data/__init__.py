"""Corpus building: recipes, registry fetchers, extractors, real-encoder generators, splitting.

``picohead data build --recipe content`` turns a versioned recipe (``picohead/recipes/<name>/``)
into a corpus directory: content-addressed blobs, ``train/val/test.jsonl`` manifests, a provenance
manifest and a dataset card. Nothing here imports torch.
"""
