"""Loading finished runs and comparing their latency statistics."""
