"""`klinkctl archive`: the files a figure needs, copied out of results/ for committing."""

from pathlib import Path

from click.testing import CliRunner

from klinkctl.cli import main
from klinkctl.results.archive import ARCHIVED_FILES, archive
from klinkctl.results.compare import compare_groups

SWEEP = Path(__file__).parents[1] / "fixtures" / "report-sweep"


def test_an_archive_keeps_the_layout_and_only_the_small_files(tmp_path):
    destination, tally = archive(SWEEP, tmp_path)
    assert destination == tmp_path / "report-sweep"
    copied = [path for path in destination.rglob("*") if path.is_file()]
    assert copied and all(path.name in ARCHIVED_FILES for path in copied)
    assert (destination / "index.csv").is_file()
    assert tally.runs == len(list(SWEEP.rglob("summary.json")))
    assert tally.left_out == {"README.md"}
    # the scheduler's cycles stay: report redraws heap and memory-mode cycles and the cycle timing from them
    assert sorted(p.name for p in destination.rglob("scheduler.csv")) == sorted(
        p.name for p in SWEEP.rglob("scheduler.csv"))


def test_compare_reads_an_archive_as_it_reads_the_original(tmp_path):
    destination, _ = archive(SWEEP, tmp_path)
    original = compare_groups([SWEEP], confidence=0.95, group_by=["policy"], include_invalid=True)
    archived = compare_groups([destination], confidence=0.95, group_by=["policy"], include_invalid=True)
    assert original.drop(columns=["runs_dir"], errors="ignore").equals(
        archived.drop(columns=["runs_dir"], errors="ignore"))


def test_an_existing_archive_is_not_overwritten(tmp_path):
    archive(SWEEP, tmp_path)
    result = CliRunner().invoke(main, ["archive", str(SWEEP), "--to", str(tmp_path)])
    assert result.exit_code == 2
    assert "exists already" in result.output and "Traceback" not in result.output


def test_a_directory_without_runs_is_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(main, ["archive", str(tmp_path / "empty"), "--to", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "no summary.json" in result.output
    assert not (tmp_path / "out").exists()


def test_the_command_says_what_it_copied(tmp_path):
    result = CliRunner().invoke(main, ["archive", str(SWEEP), "--to", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "archived" in result.output and "left out:" in result.output
