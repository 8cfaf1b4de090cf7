"""``serve``'s log, written off the response path.

A request's line costs the request thread one ``queue.put`` of its fields; this module's thread
turns them into log records, formats them with the configured formatter (the same text or JSON
lines as ever) and writes them a batch at a time, flushing once per batch: under load that is one
write for many lines instead of a ``LogRecord``, a format and a flushed write per request on the
thread that answers (measured: about a sixth of whoami's throughput). The writer wakes once per
batch, ``GATHER_SECONDS`` after its first line, so a line reaches the stream within about 50 ms;
it sleeps on the queue while nothing is logged. Other log records (webhooks,
errors) go through the same queue, so lines stay in the order they were made. ``stop`` drains it.
"""

from __future__ import annotations

import copy
import logging
import logging.handlers
import queue
import threading
import time
from typing import Any

STOP = object()
GATHER_SECONDS = 0.05  # after a line arrives, how long the writer lets others gather before it writes
REQUESTS = "simulator.requests"  # the logger whose records a request's line stands for


class LineWriter:
    def __init__(self, handler: logging.StreamHandler[Any]) -> None:
        self.handler = handler
        self.queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="simulator-log-writer", daemon=True)
        self.thread.start()

    def request(self, message: str, fields: dict[str, Any], level: int = logging.INFO) -> None:
        """Queue a request's line (the ``simulator.requests`` record it stands for is made on the writer's thread)."""
        self.queue.put((time.time(), message, fields, level))

    def stop(self, timeout: float = 5.0) -> None:
        if self.thread.is_alive():
            self.queue.put(STOP)
            self.thread.join(timeout)

    def _run(self) -> None:
        while True:
            batch = [self.queue.get()]
            if batch[0] is not STOP:
                # one wake-up per batch: woken per line, the writer would take the interpreter from the
                # thread answering the next request on every line (measured: as costly as the lines)
                time.sleep(GATHER_SECONDS)
            while True:
                try:
                    batch.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            for item in batch:
                if item is STOP:
                    self.handler.flush()
                    return
                self._write(item if isinstance(item, logging.LogRecord) else log_line(*item))
            self.handler.flush()

    def _write(self, record: logging.LogRecord) -> None:
        if record.levelno < self.handler.level:
            return
        try:
            text = self.handler.format(record)
            self.handler.acquire()
            try:
                self.handler.stream.write(text + self.handler.terminator)
            finally:
                self.handler.release()
        except Exception:  # a closed stream: logging's own rule, reported and not raised
            self.handler.handleError(record)


def log_line(created: float, message: str, fields: dict[str, Any], level: int = logging.INFO) -> logging.LogRecord:
    record = logging.getLogger(REQUESTS).makeRecord(
        REQUESTS, level, "", 0, message, (), None, extra={"request": fields}
    )
    record.created, record.msecs = created, (created - int(created)) * 1000  # when it was answered, not written
    return record


class Handoff(logging.handlers.QueueHandler):
    """Queues a record as it is: the message merged with its arguments now (they may change), the
    formatting and the exception's text left to the writer's formatter, on the writer's thread."""

    def __init__(self, writer: LineWriter) -> None:
        super().__init__(writer.queue)
        self.writer = writer

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        record = copy.copy(record)
        record.msg, record.args = record.getMessage(), None
        return record
