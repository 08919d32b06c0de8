"""Pydantic models of the platform API, shared by the client (api/) and the sandbox.

One module per area. Field names are the API's own (camelCase, `EUI`), so a model
serialises to exactly what goes on the wire.
"""
