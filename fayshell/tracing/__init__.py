"""Tracing orchestration across the cluster: LTTng sessions per node, and pulling their chunks.

* :mod:`fayshell.tracing.records` - the typed per-node records the trace cmdlets return.
* :mod:`fayshell.tracing.lttngrun` - run one `lttng` request on a node transport; failures become
  a :class:`fayshell.errors.RemoteError` (stage ``lttng``) carrying LTTng's reason.
* :mod:`fayshell.tracing.sessions` - per-node session operations (create with cleanup, list,
  output directory lookup) and the shell's memory of which nodes a session lives on.
* :mod:`fayshell.tracing.receive` - incremental, atomic, resumable pull of complete chunks.

Nothing here prints or knows about cmdlets; :mod:`fayshell.commands.trace` drives it.
"""
