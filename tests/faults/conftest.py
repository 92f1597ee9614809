"""Fault injection on the real stack: each test gets a stack of its own (it kills parts of it)."""

from tests.integration.conftest import Klinkctl, free_ports, klinkctl_factory  # noqa: F401 - fixtures and helpers
