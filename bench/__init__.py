"""``make bench``: training speed and memory, and the export benchmark (not part of the package).

Run the scripts as modules from the repository root (``python -m bench.run``,
``python -m bench.export_bench``); they import treegen, never the tests.
"""
