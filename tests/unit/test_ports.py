import socket

import pytest

from klinkctl.errors import KlinkError
from klinkctl.stack.ports import ensure_free, port_is_free
from klinkctl.stack.spec import PortSpec


def test_a_listening_port_is_reported_with_the_option_that_moves_it():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert not port_is_free("127.0.0.1", port)
        with pytest.raises(KlinkError) as error:
            ensure_free("127.0.0.1", [PortSpec("Flink REST", port, "--rest-port")])
    assert str(error.value) == (f"port {port} on 127.0.0.1 (Flink REST) is already in use; "
                                "stop whatever holds it or choose another with --rest-port PORT")


def test_a_closed_port_is_free_again():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert port_is_free("127.0.0.1", port)
