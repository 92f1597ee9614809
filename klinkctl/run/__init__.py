"""Runs: a resolved bench config, the run's lifecycle, and the collectors that write its tables."""
