"""Progress of long runs: files done out of the total, a time left worth reading,
periodic lines when stderr is not a terminal (CI logs)."""

import io

import estimator_revival.migrator.command.progress
from estimator_revival.migrator.command.progress import Progress
from helpers.cli_runs import LEGACY, run


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def finish_files(progress, clock, count, seconds_each):
    for _ in range(count):
        clock.now += seconds_each
        progress.advance()


def test_a_short_run_prints_nothing():
    clock, stream = FakeClock(), io.StringIO()
    progress = Progress(50, stream=stream, clock=clock, interactive=False)
    finish_files(progress, clock, 50, 0.01)
    progress.close()
    assert stream.getvalue() == ""


def test_the_time_left_ignores_start_up_and_counts_from_the_first_file_done():
    """Workers take 5 s to start, then finish a file every 10 ms: the time left is
    about 10 ms per remaining file, not 5 s per file."""
    clock, stream = FakeClock(), io.StringIO()
    progress = Progress(3000, stream=stream, clock=clock, interactive=False)
    clock.now += 5.0
    progress.advance()
    assert progress.seconds_left(clock.now) is None, "one file tells nothing about the rate"
    finish_files(progress, clock, 2998, 0.01)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "migrate: 1/3000 files (0%), 0:05 elapsed", "no guess yet"
    assert len(lines) >= 3
    for line in lines[1:]:
        done = int(line.split(" ", 2)[1].split("/")[0])
        minutes, seconds = line.rsplit("about ", 1)[1].split(" ")[0].split(":")
        assert abs(int(minutes) * 60 + int(seconds) - (3000 - done) * 0.01) <= 1, line


def test_a_log_line_every_period_when_not_on_a_terminal():
    clock, stream = FakeClock(), io.StringIO()
    progress = Progress(10_000, stream=stream, clock=clock, interactive=False)
    finish_files(progress, clock, 10_000 - 1, 0.01)  # 100 s in all
    lines = stream.getvalue().splitlines()
    assert 9 <= len(lines) <= 10, lines
    assert all("\r" not in line for line in lines)
    assert lines[-1].startswith("migrate: 9")


def test_one_line_redrawn_on_a_terminal():
    clock, stream = FakeClock(), io.StringIO()
    progress = Progress(1000, stream=stream, clock=clock, interactive=True)
    finish_files(progress, clock, 999, 0.01)
    progress.close()
    text = stream.getvalue()
    assert text.count("\n") == 1 and text.count("\r") > 5


def test_the_command_reports_progress_on_stderr(tmp_path, monkeypatch):
    monkeypatch.setattr(estimator_revival.migrator.command.progress, "QUIET_FOR", 0.0)
    monkeypatch.setattr(estimator_revival.migrator.command.progress, "LOG_EVERY", 0.0)
    for i in range(40):
        (tmp_path / f"m{i:02d}.py").write_text(LEGACY)
    result = run("--jobs", "1", tmp_path)
    assert "migrate: 1/40 files (2%)" in result.stderr
    assert "migrate: 39/40 files (97%)" in result.stderr
