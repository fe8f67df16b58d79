"""Validates a JSON document (stdin) against a schema of tests/schema/ with jsonschema.

Prints "valid" or the first validation error and exits 1.
"""
import json
import pathlib
import sys

import jsonschema
from referencing import Registry, Resource

schema_path = pathlib.Path(sys.argv[1])
registry = Registry()
for path in schema_path.parent.glob("*.schema.json"):
    registry = registry.with_resource(path.name, Resource.from_contents(json.loads(path.read_text())))
validator = jsonschema.Draft202012Validator(json.loads(schema_path.read_text()), registry=registry)
document = json.load(sys.stdin)
errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
if errors:
    sys.exit(f"invalid: {errors[0].message} at {list(errors[0].path)}")
print("valid")
