"""Is a node ready for tracing? One probe per node, one :class:`NodeReadiness` record each.

The probe is a fixed shell script (no user input in it): kernel release, ``lttng --version``,
whether the user's ``lttng-sessiond`` answers (``lttng list``), whether the LTTng kernel tracer
is loaded or loadable, whether Python's ``lttngust`` agent is importable by ``python3`` or the
system's ``/usr/bin/python3`` (looked up with
``find_spec``, not imported: importing registers with a sessiond and may wait seconds).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from fayshell.remote.transport import Transport

PROBE = r"""
echo "kernel=$(uname -r)"
echo "hostname=$(hostname)"
echo "lttng=$(lttng --version 2>/dev/null | head -n 1)"
if lttng list >/dev/null 2>&1; then echo sessiond=1; else echo sessiond=0; fi
if [ -e /proc/lttng ] || [ -d /sys/module/lttng_tracer ] || \
   modinfo lttng_tracer >/dev/null 2>&1; then echo kernel_tracer=1; else echo kernel_tracer=0; fi
agent=0
for py in python3 /usr/bin/python3; do
  if "$py" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("lttngust") is None)' \
     >/dev/null 2>&1; then agent=1; fi
done
echo python_agent=$agent
"""


@dataclass(frozen=True)
class NodeReadiness:
    """What ``Test-Node`` reports for one node (``error`` says why when not reachable)."""

    node: str
    reachable: bool
    rtt_ms: float | None = None
    hostname: str = ""
    kernel: str = ""
    lttng_version: str = ""
    sessiond: bool = False
    kernel_tracer: bool = False
    python_agent: bool = False
    error: str = ""


def parse_probe(node: str, rtt_ms: float, stdout: str) -> NodeReadiness:
    """The record for a probe's ``key=value`` output."""
    values = dict(line.split("=", 1) for line in stdout.splitlines() if "=" in line)
    version = values.get("lttng", "").strip()
    if version.startswith("lttng"):  # "lttng (LTTng Trace Control) 2.13.9 - Nordicité"
        parts = version.split()
        version = next((p for p in parts if p[:1].isdigit()), version)
    return NodeReadiness(
        node=node,
        reachable=True,
        rtt_ms=rtt_ms,
        hostname=values.get("hostname", ""),
        kernel=values.get("kernel", ""),
        lttng_version=version,
        sessiond=values.get("sessiond") == "1",
        kernel_tracer=values.get("kernel_tracer") == "1",
        python_agent=values.get("python_agent") == "1",
    )


async def probe(transport: Transport, timeout: float | None = None) -> NodeReadiness:
    """Round-trip time of a trivial command, then the probe script, on one node."""
    start = time.perf_counter()
    await transport.run("true", timeout=timeout)
    rtt = round((time.perf_counter() - start) * 1000, 3)
    result = await transport.run(PROBE, timeout=timeout)
    return parse_probe(transport.node, rtt, result.stdout)
