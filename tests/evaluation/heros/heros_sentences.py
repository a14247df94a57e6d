"""Hand-written news sentences shared by the HEROS tests: six of them have a verb or predicative adjective that the
vetted lexicon lists for its context (approved the merger, sales increased, shares rose, were illegal, profits
fell, boosted its exports)."""

SENTENCES = [
    "The strong economy helped the government win the election last year.",
    "Shares in the company rose sharply after the results were published on Monday.",
    "The team played a terrible game and lost to their old rivals again.",
    "The minister said the new rules were illegal under European law.",
    "Profits at the bank fell by a third in the last three months of the year.",
    "The film received good reviews from critics but failed at the box office.",
    "Analysts expect weak demand for new cars across Europe this winter.",
    "The board approved the merger after a long and difficult meeting.",
    "Sales of cheap phones increased strongly in Asia during the summer.",
    "The firm boosted its exports to China with a cheaper product line.",
]
