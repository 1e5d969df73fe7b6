"""Commands refused whatever the policy, matched on parsed words rather than substrings."""

from __future__ import annotations

import pytest

from workspace_agent.tools.command_policy import refusal


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("sudo rm -rf build", "escalates privileges (sudo)"),
        ("sudo  rm", "escalates privileges (sudo)"),
        ("FOO=1 sudo -E make install", "escalates privileges (sudo)"),
        ("echo pw | su - root -c id", "escalates privileges (su)"),
        ("ls; doas reboot", "escalates privileges (doas)"),
        ("/usr/bin/sudo ls", "escalates privileges (sudo)"),
        ("nohup sudo ls &", "escalates privileges (sudo)"),
        ("timeout 5 sudo ls", "escalates privileges (sudo)"),
        ("bash -c 'sudo ls'", "escalates privileges (sudo)"),
        ("sh -c \"eval 'pkexec id'\"", "escalates privileges (pkexec)"),
        ("ls\nsudo ls", "escalates privileges (sudo)"),
        ("rm -rf /", "deletes / recursively"),
        ("rm -fr ~", "deletes ~ recursively"),
        ("rm -r -f /*", "deletes /* recursively"),
        ("rm --recursive --force $HOME", "deletes $HOME recursively"),
        ("cd x && rm -rf ~/", "deletes ~/ recursively"),
        ("mkfs.ext4 /dev/sdb1", "formats a disk (mkfs.ext4)"),
        ("dd if=/dev/zero of=/dev/nvme0n1", "writes to a disk device with dd"),
        ("cat image.iso > /dev/sdb", "writes to the disk device /dev/sdb"),
        ("shutdown -h now", "shuts down or reboots the machine"),
        ("systemctl reboot", "shuts down or reboots the machine"),
        ("init 0", "shuts down or reboots the machine"),
        (":(){ :|:& };:", "is a fork bomb"),
        ("bomb(){ bomb|bomb& };bomb", "is a fork bomb"),
    ],
)
def test_refused(command: str, why: str):
    assert refusal(command) == f"it {why}"


@pytest.mark.parametrize(
    "command",
    [
        "grep sudo README",
        "echo 'sudo is dangerous'",
        "git log --grep=reboot",
        "rm -rf build/",
        "rm -rf ./node_modules ~/project/tmp",
        "rm /tmp/file",
        "dd if=/dev/zero of=out.img bs=1k count=1",
        "cat file > /dev/null",
        "man shutdown",
        "python -c 'print(\"rm -rf /\")'",
        "find . -name '*.pyc' -delete",
        "echo 'unbalanced",
        "ls # sudo in a comment",
    ],
)
def test_allowed(command: str):
    assert refusal(command) is None
