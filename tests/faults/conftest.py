"""Fault injection on the real stack: the module shares one stack, which each test finds healthy (test_faults.py)."""

from tests.integration.conftest import Klinkctl, free_ports, klinkctl_factory  # noqa: F401 - fixtures and helpers
