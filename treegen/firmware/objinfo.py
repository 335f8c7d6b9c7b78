"""What predict.o costs on a target: flash, RAM and a bound on the stack it uses.

* Flash is ``.text`` + ``.rodata`` + ``.data`` (the initial values are stored in
  flash) and, on AVR, ``.progmem*`` (the PROGMEM tables); RAM is ``.data`` + ``.bss``,
  plus ``.rodata`` on AVR, where plain ``const`` data is copied to SRAM at start-up.
  Read from the object with the target's ``size -A``.
* The stack bound is the deepest call chain from ``PREFIX_predict`` or
  ``PREFIX_predict_proba``: each function's frame from gcc's ``-fstack-usage``
  (the return address included where the call pushes one), the calls from the
  object's relocations (one section per function, ``-ffunction-sections``).  The
  generated C has no recursion, so the chain is finite; a tail call is counted as a
  call, so the bound may be above the real use but never below.  Calls to libgcc
  helpers (soft-float compares, multiplication) leave the object: they are listed,
  not counted.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from treegen.errors import ToolError
from treegen.firmware.targets import Target


@dataclass(frozen=True, slots=True)
class ObjectInfo:
    flash: int
    ram: int
    stack: int | None  # None: a frame of dynamic size
    helpers: tuple[str, ...]  # library functions predict.o calls


def _tool(cmd: list[str]) -> str:
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise ToolError(f"{' '.join(cmd)} failed: {(p.stderr or p.stdout).strip()[:200]}")
    return p.stdout


def section_sizes(path: Path, t: Target) -> dict[str, int]:
    """Section name -> size, from ``size -A`` (zero-sized sections included)."""
    sizes: dict[str, int] = {}
    for line in _tool([t.tool("size"), "-A", str(path)]).splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith(".") and parts[1].isdigit():
            sizes[parts[0]] = sizes.get(parts[0], 0) + int(parts[1])
    return sizes


def flash_ram(sizes: dict[str, int], t: Target) -> tuple[int, int]:
    # RISC-V's small-data sections (.srodata, .sdata, .sbss, next to the global
    # pointer) count as their large kin, and so do thread-local .tdata and .tbss
    # (whose room .tbss_space repeats: not counted twice).
    flash = ram = 0
    for name, size in sizes.items():
        if name.startswith((".text", ".progmem", ".vectors", ".ARM.exidx")):
            flash += size
        elif name.startswith((".rodata", ".srodata")):
            flash += size
            ram += size if t.rodata_in_ram else 0
        elif name.startswith((".data", ".sdata", ".tdata")):
            flash += size
            ram += size
        elif name.startswith((".bss", ".sbss", ".tbss")) and name != ".tbss_space":
            ram += size
    return flash, ram


def _base(name: str) -> str:
    """A function's name without the suffixes gcc adds to clones and split parts
    (``walk0.constprop.0``, ``run.cold``): -fstack-usage names them without them."""
    name = re.sub(r"\.\d+$", "", name)
    return re.sub(r"\.(cold|part)$", "", name)


def _frames(su: Path) -> dict[str, int | None]:
    frames: dict[str, int | None] = {}
    for line in su.read_text().splitlines():
        fields = line.split("\t")
        if len(fields) != 3:
            continue
        name = _base(fields[0].rsplit(":", 1)[-1])
        size: int | None = int(fields[1])
        if "dynamic" in fields[2] and "bounded" not in fields[2]:
            size = None
        old = frames.get(name, 0)
        frames[name] = None if size is None or old is None else max(old, size)
    return frames


def _calls(obj: Path, t: Target) -> dict[str, set[str]]:
    """Caller -> referenced names (functions, sections, undefined symbols)."""
    calls: dict[str, set[str]] = {}
    caller = ""
    for line in _tool([t.tool("objdump"), "-r", str(obj)]).splitlines():
        head = re.match(r"RELOCATION RECORDS FOR \[\.text\.(?:unlikely\.|hot\.)?([^\]]+)\]", line)
        if head:
            caller = _base(head.group(1))
            continue
        if line.startswith("RELOCATION RECORDS"):
            caller = ""  # data sections
            continue
        parts = line.split()
        if caller and len(parts) == 3 and re.fullmatch(r"[0-9a-fA-F]+", parts[0]):
            value = re.sub(r"[+-]0x[0-9a-fA-F]+$", "", parts[2])
            if value.startswith(".text."):
                value = value[len(".text.") :]
            elif value.startswith("."):
                continue  # a data section: tables, not calls
            if _base(value) != caller:  # branches inside the function
                calls.setdefault(caller, set()).add(_base(value))
    return calls


def _undefined(obj: Path, t: Target) -> set[str]:
    out = set()
    for line in _tool([t.tool("nm"), str(obj)]).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            out.add(parts[1])
    return out


def stack_bound(
    obj: Path, su: Path, t: Target, roots: tuple[str, ...]
) -> tuple[int | None, tuple[str, ...]]:
    """(bytes of the deepest call chain from ``roots``, library functions called)."""
    frames = _frames(su)
    calls = _calls(obj, t)
    external = _undefined(obj, t)
    helpers: set[str] = set()
    deepest: dict[str, int | None] = {}
    # Iterative post-order over the call graph (no recursion in the C, none here).
    for root in roots:
        stack: list[tuple[str, bool]] = [(root, False)]
        on_path: set[str] = set()
        while stack:
            name, done = stack.pop()
            if done:
                on_path.discard(name)
                own = frames.get(name, 0)
                best: int | None = 0
                for callee in calls.get(name, ()):
                    if callee in external or callee not in frames:
                        continue
                    d = deepest[callee]
                    best = None if d is None or best is None else max(best, d)
                deepest[name] = None if own is None or best is None else own + best
                continue
            if name in deepest:
                continue
            if name in on_path:
                raise ToolError(f"predict.o calls {name} recursively: no stack bound")
            on_path.add(name)
            stack.append((name, True))
            for callee in sorted(calls.get(name, ())):
                if callee in external:
                    helpers.add(callee)
                elif callee in frames and callee not in deepest:
                    stack.append((callee, False))
    values = [deepest.get(r) for r in roots]
    bound = None if any(v is None for v in values) else max(v or 0 for v in values)
    return bound, tuple(sorted(helpers))


def object_info(obj: Path, t: Target, prefix: str) -> ObjectInfo:
    """Sizes and stack bound of ``obj``, compiled with -fstack-usage (its .su beside it)."""
    flash, ram = flash_ram(section_sizes(obj, t), t)
    bound, helpers = stack_bound(
        obj, obj.with_suffix(".su"), t, (f"{prefix}_predict", f"{prefix}_predict_proba")
    )
    return ObjectInfo(flash, ram, bound, helpers)
