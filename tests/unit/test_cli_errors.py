"""Bad input: one line that says what is wrong, a non-zero exit, nothing started or created."""

from click.testing import CliRunner

from klinkctl.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_negative_counts_are_refused_before_anything_starts(tmp_path):
    state = tmp_path / "state"
    for option in ("--taskmanagers", "--slots"):
        result = run("up", "--state-dir", str(state), option, "-1")
        assert result.exit_code == 2
        assert result.output.strip() == f"error: {option} must be at least 1, got -1"
    assert not state.exists()


def test_a_state_dir_that_is_a_file_is_refused(tmp_path):
    not_a_dir = tmp_path / "state"
    not_a_dir.write_text("x")
    result = run("up", "--state-dir", str(not_a_dir))
    assert result.exit_code == 2
    assert "exists and is not a directory" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_unknown_backend_lists_the_valid_ones(tmp_path):
    result = run("up", "--state-dir", str(tmp_path), "--backend", "k8s")
    assert result.exit_code == 2
    assert "'k8s' is not one of 'local', 'compose'" in result.output


def test_status_without_a_stack_exits_non_zero(tmp_path):
    result = run("status", "--state-dir", str(tmp_path))
    assert result.exit_code == 5
    assert "no stack recorded" in result.output


def test_down_without_a_stack_is_harmless(tmp_path):
    result = run("down", "--state-dir", str(tmp_path))
    assert result.exit_code == 0
    assert "nothing was running" in result.output
