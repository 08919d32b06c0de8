"""SQL per area. Functions take a connection and plain values and return plain data."""
