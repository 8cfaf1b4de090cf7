"""The auth proxy's domain half: its configurations (``config``) and the captcha they require
(``captcha``). The core, the pipeline and seeding read them; the proxy's HTTP surface
(``simulator/auth_proxy/``: routes, endpoints, forwarding) sits above the pipeline and builds on them.
"""
