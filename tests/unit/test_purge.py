"""`down --purge` deletes only what `up` made in the state dir, and refuses a directory `up` never set up."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from klinkctl.cli import main
from klinkctl.errors import KlinkError
from klinkctl.stack.local import MARKER_FILE, LocalBackend


def set_up(state_dir: Path) -> LocalBackend:
    """What `up` does to the state dir before it starts anything, then the directories it would create."""
    backend = LocalBackend(state_dir)
    backend._mark_state_dir()
    for entry in ("kafka", "flink", "logs", "agent", "tmp"):
        (state_dir / entry).mkdir(exist_ok=True)
        (state_dir / entry / "file").write_text("x")
    return backend


def test_purge_removes_what_up_made_and_the_directory_it_found_empty(tmp_path):
    state_dir = tmp_path / "state"
    set_up(state_dir).down(purge=True)
    assert not state_dir.exists()


def test_purge_keeps_what_was_there_before_up(tmp_path):
    state_dir = tmp_path / "state"
    (state_dir / "logs").mkdir(parents=True)
    (state_dir / "logs" / "mine.txt").write_text("the user's")
    (state_dir / "notes.md").write_text("the user's")
    set_up(state_dir).down(purge=True)
    assert (state_dir / "logs" / "mine.txt").read_text() == "the user's"
    assert (state_dir / "notes.md").is_file()
    assert not (state_dir / "kafka").exists() and not (state_dir / "tmp").exists()


def test_purge_refuses_a_directory_up_never_set_up(tmp_path):
    (tmp_path / "tmp").mkdir()
    (tmp_path / "tmp" / "precious").write_text("x")
    with pytest.raises(KlinkError, match="not set up by `klinkctl up`"):
        LocalBackend(tmp_path).down(purge=True)
    assert (tmp_path / "tmp" / "precious").is_file()


def test_a_marker_cannot_name_anything_outside_what_up_makes(tmp_path):
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    (state_dir / "precious").mkdir()
    (state_dir / MARKER_FILE).write_text(json.dumps({"entries": ["precious", "../x"], "remove_when_empty": True}))
    LocalBackend(state_dir).down(purge=True)
    assert (state_dir / "precious").is_dir()


def test_purge_of_a_foreign_directory_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "logs").mkdir()
    result = CliRunner().invoke(main, ["down", "--purge", "--state-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "refusing to delete anything" in result.output and "Traceback" not in result.output
    assert (tmp_path / "logs").is_dir()


def test_purge_without_any_state_dir_is_nothing_to_do(tmp_path):
    LocalBackend(tmp_path / "never").down(purge=True)
    assert not (tmp_path / "never").exists()
