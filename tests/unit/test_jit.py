"""The JIT compiler threads' CPU, read from a /proc tree laid out as Linux lays it out (klinkctl.jit)."""

from __future__ import annotations

import os
import shutil

import pytest

from klinkctl import jit


def fake_thread(proc, pid: int, tid: int, name: str, utime: int, stime: int) -> None:
    task = proc / str(pid) / "task" / str(tid)
    task.mkdir(parents=True)
    (task / "comm").write_text(name + "\n")
    # pid (comm) state ppid ... : utime and stime are fields 14 and 15; a comm may hold spaces and parentheses
    fields = ["S", "1", *["0"] * 9, str(utime), str(stime), *["0"] * 30]
    (task / "stat").write_text(f"{tid} ({name}) " + " ".join(fields) + "\n")


def test_only_the_compiler_threads_count(tmp_path):
    ticks = os.sysconf("SC_CLK_TCK")
    fake_thread(tmp_path, 7, 7, "java", 5 * ticks, 0)
    fake_thread(tmp_path, 7, 8, "C2 CompilerThre", 2 * ticks, ticks)
    fake_thread(tmp_path, 7, 9, "C1 CompilerThre", ticks, 0)
    fake_thread(tmp_path, 7, 10, "Source: (q00) )", 9 * ticks, 0)
    assert jit.compiler_threads_cpu_s(7, tmp_path) == {8: pytest.approx(3.0), 9: pytest.approx(1.0)}
    assert jit.compiler_threads_cpu_s(8, tmp_path) is None  # no such process


def test_a_compiler_thread_that_ended_keeps_what_it_used_and_rows_are_the_change_over_wall_time(tmp_path):
    ticks = os.sysconf("SC_CLK_TCK")
    fake_thread(tmp_path, 7, 8, "C2 CompilerThre", 2 * ticks, 0)
    compilers = jit.CompilerCpu({"taskmanager-1": 7}, tmp_path)
    shutil.rmtree(tmp_path / "7" / "task" / "8")  # HotSpot stopped it: its CPU time left /proc
    fake_thread(tmp_path, 7, 11, "C1 CompilerThre", 3 * ticks, 0)
    assert compilers.rows(5000, 10.0) == [{"time": 5000, "component": "jit:taskmanager-1", "pid": 7,
                                           "cpu_percent": pytest.approx(30.0)}]
    shutil.rmtree(tmp_path / "7")
    assert compilers.rows(6000, 1.0) == []  # the TaskManager is gone: no row
