"""A large tree's picture laid out to stay readable: width at most twice its height.

Drawn top-down, a tree is as wide as its leaves side by side: credit-g's unpruned
tree came out about twenty times wider than high, unreadable once scaled to a screen.
Above :data:`WIDE` points of width, the picture's size is measured (Graphviz's own
layout, ``dot -Tplain``) and, while its width is more than :data:`MAX_RATIO` times its
height, the layout changes:

1. left to right (``rankdir=LR``): the leaves stack downwards, the levels go across;
2. failing that, the layout of the two with the smaller width/height is stretched
   downwards (Graphviz's ``ratio``: the height grows, nodes and text keep their size),
   measured again until the width is at most MAX_RATIO times the height.

The rendered picture adds the same margin on every side, which only brings its
width/height closer to 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from treegen.model.picture import run_dot

MAX_RATIO = 2.0
# Points (1/72 inch).  A picture no wider than this keeps Graphviz's top-down layout,
# whatever its shape: it is readable as it is.
WIDE = 1440.0
# Stretching is measured again at most this many times (twice is the most seen).
_STRETCHES = 6

DotOf = Callable[[Sequence[str]], str]


def measure(program: str, dot_text: str, option: str = "plot") -> tuple[float, float] | None:
    """The width and height in points Graphviz lays ``dot_text`` out to (without the
    margin a rendered picture adds); None when ``program`` says nothing it can read (the
    rendering then reports the failure)."""
    head = run_dot(program, "plain", dot_text, option).split(b"\n", 1)[0].split()
    try:
        if len(head) != 4 or head[0] != b"graph":
            return None
        scale, width, height = (float(v) for v in head[1:])
    except ValueError:
        return None
    return width * scale * 72.0, height * scale * 72.0


def readable_dot(dot_of: DotOf, program: str, option: str = "plot") -> str:
    """The DOT text (``dot_of(graph_attributes)``) whose picture is either no wider than
    WIDE or at most MAX_RATIO times as wide as high (module docstring); ``program``
    failing is an error naming ``option`` (:func:`~treegen.model.picture.dot_option`)."""
    text = dot_of(())
    size = measure(program, text, option)
    if size is None or size[0] <= WIDE or size[0] <= MAX_RATIO * size[1]:
        return text
    across = ("rankdir=LR",)
    across_text = dot_of(across)
    across_size = measure(program, across_text, option)
    if across_size is None:
        return text
    if across_size[0] <= MAX_RATIO * across_size[1]:
        return across_text
    base, (width, height) = min(
        ((), size), (across, across_size), key=lambda choice: choice[1][0] / choice[1][1]
    )
    # Graphviz's ratio is the height/width it stretches the layout to; margins and labels
    # make the result a little off, so it is measured and raised until it holds.
    ratio = 1.0 / MAX_RATIO
    stretched = text
    for _ in range(_STRETCHES):
        stretched = dot_of((*base, f"ratio={ratio:.6f}"))
        got = measure(program, stretched, option)
        if got is None or got[0] <= MAX_RATIO * got[1]:
            break
        width, height = got
        ratio *= width / (MAX_RATIO * height) * 1.01
    return stretched
