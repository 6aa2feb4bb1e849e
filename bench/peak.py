"""Runs one command and measures it as the kernel saw it: wall time, user and
system CPU time, and peak resident memory.

The peak is the kernel's `ru_maxrss` from `wait4`, so it counts everything the
process touched, its binary included. That figure has a floor that is not the
process's own: on `execve` Linux carries the high-water mark of the address
space being replaced into the new program's, and a spawned child's address
space is, until then, its parent's. A benchmark that built a 200 MB page in
Python would see every process it starts peak at 200 MB or more, however
little that process used. So the command is started by a launcher, a fresh
interpreter whose own peak is a few megabytes, which waits for it and
reports its figures; the wall time is the launcher's clock around the
command alone, so the launcher's own start-up is in no figure. What is left
of the floor is the launcher's own peak, a bare interpreter's: about 13 MB
on the project's machine, which a command that peaks lower reports instead
of its own.

    from peak import measured
    run = measured(["mend", "run", ...], stdout=subprocess.PIPE)
    run.wall, run.user, run.system, run.peak_bytes, run.exit_code, run.stdout, run.stderr
"""

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass

# The launcher imports nothing beyond `os` and `time`, so that its own peak
# (the floor of the command's) stays that of a bare interpreter; the command
# inherits its standard streams, so its output reaches the caller's pipes.
LAUNCHER = r"""
import os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
took = time.perf_counter() - start
with open(sys.argv[1], "w") as out:
    out.write('{"wall": %r, "user": %r, "system": %r, "peak_bytes": %d, "exit_code": %d}' % (
        took, usage.ru_utime, usage.ru_stime, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)))
"""


@dataclass
class Measured:
    wall: float
    user: float
    system: float
    peak_bytes: int
    exit_code: int
    stdout: bytes
    stderr: bytes


def measured(cmd, cwd=None, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE):
    """Runs `cmd` in `cwd` through the launcher; its output goes where
    `stdout` and `stderr` say (captured when they are PIPE)."""
    with tempfile.TemporaryDirectory(prefix="mend-peak-") as scratch:
        report = os.path.join(scratch, "report.json")
        done = subprocess.run([sys.executable, "-c", LAUNCHER, report, *map(str, cmd)],
                              cwd=cwd, stdout=stdout, stderr=stderr)
        if not os.path.exists(report):
            said = (done.stderr or b"").decode(errors="replace")[-400:]
            raise RuntimeError(f"cannot run {cmd[0]} (the launcher exited with {done.returncode}): {said}")
        with open(report, encoding="utf-8") as handle:
            figures = json.load(handle)
    return Measured(stdout=done.stdout or b"", stderr=done.stderr or b"", **figures)
