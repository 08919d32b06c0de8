"""One module per API area; each method says only path, parameters and response type."""
