"""``serve --data-dir DIR``: the whole state kept on disk across restarts and crashes.

``files`` is the on-disk format (a base document and an append-only log of framed records),
``directory`` the open directory (its lock, loading, appending, compaction), ``gate`` the WSGI
wrapper that writes a record after every state-changing request and before its answer leaves.
``tracker`` finds what changed since the last record (``ChangeTracker``, through the ``watchers``, which
compare ``signatures``; ``voter_views``: voters written once each), ``log_applier`` applies the records
to the base when the directory loads (``LogApplier``).
"""
