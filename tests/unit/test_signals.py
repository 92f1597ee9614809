"""SIGINT/SIGTERM end a run as interrupted, but never before its summary is written."""

import os
import signal

import pytest

from klinkctl.run.bench import signals_as_interrupt


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_armed_signal_interrupts(sig):
    with pytest.raises(KeyboardInterrupt):
        with signals_as_interrupt():
            os.kill(os.getpid(), sig)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_disarmed_is_only_noted(sig):
    with signals_as_interrupt() as interrupts:
        interrupts.armed = False
        os.kill(os.getpid(), sig)
        summary_written = True  # the teardown and summary go on
    assert interrupts.received and summary_written


def test_the_previous_handlers_come_back():
    before = signal.getsignal(signal.SIGTERM)
    with signals_as_interrupt():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before
