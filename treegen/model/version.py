"""The treegen version: the one place it is written (pyproject.toml reads it from here).

Recorded in every model file and in the header comment of generated C.
"""

VERSION = "0.1.0"
__version__ = VERSION  # the name the treegen package gives it
