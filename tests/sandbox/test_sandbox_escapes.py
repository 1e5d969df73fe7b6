"""The escape corpus: commands that try to get out of the sandbox, run through the real
bash tool, each checked on the host (the file is absent or unchanged, the listener saw no
connection, the process is gone), not by the command's exit status.

Each case ends with a marker write in the workspace, so a case that never ran cannot
pass. Most also run once with `sandbox.mode: off` in a fresh fixture as the positive
control: there the effect must happen, so a missing program or a wrong path cannot make a
case pass vacuously. (Cases that would harm the machine unsandboxed, such as remounting
/ or killing the test process, have a stand-in or check the program exists instead.)

When the sandbox cannot start here, every case is skipped with the probe's reason: never
passed. Fixture folders live under /var/tmp, not /tmp: inside the sandbox /tmp is the
session's own folder, which would hide them and make the cases pass for the wrong reason.
Targets are loopback listeners only.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from workspace_agent.cli.asker import AllowEverything
from workspace_agent.config import AgentSettings
from workspace_agent.guard.approvals import NO_GRANTS, Approvals, Grants
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools.base import ToolContext, ToolError
from workspace_agent.tools.bash import BASH
from workspace_agent.tools.files import READ_FILE

from tests.support.lsp import wait_for
from tests.support.probes import PTRACE_PROBE
from tests.support.processes import processes_in

KEY = "sk-ant-corpus-0123456789abcdef"
SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY----- corpus-ssh-secret"
AWS_KEY = "aws_secret_access_key = corpus-aws-secret"


class Listener:
    """A loopback TCP, UDP or Unix listener on the host that records what reaches it."""

    def __init__(self, sock: socket.socket, stream: bool) -> None:
        self.sock = sock
        self.hits = 0
        self._stream = stream
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                if self._stream:
                    conn, _ = self.sock.accept()
                    self.hits += 1
                    conn.close()
                else:
                    self.sock.recv(100)
                    self.hits += 1
            except OSError:
                return

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept
        self.sock.close()


@dataclass
class Fixture:
    base: Path
    ws: Path
    home: Path
    out: Path
    tcp: Listener
    udp: Listener
    unix: Listener
    agent_sock: Listener
    abstract: Listener
    victim: subprocess.Popen[bytes]
    mode: str
    vars: dict[str, str] = field(default_factory=dict)

    def ctx(self, grants: Grants = NO_GRANTS, **settings: object) -> ToolContext:
        """`grants`: what the command line allowed (--yes runs answer every question of
        theirs "allow", as the CLI's AllowEverything does)."""
        values = {"sandbox_mode": self.mode, "api_key": KEY, **settings}
        asker = AllowEverything() if grants.unattended else None
        return ToolContext(
            self.ws,
            replace(AgentSettings(), **values),  # type: ignore[arg-type]
            TodoList(),
            Approvals({"bash": "allow", "write": "allow"}, asker, grants=grants),
            session_id="corpus",
        )


def listener(kind: int, kinds: int, address: object) -> Listener:
    sock = socket.socket(kind, kinds)
    sock.bind(address)
    if kinds == socket.SOCK_STREAM:
        sock.listen(8)
    return Listener(sock, kinds == socket.SOCK_STREAM)


def make_fixture(mode: str, monkeypatch: pytest.MonkeyPatch) -> Fixture:
    base = Path(tempfile.mkdtemp(prefix="wa-corpus-", dir="/var/tmp"))
    ws, home, out = base / "ws", base / "home", base / "outside"
    for folder in (ws, home / ".ssh", home / ".aws", home / ".gnupg", out):
        folder.mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(SSH_KEY)
    (home / ".aws" / "credentials").write_text(AWS_KEY)
    (home / ".gnupg" / "secring-corpus.gpg").write_text("gpg")
    (home / ".bashrc").write_text("# rc\n")
    (out / "v").write_text("original\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", str(ws)], check=True)
    (ws / "app.py").write_text("print('hi')\n")
    subprocess.run([*git, "-C", str(ws), "add", "."], check=True)
    subprocess.run([*git, "-C", str(ws), "commit", "-qm", "init"], check=True)
    tcp = listener(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0))
    udp = listener(socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 0))
    unix = listener(socket.AF_UNIX, socket.SOCK_STREAM, str(out / "host.sock"))
    agent_sock = listener(socket.AF_UNIX, socket.SOCK_STREAM, str(home / "agent.sock"))
    abstract_name = f"\0{base.name}"
    abstract = listener(socket.AF_UNIX, socket.SOCK_STREAM, abstract_name)
    victim = subprocess.Popen(["sleep", "300"], start_new_session=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("SSH_AUTH_SOCK", str(home / "agent.sock"))
    fx = Fixture(base, ws, home, out, tcp, udp, unix, agent_sock, abstract, victim, mode)
    fx.vars = {
        "OUT": str(out),
        "PORT": str(tcp.sock.getsockname()[1]),
        "UPORT": str(udp.sock.getsockname()[1]),
        "SOCK": str(out / "host.sock"),
        "ABSTRACT": abstract_name[1:],
        "VICTIM": str(victim.pid),
        "PY": sys.executable,
    }
    return fx


def close_fixture(fx: Fixture) -> None:
    for sock in (fx.tcp, fx.udp, fx.unix, fx.agent_sock, fx.abstract):
        sock.close()
    fx.victim.kill()
    fx.victim.wait()
    for pid in processes_in(fx.ws):
        os.kill(pid, signal.SIGKILL)
    shutil.rmtree(fx.base, ignore_errors=True)


@pytest.fixture
def jailed(sandbox_works: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Fixture]:
    fx = make_fixture("required", monkeypatch)
    yield fx
    close_fixture(fx)


@pytest.fixture
def open_host(monkeypatch: pytest.MonkeyPatch) -> Iterator[Fixture]:
    fx = make_fixture("off", monkeypatch)
    yield fx
    close_fixture(fx)


async def run(fx: Fixture, command: str, **settings: object) -> str:
    for name, value in fx.vars.items():
        command = command.replace(f"${name}", value)
    answer = await BASH.handler(
        fx.ctx(**settings), {"command": f"{command}\necho ran > ran.marker"}
    )
    assert not isinstance(answer, str)
    assert answer.sandboxed is (fx.mode != "off")
    assert (fx.ws / "ran.marker").exists(), f"the case did not run:\n{answer.text}"
    return answer.text


Check = Callable[[Fixture, str], bool]
"""Did the escape happen? (the fixture, the command's output)"""


@dataclass(frozen=True)
class Case:
    id: str
    command: str
    happened: Check
    control: bool = True
    """Run it unsandboxed too, where it must succeed."""


def changed(path: str, original: str | None = None) -> Check:
    def check(fx: Fixture, _: str) -> bool:
        target = Path(path.replace("$OUT", str(fx.out)).replace("~", str(fx.home)))
        target = target if target.is_absolute() else fx.ws / target
        if original is None:
            return target.exists()
        return target.read_text() != original

    return check


def printed(secret: str) -> Check:
    return lambda fx, output: secret in output


def victim_died(victim: subprocess.Popen[bytes], within: float = 2.0) -> bool:
    """Whether the victim died: a SIGKILL is delivered when the kernel next schedules the
    process, which on a loaded machine can be after `kill` has returned, so a moment's wait."""
    try:
        victim.wait(timeout=within)
    except subprocess.TimeoutExpired:
        return False
    return True


def hit(name: str) -> Check:
    def check(fx: Fixture, _: str) -> bool:
        deadline = time.monotonic() + 1.0  # the listener's thread may not have run yet
        while getattr(fx, name).hits == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        return getattr(fx, name).hits > 0

    return check


CASES = [
    # writes outside the workspace
    Case("plain write", "echo x > $OUT/f", changed("$OUT/f")),
    Case("append to ~/.bashrc", "echo x >> ~/.bashrc", changed("~/.bashrc", "# rc\n")),
    Case("python write", "$PY -c \"open('$OUT/f', 'w').write('x')\"", changed("$OUT/f")),
    Case("via symlink", "ln -s $OUT/v sl; echo x >> sl", changed("$OUT/v", "original\n")),
    Case(
        "via hard link",
        "ln $OUT/v hl; echo x >> hl",
        changed("$OUT/v", "original\n"),
    ),
    Case("via /proc/self/root", "echo x > /proc/self/root$OUT/f", changed("$OUT/f")),
    Case("parent folder", "(cd .. && touch escaped)", lambda fx, _: (fx.base / "escaped").exists()),
    Case(
        "remount / read-write as root",
        "mount -o remount,rw / ; echo x > /etc/wa-corpus-remount",
        lambda fx, _: Path("/etc/wa-corpus-remount").exists(),
        control=False,
    ),
    Case(
        "unshare -r",
        "unshare -r sh -c 'mount -t tmpfs none $OUT && echo x > $OUT/f'; echo x > $OUT/g",
        lambda fx, _: (fx.out / "f").exists() or (fx.out / "g").exists(),
        control=False,
    ),
    # deferred execution: what git, the editor or the agent would run later
    Case(
        "git hook",
        "mkdir -p .git/hooks; echo 'curl x' > .git/hooks/pre-commit",
        changed(".git/hooks/pre-commit"),
    ),
    Case(
        "mv .git and plant hooks",
        "mv .git .g && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit",
        changed(".g"),
    ),
    Case(
        "git config core.hooksPath",
        "git config core.hooksPath /tmp/h",
        lambda fx, _: "hooksPath" in (fx.ws / ".git" / "config").read_text(),
    ),
    Case("write .mcp.json", "echo '{}' > .mcp.json", changed(".mcp.json")),
    Case(
        "write .vscode/", "mkdir -p .vscode && echo '{}' > .vscode/tasks.json", changed(".vscode")
    ),
    Case(
        "plant a command, skill or agent for a later run",
        "mkdir -p .claude/agents .agents/skills/x && echo evil > .claude/agents/a.md "
        "&& echo evil > .agents/skills/x/SKILL.md",
        lambda fx, _: (fx.ws / ".claude").exists() or (fx.ws / ".agents").exists(),
    ),
    Case(
        "write the agent's folder",
        "mkdir -p .workspace-agent && echo x > .workspace-agent/settings",
        changed(".workspace-agent"),
    ),
    # secrets
    Case("read ~/.ssh", "cat ~/.ssh/id_ed25519", printed(SSH_KEY)),
    Case("read ~/.aws", "cat ~/.aws/credentials", printed(AWS_KEY)),
    Case("list ~/.gnupg", "ls ~/.gnupg", printed("secring-corpus")),
    Case("read the key from env", "env", printed(KEY), control=False),
    Case("symlink to a secret", "ln -s ~/.ssh/id_ed25519 k; cat k", printed(SSH_KEY)),
    # network and sockets
    Case("curl to a host listener", "curl -s -m 3 http://127.0.0.1:$PORT/", hit("tcp")),
    Case("/dev/tcp", "echo x > /dev/tcp/127.0.0.1/$PORT", hit("tcp")),
    Case(
        "UDP to a host listener",
        '$PY -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)'
        ".sendto(b'x', ('127.0.0.1', $UPORT))\"",
        hit("udp"),
    ),
    Case(
        "host Unix socket",
        "$PY -c \"import socket; socket.socket(socket.AF_UNIX).connect('$SOCK')\"",
        hit("unix"),
    ),
    Case(
        "$SSH_AUTH_SOCK",
        '$PY -c "import os, socket; socket.socket(socket.AF_UNIX)'
        ".connect(os.environ['SSH_AUTH_SOCK'])\"",
        hit("agent_sock"),
    ),
    Case(
        "abstract Unix socket",
        "$PY -c \"import socket; socket.socket(socket.AF_UNIX).connect('\\0$ABSTRACT')\"",
        hit("abstract"),
    ),
    Case(
        "host network devices",
        "ls /sys/class/net | grep -vx lo | sed 's/^/dev:/'; "
        "tail -n +2 /proc/net/route | sed 's/^/route:/'",
        lambda fx, output: "dev:" in output or "route:" in output,
    ),
    # processes
    Case(
        "kill a host process",
        "kill -9 $VICTIM",
        lambda fx, _: victim_died(fx.victim),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
async def test_the_sandbox_stops(case: Case, jailed: Fixture):
    output = await run(jailed, case.command)
    assert not case.happened(jailed, output), f"escaped: {case.command}\n{output}"


CONTROLS = [case for case in CASES if case.control]


@pytest.mark.parametrize("case", CONTROLS, ids=[case.id for case in CONTROLS])
async def test_without_the_sandbox_the_same_command_gets_out(case: Case, open_host: Fixture):
    """The positive control: the case does reach the host when nothing confines it."""
    output = await run(open_host, case.command)
    assert case.happened(open_host, output), f"the control did not escape:\n{output}"


YES = Grants(unattended=True)
YES_AND_OUT = Grants(unattended=True, unsandboxed=True)
WAYS_OUT = [
    ("unsandboxed_reason", {"unsandboxed_reason": "the build needs a cache outside"}),
    ("writable_paths outside", {"writable_paths": ["$OUT"]}),
]


async def test_under_yes_curl_to_a_host_listener_is_held_and_told_how_to_allow_it(
    jailed: Fixture,
):
    """--yes answers every question "allow" (AllowEverything), but no question about the
    network reaches it: the host is refused at once and the result says how to allow it."""
    answer = await BASH.handler(
        jailed.ctx(YES), {"command": run_line(jailed, "curl -s -m 3 http://127.0.0.1:$PORT/")}
    )
    assert not isinstance(answer, str) and answer.sandboxed
    assert not hit("tcp")(jailed, answer.text)
    host = f"127.0.0.1:{jailed.vars['PORT']}"
    assert (
        f"[network access to {host} was refused: --yes does not open the network; allow this "
        f"host with --allow-host {host} or sandbox.allowedDomains in your settings file]"
    ) in answer.text
    assert answer.network == ({"host": host, "allowed": False, "refused": "unattended"},)
    allowed = await BASH.handler(
        jailed.ctx(YES, sandbox_allowed_domains=(host,)),
        {"command": run_line(jailed, "curl -s -m 3 http://127.0.0.1:$PORT/")},
    )
    assert hit("tcp")(jailed, allowed.text)  # the positive control: listed, it is reached


@pytest.mark.parametrize("way", WAYS_OUT, ids=[way[0] for way in WAYS_OUT])
async def test_under_yes_no_call_leaves_the_sandbox(way: tuple[str, dict], jailed: Fixture):
    args = {
        key: [v.replace("$OUT", str(jailed.out)) for v in value]
        if isinstance(value, list)
        else value
        for key, value in way[1].items()
    }
    command = run_line(jailed, "echo x > $OUT/f")
    with pytest.raises(ToolError) as refused:
        await BASH.handler(jailed.ctx(YES, sandbox_mode="auto"), {"command": command, **args})
    assert "--yes never lets a command leave the sandbox" in str(refused.value)
    assert "--allow-unsandboxed" in str(refused.value)
    assert not (jailed.out / "f").exists() and not (jailed.ws / "ran.marker").exists()
    # the positive control: a person's --allow-unsandboxed lets exactly this through
    answer = await BASH.handler(
        jailed.ctx(YES_AND_OUT, sandbox_mode="auto"), {"command": command, **args}
    )
    assert (jailed.out / "f").read_text() == "x\n"
    assert "allowed for this invocation by --allow-unsandboxed" in answer.text


def run_line(fx: Fixture, command: str) -> str:
    for name, value in fx.vars.items():
        command = command.replace(f"${name}", value)
    return f"{command}\necho ran > ran.marker"


async def test_no_capabilities_no_new_privileges_and_few_processes(jailed: Fixture):
    output = await run(jailed, "grep -E 'NoNewPrivs|CapEff' /proc/self/status; ps -e | wc -l")
    assert "NoNewPrivs:\t1" in output and "CapEff:\t0000000000000000" in output
    assert int(output.split("\n")[2]) < 10, output
    for program in ("mount", "unshare", "curl"):
        assert shutil.which(program), f"{program} is missing: its cases would prove nothing"


KEY_PROBE = """
import asyncio, sys
from pathlib import Path
from dataclasses import replace
from workspace_agent.shared.todo import TodoList
from workspace_agent.config import AgentSettings
from workspace_agent.cli.asker import AllowEverything
from workspace_agent.guard.approvals import NO_GRANTS, Approvals, Grants
from workspace_agent.tools.base import ToolContext
from workspace_agent.tools.bash import BASH

settings = replace(AgentSettings(), api_key=sys.argv[3], sandbox_mode=sys.argv[2])
ctx = ToolContext(Path(sys.argv[1]), settings, TodoList(), Approvals({"bash": "allow"}))
command = (
    "tr '\\\\0' '\\\\n' < /proc/$PPID/environ; tr '\\\\0' '\\\\n' < /proc/1/environ; "
    "grep -l " + sys.argv[3] + " /proc/*/environ 2>/dev/null; echo done"
)
print(asyncio.run(BASH.handler(ctx, {"command": command})).text)
"""


@pytest.mark.parametrize("mode", ["required", "off"])
def test_the_agents_key_is_in_no_environment_inside(mode: str, tmp_path: Path, request):
    """The agent process has the key in its environment from the start (as a server does):
    inside the sandbox neither its own parent (bwrap's init) nor any /proc entry shows it.
    Unsandboxed, /proc/$PPID/environ is the agent's: the control."""
    if mode == "required":
        request.getfixturevalue("sandbox_works")
    ws = Path(tempfile.mkdtemp(prefix="wa-corpus-key-", dir="/var/tmp"))
    try:
        done = subprocess.run(
            [sys.executable, "-c", KEY_PROBE, str(ws), mode, KEY],
            env={**os.environ, "ANTHROPIC_API_KEY": KEY},
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    assert "done" in done.stdout, done.stderr
    assert (KEY in done.stdout) is (mode == "off"), done.stdout


async def test_every_process_in_the_jail_has_the_filter(jailed: Fixture):
    """An unfiltered process the command could ptrace (or write through /proc/PID/mem)
    would open host sockets for it: bwrap's own init was one, so the command is pid 1."""
    (jailed.ws / "probe.py").write_text(PTRACE_PROBE)
    output = await run(jailed, "python3 probe.py; echo pid=$$")
    assert "checked" in output and "unfiltered" not in output, output
    assert "pid=1" in output


async def test_a_symlink_to_a_secret_planted_inside_is_refused_by_read_file_on_the_host(
    jailed: Fixture,
):
    await run(jailed, "ln -s ~/.ssh/id_ed25519 k")
    assert (jailed.ws / "k").is_symlink()  # it stays on the host, where the tools...
    with pytest.raises(ToolError, match="outside"):  # ...refuse to follow it out
        await READ_FILE.handler(jailed.ctx(), {"path": "k"})


async def test_a_setsid_daemon_is_gone_after_the_call_and_after_a_timeout(
    jailed: Fixture, open_host: Fixture
):
    await run(jailed, "setsid sleep 999 > /dev/null 2>&1 < /dev/null &")
    # killed by the kernel with the jail's pid namespace, as the call returns
    await wait_for(lambda: processes_in(jailed.ws) == [], 2, "the daemon to be gone")
    answer = await BASH.handler(
        jailed.ctx(bash_timeout_seconds=2.0),
        {"command": "setsid sleep 998 > /dev/null 2>&1 < /dev/null & sleep 60"},
    )
    assert not isinstance(answer, str) and "timed out" in answer.text
    await wait_for(lambda: processes_in(jailed.ws) == [], 2, "the daemon to be gone")
    # the control: a process group alone lets such a daemon live on
    await run(open_host, "setsid sleep 997 > /dev/null 2>&1 < /dev/null &")
    assert processes_in(open_host.ws) != []


async def test_protected_paths_a_command_creates_are_taken_out_of_the_workspace(
    jailed: Fixture,
):
    before = sorted(p.name for p in jailed.ws.iterdir())
    output = await run(jailed, "mkdir -p .vscode && echo '{}' > .vscode/tasks.json")
    assert "[blocked by the sandbox: .vscode was created and moved to /tmp/blocked/" in output
    after = sorted(p.name for p in jailed.ws.iterdir())
    assert after == sorted([*before, "ran.marker"])  # nothing of it left in the workspace


# -- still works ------------------------------------------------------------------------


async def test_the_workspace_and_tmp_are_writable_and_git_reads_work(jailed: Fixture):
    output = await run(
        jailed,
        "echo edited >> app.py && echo t > /tmp/t && cat /tmp/t && echo $TMPDIR "
        "&& git status --short && git diff --stat",
    )
    assert "t\n/tmp\n M app.py\n app.py | 1 +" in output
    assert (jailed.ws / "app.py").read_text() == "print('hi')\nedited\n"


async def test_pytest_with_asyncio_runs_inside(jailed: Fixture):
    (jailed.ws / "test_inside.py").write_text(
        "import asyncio\n\n"
        "def test_loop():\n"
        "    async def main():\n"
        "        proc = await asyncio.create_subprocess_exec('true')\n"
        "        return await proc.wait()\n"
        "    assert asyncio.run(main()) == 0\n"
    )
    output = await run(jailed, "$PY -m pytest -q -p no:cacheprovider test_inside.py")
    assert "1 passed" in output


async def test_programs_under_tmp_on_path_still_run_inside_read_only(
    jailed: Fixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # /tmp inside is the session's temp dir; a tool installed under the host's /tmp (a
    # checkout's venv, as when CI clones there) must still be found, and not be writable.
    tools = tmp_path / "tools-bin"
    tools.mkdir()
    hello = tools / "hello-from-tmp"
    hello.write_text("#!/bin/sh\necho hello from a tool under /tmp\n")
    hello.chmod(0o755)
    assert str(tools).startswith("/tmp/"), "pytest's tmp_path is expected under /tmp"
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    output = await run(jailed, f"PATH={tools}:$PATH hello-from-tmp; touch {tools}/planted")
    assert "hello from a tool under /tmp" in output
    assert not (tools / "planted").exists()


async def test_a_server_bound_and_queried_inside_one_command(jailed: Fixture):
    output = await run(
        jailed,
        "$PY -m http.server 8765 --bind 127.0.0.1 > /dev/null 2>&1 & "
        "for i in $(seq 50); do curl -s http://127.0.0.1:8765/app.py && break; sleep 0.1; done; "
        "kill %1",
    )
    assert "print('hi')" in output


async def test_a_blocked_write_says_which_wall(jailed: Fixture):
    answer = await BASH.handler(jailed.ctx(), {"command": "echo x > ~/.cache-test; touch .git/x"})
    output = answer.text if not isinstance(answer, str) else answer
    assert "blocked by the sandbox: write to ~/.cache-test" in output
    assert "write to .git/x (.git is read-only inside the sandbox)" in output
    assert "unsandboxed_reason" in output


async def test_real_package_caches_only_when_the_user_allows_them(jailed: Fixture):
    (jailed.home / ".cache").mkdir()
    blocked = await run(jailed, "echo $PIP_CACHE_DIR; echo x > ~/.cache/pip-test")
    assert "/tmp/.cache/pip" in blocked and not (jailed.home / ".cache" / "pip-test").exists()
    allowed = await run(
        jailed, "echo pip=$PIP_CACHE_DIR; echo x > ~/.cache/pip-test", sandbox_real_caches=True
    )
    assert "pip=\n" in allowed  # the real default location, not the session's
    assert (jailed.home / ".cache" / "pip-test").read_text() == "x\n"
    assert not (jailed.home / ".bashrc").read_text().startswith("x")  # home stays read-only


async def test_a_writable_paths_folder_is_writable_and_nothing_else(jailed: Fixture):
    """sandbox.writablePaths opens the folders it names (a `~/` one and an absolute one),
    and only those: a sibling folder, the home folder and the masks stay as they were."""
    (jailed.home / "builds").mkdir()
    extra = jailed.base / "shared-out"
    extra.mkdir()
    command = (
        "echo a > ~/builds/a; echo b > $OUT/../shared-out/b; echo c > $OUT/c; "
        "echo d >> ~/.bashrc; cat ~/.ssh/id_ed25519"
    )
    before = await run(jailed, command)
    assert not (jailed.home / "builds" / "a").exists() and not (extra / "b").exists()
    assert "Read-only file system" in before
    output = await run(jailed, command, sandbox_writable_paths=("~/builds", str(extra)))
    assert (jailed.home / "builds" / "a").read_text() == "a\n"
    assert (extra / "b").read_text() == "b\n"
    assert not (jailed.out / "c").exists()  # the folder beside them is still blocked
    assert (jailed.home / ".bashrc").read_text() == "# rc\n"
    assert SSH_KEY not in output


async def test_a_writable_paths_folder_keeps_its_git_read_only(jailed: Fixture):
    sibling = jailed.base / "sibling"
    (sibling / ".git" / "hooks").mkdir(parents=True)  # a repository's hooks folder
    output = await run(
        jailed,
        f"echo x > {sibling}/notes.txt; echo y > {sibling}/.git/hooks/pre-commit",
        sandbox_writable_paths=(str(sibling),),
    )
    assert (sibling / "notes.txt").read_text() == "x\n"
    assert not (sibling / ".git" / "hooks" / "pre-commit").exists()
    assert ".git" in output


async def test_a_writable_paths_link_into_credentials_is_left_out(jailed: Fixture):
    """A setting that passed the check as written but links to ~/.ssh opens nothing."""
    (jailed.home / "innocent").symlink_to(jailed.home / ".ssh")
    await run(jailed, "echo x > ~/innocent/planted", sandbox_writable_paths=("~/innocent",))
    assert not (jailed.home / ".ssh" / "planted").exists()


async def test_a_blocked_write_offers_its_folder(jailed: Fixture):
    """The card's wall names the setting and the folder that would let the write through:
    the folder it is in, never the home folder itself nor a credential location."""
    (jailed.home / "data").mkdir()
    answer = await BASH.handler(
        jailed.ctx(),
        {"command": "echo x > ~/data/out.txt; echo y > ~/top.txt; echo z > ~/.ssh/k"},
    )
    assert not isinstance(answer, str)
    walls = {wall["target"]: wall for wall in answer.blocked or []}
    assert walls["~/data/out.txt"] == {
        "kind": "write",
        "target": "~/data/out.txt",
        "setting": "sandbox.writablePaths",
        "folder": "~/data",
    }
    assert "setting" not in walls["~/top.txt"]  # the home folder is never offered
    assert all("folder" not in wall for target, wall in walls.items() if ".ssh" in target)


# -- plan mode: the whole workspace read-only ---------------------------------------------

PLAN_CASES = [
    ("a redirect", "echo x > app.py", True),
    ("python appends", "$PY -c \"open('app.py', 'a').write('x')\"", True),
    ("sed -i", "sed -i s/hi/hello/ app.py", True),
    ("rm", "rm app.py", True),
    ("mv", "mv app.py moved.py", True),
    ("chmod", "chmod 600 app.py", True),
    ("touch a date", "touch -d 2000-01-01 app.py", True),
    ("a new file", "touch new.txt", True),
    ("mkdir", "mkdir made", True),
    ("a symlink", "ln -s app.py link.py", True),
    ("git commit", "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x", False),
    ("remount read-write as root", "mount -o remount,rw $WS", False),
    ("a tmpfs over it as root", "mount -t tmpfs none $WS && echo x > $WS/app.py", False),
]
"""(id, command, whether it changes the workspace outside plan mode: the control)."""


def workspace_state(root: Path) -> dict[str, tuple[object, ...]]:
    """Every path with its kind, mode, times and content (a symlink's target)."""
    state: dict[str, tuple[object, ...]] = {}
    for path in [root, *sorted(root.rglob("*"))]:
        info = path.lstat()
        if path.is_symlink():
            body: object = os.readlink(path)
        elif path.is_file():
            body = path.read_bytes()
        else:
            body = "dir"
        state[path.relative_to(root).as_posix()] = (info.st_mode, info.st_mtime_ns, body)
    return state


async def run_planning(fx: Fixture, command: str, read_only: bool = True) -> str:
    command = command.replace("$WS", str(fx.ws)).replace("$PY", sys.executable)
    ctx = replace(fx.ctx(), read_only=read_only)
    answer = await BASH.handler(ctx, {"command": f"{command}\necho ran-$?"})
    assert not isinstance(answer, str) and answer.sandboxed is True
    assert "ran-" in answer.text, f"the case did not run:\n{answer.text}"
    return answer.text


@pytest.mark.parametrize("case", PLAN_CASES, ids=[case[0] for case in PLAN_CASES])
async def test_in_plan_mode_nothing_in_the_workspace_changes_also_as_root(
    case: tuple[str, str, bool], jailed: Fixture
):
    before = workspace_state(jailed.ws)
    output = await run_planning(jailed, case[1])
    assert workspace_state(jailed.ws) == before, output
    assert "ran-0" not in output, output  # it failed, and said so


@pytest.mark.parametrize(
    "case", [c for c in PLAN_CASES if c[2]], ids=[c[0] for c in PLAN_CASES if c[2]]
)
async def test_outside_plan_mode_the_same_command_changes_the_workspace(
    case: tuple[str, str, bool], jailed: Fixture
):
    """The positive control: in the ordinary sandbox the command does change it."""
    before = workspace_state(jailed.ws)
    await run_planning(jailed, case[1], read_only=False)
    assert workspace_state(jailed.ws) != before


async def test_in_plan_mode_tmp_stays_writable_and_reads_work(jailed: Fixture):
    output = await run_planning(
        jailed, "echo t > /tmp/t && cat /tmp/t && cat app.py && git status --short"
    )
    assert output.startswith("t\nprint('hi')\nran-0")
