"""Field mode's local index of the fleet (issue 23 §1-2): what the account may see, kept in
SQLite on the laptop and searched by any fragment. Public API (docs/architecture.md, "Field
mode: local index"):

- `FleetIndex` (`fleet_index.index`): open(profile, account, make_client), close(),
  pause(), resume(), ready, progress (`SyncProgress`), note(), search(text, kinds) ->
  ranked `IndexItem`s, keys(text, kind, limit), follow_device/follow_station/forget, and
  delete_profile(name).
- `index_path(data_dir, profile, account)`: where an index file is.
- `fragment_query` (`fleet_index.query`): the list filters' one seam, filter text -> query.

Nothing is imported here: the device and station lists import `query` at start, which must
not bring SQLite or the sync with it. Import from the modules.
"""
