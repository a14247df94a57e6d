"""End to end, in Chromium: a user uploads a 60-sentence file. The picker names the file, and the heatmap says
what its numbers must be read against: the chance level beside every value (in the note and in every cell), the
default k lowered to 10% of the candidates, and the small-corpus note on the embedders trained on these 60
sentences, with the switch that trains them with the built-in corpus."""

from __future__ import annotations

from browser_app import HEATMAP, PICKER, no_exception, upload


def test_a_60_sentence_upload_shows_chance_and_the_small_corpus_note(server, tab):
    page = tab({"width": 1500, "height": 1100})
    page.goto(server)
    page.locator(HEATMAP).first.wait_for(timeout=240_000)
    upload(page, "sixty.txt", 60)
    page.locator(HEATMAP).first.wait_for(timeout=240_000)
    no_exception(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    picker = page.locator(PICKER).first
    assert picker.input_value() == "Uploaded: sixty (60 sentences)"  # not "Upload a file…"
    assert "k=5" in page.url  # the default k = 10 would be 17% of the 59 other sentences
    main = page.locator("[data-testid='stMain']").inner_text()
    assert "Chance k/(N−1) = 5/59 = 0.085" in main
    assert "Each cell's second line is its N2O as a multiple of chance" in main
    assert "word2vec and fasttext are trained on only 60 sentences here, so their neighbors are mostly" in main
    assert "word2vec needs 20,000 training sentences, while fasttext needs more than 20,000" in main
    cells = page.locator("[data-testid='stPlotlyChart'] .js-plotly-plot text", has_text="×")
    assert cells.count() >= 12  # 4 embedders: 12 off-diagonal cells, each with its multiple of chance
    assert sidebar.get_by_text("Train word2vec / fastText with BBC News").is_visible()
