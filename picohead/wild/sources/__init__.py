"""One builder per wild task; each reads its pinned sources from ``picohead/recipes/wild/``."""
