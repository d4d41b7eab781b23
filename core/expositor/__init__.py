"""The Expositor (issue 16): Casandra's contracts over HTTP (``core.expositor.app.create_app``) and MCP."""
