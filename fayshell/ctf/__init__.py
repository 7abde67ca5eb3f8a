"""CTF 1.8 reader (LTTng traces): TSDL metadata parser and columnar packet decoder.

* :func:`fayshell.ctf.trace.open_trace` reads ``metadata`` (packetized or text), parses it
  (:mod:`fayshell.ctf.tsdl`) and compiles per-event-class instruction lists
  (:mod:`fayshell.ctf.program`).
* :func:`fayshell.ctf.decode.stream_readers` decodes each stream file in batches of Arrow
  columns, with the C extension ``fayshell.ctf._decode`` when it was built at install, or the
  Python executor of the same instructions (:mod:`fayshell.ctf.pyexec`) otherwise.
* Damage becomes :class:`fayshell.errors.TraceFormatError` (file and byte offset); the events
  decoded before it are kept.
"""
