"""A private, real lttng-sessiond for tests, run as a dedicated unprivileged uid.

Why a uid of its own and not root: a root sessiond always uses the global /run/lttng (whatever
LTTNG_HOME says), which every other test run and every lttngust program on the machine would also
see (cluster-notes gotcha 5). A per-user sessiond lives under ``$LTTNG_HOME/.lttng`` instead. The
uid needs no passwd entry (processes are started with setuid/setgid directly), and it is picked so
that no process runs under it yet; at teardown every process of that uid — the sessiond, its
consumer daemons, stray workloads — is ended by pid, and its home is removed.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from fayshell.lttng import StartSessiond

SYSTEM_PYTHON = "/usr/bin/python3"
UID_BASE = 62100


@dataclass
class Run:
    """The result of one command: argv, exit code and decoded output."""

    argv: list[str]
    rc: int
    stdout: str
    stderr: str


def _uids_in_use() -> set[int]:
    uids = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            with contextlib.suppress(OSError):
                uids.add(os.stat(f"/proc/{pid}").st_uid)
    return uids


def _pick_uid() -> int:
    used = _uids_in_use()
    start = UID_BASE + os.getpid() % 800
    for uid in range(start, start + 200):
        try:
            import pwd

            pwd.getpwuid(uid)
            continue
        except KeyError:
            pass
        if uid not in used:
            return uid
    raise RuntimeError("no free uid for a private lttng-sessiond")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pids_of(uid: int) -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.stat(f"/proc/{pid}").st_uid == uid:
                    with open(f"/proc/{pid}/stat") as f:
                        state = f.read().rsplit(")", 1)[1].split()[0]
                    if state != "Z":  # zombies are already dead (gotcha 9)
                        out.append(int(pid))
            except (OSError, IndexError):
                pass
    return out


class PrivateSessiond:
    """Start/stop a per-user lttng-sessiond and run lttng, workloads and bt2 against it."""

    def __init__(self) -> None:
        self.uid = _pick_uid()
        self.gid = self.uid
        # Short path: unix sockets live under $LTTNG_HOME/.lttng (108-byte limit, gotcha 8).
        self.home = Path(tempfile.mkdtemp(prefix="flt", dir="/tmp"))
        os.chown(self.home, self.uid, self.gid)
        self.home.chmod(0o755)
        self.agent_port = _free_port()
        self.env = {
            "HOME": str(self.home),
            "LTTNG_HOME": str(self.home),
            "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "LANG": "C.UTF-8",
            # Registration with the sessiond must finish before a workload's first event, or the
            # counts are off: on a loaded 2-core machine the defaults (3 s C, 5 s Python) are short.
            "LTTNG_UST_REGISTER_TIMEOUT": "30000",
            "LTTNG_UST_PYTHON_REGISTER_TIMEOUT": "30000",
        }
        self.started = False

    # -- processes -------------------------------------------------------------------------
    def _popen_args(self, argv: list[str], hide_root_sessiond: bool) -> tuple[list[str], dict]:
        kw: dict = {"env": self.env, "cwd": self.home, "text": True}
        if hide_root_sessiond and os.path.isdir("/run/lttng"):
            # A root sessiond would also be registered with, and can stall lttngust (gotcha 5):
            # hide /run/lttng behind a private tmpfs in a mount namespace, then drop privileges.
            return [
                "unshare",
                "--mount",
                "--propagation",
                "private",
                "--",
                "sh",
                "-c",
                'mount -t tmpfs tmpfs /run/lttng && exec setpriv --reuid="$0" --regid="$0" '
                '--clear-groups -- "$@"',
                str(self.uid),
                *argv,
            ], kw
        kw.update(user=self.uid, group=self.gid, extra_groups=[])
        return argv, kw

    def _run(self, argv: list[str], timeout: float = 30, hide_root_sessiond: bool = False) -> Run:
        cmd, kw = self._popen_args(argv, hide_root_sessiond)
        proc = subprocess.run(cmd, capture_output=True, timeout=timeout, **kw)
        return Run(argv, proc.returncode, proc.stdout, proc.stderr)

    def start(self) -> None:
        """Start the daemon; returns when it accepts commands."""
        r = self._run(StartSessiond(agent_port=self.agent_port).argv())
        if r.rc != 0:
            raise RuntimeError(f"lttng-sessiond did not start: {r.stderr.strip()}")
        self.started = True
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.lttng(["lttng", "list"]).rc == 0:
                return
            time.sleep(0.05)
        raise RuntimeError("lttng-sessiond started but does not answer")

    def stop(self) -> None:
        """Destroy all sessions, end every process of the uid (by pid), remove the home."""
        if self.started:
            # A wedged daemon is killed below all the same.
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.lttng(["lttng", "destroy", "--all"], timeout=10)
        deadline = time.monotonic() + 5
        sig = signal.SIGTERM
        while True:
            pids = _pids_of(self.uid)
            if not pids:
                break
            if time.monotonic() > deadline:
                sig = signal.SIGKILL
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            time.sleep(0.1)
        shutil.rmtree(self.home, ignore_errors=True)
        self.started = False

    # -- commands --------------------------------------------------------------------------
    def lttng(self, argv: list[str], timeout: float = 30) -> Run:
        """Run an lttng argv (as built by fayshell.lttng.argv) as the sessiond's user."""
        return self._run(argv, timeout)

    def ok(self, argv: list[str]) -> Run:
        """Run an lttng argv and insist on success."""
        r = self.lttng(argv)
        assert r.rc == 0, f"{argv} -> rc {r.rc}: {r.stderr.strip()}"
        return r

    def output_dir(self, name: str) -> Path:
        """A fresh directory the sessiond's user may write traces into (it must not exist yet)."""
        return self.home / "traces" / name

    def workload(self, argv: list[str], timeout: float = 60) -> dict:
        """Run a traced workload as the user; return its JSON summary."""
        r = self._run(argv, timeout, hide_root_sessiond=True)
        assert r.rc == 0, f"{argv} -> rc {r.rc}: {r.stderr.strip()}"
        return json.loads(r.stdout.strip().splitlines()[-1])

    def spawn_workload(self, argv: list[str]) -> subprocess.Popen[str]:
        """Start a workload in the background (for rotation while it runs)."""
        cmd, kw = self._popen_args(argv, True)
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)

    @staticmethod
    def summary(proc: subprocess.Popen[str], timeout: float = 60) -> dict:
        """Wait for a spawned workload and return its JSON summary."""
        out, err = proc.communicate(timeout=timeout)
        assert proc.returncode == 0, f"workload rc {proc.returncode}: {err.strip()}"
        return json.loads(out.strip().splitlines()[-1])


def bt2_events(bt2_dump: Path, *paths: Path) -> list[dict]:
    """Decode traces with babeltrace2 (bt2 Python bindings) into event dicts."""
    proc = subprocess.run(
        [SYSTEM_PYTHON, str(bt2_dump), *map(str, paths)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines() if line]
