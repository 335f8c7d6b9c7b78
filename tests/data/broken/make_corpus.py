"""Regenerate tests/data/broken/: broken CSV, C4.5, ARFF, model and ruleset files, and MANIFEST.

Run ``python tests/data/broken/make_corpus.py`` from the repository root after changing the
cases below; review the diff.  Each case is (path, bytes, expected location) where the
location is the file (relative to tests/data/broken) and line the one-line error must name
(only the file for a file that does not exist);
a C4.5 case ``c45/NAME.data`` has a ``c45/NAME.names`` beside it.  MANIFEST lists
``path<TAB>location<TAB>what`` (location ``FILE:LINE``) for tests/cli/test_broken_files.py.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

CSV = (
    "outlook,temperature,humidity,windy,play\n"
    "sunny,85,85,false,no\n"
    "sunny,80,90,true,no\n"
    "overcast,83,78,false,yes\n"
    "rain,70,96,false,yes\n"
)
NAMES = (
    "Play, Don't Play.\n\noutlook: sunny, overcast, rain.\ntemperature: continuous.\n"
    "humidity: continuous.\nwindy: true, false.\n"
)
DATA = (
    "sunny, 85, 85, false, Don't Play\n"
    "sunny, 80, 90, true, Don't Play\n"
    "overcast, 83, 78, false, Play\n"
    "rain, 70, 96, false, Play\n"
)
ARFF = (
    "@relation golf\n\n"
    "@attribute outlook {sunny,overcast,rain}\n"
    "@attribute temperature numeric\n"
    "@attribute humidity numeric\n"
    "@attribute windy {true,false}\n"
    "@attribute class {yes,no}\n\n"
    "@data\n"
    "sunny,85,85,false,no\n"
    "overcast,83,78,false,yes\n"
    "rain,70,96,false,yes\n"
)
# golf.tree as treegen writes it (one node per line, so a node's line is 16 + index).
MODEL = {
    "format": "treegen-model",
    "version": 1,
    "treegen_version": "0.1.0",
    "data_fingerprint": "sha256:31a31e26a33c1a1b90571f2e0e22269f",
    "options": {
        "min_cases": 2,
        "cf": 0.25,
        "prune": True,
        "subsets": False,
        "criterion": "gainratio",
        "flavor": "c45",
    },
    "target": "class",
    "classes": ["Play", "Don't Play"],
    "attributes": [
        {"name": "outlook", "kind": "nominal", "values": ["sunny", "overcast", "rain"]},
        {"name": "temperature", "kind": "continuous"},
        {"name": "humidity", "kind": "continuous"},
        {"name": "windy", "kind": "nominal", "values": ["true", "false"]},
    ],
    "nodes": [
        {
            "id": 0,
            "kind": "nominal",
            "attribute": 0,
            "children": [1, 4, 5],
            "cls": 0,
            "items": 14.0,
            "errors": 5.0,
            "dist": [9.0, 5.0],
        },
        {
            "id": 1,
            "kind": "continuous",
            "attribute": 2,
            "threshold": 75.0,
            "threshold_hex": "0x1.2c00000000000p+6",
            "children": [2, 3],
            "cls": 1,
            "items": 5.0,
            "errors": 2.0,
            "dist": [2.0, 3.0],
        },
        {"id": 2, "kind": "leaf", "cls": 0, "items": 2.0, "errors": 1.0, "dist": [2.0, 0.0]},
        {"id": 3, "kind": "leaf", "cls": 1, "items": 3.0, "errors": 1.0, "dist": [0.0, 3.0]},
        {"id": 4, "kind": "leaf", "cls": 0, "items": 4.0, "errors": 1.0, "dist": [4.0, 0.0]},
        {
            "id": 5,
            "kind": "nominal",
            "attribute": 3,
            "children": [6, 7],
            "cls": 0,
            "items": 5.0,
            "errors": 2.0,
            "dist": [3.0, 2.0],
        },
        {"id": 6, "kind": "leaf", "cls": 1, "items": 2.0, "errors": 1.0, "dist": [0.0, 2.0]},
        {"id": 7, "kind": "leaf", "cls": 0, "items": 3.0, "errors": 1.0, "dist": [3.0, 0.0]},
    ],
}


# A ruleset on golf's attributes as treegen writes it (one rule per line: rule i is on
# line 19 + i).
RULES = {
    "format": "treegen-rules",
    "version": 1,
    "treegen_version": "0.1.0",
    "data_fingerprint": "sha256:31a31e26a33c1a1b90571f2e0e22269f",
    "options": {"cf": 0.25, "min_cases": 2},
    "flavor": "c45",
    "target": "class",
    "classes": ["Play", "Don't Play"],
    "attributes": MODEL["attributes"],
    "class_order": [1, 0],
    "default": 0,
    "rules": [
        {
            "number": 1,
            "class": 1,
            "error": 0.25,
            "confidence": 0.75,
            "conditions": [
                {"attribute": 0, "op": "=", "value": 0},
                {
                    "attribute": 2,
                    "op": ">",
                    "threshold": 75.0,
                    "threshold_hex": "0x1.2c00000000000p+6",
                },
            ],
        },
        {
            "number": 2,
            "class": 0,
            "error": 0.125,
            "confidence": 0.875,
            "conditions": [{"attribute": 0, "op": "=", "value": 1}],
        },
    ],
}


def model_text(m: dict[str, object] | None = None) -> str:
    """The model (or ruleset) in treegen's own layout (top-level fields, then one node,
    attribute or rule per line)."""
    m = MODEL if m is None else m
    lines = ["{"]
    items = list(m.items())
    for k, (key, value) in enumerate(items):
        comma = "," if k < len(items) - 1 else ""
        if key in ("attributes", "nodes", "rules") and isinstance(value, list):
            lines.append(f"  {json.dumps(key)}: [")
            lines += [
                f"    {json.dumps(v)}{',' if i < len(value) - 1 else ''}"
                for i, v in enumerate(value)
            ]
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    return "\n".join([*lines, "}"]) + "\n"


def mutate(
    path: list[object], value: object, base: dict[str, object] | None = None
) -> dict[str, object]:
    m = json.loads(json.dumps(MODEL if base is None else base))
    target = m
    for p in path[:-1]:
        target = target[p]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return m


def node_line(i: int) -> int:
    return 16 + i


def cases() -> list[tuple[str, bytes, str, str]]:
    """(path, contents, location FILE:LINE, what it breaks)."""
    out: list[tuple[str, bytes, str, str]] = []

    def csv(name: str, text: str | bytes, line: int, what: str) -> None:
        data = text.encode() if isinstance(text, str) else text
        out.append((f"csv/{name}.csv", data, f"csv/{name}.csv:{line}", what))

    rows = CSV.splitlines(keepends=True)
    csv("empty", "", 1, "an empty file")
    csv("header_only", rows[0], 2, "a header and no rows")
    csv("unterminated_quote", CSV + 'rain,"71,80,true,no\n', 6, "a quote never closed")
    csv(
        "too_many_fields",
        rows[0] + rows[1] + "sunny,80,90,true,no,extra\n" + "".join(rows[3:]),
        3,
        "a row with an extra field",
    )
    csv(
        "too_few_fields", "".join(rows[:3]) + "overcast,83,false,yes\n", 4, "a row short of a field"
    )
    csv("truncated_row", CSV + "rain,6", 6, "the file cut in a row")
    csv("bad_utf8", CSV.encode() + b"rain,70,96,f\xffalse,yes\n", 6, "a byte that is not UTF-8")
    csv("utf16", CSV.encode("utf-16"), 1, "UTF-16 text")
    csv(
        "nul_byte",
        rows[0].encode() + b"sunny,8\x005,85,false,no\n" + "".join(rows[2:]).encode(),
        2,
        "a NUL byte",
    )
    csv("huge_number", CSV + "rain,1e999,96,false,yes\n", 6, "a number beyond double")
    csv("huge_digits", CSV + "rain," + "9" * 400 + ",96,false,yes\n", 6, "400 digits")
    csv("huge_line", CSV + "rain," * 100_000 + "yes\n", 6, "a 500 kB row of 100,001 fields")
    csv(
        "class_all_missing",
        rows[0] + "".join(r.rsplit(",", 1)[0] + ",?\n" for r in rows[1:]),
        1,
        "no row has a class (the error names the class column)",
    )
    csv(
        "class_only",
        CSV.replace(",", "|"),
        1,
        "one column (fields separated by '|', which is no separator): no attribute",
    )
    csv("duplicate_header", "a,a,play\n1,2,no\n3,4,yes\n", 1, "two columns with one name")
    csv("empty_header_name", "a,,play\n1,2,no\n3,4,yes\n", 1, "a column without a name")
    csv("binary", bytes(range(256)) * 4, 2, "binary garbage")
    csv(
        "latin1",
        CSV.encode() + "rain,70,96,f\u00e9lse,yes\n".encode("latin-1"),
        6,
        "Latin-1 text after UTF-8",
    )

    def c45(name: str, names: str | bytes, data: str | bytes | None, loc: str, what: str) -> None:
        nb = names.encode() if isinstance(names, str) else names
        out.append((f"c45/{name}.names", nb, "", ""))
        if data is not None:
            db = data.encode() if isinstance(data, str) else data
            out.append((f"c45/{name}.data", db, loc, what))
        else:
            out.append((f"c45/{name}.names!", b"", loc, what))

    nl = NAMES.splitlines(keepends=True)
    dl = DATA.splitlines(keepends=True)
    c45("names_empty", "", DATA, "c45/names_empty.names:1", "an empty .names")
    c45(
        "names_classes_only",
        nl[0],
        "Play\nDon't Play\n",
        "c45/names_classes_only.names:1",
        "a .names with the classes and no attribute",
    )
    c45(
        "names_no_colon",
        "".join(nl[:3]) + "temperature continuous.\n" + "".join(nl[4:]),
        DATA,
        "c45/names_no_colon.names:4",
        "an attribute line without a colon",
    )
    c45(
        "names_empty_values",
        "".join(nl[:3]) + "temperature: .\n" + "".join(nl[4:]),
        DATA,
        "c45/names_empty_values.names:4",
        "an attribute with no values",
    )
    c45(
        "names_duplicate_attribute",
        NAMES + "humidity: continuous.\n",
        DATA,
        "c45/names_duplicate_attribute.names:7",
        "two attributes with one name",
    )
    c45(
        "names_duplicate_class",
        "Play, Play.\n\n" + "".join(nl[2:]),
        DATA,
        "c45/names_duplicate_class.names:1",
        "a class declared twice",
    )
    c45(
        "names_duplicate_value",
        "".join(nl[:2]) + "outlook: sunny, sunny, rain.\n" + "".join(nl[3:]),
        DATA,
        "c45/names_duplicate_value.names:3",
        "a value declared twice",
    )
    c45(
        "names_discrete_negative",
        "".join(nl[:5]) + "windy: discrete -2.\n",
        DATA,
        "c45/names_discrete_negative.names:6",
        "a negative value count",
    )
    c45(
        "names_nul",
        NAMES.encode().replace(b"humidity", b"humi\x00dity"),
        DATA,
        "c45/names_nul.names:5",
        "a NUL byte in .names",
    )
    c45(
        "names_bad_utf8",
        NAMES.encode().replace(b"rain", b"r\xe9in"),
        DATA,
        "c45/names_bad_utf8.names:3",
        "a byte that is not UTF-8 in .names",
    )
    c45(
        "data_wrong_count",
        NAMES,
        dl[0] + "sunny, 80, 90, Don't Play\n" + "".join(dl[2:]),
        "c45/data_wrong_count.data:2",
        "a row short of a value",
    )
    c45(
        "data_undeclared_value",
        NAMES,
        DATA + "foggy, 70, 96, false, Play\n",
        "c45/data_undeclared_value.data:5",
        "a value the .names does not declare",
    )
    c45(
        "data_not_a_number",
        NAMES,
        DATA + "rain, warm, 96, false, Play\n",
        "c45/data_not_a_number.data:5",
        "text in a continuous attribute",
    )
    c45(
        "data_undeclared_class",
        NAMES,
        DATA + "rain, 70, 96, false, Maybe\n",
        "c45/data_undeclared_class.data:5",
        "a class the .names does not declare",
    )
    c45(
        "data_huge_number",
        NAMES,
        DATA + "rain, 1e400, 96, false, Play\n",
        "c45/data_huge_number.data:5",
        "a number beyond double",
    )
    c45(
        "data_nul",
        NAMES,
        DATA.encode() + b"rain, 70, 9\x006, false, Play\n",
        "c45/data_nul.data:5",
        "a NUL byte in .data",
    )
    c45(
        "data_truncated",
        NAMES,
        DATA + "rain, 70, 9",
        "c45/data_truncated.data:5",
        "the file cut in a row",
    )
    c45(
        "data_bad_utf8",
        NAMES,
        DATA.encode() + b"rain, 70, 96, false, Pl\xc3ay\n",
        "c45/data_bad_utf8.data:5",
        "a byte that is not UTF-8 in .data",
    )
    c45(
        "data_infinity",
        NAMES,
        DATA + "rain, -inf, 96, false, Play\n",
        "c45/data_infinity.data:5",
        "an infinite value",
    )
    c45("data_missing", NAMES, None, "c45/data_missing.data", "a .names whose .data is missing")
    out.append(
        (
            "c45/names_missing.data",
            DATA.encode(),
            "c45/names_missing.names",
            "a .data whose .names is missing (a dangling reference)",
        )
    )

    def arff(name: str, text: str | bytes, line: int, what: str) -> None:
        data = text.encode() if isinstance(text, str) else text
        out.append((f"arff/{name}.arff", data, f"arff/{name}.arff:{line}", what))

    al = ARFF.splitlines(keepends=True)
    arff("empty", "", 1, "an empty file")
    arff("no_data", "".join(al[:8]), 9, "no @data section")
    arff("no_attributes", "@relation r\n@data\n1\n", 2, "@data before any attribute")
    arff("unknown_type", ARFF.replace("humidity numeric", "humidity decimal"), 5, "an unknown type")
    arff(
        "unterminated_set",
        ARFF.replace("{true,false}", "{true,false"),
        6,
        "a nominal set not closed",
    )
    arff(
        "nested_set",
        ARFF.replace("{true,false}", "{true,{false}}"),
        10,
        "a set inside a set: '{false}' is a value, 'false' is not",
    )
    arff("wrong_count", ARFF + "rain,70,96,yes\n", 13, "a row short of a field")
    arff("undeclared_value", ARFF + "foggy,70,96,false,yes\n", 13, "an undeclared nominal value")
    arff("not_a_number", ARFF + "rain,warm,96,false,yes\n", 13, "text in a numeric attribute")
    arff("sparse_out_of_range", ARFF + "{1 70, 9 3}\n", 13, "a sparse index past the attributes")
    arff("sparse_unordered", ARFF + "{4 yes, 1 70}\n", 13, "sparse indices not increasing")
    arff("sparse_repeated", ARFF + "{1 70, 1 71}\n", 13, "a sparse index given twice")
    arff(
        "duplicate_attribute",
        ARFF.replace("@attribute humidity numeric", "@attribute temperature numeric"),
        5,
        "two attributes with one name",
    )
    arff(
        "string_class",
        ARFF.replace("@attribute class {yes,no}", "@attribute class string"),
        7,
        "a string class",
    )
    arff(
        "relational",
        ARFF.replace(
            "@attribute windy {true,false}\n",
            "@attribute bag relational\n@attribute inner numeric\n@end bag\n",
        ),
        6,
        "a relational (nested) attribute",
    )
    arff("bad_utf8", ARFF.encode() + b"rain,70,96,false,y\xffs\n", 13, "a byte that is not UTF-8")
    arff("nul_byte", ARFF.encode() + b"rain,70,96,fal\x00se,yes\n", 13, "a NUL byte")
    arff("huge_number", ARFF + "rain,1e999,96,false,yes\n", 13, "a number beyond double")
    arff(
        "unterminated_name",
        ARFF.replace("@attribute outlook", "@attribute 'outlook"),
        3,
        "an attribute name whose quote is not closed",
    )
    arff(
        "attribute_without_name",
        "@relation r\n@attribute \n@attribute class {a,b}\n@data\na\n",
        2,
        "'@attribute' and nothing after it (an IndexError once: fuzz regression)",
    )
    arff("data_unterminated_quote", ARFF + "'rain,70,96,false,yes\n", 13, "a quote never closed")

    def model(name: str, text: str | bytes, line: int, what: str) -> None:
        data = text.encode() if isinstance(text, str) else text
        out.append((f"model/{name}.tree", data, f"model/{name}.tree:{line}", what))

    good = model_text()
    model("empty", "", 1, "an empty file")
    model(
        "truncated",
        good[: len(good) // 2],
        good[: len(good) // 2].count("\n") + 1,
        "the file cut in half",
    )
    model("not_json", "this is not a model\n", 1, "text that is not JSON")
    model("top_level_list", "[1, 2, 3]\n", 1, "a JSON list, not an object")
    model(
        "future_version", model_text(mutate(["version"], 99)), 3, "a format version from the future"
    )
    model("version_string", model_text(mutate(["version"], "1")), 3, "the version as a string")
    model("wrong_format", model_text(mutate(["format"], "sklearn-tree")), 2, "another format")
    model(
        "negative_items",
        model_text(mutate(["nodes", 0, "items"], -14.0)),
        node_line(0),
        "a negative case count",
    )
    model(
        "negative_dist",
        model_text(mutate(["nodes", 3, "dist", 1], -3.0)),
        node_line(3),
        "a negative class weight",
    )
    model(
        "dist_not_items",
        model_text(mutate(["nodes", 3, "dist", 1], 300.0)),
        node_line(3),
        "class weights that do not sum to the node's items",
    )
    model(
        "nan_threshold",
        model_text(mutate(["nodes", 1, "threshold"], float("nan"))),
        node_line(1),
        "a NaN threshold",
    )
    model(
        "inf_dist",
        model_text(mutate(["nodes", 2, "dist", 0], float("inf"))),
        node_line(2),
        "an infinite class weight",
    )
    model(
        "huge_items",
        model_text(mutate(["nodes", 4, "items"], 1.0)).replace('"items": 1.0', '"items": 1e999'),
        node_line(4),
        "a count beyond double",
    )
    model(
        "dangling_child",
        model_text(mutate(["nodes", 0, "children"], [1, 4, 9])),
        node_line(0),
        "a child that does not exist",
    )
    model(
        "cycle",
        model_text(mutate(["nodes", 5, "children"], [0, 7])),
        node_line(5),
        "a child pointing back to the root",
    )
    model(
        "dangling_attribute",
        model_text(mutate(["nodes", 5, "attribute"], 7)),
        node_line(5),
        "an attribute that does not exist",
    )
    model(
        "dangling_class",
        model_text(mutate(["nodes", 6, "cls"], 5)),
        node_line(6),
        "a class that does not exist",
    )
    model(
        "threshold_hex_mismatch",
        model_text(mutate(["nodes", 1, "threshold_hex"], "0x1.2c00000000001p+6")),
        node_line(1),
        "a threshold that disagrees with its hex form",
    )
    model("unknown_field", model_text(mutate(["colour"], "red")), 25, "a field nobody defined")
    model("missing_nodes", model_text(mutate(["nodes"], KeyError)), 1, "no nodes")
    model("empty_nodes", model_text(mutate(["nodes"], [])), 15, "an empty node list")
    model(
        "dist_length",
        model_text(mutate(["nodes", 7, "dist"], [3.0])),
        node_line(7),
        "a distribution of the wrong length",
    )
    model(
        "wrong_children",
        model_text(mutate(["nodes", 0, "children"], [1, 4])),
        node_line(0),
        "a three-valued test with two branches",
    )
    model(
        "node_order", model_text(mutate(["nodes", 2, "id"], 3)), node_line(2), "nodes out of order"
    )
    model(
        "bad_utf8",
        good.encode().replace(b"outlook", b"out\xfflook"),
        10,
        "a byte that is not UTF-8",
    )
    model("nul_byte", good.encode().replace(b'"Play"', b'"Pl\x00ay"', 1), 8, "a NUL byte")
    model(
        "deep_nesting",
        '{"format": "treegen-model", "version": 1, "options": '
        + "[" * 100_000
        + "]" * 100_000
        + "}\n",
        1,
        "100,000 nested lists",
    )
    model(
        "huge_line",
        good.replace('"target": "class"', '"target": "' + "c" * 300_000 + '"').replace(
            '"classes": ["Play"', '"classes": [' + "1" * 5000
        ),
        8,
        "a 300 kB field and a 5,000-digit number",
    )
    model("bom_utf16", good.encode("utf-16"), 1, "UTF-16 text")
    model(
        "subset_overlap",
        model_text(
            mutate(
                ["nodes", 0],
                {
                    "id": 0,
                    "kind": "subset",
                    "attribute": 0,
                    "subsets": [[0, 1], [1, 2]],
                    "children": [1, 4],
                    "cls": 0,
                    "items": 14.0,
                    "errors": 5.0,
                    "dist": [9.0, 5.0],
                },
            )
        ),
        node_line(0),
        "a value in two subsets",
    )

    def rules(name: str, text: str, line: int, what: str) -> None:
        out.append((f"rules/{name}.rules", text.encode(), f"rules/{name}.rules:{line}", what))

    def tamper(path: list[object], value: object) -> str:
        return model_text(mutate(path, value, RULES))

    rule_text = model_text(RULES)
    rules("truncated", rule_text[:-40], rule_text[:-40].count("\n") + 1, "the file cut short")
    rules("future_version", tamper(["version"], 2), 3, "a ruleset format from the future")
    rules(
        "threshold_hex_mismatch",
        tamper(["rules", 0, "conditions", 1, "threshold_hex"], "0x1.2c00000000001p+6"),
        19,
        "a threshold that disagrees with its hex form",
    )
    rules(
        "not_float32",
        tamper(
            ["rules", 0, "conditions", 1],
            {"attribute": 2, "op": ">", "threshold": 75.1, "threshold_hex": (75.1).hex()},
        ),
        19,
        "a c45 threshold that is no float32 value",
    )
    rules(
        "op_on_wrong_kind",
        tamper(["rules", 1, "conditions", 0, "attribute"], 1),
        20,
        "'=' on a continuous attribute",
    )
    rules(
        "value_out_of_range",
        tamper(["rules", 1, "conditions", 0, "value"], 3),
        20,
        "a value code the attribute does not have",
    )
    rules(
        "unknown_op",
        tamper(["rules", 1, "conditions", 0, "op"], "!="),
        20,
        "an operator rules do not have",
    )
    rules(
        "confidence_mismatch",
        tamper(["rules", 1, "confidence"], 0.9),
        20,
        "a confidence that is not 1 - error",
    )
    rules("dangling_class", tamper(["rules", 0, "class"], 2), 19, "a class that does not exist")
    rules("class_order", tamper(["class_order"], [0, 1]), 16, "classes out of their rules' order")
    rules("default_missing", tamper(["default"], KeyError), 1, "no default class")
    rules("duplicate_number", tamper(["rules", 1, "number"], 1), 20, "two rules numbered 1")
    return out


def main() -> None:
    manifest = []
    for path, data, loc, what in cases():
        if path.endswith("!"):  # a case with no file of its own (the .names above)
            manifest.append(f"{path[:-7]}.data\t{loc}\t{what}")
            continue
        (HERE / path).parent.mkdir(parents=True, exist_ok=True)
        (HERE / path).write_bytes(data)
        if loc:
            manifest.append(f"{path}\t{loc}\t{what}")
    (HERE / "MANIFEST").write_text("\n".join(manifest) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
