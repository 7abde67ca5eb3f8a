"""Dump a trace with babeltrace2's Python bindings as JSON lines (run under /usr/bin/python3).

One line per event: [name, ns_from_origin, cpu_id, context, payload]; then one final line
{"discarded_events": N, "discarded_packets": M}. Used by the differential tests only.
"""

import json
import sys

import bt2

_CONV = {}


def value(f):
    """A bt2 field as plain JSON-able Python data (enums as their integer value)."""
    conv = _CONV.get(type(f))
    if conv is None:
        conv = _CONV[type(f)] = _converter(f)
    return conv(f)


def _converter(f):
    if isinstance(f, bt2._StringFieldConst):
        # bt2 hands invalid UTF-8 as surrogate escapes; show them as U+FFFD like the CLI
        return lambda x: str(x).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if isinstance(f, (bt2._UnsignedIntegerFieldConst, bt2._SignedIntegerFieldConst)):
        return int
    if isinstance(f, bt2._RealFieldConst):
        return float
    if isinstance(f, bt2._BoolFieldConst):
        return bool
    if isinstance(f, bt2._StructureFieldConst):
        return lambda s: {k: value(v) for k, v in s.items()}
    if isinstance(f, bt2._ArrayFieldConst):
        return lambda a: [value(v) for v in a]
    if isinstance(f, bt2._VariantFieldConst):
        return lambda v: {
            v.cls.option_at_index(v.selected_option_index).name: value(v.selected_option)
        }
    if isinstance(f, bt2._OptionFieldConst):
        return lambda o: None if o.field is None else value(o.field)
    raise TypeError(type(f))


def main(path: str) -> None:
    out = sys.stdout
    disc_ev = disc_pk = 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            pctx = ev.packet.context_field if ev.packet is not None else None
            cpu = int(pctx["cpu_id"]) if pctx is not None and "cpu_id" in pctx else None
            ctx = {}
            if ev.common_context_field is not None:
                ctx.update(value(ev.common_context_field))
            if ev.specific_context_field is not None:
                ctx.update(value(ev.specific_context_field))
            payload = value(ev.payload_field) if ev.payload_field is not None else {}
            out.write(
                json.dumps([ev.name, msg.default_clock_snapshot.ns_from_origin, cpu, ctx, payload])
                + "\n"
            )
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            disc_ev += msg.count or 0
        elif type(msg) is bt2._DiscardedPacketsMessageConst:
            disc_pk += msg.count or 0
    out.write(json.dumps({"discarded_events": disc_ev, "discarded_packets": disc_pk}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
