"""The C tokenizer (treegen/data/native/ctok.c) gives the Python readers' Dataset, bit for bit.

``read_dataset`` tries the fast path first (treegen.data.readers.fast) and
falls back to the Python readers (``read_python``, the reference) for
anything the C code does not take and for every error.  These tests read the
same files both ways and compare X (bytes, so NaN positions and -0.0
count), y, schema and source; they also check which files the fast path
takes, so a silent fallback cannot pass for speed.
"""

from __future__ import annotations

import math
import os
import random
import struct
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from treegen.data import synthetic
from treegen.data.dataset import Dataset
from treegen.data.readers import detect_format, fast, fastbytes, read_dataset, read_python
from treegen.data.readers.table import parse_number
from treegen.errors import DatasetError

pytestmark = pytest.mark.skipif(not fast.available(), reason="C tokenizer not built")

DATA = Path(__file__).resolve().parents[1] / "data"


def _same(a: Dataset, b: Dataset) -> None:
    assert a.schema == b.schema
    assert a.source == b.source
    assert a.X.dtype == b.X.dtype and a.y.dtype == b.y.dtype
    assert a.X.shape == b.X.shape
    assert a.X.tobytes() == b.X.tobytes()
    assert a.y.tobytes() == b.y.tobytes()


def _both(path: Path, *, fast_path: bool = True, **kw: object) -> Dataset:
    """Read ``path`` both ways, check they agree and whether the C path was taken."""
    p = str(path)
    got = read_dataset(p, **kw)  # type: ignore[arg-type]
    used_fast = not fast.last_fallback
    ref = read_python(p, detect_format(p), **kw)  # type: ignore[arg-type]
    _same(got, ref)
    assert used_fast == fast_path, fast.last_fallback
    return got


def _files() -> list[Path]:
    return sorted(p for ext in ("arff", "data", "test") for p in DATA.rglob(f"*.{ext}"))


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_every_bundled_file(path: Path) -> None:
    try:
        ref = read_python(str(path), detect_format(str(path)))
    except DatasetError as err:
        with pytest.raises(DatasetError) as got:
            read_dataset(str(path))
        assert str(got.value) == str(err)
        return
    _same(read_dataset(str(path)), ref)
    assert not fast.last_fallback, fast.last_fallback
    # As evaluation data for a model of the same schema (float32 as for a c45 model).
    _both(path, schema=ref.schema, float32=True)


# ---- numbers -----------------------------------------------------------

HARD = [
    "0",
    "-0",
    "+0",
    "0.0",
    "-0.0",
    "00000000000000000000000001",
    ".5",
    "5.",
    "+.5",
    "-5.",
    "1e5",
    "1E5",
    "1e+5",
    "1e-5",
    "1.5e308",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "1.7976931348623159e308",
    "1e309",
    "1e400",
    "-1e400",
    "4.9406564584124654e-324",
    "2.4703282292062327e-324",
    "2.4703282292062328e-324",
    "2.2250738585072011e-308",
    "2.2250738585072014e-308",
    "1e-400",
    "-1e-400",
    "9007199254740992",
    "9007199254740993",
    "9007199254740995",
    "18014398509481985",
    "0.1",
    "0.30000000000000004",
    "123456789012345678901234567890",
    "1" + "0" * 400,
    "0." + "0" * 400 + "1",
    "1." + "0" * 300 + "1",
    "3.14159265358979323846264338327950288419716939937510",
    "1e22",
    "1e23",
    "8.98846567431158e307",
    "123456789e-22",
    "1234567890123456789e-22",
    "12345678901234567890e5",
    "1e0000000000000000001",
    "1e-99999999999999999999",
    "1e99999999999999999999",
    "0e99999999999999999999",
    "7.2057594037927933e16",
    "4503599627370497.5",
    "4503599627370496.5",
]
NOT_NUMBERS = [
    "",
    "+",
    "-",
    ".",
    "e5",
    "1e",
    "1e+",
    "1.5.2",
    "0x10",
    "0x1p3",
    "inf",
    "nan",
    "Infinity",
    "1_000",
    " 1",
    "1 ",
    "1,5",
    "--1",
    "+-1",
    "1e5.0",
    "1d5",
]


def _bits(x: float) -> bytes:
    return struct.pack("<d", x)


@pytest.mark.parametrize("text", HARD)
def test_number_parsing_matches_float(text: str) -> None:
    assert fast.ctok is not None
    got = fast.ctok.parse_number(text.encode())
    assert got is not None
    assert _bits(got) == _bits(float(text))


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_number_grammar_matches_python(text: str) -> None:
    assert fast.ctok is not None
    assert parse_number(text) is None
    assert fast.ctok.parse_number(text.encode()) is None


def test_random_numbers_match_float() -> None:
    assert fast.ctok is not None
    rng = random.Random(12)
    for _ in range(20000):
        kind = rng.randrange(4)
        if kind == 0:  # a double's repr, the common case
            x = struct.unpack("<d", rng.randbytes(8))[0]
            text = repr(x) if math.isfinite(x) else "1.0"
        elif kind == 1:  # many digits, near halfway cases included
            text = "".join(rng.choice("0123456789") for _ in range(rng.randrange(1, 40)))
            text = text[: rng.randrange(len(text) + 1)] + "." + text[len(text) // 2 :]
        elif kind == 2:  # mantissa and exponent
            text = f"{rng.randrange(10 ** rng.randrange(1, 25))}e{rng.randrange(-340, 320)}"
        else:  # short decimals, the fast path
            text = (
                f"{rng.choice('+-') if rng.random() < 0.3 else ''}{rng.randrange(10**6)}."
                f"{rng.randrange(10 ** rng.randrange(1, 9))}"
            )
        got = fast.ctok.parse_number(text.encode())
        assert got is not None, text
        assert _bits(got) == _bits(float(text)), text


# ---- quirks the readers accept ---------------------------------------------

ARFF_HEAD = (
    "% a comment\n@relation 'q'\n@attribute a numeric\n"
    "@attribute 'b c' {x, 'y z', \"w\"}\n@attribute k {yes,no}\n@data\n"
)


def _write(tmp: Path, name: str, text: str | bytes) -> Path:
    p = tmp / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


FAST_ARFF = {
    "plain": "1,x,yes\n2.5,'y z',no\n",
    "quoted": "'1',\"x\",'yes'\n 2 , 'y z' ,no\n",
    "escapes": "1,'y\\ z',yes\n",  # \<space> is a space
    "missing": "?,?,yes\n1,x,no\n",
    "comments": "% c\n1,x,yes % trailing\n\n   \n2,'y z',no\n%\n",
    "crlf": "1,x,yes\r\n2,w,no\r\n",
    "cr": "1,x,yes\r2,w,no\r",
    "quoted-percent": "1,x,yes\n",
    "no-final-newline": "1,x,yes\n2,w,no",
    "utf8": "1,x,yes\n",
}
SLOW_ARFF = {
    "sparse": "{0 1, 1 x, 2 yes}\n1,x,no\n",
    "weights": "1,x,yes,{2}\n",
    # Weka's separators: blanks as commas, runs as one (the Python reader's).
    "blank-separated": "1 x yes\n2.5\t'y z'   no\n",
    "trailing-comma": "1,x,yes,\n2,w,no\n",
    "empty-cell": "1,,x,yes\n",
}


@pytest.mark.parametrize("name", sorted(FAST_ARFF) + sorted(SLOW_ARFF))
def test_arff_quirks(tmp_path: Path, name: str) -> None:
    head = ARFF_HEAD
    if name == "quoted-percent":
        head = head.replace("{x,", "{'%x', x,")
    body = FAST_ARFF.get(name) or SLOW_ARFF[name]
    text = head + body
    if name == "utf8":
        text = "\ufeff" + text.replace("{x,", "{x, 'é',") + "3,'é',no\n"
    p = _write(tmp_path, "q.arff", text)
    if name == "weights":
        with pytest.raises(DatasetError) as err:
            read_dataset(str(p))
        assert "instance weights" in str(err.value) and fast.last_fallback
        return
    ds = _both(p, fast_path=name in FAST_ARFF)
    _both(p, fast_path=name in FAST_ARFF, schema=ds.schema)


CSV_HEAD = "a,b,c\n"
FAST_CSV = {
    "plain": "1,x,p\n2,y,q\n",
    "missing": "?,,p\n1,x,q\n3, ? ,q\n",
    "blanks": "\n 1 , x ,p\n\n\t\n2,y,q\n",
    "numeric-then-label": "1,2,p\n3,4,q\n5,z,p\n",  # b becomes nominal at row 3
    "numeric-class": "1,x,1\n2,y,2.0\n",
    "crlf-bom": "\ufeff" + "a,b,c\r\n1,x,p\r\n2,y,q\r\n",
    "semicolon": "a;b;c\n1;x;p\n2;y;q\n",
    "tab": "a\tb\tc\n1\tx\tp\n",
}
SLOW_CSV = {
    "arabic-indic-digits": "\u0663,x,p\n1,y,q\n",  # a number to Python's \d and float()
    "quotes": '1,"x,1",p\n2,"y ""q""",q\n',
    "multiline": '1,"x\n1",p\n',
}


@pytest.mark.parametrize("name", sorted(FAST_CSV) + sorted(SLOW_CSV))
def test_csv_quirks(tmp_path: Path, name: str) -> None:
    body = FAST_CSV.get(name) or SLOW_CSV[name]
    text = body if body.lstrip("\ufeff").startswith(("a,", "a;", "a\t")) else CSV_HEAD + body
    p = _write(tmp_path, "q.csv", text)
    ds = _both(p, fast_path=name in FAST_CSV)
    _both(p, fast_path=name in FAST_CSV, nominal=["a"])
    _both(p, fast_path=name in FAST_CSV, ignore=["a"])
    _both(p, fast_path=name in FAST_CSV, target="c", nominal=["c"])
    _both(p, fast_path=name in FAST_CSV, schema=ds.schema)


NAMES = "yes, no.\na: continuous.\nb: x, y z, w.\nc: ignore.\nd: discrete 3.\n"
FAST_C45 = {
    "plain": "1,x,zz,d1,yes\n2.5,y z,zz,d2,no.\n",
    "missing-period": "?,?,?,?,yes.\n1 , w ,q, d1 , no .\n",
    "comments": "| c\n1,x,zz,d1,yes | trailing\n\n.\n2,w,zz,d3,no\n",
    "crlf": "1,x,zz,d1,yes\r\n2,w,zz,d1,no\r\n",
}
SLOW_C45 = {
    "continuation": "1,x,\nzz,d1,yes\n",
    "escape": "1,x,z\\,z,d1,yes\n",
    "blanks-run": "1,y  z,zz,d1,yes\n",
}


@pytest.mark.parametrize("name", sorted(FAST_C45) + sorted(SLOW_C45))
def test_c45_quirks(tmp_path: Path, name: str) -> None:
    _write(tmp_path, "q.names", NAMES)
    p = _write(tmp_path, "q.data", FAST_C45.get(name) or SLOW_C45[name])
    ds = _both(p, fast_path=name in FAST_C45)
    _both(p, fast_path=name in FAST_C45, schema=ds.schema)
    _both(p, fast_path=name in FAST_C45, schema=ds.schema, float32=True)


def test_a_column_the_model_ignores_may_be_absent(tmp_path: Path) -> None:
    """A model's ignored attribute is no column it needs: data without it is read, the
    attribute missing in every row, by the C tokenizer as by the Python reader."""
    schema = read_dataset(
        str(_write(tmp_path, "t.csv", "a,b,c,k\n1,x,5,p\n2,y,6,q\n")), ignore=["b"]
    ).schema
    absent = _both(_write(tmp_path, "e.csv", "c,a,k\n7,3,q\n8,4,p\n"), schema=schema)
    assert [math.isnan(v) for v in absent.X[:, 1]] == [True, True]
    assert absent.X[:, [0, 2]].tolist() == [[3.0, 7.0], [4.0, 8.0]]
    assert absent.y.tolist() == [1, 0]
    present = _both(_write(tmp_path, "f.csv", "a,b,c,k\n3,z,7,q\n4,x,8,p\n"), schema=schema)
    assert present.X.tobytes() == absent.X.tobytes() and present.y.tolist() == [1, 0]


# ---- errors: the same one line, from the reference reader ------------------

ERRORS = {
    "q.arff": [
        ARFF_HEAD + "1,x,yes\n2,v,no\n",
        ARFF_HEAD + "1,x\n",
        ARFF_HEAD + "1,x,?\n",
        ARFF_HEAD + "1e999,x,yes\n",
        ARFF_HEAD + "one,x,yes\n",
        ARFF_HEAD + "1,x,yes,no\n",
        ARFF_HEAD + "1,'x,yes\n",
        ARFF_HEAD,
        ARFF_HEAD + "1,,yes\n",
        # A declared 'y z' unquoted is two values to Weka: not the C tokenizer's cell.
        ARFF_HEAD + "1,y z,no\n",
        ARFF_HEAD.replace("numeric", "nmeric") + "1,x,yes\n",
        b"@relation r\n\xff\n",
        ARFF_HEAD + "1,x,yes\n\0\n",
        # (in pieces: a byte that is not UTF-8 after an ASCII piece, and after a piece
        # of valid UTF-8 text)
        ARFF_HEAD.encode() + b"1,x,yes\n2,x,no\n3,\xe9,no\n",
        ARFF_HEAD.encode() + "1,'\u00e9',yes\n".encode() + b"2,x,no\n3,\xff,no\n",
    ],
    "q.csv": [
        CSV_HEAD + "1,x\n",
        CSV_HEAD + "1,x,\n",
        CSV_HEAD + "1,x,p,4\n",
        CSV_HEAD,
        CSV_HEAD + "1e400,x,p\n",
        "a,,c\n1,2,3\n",
        "a,a,c\n1,2,3\n",
        CSV_HEAD + '1,"x,p\n',
    ],
    "q.data": [
        "1,x,zz,d1,yes\n1,q,zz,d1,no\n",
        "1,x,zz,d1\n",
        "1,x,zz,d1,maybe\n",
        "1,x,zz,d1,?\n",
        "1,,zz,d1,yes\n",
        "x1,x,zz,d1,yes\n",
        "1,x,zz,d1,yes\n1,x,zz,d2,yes\n1,x,zz,d3,yes\n1,x,zz,d4,yes\n",
        "",
        "1,x,zz,d1,yes,\n",
    ],
}


@pytest.mark.parametrize(
    "name,index", [(n, i) for n, texts in ERRORS.items() for i in range(len(texts))]
)
def test_errors_come_from_the_reference(tmp_path: Path, name: str, index: int) -> None:
    _write(tmp_path, "q.names", NAMES)
    p = str(_write(tmp_path, name, ERRORS[name][index]))
    with pytest.raises(DatasetError) as ref:
        read_python(p, detect_format(p))
    with pytest.raises(DatasetError) as got:
        read_dataset(p)
    assert fast.last_fallback  # the fast path gave the file to the reference
    assert str(got.value) == str(ref.value)


def test_float32_range_error_is_the_reference(tmp_path: Path) -> None:
    p = str(_write(tmp_path, "q.data", "1e39,x,zz,d1,yes\n"))
    _write(tmp_path, "q.names", NAMES)
    ds = read_dataset(p)  # fits a double
    assert not fast.last_fallback
    with pytest.raises(DatasetError) as ref:
        read_python(p, "c45", schema=ds.schema, float32=True)
    with pytest.raises(DatasetError) as got:
        read_dataset(p, schema=ds.schema, float32=True)
    assert str(got.value) == str(ref.value) and "float32" in str(got.value)


# ---- generated data ------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_generated_datasets(tmp_path: Path, seed: int) -> None:
    ds = synthetic.generate(synthetic.random_spec(seed, max_rows=400))
    arff = synthetic.write_arff(ds, tmp_path / "g.arff")
    data = synthetic.write_c45(ds, tmp_path, "g")
    a = _both(arff)
    c = _both(data)
    _same(a, Dataset(a.schema, ds.X, ds.y.astype("int32"), a.source))
    _both(arff, schema=a.schema)
    _both(data, schema=c.schema, float32=True)


# ---- files read in pieces ------------------------------------------------


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of 5 bytes and a first read of 8 (more while the header has not
    ended): every line end, CR LF and header boundary falls at a piece's edge
    somewhere in these files."""
    monkeypatch.setattr(fastbytes, "PIECE", 5)
    monkeypatch.setattr(fastbytes, "HEAD", 8)


@pytest.mark.usefixtures("small_pieces")
@pytest.mark.parametrize("name", sorted(FAST_ARFF))
def test_arff_in_pieces(tmp_path: Path, name: str) -> None:
    head = ARFF_HEAD.replace("{x,", "{'%x', x,") if name == "quoted-percent" else ARFF_HEAD
    text = head + FAST_ARFF[name]
    if name == "utf8":
        text = "\ufeff" + text.replace("{x,", "{x, 'é',") + "3,'é',no\n"
    p = _write(tmp_path, "q.arff", text)
    section = fastbytes.Section(str(p), b"", False, len(head.encode()), "arff", ",")
    lines = FAST_ARFF[name].replace("\r\n", "\n").replace("\r", "\n").count("\n")
    assert len(list(fastbytes.row_pieces(section))) >= min(lines, 2)
    ds = _both(p)
    _both(p, schema=ds.schema, float32=True)


@pytest.mark.usefixtures("small_pieces")
@pytest.mark.parametrize("name", sorted(FAST_C45) + sorted(FAST_CSV))
def test_c45_and_csv_in_pieces(tmp_path: Path, name: str) -> None:
    if name in FAST_C45:
        _write(tmp_path, "q.names", NAMES)
        p = _write(tmp_path, "q.data", FAST_C45[name])
    else:  # CSV columns are inferred: read whole, but their header read in pieces
        body = FAST_CSV[name]
        text = body if body.lstrip("\ufeff").startswith(("a,", "a;", "a\t")) else CSV_HEAD + body
        p = _write(tmp_path, "q.csv", text)
    ds = _both(p)
    _both(p, schema=ds.schema)  # declared columns: in pieces
    _both(p, schema=ds.schema, float32=True)


@pytest.mark.usefixtures("small_pieces")
@pytest.mark.parametrize(
    "name,index", [(n, i) for n, texts in ERRORS.items() for i in range(len(texts))]
)
def test_errors_in_pieces_come_from_the_reference(tmp_path: Path, name: str, index: int) -> None:
    test_errors_come_from_the_reference(tmp_path, name, index)


@pytest.mark.usefixtures("small_pieces")
@pytest.mark.parametrize("seed", range(3))
def test_generated_datasets_in_pieces(tmp_path: Path, seed: int) -> None:
    test_generated_datasets(tmp_path, seed)


def test_line_ends_count_as_bytes_count() -> None:
    # The tokenizer's count of CR and LF bytes (the reader sizes its matrix by it)
    # is bytes.count's, over the first n bytes only.
    from treegen.data.native import ctok

    if ctok is None:
        pytest.skip("no C tokenizer")
    rng = random.Random(7)
    for size in (0, 1, 2, 17, 1000, 70_000):
        buf = bytearray(rng.choice(b"a,\n\r1.5?") for _ in range(size))
        for n in {0, size // 3, size}:
            want = buf.count(b"\n", 0, n) + buf.count(b"\r", 0, n)
            assert ctok.line_ends(buf, n) == want
    with pytest.raises(ValueError):
        ctok.line_ends(bytearray(b"ab\n"), 4)


def _through_pipe(source: Path, read: Callable[[str], Dataset]) -> Dataset | DatasetError:
    """``read`` of ``/dev/fd/N``, a pipe another thread writes ``source``'s bytes into
    (as ``cat data.csv | treegen train /dev/stdin`` gives them): the result, or the
    error. Opening the path again opens the same pipe, drained (no hang)."""
    r, w = os.pipe()

    def feed() -> None:
        with open(w, "wb") as f:
            try:
                f.write(source.read_bytes())
            except BrokenPipeError:  # the reader stopped early: its error is the result
                pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        return read(f"/dev/fd/{r}")
    except DatasetError as err:
        return err
    finally:
        os.close(r)
        writer.join(timeout=30)


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd")
@pytest.mark.parametrize(
    "text",
    [
        'a,b,c\n1,"x, y",p\n2,z,q\n',  # a quoted field: the C tokenizer hands it back
        "a,b,c\n1,x,p\n2,z,q\n",  # the C tokenizer takes it
        "a,b,c\n1,x,p\n" + "".join(f"{i},z,q\n" for i in range(4000)),  # beyond HEAD
    ],
    ids=["quoted", "plain", "long"],
)
def test_a_pipe_is_read_once(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pipe (or a FIFO) can be read once: the fast path leaves it to the Python reader
    rather than reading its head and then handing a drained pipe over (read as an
    empty file; a FIFO's second open waited for a writer for ever) or opening it again
    to seek (which fails)."""
    monkeypatch.setattr(fastbytes, "HEAD", 4096)  # the file's head, then the rest
    source = tmp_path / "d.csv"
    source.write_text(text)
    want = read_dataset(str(source))
    got = _through_pipe(source, lambda p: read_dataset(p, target="c"))
    assert isinstance(got, Dataset), got
    assert got.X.tobytes() == want.X.tobytes() and got.y.tobytes() == want.y.tobytes()
    assert got.schema == want.schema
