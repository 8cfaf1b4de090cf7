"""The managed auth proxy: /v1/... on its own address, forwarding through the public interface."""
