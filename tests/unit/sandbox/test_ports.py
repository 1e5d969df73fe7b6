"""Where a command's ports are read (sandbox/ports.py) and how a host port leads into a
sandbox (sandbox/forward.py), with real sockets of this process: the table of its
network, the sockets its processes hold, a forward that pipes both ways and takes
another port when its own is taken."""

from __future__ import annotations

import asyncio
import os
import socket

from workspace_agent.sandbox.forward import PortForward
from workspace_agent.sandbox.ports import (
    Listening,
    jail_mark,
    jail_ports,
    process_mark,
    process_ports,
)


def test_listening_ports_are_read_from_proc():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    six = socket.socket(socket.AF_INET6)
    six.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    six.bind(("::1", 0))
    six.listen()
    try:
        port, port6 = server.getsockname()[1], six.getsockname()[1]
        mine = process_ports([os.getpid()])
        assert Listening(port, "127.0.0.1") in mine and Listening(port6, "::1") in mine
        in_my_network = jail_ports(os.getpid(), leave_out=(port6,))
        assert Listening(port, "127.0.0.1") in in_my_network
        assert all(found.port != port6 for found in in_my_network)
        assert process_ports([999_999_999]) == [] and jail_ports(999_999_999) == []
    finally:
        server.close()
        six.close()


def test_the_cheap_marks_move_when_a_socket_opens():
    """A look reads the tables (milliseconds each) only when these moved."""
    network, held = jail_mark(os.getpid()), process_mark([os.getpid()])
    assert network is not None and network.startswith("TCP:") and "TCP6:" in network
    server = socket.socket()
    try:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert jail_mark(os.getpid()) != network
        assert process_mark([os.getpid()]) > held
    finally:
        server.close()
    assert jail_mark(999_999_999) is None


async def test_a_forward_pipes_both_ways_and_takes_another_port_when_its_own_is_taken():
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"inside: " + await reader.readline())
        await writer.drain()
        writer.close()

    inside = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = inside.sockets[0].getsockname()[1]

    async def connect() -> socket.socket:
        sock = socket.socket()
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        return sock

    forward = await PortForward.open(port, connect)  # the port is taken: by the server
    try:
        assert forward.host_port != port and forward.url == f"http://localhost:{forward.host_port}"
        reader, writer = await asyncio.open_connection("127.0.0.1", forward.host_port)
        writer.write(b"hello\n")
        await writer.drain()
        assert await reader.read() == b"inside: hello\n"
        writer.close()
    finally:
        await forward.close()
        inside.close()
    refused = socket.socket()
    try:
        assert refused.connect_ex(("127.0.0.1", forward.host_port)) != 0  # closed with it
    finally:
        refused.close()
