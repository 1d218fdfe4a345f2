"""``python -m zengine``: the same program as the ``zengine`` command."""

from zengine.protocol import main

if __name__ == "__main__":
    main()
