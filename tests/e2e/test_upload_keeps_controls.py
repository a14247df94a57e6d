"""End to end, in Chromium: an upload changes the corpus and nothing else. The picker names the uploaded file on
the page it was uploaded from and on the pages the user switches to, and a page's own controls keep what the user
set: while "Upload a file…" waits for a file the pages keep the corpus shown so far, so their controls are never
dropped (a control that was dropped came back at its first option, or drawn empty while the page used another
value)."""

from __future__ import annotations

from browser_app import HEATMAP, PICKER, no_exception, settle, upload

MAIN = "[data-testid='stMain']"


def go(page, nav: str, heading: str) -> None:
    """Switch pages with the sidebar's menu (the session, and its upload, stay)."""
    page.locator("[data-testid='stSidebarNav'] a", has_text=nav).click()
    page.get_by_role("heading", name=heading).first.wait_for(timeout=240_000)
    settle(page, timeout=600_000)
    no_exception(page)


def checked(page) -> list[str]:
    """The options chosen in the page's segmented controls, as drawn."""
    return page.locator(f"{MAIN} button[aria-checked='true']").all_inner_texts()


def slider(page, label: str) -> str:
    return page.locator(f"{MAIN} input[type=range][aria-label='{label}']").first.get_attribute("aria-valuetext")


def chips(page, label: str) -> list[str]:
    box = page.locator(f"{MAIN} [data-testid=stMultiSelect]", has_text=label).first
    return box.locator("[data-tag] span[title]").all_inner_texts()


def test_an_upload_keeps_the_pages_controls_and_the_picker_names_the_file(server, tab):
    page = tab({"width": 1500, "height": 1100})
    page.goto(f"{server}/tokens")
    page.locator(f"{MAIN} [data-testid=stButtonGroup]").first.wait_for(timeout=240_000)
    settle(page)
    page.locator(MAIN).get_by_text("every word", exact=True).click()
    settle(page)
    assert checked(page) == ["every word"]

    upload(page, "first.txt", 120)
    no_exception(page)
    assert page.locator(PICKER).first.input_value() == "Uploaded: first (120 sentences)"
    assert checked(page) == ["every word"]  # drawn as used: every word counted
    assert page.locator(MAIN).get_by_text("every word counted").first.is_visible()
    assert "words=all" in page.url

    go(page, "Probing tasks", "Probing tasks")
    assert page.locator(PICKER).first.input_value() == "Uploaded: first (120 sentences)"
    thumb = page.locator(f"{MAIN} input[type=range][aria-label='Items per class, at most']").first
    thumb.focus()
    thumb.press("ArrowLeft")  # 1,000 -> 500
    settle(page)
    page.locator(MAIN).get_by_role("button", name="Remove MLP").click()
    settle(page)
    assert slider(page, "Items per class, at most") == "500" and chips(page, "Classifiers") == ["logistic regression"]

    upload(page, "second.txt", 130)  # waits until the picker names it
    settle(page, timeout=600_000)
    no_exception(page)
    assert page.locator(PICKER).first.input_value() == "Uploaded: second (130 sentences)"
    assert slider(page, "Items per class, at most") == "500"  # not the first option, 50
    assert chips(page, "Classifiers") == ["logistic regression"]
    assert len(chips(page, "Tasks")) == 10  # drawn, not empty
    assert "per_class=500" in page.url and "clf=lr" in page.url

    go(page, "N2O heatmap", "N2O heatmap")
    page.locator(HEATMAP).first.wait_for(timeout=240_000)
    assert page.locator(PICKER).first.input_value() == "Uploaded: second (130 sentences)"
    assert page.locator(MAIN).get_by_text("N = 130 sentences").first.is_visible()
