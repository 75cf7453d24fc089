"""A small validator for the JSON Schema subset docs/schema/smemsim-1.json uses."""
import json
import pathlib

SCHEMA = json.loads((pathlib.Path(__file__).resolve().parent.parent / "docs" / "schema" /
                     "smemsim-1.json").read_text())
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
         "number": (int, float), "integer": int}


def check(value, schema, path="$"):
    """Raise AssertionError naming the first place `value` breaks `schema`."""
    if "const" in schema:
        assert value == schema["const"], f"{path}: {value!r} != {schema['const']!r}"
    if "enum" in schema:
        assert value in schema["enum"], f"{path}: {value!r} not in {schema['enum']}"
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        ok = any(isinstance(value, TYPES[k]) and not (k in ("integer", "number") and
                                                      isinstance(value, bool))
                 for k in kinds)
        assert ok, f"{path}: {value!r} is not {kinds}"
    for key in schema.get("required", []):
        assert key in value, f"{path}: missing '{key}'"
    for key, sub in schema.get("properties", {}).items():
        if isinstance(value, dict) and key in value:
            check(value[key], sub, f"{path}.{key}")
    if "items" in schema and isinstance(value, list):
        for i, item in enumerate(value):
            check(item, schema["items"], f"{path}[{i}]")


def validate(document):
    """A whole --json document: the envelope, then each result by its kind."""
    check(document, SCHEMA)
    for i, result in enumerate(document["results"]):
        check(result, SCHEMA["$defs"][result["kind"]], f"$.results[{i}]")
