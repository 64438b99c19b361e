"""The live web table: FastAPI, server-rendered pages with htmx, a REST API and WebSockets.

Route handlers are thin: they find out who is asking and hand the command to the table service. No rules
live here.
"""
