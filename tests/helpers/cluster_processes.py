"""The tasks of a TF_CONFIG cluster as processes on 127.0.0.1, for the
multi-process tests: free ports, a task started with its TF_CONFIG and its
output in a log file, and a bounded wait for it."""

import json
import socket
import subprocess
from pathlib import Path

from helpers.sides import RUNTIME, Side

TIMEOUT_SECS = 300


def free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def addresses(count: int) -> list[str]:
    return [f"127.0.0.1:{port}" for port in free_ports(count)]


def start(
    program: Path, args: list[str], *, tf_config: dict | None, log: Path, side: Side = RUNTIME
) -> subprocess.Popen:
    """Runs ``program args`` (a program of tests/programs/, which runs the legacy
    Estimator itself) as ``side`` runs it; see ``start_command``."""
    return start_command(
        [*side.interpreter, str(program), *args], tf_config=tf_config, log=log, side=side
    )


def start_command(
    command: list[str], *, tf_config: dict | None, log: Path, side: Side = RUNTIME
) -> subprocess.Popen:
    """Runs ``command`` in ``side``'s environment, with ``tf_config`` as TF_CONFIG
    (none: a local run), its output going to ``log`` and its temporary files to a
    directory of its own."""
    scratch = log.with_suffix(".tmp")
    scratch.mkdir()
    env = side.env(TMPDIR=str(scratch))
    if tf_config is not None:
        env["TF_CONFIG"] = json.dumps(tf_config)
    with log.open("w") as output:
        return subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)


def wait(name: str, process: subprocess.Popen, log: Path, timeout=TIMEOUT_SECS) -> str:
    """Waits for the task to exit (killing it after ``timeout``); returns its output."""
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        message = f"{name} did not finish in {timeout}s:\n{log.read_text()[-3000:]}"
        raise AssertionError(message) from None
    return log.read_text()


def finish(name: str, process: subprocess.Popen, log: Path, timeout=TIMEOUT_SECS) -> str:
    """Waits for the task to exit 0; returns its output."""
    output = wait(name, process, log, timeout)
    assert process.returncode == 0, f"{name} exited {process.returncode}:\n{_last_error(output)}"
    return output


def _last_error(output: str) -> str:
    """The last Python traceback of ``output`` (TensorFlow's gRPC logging after it
    can run to many pages), else its end."""
    start = output.rfind("Traceback (most recent call last)")
    return output[start : start + 6000] if start >= 0 else output[-3000:]
