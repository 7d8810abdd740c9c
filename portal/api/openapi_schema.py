"""The OpenAPI document's schemas: every model the operations and webhooks name, generated in
one pydantic run, so that a model is one component, with one name and one title, wherever it
appears."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

REF = "#/components/schemas/{model}"


class OpenApiSchema(GenerateJsonSchema):
    """pydantic's JSON schema as generated clients read it: no `default: null`."""

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        # A null default says no more than leaving the field out of `required` does, and
        # openapi-typescript reads any default as "always present" (a required field).
        if self.get_default_value(schema) is None:
            return self.generate_inner(schema["schema"])
        return super().default_schema(schema)


class Schemas:
    """The schemas a document asks for, handed out as placeholders and filled in at once."""

    def __init__(self):
        self.components: dict[str, Any] = {}
        # The schemas the operations ask for, generated together by generate() so that a
        # model is one component wherever it appears: (type, mode, placeholder to fill).
        self.wanted: list[tuple[Any, str, dict]] = []

    def schema(self, tp: Any, mode: str) -> dict:
        """tp's schema in mode ("validation" for bodies, "serialization" for answers): a
        $ref for a model. A placeholder until generate() makes every schema at once."""
        placeholder: dict[str, Any] = {}
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            name = tp.model_config.get("title") or tp.__name__
            placeholder["$ref"] = REF.format(model=name)
        self.wanted.append((tp, mode, placeholder))
        return placeholder

    def generate(self, document: dict) -> None:
        """Fill the placeholders and the components from one pydantic run, then name each
        component by its model's title and give it that title, so a model has one component,
        one name and one title (generators refuse two models of the same title)."""
        inputs = [(i, mode, TypeAdapter(tp)) for i, (tp, mode, _) in enumerate(self.wanted)]
        schemas, defs = TypeAdapter.json_schemas(
            inputs, ref_template=REF, schema_generator=OpenApiSchema
        )
        for i, (_, mode, placeholder) in enumerate(self.wanted):
            placeholder.clear()
            placeholder.update(schemas[(i, mode)])
        self.components.update(defs.get("$defs", {}))
        names = self.titles()
        refs = {REF.format(model=old): REF.format(model=new) for old, new in names.items()}
        self.components = {
            names[name]: {**_renamed(schema, refs), "title": names[name]}
            for name, schema in sorted(self.components.items(), key=lambda item: names[item[0]])
        }
        document["paths"] = _renamed(document["paths"], refs)
        document["webhooks"] = _renamed(document.get("webhooks", {}), refs)
        document["components"]["schemas"] = self.components

    def titles(self) -> dict[str, str]:
        """Each component's name as pydantic made it -> its model's title."""
        names: dict[str, str] = {}
        for name, schema in self.components.items():
            # pydantic names a model whose request and answer shapes differ X-Input/X-Output.
            base, side = re.fullmatch(r"(.+?)(?:-(Input|Output))?", name).groups()
            names[name] = (schema.get("title") or base) + ("Input" if side == "Input" else "")
        taken = [new for new in names.values() if list(names.values()).count(new) > 1]
        if taken:
            raise RuntimeError(f"schemas with the same title: {sorted(set(taken))}")
        return names


def _renamed(node: Any, refs: dict[str, str]) -> Any:
    """node with every component reference (a $ref, a discriminator's mapping) renamed."""
    if isinstance(node, dict):
        return {key: _renamed(value, refs) for key, value in node.items()}
    if isinstance(node, list):
        return [_renamed(value, refs) for value in node]
    if isinstance(node, str):
        return refs.get(node, node)
    return node
