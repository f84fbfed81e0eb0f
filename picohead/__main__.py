"""``python -m picohead`` is the same click group as the ``picohead`` command."""

from picohead.cli import main

if __name__ == "__main__":
    main()
