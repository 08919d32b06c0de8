"""The fields whose JSON type differs between our answers (the seed's) and the public 7.3
reference contracts: exactly those docs/architecture.md lists, each read in both shapes
(schema.common.member_of_object). Compared: the main answers and their nested objects."""

from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from lpwa_console.schema.alarms import DeviceAlarmBrief
from lpwa_console.schema.app_servers import AppServer
from lpwa_console.schema.devices import Device, DeviceBrief
from lpwa_console.schema.multicast import MulticastGroup
from lpwa_console.schema.network import NetworkSubscription
from lpwa_console.schema.partners import Partner
from lpwa_console.schema.station_alarms import StationAlarmBrief
from lpwa_console.schema.station_radio import Antenna
from lpwa_console.schema.stations import BaseStation, BaseStationBrief
from lpwa_console.schema.subscription import Subscription

yaml = pytest.importorskip("yaml")

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"
# docs/architecture.md, "Fields the seed and the 7.3 reference shape differently".
DIFFERENT = {"BaseStation.version"}

Schemas = dict[str, Any]


def _schemas(name: str) -> Schemas:
    path = REFERENCE / f"{name}.tpe-public.openapi.yaml"
    if not path.exists():
        pytest.skip(f"the reference contract {path} is not on this machine")
    return yaml.safe_load(path.read_text())["components"]["schemas"]  # type: ignore[no-any-return]


def _resolve(schemas: Schemas, node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = schemas[node["$ref"].split("/")[-1]]
    return node


def _properties(schemas: Schemas, node: dict[str, Any]) -> dict[str, Any]:
    node = _resolve(schemas, node)
    found: dict[str, Any] = {}
    for key in ("allOf", "oneOf", "anyOf"):
        for part in node.get(key, []):
            found.update(_properties(schemas, part))
    found.update(node.get("properties", {}))
    return found


def _json_types(schemas: Schemas, node: dict[str, Any]) -> set[str]:
    node = _resolve(schemas, node)
    if isinstance(node.get("type"), str):
        return {node["type"]}
    if "properties" in node:
        return {"object"}
    kinds: set[str] = set()
    for key in ("allOf", "oneOf", "anyOf"):
        for part in node.get(key, []):
            kinds |= _json_types(schemas, part)
    return kinds


def _our_types(annotation: Any) -> set[str]:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _our_types(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        return set().union(*(_our_types(a) for a in typing.get_args(annotation)))
    if origin is list:
        return {"array"}
    if origin is dict or (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        return {"object"}
    if origin is typing.Literal:
        return {"string" if isinstance(typing.get_args(annotation)[0], str) else "integer"}
    if annotation is type(None):
        return set()
    for python, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string")):
        if isinstance(annotation, type) and issubclass(annotation, python):
            # A JSON number may be written as an integer and read as a float.
            return {"integer", "number"} if name in ("integer", "number") else {name}
    return {"any"}


def _nested(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds (alone, optional, or in a list), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        inner = _nested(arg)
        if inner is not None:
            return inner
    return None


def _differences(
    schemas: Schemas, node: dict[str, Any], model: type[BaseModel], path: str, depth: int = 0
) -> set[str]:
    found: set[str] = set()
    reference = _properties(schemas, node)
    for name, info in model.model_fields.items():
        key = info.alias or name
        if key not in reference:
            continue
        theirs, ours = _json_types(schemas, reference[key]), _our_types(info.annotation)
        if theirs and "any" not in ours and not theirs & ours:
            found.add(f"{path}.{key}")
        inner = _nested(info.annotation)
        if inner is not None and depth < 4:
            item = _resolve(schemas, reference[key])
            if item.get("type") == "array":
                item = item.get("items", {})
            found |= _differences(schemas, item, inner, f"{path}.{key}", depth + 1)
    return found


def test_only_the_listed_fields_differ_in_type() -> None:
    devices, network = _schemas("device-manager"), _schemas("network-manager")
    pairs: list[tuple[Schemas, str, type[BaseModel]]] = [
        (devices, "Subscription", Subscription),
        (devices, "Device", Device),
        (devices, "DeviceBrief", DeviceBrief),
        (devices, "AppServer", AppServer),
        (devices, "MulticastGroup", MulticastGroup),
        (devices, "NetworkSubscription", NetworkSubscription),
        (devices, "AlarmDeviceBrief", DeviceAlarmBrief),
        (network, "Bs", BaseStation),
        (network, "BsBrief", BaseStationBrief),
        (network, "Partner", Partner),
        (network, "AlarmBsBrief", StationAlarmBrief),
        (network, "Ant", Antenna),
    ]
    found: set[str] = set()
    for schemas, name, model in pairs:
        found |= _differences(schemas, schemas[name], model, model.__name__)
    assert found == DIFFERENT
