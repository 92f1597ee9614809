"""Workloads: what a benchmark generates and which job processes it (YSB now; LRB, NYT later)."""
