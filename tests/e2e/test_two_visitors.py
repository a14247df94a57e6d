"""Two visitors at once on a shared server (N2O_SHARED=1), in headless Chromium: a friendly one tours every page from
the sidebar while a hostile one opens every page through links full of server paths, a Dask host and junk values,
and uploads a 3-line and a 50-line corpus. Neither ever sees an exception element or a line of a server file; the
friendly visitor's pages never show the hostile one's warnings, failures or corpus; the server never connects to
the linked host; and the server's resident memory after both tours is within the budget (tools.dashboard_server: the one
visitor's budget plus one more session)."""

from __future__ import annotations

import socket
import sys
import urllib.parse
from pathlib import Path

import pytest
from browser_app import EXCEPTION, settle, upload

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from app_server import running_server  # noqa: E402

from tools.dashboard_server import memory_budget_mb, resident_mb  # noqa: E402
from ui.nav import PAGES as NAV_PAGES  # noqa: E402

pytestmark = pytest.mark.slow  # about two minutes: WordNet, spaCy and UMAP load once on the way

#: (url path, nav label, heading) of every page, in navigation order (ui.nav).
PAGES = [(p.name, p.title, p.heading) for p in NAV_PAGES]
#: What /etc/passwd holds on any Linux machine (its first line); never on a page.
PASSWD = "root:x:0"
#: Texts only the hostile visitor's actions can put on a page.
HOSTILE_MARKS = ("passwd", "/etc", "/dev/zero", "Retry failed embedders", "three-lines", "fifty-lines", "tcp://")
UPLOADS = {"three-lines.txt": 3, "fifty-lines.txt": 50}


def junk(port: int, page: str) -> str:
    """A hostile link's query: server paths as embedders and corpus, a Dask host, values of every wrong kind."""
    host = f"tcp://127.0.0.1:{port}"
    return urllib.parse.urlencode(
        {
            "k": "abc",
            "emb": "tfidf,wv:/etc/passwd,st:/etc,wv:/dev/zero,hf:/etc@mean,npy:/etc/passwd",
            "corpus": "/etc/passwd" if page != "heatmap" else "wv:/etc/passwd",
            "samples": "-1",
            "q": "zz",
            "seed": "1e999",
            "cap": "-5",
            "qid": "99999999",
            "text": "\x00\x01 /etc/passwd",
            "view": "../../etc/passwd",
            "pairs": "/etc/passwd",
            "npairs": "/etc/shadow",
            "tasks": "../../x,sentlen",
            "per_class": "-1",
            "fpairs": "abc",
            "talk": "maybe",
            "scheduler": host,
            "dask": host,
            "col": "/etc/passwd",
        }
    )


def check(page, *, friendly: bool) -> None:
    """No exception element and no server file's content; on the friendly page, nothing of the hostile visitor."""
    assert page.locator(EXCEPTION).count() == 0, f"{page.url}: {page.locator(EXCEPTION).first.inner_text()}"
    body = page.locator("body").inner_text()
    assert PASSWD not in body, page.url
    if friendly:
        leaked = [m for m in HOSTILE_MARKS if m in body]
        assert not leaked, f"{page.url} shows the hostile visitor's {leaked}"


def visit(page, label: str, heading: str) -> None:
    page.locator("[data-testid='stSidebarNav'] a", has_text=label).first.click()
    page.locator(f'h2:has-text("{heading}")').first.wait_for(timeout=600_000)
    settle(page, timeout=900_000)


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("two-visitors"), {"N2O_SHARED": "1"}) as server:
        yield server


def test_two_visitors_one_hostile_on_a_shared_server(shared_server, browser):
    url = shared_server.url
    trap = socket.socket()  # the Dask host the hostile links name: nothing may connect to it
    trap.bind(("127.0.0.1", 0))
    trap.listen(4)
    trap.setblocking(False)
    port = trap.getsockname()[1]
    size = {"width": 1400, "height": 1000}
    friend_ctx, foe_ctx = browser.new_context(viewport=size), browser.new_context(viewport=size)
    try:
        friend = friend_ctx.new_page()
        foe = foe_ctx.new_page()
        friend.goto(url)
        friend.locator("h2:has-text('N2O heatmap')").first.wait_for(timeout=600_000)
        settle(friend, timeout=600_000)
        check(friend, friendly=True)
        sidebar = friend.locator("[data-testid='stSidebar']")
        sidebar.get_by_text("Advanced").first.click()
        settle(friend)
        assert sidebar.get_by_text("Dask scheduler").count() == 0  # a shared server has no host field
        for name, label, heading in PAGES:
            foe.goto(f"{url}/{name}?{junk(port, name)}")  # a new session per link, as a crawler makes them
            foe.locator(f'h2:has-text("{heading}")').first.wait_for(timeout=600_000)
            settle(foe, timeout=900_000)
            check(foe, friendly=False)
            if name == "heatmap":  # the link's server paths are refused in words, none of them read
                said = foe.locator("[data-testid='stSidebar']").inner_text()
                assert "reads no files or folders named by a visitor" in said, said[:2000]
            if name != "heatmap":
                visit(friend, label, heading)
            check(friend, friendly=True)
        foe.goto(url)  # one session: two tiny uploads, then the pages that draw the corpus
        foe.locator("h2:has-text('N2O heatmap')").first.wait_for(timeout=600_000)
        settle(foe, timeout=600_000)
        for fname, lines in UPLOADS.items():
            upload(foe, fname, lines)
            check(foe, friendly=False)
            for _, label, heading in PAGES[:3]:
                visit(foe, label, heading)
                check(foe, friendly=False)
            visit(foe, PAGES[0][1], PAGES[0][2])
        for _, label, heading in PAGES[:3]:  # the friendly visitor's pages after all that
            visit(friend, label, heading)
            check(friend, friendly=True)
        assert "corpus=upload" not in friend.url
        with pytest.raises(BlockingIOError):
            trap.accept()  # no connection was attempted to the linked host
        rss = resident_mb(shared_server.pid)
        assert rss <= memory_budget_mb(2), f"server resident {rss:.0f} MB > budget {memory_budget_mb(2)} MB"
        print(f"server resident after both tours: {rss:.0f} MB (budget {memory_budget_mb(2)} MB)")
    finally:
        friend_ctx.close()
        foe_ctx.close()
        trap.close()
