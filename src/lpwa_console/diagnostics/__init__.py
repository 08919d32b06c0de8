"""The console's diagnostics, kept out of the composition root: `--self-test` (one JSON line
of timings, every pane's first page), `--screenshot DIR` (a PNG of every pane in both
themes) and `--time-first-rows` (launch to first device rows). What each pane waits for is
the pane's own `first_page()` / `show_first_item()` (`ui/pane.py`), never its type."""
