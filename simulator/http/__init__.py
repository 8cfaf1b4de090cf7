"""One HTTP request as every part reads it: its entry in the request log (log_entry.py), its body's reading and bounds
(request_body.py), the Flask request behind it (flask_context.py), and the request log (logs.py, written off the
response path by log_writer.py, with the status lines of status_line.py)."""
