"""The reference growth engine: Release 8's ``FormTree``, one node at a time, depth first.

Readable and in the specification's order; the level-wise engine is
tested to grow the same tree bit for bit (``train(..., engine="dfs")``).
"""
