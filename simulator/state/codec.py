"""The whole state as readable JSON and back: records by class name, bytes as hex.

One name for the codec's parts, each in a module of its own:
- ``encoding``: the state into JSON (``encode``); ``decoding``: back (``decode``, ``build``), documents of
  older versions too;
- ``lazy_activity``: a loaded document's settled activities, decoded when first read (``LazyActivity``);
- ``settled_memo``: the encodings of settled activities kept from one whole encoding to the next
  (``SettledMemo``, serve --data-dir's compactions);
- ``paced_export``: a large document written in pieces, giving the interpreter up between them
  (``iter_document``, the export);
- ``exactness``: which values an encoding took that orjson might not write as json does (``inexact``).
"""

from __future__ import annotations

from simulator.state.decoding import CLASSES, build, build_now, decode, resolve_activities
from simulator.state.encoding import (
    ACTIVITY_IDS,
    DOCUMENT_RECORDS,
    PLAIN_FIELDS,
    encode,
    encode_activity,
    field_names,
    fields_getter,
    record_document,
    record_fields,
    store_fields,
)
from simulator.state.exactness import inexact, note_inexact, note_inexact_numbers
from simulator.state.lazy_activity import LazyActivity
from simulator.state.paced_export import iter_document
from simulator.state.settled_memo import SettledMemo

__all__ = [
    "ACTIVITY_IDS",
    "CLASSES",
    "DOCUMENT_RECORDS",
    "PLAIN_FIELDS",
    "LazyActivity",
    "SettledMemo",
    "build",
    "build_now",
    "decode",
    "encode",
    "encode_activity",
    "field_names",
    "fields_getter",
    "inexact",
    "iter_document",
    "note_inexact",
    "note_inexact_numbers",
    "record_document",
    "record_fields",
    "resolve_activities",
    "store_fields",
]
