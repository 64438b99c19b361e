"""The WebSocket endpoint: /ws/campaigns/{id}."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, HTTPException, WebSocket, WebSocketDisconnect

from herotable.server.deps import Services
from herotable.server.live import Hub, Viewer
from herotable.server.proxy import same_site
from herotable.server.security import SESSION_COOKIE
from herotable.server.tokens import bearer_of

router = APIRouter()
MAX_CURSOR = 40  # as the events API takes them; a longer one is none of ours


@router.websocket("/ws/campaigns/{campaign_id}")
async def campaign_socket(socket: WebSocket, campaign_id: str) -> None:
    """Live frames for one member: the events they may see, and their view, as they happen. A socket opened again
    after a drop passes `after` (the cursor of the last frame it got) and `role` (that frame's role) to be sent what
    it missed, once and in order, rather than a "hello"."""
    svc: Services = socket.app.state.services
    origin = socket.headers.get("origin")
    public_url = svc.settings.public_url
    if origin and not same_site(
        origin, public_url=public_url, scheme=socket.url.scheme, host=socket.headers.get("host")
    ):
        await socket.close(code=4403, reason="cross-site live connections are refused")
        return
    hub: Hub = socket.app.state.hub
    session = svc.sessions.load(socket.cookies.get(SESSION_COOKIE))
    user, sid, token_hash = None, "", ""
    header = bearer_of(socket)
    if header is not None:  # an API token: any scope may watch, its own campaign only when bound to one
        try:
            token, user = await asyncio.to_thread(svc.tokens.resolve, header)
        except HTTPException:
            await socket.close(code=4401, reason="this API token is unknown, revoked or expired")
            return
        if token.campaign_id not in (None, campaign_id):
            await socket.close(code=4403, reason="this API token reaches another campaign")
            return
        token_hash = token.token_hash
    elif session is not None and session.user_id is not None:
        user = await asyncio.to_thread(svc.live_sessions.user, session.sid, session.user_id)
        sid = session.sid
    if user is None:
        await socket.close(code=4401, reason="log in first")
        return
    try:
        state = svc.table.state(campaign_id)
    except Exception:
        await socket.close(code=4404, reason="no such campaign")
        return
    if state.role_of(user.user_id) is None:
        await socket.close(code=4403, reason="not a member of this campaign")
        return
    await socket.accept()
    viewer = Viewer(socket, campaign_id, user.user_id, sid, token_hash=token_hash)
    after, role = socket.query_params.get("after"), socket.query_params.get("role")
    await hub.join(viewer, after=after if after and len(after) <= MAX_CURSOR else None, role=role)
    try:
        await hub.recheck(viewer)  # an ending between the check above and the join found no socket to close
        while True:
            await socket.receive_text()  # the client only listens; anything it sends is ignored
    except (WebSocketDisconnect, RuntimeError):  # RuntimeError: the hub closed it (removed, logged out)
        pass
    finally:
        hub.leave(viewer)
