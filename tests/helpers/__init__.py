"""What the tests share: the two sides, the harness, and the run helpers."""
