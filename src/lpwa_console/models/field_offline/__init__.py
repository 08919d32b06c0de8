"""Field mode (issue 23 §3): a region of the fleet kept on the laptop (`store`), browsed
offline through the API client's own transport (`transport`), edits queued (`edit_queue`)
and sent back in order on reconnect (`sync`). docs/architecture.md, "Field mode: offline
snapshot and edit queue"."""
