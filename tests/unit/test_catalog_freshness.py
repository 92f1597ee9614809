"""The catalog is rebuilt when the Java sources changed since it was built (a pull or a merge), not only when it
is missing: a stale catalog lacks what the new Python code reads."""

import pytest

from klinkctl import catalog


@pytest.fixture
def fresh_load():
    catalog.load.cache_clear()
    yield
    catalog.load.cache_clear()


@pytest.mark.parametrize("stale, builds", [(True, 1), (False, 0)])
def test_a_catalog_older_than_the_java_sources_is_rebuilt_first(monkeypatch, fresh_load, stale, builds):
    calls = []
    monkeypatch.setattr(catalog, "java_udfs_stale", lambda: stale)
    monkeypatch.setattr(catalog, "build_java_udfs", lambda **kwargs: calls.append(kwargs))
    assert catalog.load()["format"] == catalog.FORMAT
    assert len(calls) == builds
