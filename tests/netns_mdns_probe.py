"""Helper process for tests/e2e/test_netns.py (run inside a test namespace).

``noise`` keeps a second, independent mDNS stack (its own zeroconf, port 5353) with a
service of its own; ``advertise NAME`` advertises a table and prints the wall-clock time
just before it starts; ``browse NAME`` prints ``{"browsing": true}`` once its lobby runs,
then the wall-clock times at which it started and first listed the table. Each runs
until its stdin closes (or, for ``browse``, the table is seen) and prints JSON lines.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sys
import time

from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from rami_lan.net.discovery import TableAd, TableAdvertiser, TableBrowser

ALL = {"interfaces": "all", "ip_version": IPVersion.V4Only}


async def _stdin_closed() -> None:
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


async def main(mode: str, name: str) -> None:
    if mode == "noise":
        zc = AsyncZeroconf(ip_version=IPVersion.V4Only)  # inside the namespace: lo + its veth
        info = AsyncServiceInfo("_http._tcp.local.", f"noise {secrets.token_hex(3)}._http._tcp.local.",
                                port=8080, properties={"x": "1"}, server="noise.local.",
                                parsed_addresses=["10.231.0.250"])
        await zc.async_register_service(info, cooperating_responders=True)
        print(json.dumps({"ready": True}), flush=True)
        await _stdin_closed()
        await zc.async_close()
    elif mode == "advertise":
        ad = TableAd(table_id=secrets.token_hex(8), name=name, host="probe", variant="rami",
                     seats_taken=1, seats_total=2, point_limit=100)
        adv = TableAdvertiser(ad, 47500, **ALL)  # type: ignore[arg-type]
        started = time.time()
        await adv.start()
        print(json.dumps({"started": started}), flush=True)
        await _stdin_closed()
        await adv.stop()
    elif mode == "browse":
        seen = asyncio.Event()
        when: dict[str, float] = {}

        def on_change(event: object) -> None:
            table = getattr(event, "table", None)
            if table is not None and table.name == name:
                when.setdefault("listed", time.time())
                seen.set()

        started = time.time()
        async with TableBrowser(on_change=on_change, **ALL):  # type: ignore[arg-type]
            print(json.dumps({"browsing": True}), flush=True)
            await asyncio.wait_for(seen.wait(), 10.0)
        print(json.dumps({"browse_started": started, **when}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""))
