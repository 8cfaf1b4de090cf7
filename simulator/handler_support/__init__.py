"""The request machinery a handler runs inside, apart from the handlers themselves.

What a handler gets (``context``; a query handler, ``query_context``), the envelope built around its result (``envelope``), what a
refused request puts back (``refusals``), the activity's policy-language view (``activity_view``)
and scripted matching (``matching``), the session's scope (``session_scope``), the IP allowlist
check (``ip_allowlist_check``) and resource allowances (``limits``). It imports no handler, no
model, no stand-in and no consensus code, so all of them can build on it. The records and rules
several handler families share are in ``simulator/model/``; the simulated outside world is in
``simulator/standins/``.
"""
